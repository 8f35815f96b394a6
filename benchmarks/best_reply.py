"""The best reply (``qarena.best_reply``, issue 55), measured.

Three parts, each printed as it finishes:

``openspiel``: side by side with OpenSpiel's best response on tic-tac-toe. A Q-table
  (``qarena.train("tictactoe", episodes=2000, seed=7)``) is made one move per position — its
  greedy move, ties broken once per symmetry class by the agent's own ``act`` — and that one
  policy is given to both: to qarena as a table of moves (a dict player), to OpenSpiel as a
  ``TabularPolicy`` of its own ``tic_tac_toe`` (294,778 histories), each history's move the
  table's move in the same position. For each seat: OpenSpiel's ``BestResponsePolicy`` value
  at the root (the responder's expected return, here exact: the policy is deterministic)
  against qarena's ``secured`` (it must be its negation), and the time of each in the same
  run; then OpenSpiel's C++ ``TabularBestResponse`` (given the policy as a dict of its
  histories) and ``exploitability.nash_conv`` (both seats in one call) timed too.
``boards``: the best reply on tictactoe:4x4:4 and connect4:5x5 (``--big`` names them), the
  tables' build timed apart from the reply, for ``perfect`` and ``random`` (a random player
  may play every move: every state of the game is reached against it).
``learners``: every learner kind's default run on tic-tac-toe, tictactoe:4x4:4 and
  connect4:4x5 (``--minutes``, 0.5, caps a table learner's training, ``--network-minutes``, 2,
  a network's; a run stopped short says so; networks on the big boards are judged over 100,000
  decision positions drawn uniformly, as ``qarena eval --uniform 100000``):
  optimality, and per seat beaten or not, the line's length, seconds and states searched;
  then the shipped Connect Four network on classic Connect Four, by the search for a
  refutation within ``qarena beat``'s default budget (or the one line refusing it).

Run: .venv/bin/python benchmarks/best_reply.py [--part openspiel,boards,learners] [--quick]
[--kinds ntuple,...] [--no-network]
``--quick``: tic-tac-toe only (the OpenSpiel comparison and tic-tac-toe's learners, no network).
Peak RSS (``getrusage``) is printed after each part; it only grows, so each part's figure
includes the parts before it.
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

import qarena
from qarena.agents.base import Player
from qarena.agents.opponents import move_mask
from qarena.errors import QarenaError
from qarena.exact.space import GameTables, game_tables
from qarena.games import parse_spec
from qarena.games.base import Position
from qarena.games.tictactoe import EMPTY, O, X
from qarena.judging.best_reply import OUTCOMES, SeatReply, best_reply
from qarena.judging.tables import move_values, optimality_at
from qarena.judging.uniform import uniform_optimality, uniform_rows
from qarena.learn.learners import LEARNERS, TABLE_LEARNERS
from qarena.learn.tables.base import Learner

COMMAND = ".venv/bin/python benchmarks/best_reply.py"
LEARNER_GAMES = ("tictactoe", "tictactoe:4x4:4", "connect4:4x5")
BIG_BOARDS = ("tictactoe:4x4:4", "connect4:5x5")
#: Networks on boards with more rows than this are judged over a uniform sample of this many
#: decision positions (as ``qarena eval --uniform``), not every one.
UNIFORM = 100_000
T = TypeVar("T")


def log(text: str) -> None:
    print(text, flush=True)


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    found = fn()
    return found, time.perf_counter() - start


def median_timed(fn: Callable[[], T], times: int = 5) -> tuple[T, float]:
    """The result and the median seconds of ``times`` calls (a call of milliseconds is at the
    mercy of a shared machine's scheduler once)."""
    runs = [timed(fn) for _ in range(times)]
    return runs[0][0], float(np.median([s for _, s in runs]))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def seat_text(reply: SeatReply) -> str:
    verdict = "beaten" if reply.beaten else "unbeaten"
    return (
        f"{OUTCOMES[reply.value]}->{OUTCOMES[reply.secured]} {verdict}, line of "
        f"{len(reply.line)} plies ({' '.join(reply.line_text)}), {reply.states:,} states, "
        f"kept {reply.kept:,} of {reply.decisions:,} reachable decisions"
    )


# --- OpenSpiel ---------------------------------------------------------------------------------


def one_move_table(who: Player, tables: GameTables) -> dict[Position, int]:
    """The player's one move at every live row's position (its class representative): its own
    ``act``, so a tie is broken once per class, as the agent itself would break it."""
    return {
        (position := tables.position(int(row))): who.act(position)
        for row in np.flatnonzero(tables.live)
    }


def openspiel_position(text: str) -> Position:
    """OpenSpiel's tic-tac-toe board (``x.o\\n...``, rows top to bottom) as qarena's position:
    cell ``r * 3 + c`` is action ``r * 3 + c`` in both, so histories replay move for move."""
    marks = {"x": X, "o": O, ".": EMPTY}
    return tuple(marks[c] for c in text if c in marks)


def fill_policy(policy: Any, tables: GameTables, table: dict[Position, int]) -> int:
    """Each of the OpenSpiel policy's states plays the table's move in the same position: the
    representative's move carried into the state's own frame. Returns the positions met."""
    moves: dict[Position, int] = {}
    probs = policy.action_probability_array
    probs[:] = 0.0
    for index, state in enumerate(policy.states):
        position = openspiel_position(str(state))
        move = moves.get(position)
        if move is None:
            row, frame = tables.frame(position)
            chosen = table[tables.position(row)]
            move = next(m for m, f in frame.items() if f == chosen)
            moves[position] = move
        probs[index, move] = 1.0
    assert np.all(probs[policy.legal_actions_mask == 0] == 0)
    return len(moves)


def openspiel_part(rows: list[str]) -> None:
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import best_response, exploitability

    log("== OpenSpiel's best response and qarena's, on one tabular policy of tic-tac-toe ==")
    agent, train_s = timed(lambda: qarena.train("tictactoe", episodes=2000, seed=7))
    assert isinstance(agent, Learner)
    greedy = qarena.player(agent, seed=0)
    tables = agent.tables
    best = agent.best_moves()
    live = tables.live
    tied = int((best[live].sum(axis=1) > 1).sum())
    log(
        f"agent: q, 2,000 episodes, seed 7 ({train_s:.2f} s); {tied} of {int(live.sum())} live "
        "classes have tied greedy moves: compared on its act move, one per class"
    )
    table = one_move_table(greedy, tables)
    one = qarena.player(table, "tictactoe")
    # Warm-up: the kernels' compiled code loaded from numba's cache, the tables built.
    _, warm_s = timed(lambda: best_reply(one))
    ours: dict[str, SeatReply] = {}
    ours_s: dict[str, float] = {}
    for seat in ("first", "second"):
        found, ours_s[seat] = median_timed(lambda seat=seat: best_reply(one, (seat,)))
        ours[seat] = found.seats[seat]
        log(f"qarena {seat}: {seat_text(ours[seat])} in {ours_s[seat] * 1000:.2f} ms (median of 5)")
    tied_reply, tied_s = median_timed(lambda: best_reply(greedy))
    log(f"qarena, the agent itself (every tied move): {tied_reply!r} in {tied_s * 1000:.2f} ms")
    rss_ours = peak_mb()
    log(f"first call {warm_s:.2f} s (cached kernels loaded); peak RSS so far {rss_ours:,.0f} MB")

    game = pyspiel.load_game("tic_tac_toe")
    policy, build_s = timed(lambda: os_policy.TabularPolicy(game))
    positions, fill_s = timed(lambda: fill_policy(policy, tables, table))
    log(
        f"OpenSpiel TabularPolicy: {len(policy.states):,} states ({positions:,} positions) "
        f"built in {build_s:.1f} s, filled in {fill_s:.1f} s"
    )
    root = game.new_initial_state()
    theirs: dict[str, float] = {}
    theirs_s: dict[str, float] = {}
    for seat, responder in (("first", 1), ("second", 0)):
        theirs[seat], theirs_s[seat] = timed(
            lambda r=responder: best_response.BestResponsePolicy(game, r, policy).value(root)
        )
        log(
            f"OpenSpiel {seat} (responder player {responder}): value {theirs[seat]:+.1f} in "
            f"{theirs_s[seat]:.2f} s"
        )
    # OpenSpiel's C++ best response too, given the same policy as a dict of its histories.
    as_dict = {
        key: [(int(a), float(p[a])) for a in np.flatnonzero(policy.legal_actions_mask[i])]
        for key, i in policy.state_lookup.items()
        for p in (policy.action_probability_array[i],)
    }
    cpp: dict[str, float] = {}
    cpp_s: dict[str, float] = {}
    for seat, responder in (("first", 1), ("second", 0)):
        cpp[seat], cpp_s[seat] = timed(
            lambda r=responder: pyspiel.TabularBestResponse(game, r, as_dict).value_from_state(
                game.new_initial_state()
            )
        )
        log(f"OpenSpiel C++ TabularBestResponse {seat}: {cpp[seat]:+.1f} in {cpp_s[seat]:.2f} s")
        if cpp[seat] != theirs[seat]:
            raise SystemExit(f"OpenSpiel's two best responses disagree moving {seat}")
    conv, conv_s = timed(
        lambda: exploitability.nash_conv(game, policy, return_only_nash_conv=False)
    )
    rss_all = peak_mb()
    log(f"OpenSpiel nash_conv {conv.nash_conv:+.1f} in {conv_s:.2f} s; peak RSS {rss_all:,.0f} MB")
    for seat in ("first", "second"):
        agree = theirs[seat] == -ours[seat].secured
        ratio = theirs_s[seat] / ours_s[seat]
        log(
            f"{seat}: OpenSpiel's responder gets {theirs[seat]:+.0f}, qarena's agent "
            f"{ours[seat].secured:+d}: {'agree' if agree else 'DISAGREE'}; "
            f"{ratio:,.0f}x faster"
        )
        if not agree:
            raise SystemExit(f"the best replies disagree moving {seat}")
        rows.append(
            f"| {seat} | {OUTCOMES[ours[seat].value]} | {OUTCOMES[ours[seat].secured]} "
            f"({len(ours[seat].line)}-ply line) | {theirs[seat]:+.0f} | "
            f"{ours_s[seat] * 1000:.2f} ms | {theirs_s[seat]:.2f} s | {ratio:,.0f}× | "
            f"{cpp_s[seat]:.2f} s | {cpp_s[seat] / ours_s[seat]:,.0f}× |"
        )
    rows.append(
        f"| both (`nash_conv`) | | | {conv.nash_conv:+.0f} | "
        f"{(ours_s['first'] + ours_s['second']) * 1000:.2f} ms | {conv_s:.2f} s | "
        f"{conv_s / (ours_s['first'] + ours_s['second']):,.0f}× | | |"
    )


# --- big boards --------------------------------------------------------------------------------


def boards_part(specs: Sequence[str]) -> None:
    log("== the best reply on big boards: tables apart from the reply ==")
    for spec in specs:
        game = parse_spec(spec)
        tables, tables_s = timed(lambda game=game: game_tables(game))
        log(
            f"{game.spec}: tables of {tables.rows:,} rows in {tables_s:.1f} s, peak RSS "
            f"{peak_mb():,.0f} MB"
        )
        for name in ("perfect", "random"):
            who = qarena.player(name, spec)
            for seat in ("first", "second"):
                found, seconds = timed(lambda who=who, seat=seat: best_reply(who, (seat,)))
                log(f"  {name} {seat}: {seat_text(found.seats[seat])} in {seconds:.2f} s")
        log(f"  peak RSS {peak_mb():,.0f} MB")
        game_tables.cache_clear()


# --- every learner kind ------------------------------------------------------------------------


def optimality(who: Player, tables: GameTables, network: bool) -> tuple[str, float]:
    """Its optimality over every decision position, or, a network on a board of more than
    UNIFORM rows, over UNIFORM drawn uniformly from all of them; and the seconds."""
    start = time.perf_counter()
    if network and tables.rows > UNIFORM:
        rows = uniform_rows(tables.game, UNIFORM, seed=0)
        assert rows is not None
        found = uniform_optimality(who, rows)
        text = f"{found.share:.4f} (uniform {UNIFORM:,})"
    else:
        live = np.flatnonzero(tables.live)
        mv = move_values(tables, live)
        rows = live[np.nanmax(mv, axis=1) != np.nanmin(mv, axis=1)]
        found = optimality_at(
            tables, rows, move_mask(tables, who, rows), tables.orbit[rows].astype(np.int64)
        )
        text = f"{found.share:.4f}"
    return text, time.perf_counter() - start


def learners_part(
    specs: Sequence[str],
    caps: tuple[float, float],
    rows: list[str],
    kinds: Sequence[str] = tuple(LEARNERS),
) -> None:
    log("== every learner kind's default run ==")
    for spec in specs:
        for kind in kinds:
            table = kind in TABLE_LEARNERS
            minutes = caps[0] if table else caps[1]
            try:
                learner, train_s = timed(
                    lambda spec=spec, kind=kind, m=minutes: qarena.train(spec, kind, minutes=m)
                )
            except QarenaError as e:
                log(f"{spec} {kind}: {e}")
                rows.append(f"| {spec} | {kind} | refused: {e} | | | | |")
                continue
            who = qarena.player(learner)
            tables = learner.tables if isinstance(learner, Learner) else game_tables(who.game)
            opt, opt_s = optimality(who, tables, not table)
            run = f"{learner.episodes:,} episodes, {train_s:.0f} s"
            if learner.episodes < learner.default_episodes():
                run += f" (of its default {learner.default_episodes():,}: --minutes {minutes:g})"
            cells = []
            for seat in ("first", "second"):
                found, seconds = timed(lambda who=who, seat=seat: best_reply(who, (seat,)))
                reply = found.seats[seat]
                log(f"{spec} {kind} {seat}: {seat_text(reply)} in {seconds:.3f} s")
                cells.append(
                    f"{'beaten' if reply.beaten else 'unbeaten'}, {len(reply.line)} plies, "
                    f"{seconds:.2f} s, {reply.states:,}"
                )
            log(f"{spec} {kind}: {run}; optimality {opt} ({opt_s:.1f} s); RSS {peak_mb():,.0f} MB")
            rows.append(f"| {spec} | {kind} | {run} | {opt} | {cells[0]} | {cells[1]} |")


def network_part(rows: list[str]) -> None:
    """The shipped n-tuple network on classic Connect Four: a bounded search for a refutation
    in each seat (``qarena beat network``'s defaults), or the one line refusing it."""
    who = qarena.player("network")
    cells = []
    for seat in ("first", "second"):
        try:
            found, seconds = timed(lambda seat=seat: best_reply(who, (seat,)))
        except QarenaError as e:
            log(f"network on connect4 {seat}: refused: {e}")
            rows.append(f"| connect4 | network (shipped) | refused: {e} | | | |")
            return
        reply = found.seats[seat]
        log(f"network {seat}: {seat_text(reply)}, proved {reply.proved}, in {seconds:.1f} s")
        verdict = "beaten" if reply.beaten else ("unbeaten" if reply.proved else "none found")
        cells.append(f"{verdict}, {len(reply.line)} plies, {seconds:.1f} s, {reply.states:,}")
    rows.append(f"| connect4 | network (shipped) | | | {cells[0]} | {cells[1]} |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", default="openspiel,boards,learners")
    parser.add_argument("--quick", action="store_true", help="tic-tac-toe only")
    parser.add_argument("--big", default=",".join(BIG_BOARDS), help="boards of the boards part")
    parser.add_argument("--games", default=",".join(LEARNER_GAMES), help="the learners' games")
    parser.add_argument(
        "--minutes", type=float, default=0.5, help="the most a table learner's run takes"
    )
    parser.add_argument(
        "--network-minutes", type=float, default=2.0, help="the most a network's run takes"
    )
    parser.add_argument("--kinds", default=",".join(LEARNERS), help="the learner kinds")
    parser.add_argument(
        "--no-network", action="store_true", help="without the shipped network's rows"
    )
    args = parser.parse_args(argv)
    parts = args.part.split(",")
    log(f"{COMMAND} {' '.join(sys.argv[1:])}".strip())
    log(
        f"machine: {platform.machine()}, {platform.processor() or '?'}, Python "
        f"{platform.python_version()}"
    )
    rows: list[str] = []
    if "openspiel" in parts:
        openspiel_part(rows)
    if "boards" in parts and not args.quick:
        boards_part(args.big.split(","))
    if "learners" in parts:
        specs = ["tictactoe"] if args.quick else args.games.split(",")
        kinds = args.kinds.split(",")
        learners_part(specs, (args.minutes, args.network_minutes), rows, kinds)
        if not args.quick and not args.no_network:
            network_part(rows)
    log(f"peak RSS {peak_mb():,.0f} MB")
    log("\n".join(rows))


if __name__ == "__main__":
    main()
