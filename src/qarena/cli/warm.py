"""qarena warm-up: compile the kernels once, so the first game after an install starts at once."""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from pathlib import Path

from qarena.cli.common import app, err
from qarena.i18n import _, number

#: One game of each kind of rules the kernels are compiled for (a heap, a board, gravity).
WARM_SPECS = ("nim:1,2", "subtraction:5:2", "tictactoe:2x2:2", "connect4:2x3:2")


def _warm_search() -> None:
    """The search solvers' kernels, as classic Connect Four and its book use them and as big
    tic-tac-toe boards do, on boards small enough to take no time."""
    from qarena.exact.book import BookBuild
    from qarena.exact.search import LineSearcher, Searcher
    from qarena.games import parse_spec

    game = parse_spec("connect4:4x4:4")
    searcher = Searcher(game, entries=10_007, workers=1)
    searcher.move_scores(game.start())
    searcher.move_scores(game.start(), weak=True)
    with tempfile.TemporaryDirectory(prefix="qarena-warm-") as folder:
        BookBuild(game, 2, str(Path(folder) / "b.npz"), entries=10_007).finish()
    board = parse_spec("tictactoe:3x3:3")  # tic-tac-toe boards beyond enumeration search with these
    lines = LineSearcher(board, entries=10_007)
    lines.move_scores(board.start())
    lines.move_scores(board.start(), weak=True)
    # An n-tuple network's self-play (one kernel serves every board, gravity or not).
    from qarena.learn.ntuple.network import NTupleNetwork

    NTupleNetwork.new(board, 1, 1).learn(1)


def _warm_mcts() -> None:
    """MCTS's compiled searches, as the thinking players use them (``mcts:N``, the web's
    presets, and ``mcts:N:network``): over a game's arrays (heaps and boards), on Connect Four
    bitboards, and with the shipped network scoring the leaves (its own arrays, so that the
    kernel is compiled for the types it is called with). Without it a fresh process's first
    MCTS move took 10 s on tic-tac-toe, 4.5 s on classic Connect Four and 17 s with the
    network (compiling); with it 0.7, 0.01 and 0.02 s."""
    from qarena.agents.players import player
    from qarena.games import parse_spec

    for spec, who in (
        ("nim:1,2", "mcts:20"),
        ("tictactoe:3x3:3", "mcts:20"),
        ("connect4:4x4:4", "mcts:20"),
        ("connect4", "mcts:20:network"),
    ):
        game = parse_spec(spec)
        player(who, game, seed=0).act(game.start())


@app.command("warm-up")
def warm_up_command() -> int:
    """Compile qarena's kernels now (numba keeps them on disk), so that the first game,
    training or solve after an install does not wait for them. make install runs this."""
    from qarena.cli.app import run

    t0 = time.perf_counter()
    # One line a step, so the wait (about a minute with an empty cache) is not silent.
    total = len(WARM_SPECS) * 2 + 2
    step = 0

    def say(what: str) -> None:
        nonlocal step
        step += 1
        err.print(
            _("Compiling qarena's kernels, {step} of {total}: {what}").format(
                step=step, total=total, what=what
            ),
            soft_wrap=True,
        )

    with tempfile.TemporaryDirectory(prefix="qarena-warm-") as folder:
        for spec in WARM_SPECS:
            policy = str(Path(folder) / "p.npz")
            # What a first game does: search, train with a curve (matches), judge, then eval.
            for argv, what in (
                (
                    ["train", spec, "--out", policy, "--until-perfect", "--curve", "--json"],
                    _("training on {spec}"),
                ),
                (["eval", policy, "--games", "10", "--json"], _("evaluating on {spec}")),
            ):
                say(what.format(spec=spec))
                said = io.StringIO()  # the step's own words, shown only if it fails
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
                    code = run(argv)
                if code:
                    err.print(said.getvalue(), end="")
                    return code
        say(_("search solvers and n-tuple networks"))
        _warm_search()
        say(_("MCTS searches"))
        _warm_mcts()
    err.print(
        _("qarena's kernels are compiled ({seconds} s)").format(
            seconds=number(time.perf_counter() - t0, ".1f")
        )
    )
    return 0
