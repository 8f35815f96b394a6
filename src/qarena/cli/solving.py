"""qarena solve: exact values from the solver."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from qarena.budget import check_count
from qarena.cli.common import (
    PositionOpt,
    SpecArg,
    announce,
    app,
    err,
    out,
    print_route,
    styled,
    told_stop,
)
from qarena.cli.experimenting import check_backend
from qarena.errors import QarenaError
from qarena.exact import Oracle, SearchSolution, solve
from qarena.exact.book import (
    CHECKPOINT_SECONDS,
    MAX_PLIES,
    Book,
    BookBuild,
    solve_chunk_task,
)
from qarena.exact.search import default_entries, plies_to_end
from qarena.fileio import check_target
from qarena.games import (
    DRAW,
    LOSS,
    WIN,
    Game,
    Position,
    parse_spec,
    value_name,
    value_word,
)
from qarena.i18n import _, ngettext, number


@app.command("solve")
def solve_command(
    spec: SpecArg,
    position: PositionOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    no_book: Annotated[
        bool,
        typer.Option(
            "--no-book",
            help="Solve by search from scratch, without the opening book (on any board search "
            "solves); the positions searched and the seconds taken are reported.",
        ),
    ] = False,
) -> None:
    """Value and optimal moves of the start position (or of --position), by exact solution;
    boards too big to enumerate (classic Connect Four) are solved by search, with every
    move's score."""
    game = parse_spec(spec)
    pos = game.parse_position(position) if position is not None else game.start()
    answers = Oracle.of(game)
    if no_book:
        # A searcher of its own, with the default table and no book: what a search from
        # scratch costs (the shared one may hold a book and earlier searches' entries).
        built = answers.searcher(book=False)
        if built.searcher is not None:
            _solve_searched(SearchSolution(game, built.searcher), pos, as_json, answers)
            return
        err.print(  # a board search cannot solve: solved as without --no-book, and said
            _("--no-book is not taken: {reason}").format(reason=built.fallback),
            markup=False,
            soft_wrap=True,
        )
    if answers.searched:
        searched = answers.exact()
        assert isinstance(searched, SearchSolution)
        _solve_searched(searched, pos, as_json, answers)
        return
    announce(game)
    solution = solve(game)
    value = solution.value_of(pos)
    moves = [game.format_move(m) for m in solution.optimal_moves(pos)]
    if as_json:
        record = {
            "game": game.spec,
            "position": game.format_position(pos),
            "value": value_name(value),
            "optimal_moves": moves,
            "positions": solution.positions,
            "oracle": answers.record(),
        }
        out.print(json.dumps(record), soft_wrap=True)
        return
    plies = 0 if value == DRAW or game.is_terminal(pos) else solution.depth_of(pos)
    table = _verdict_table(game, pos, value, plies)
    if not game.is_terminal(pos):
        table.add_row(_("optimal moves"), " ".join(moves))
    table.add_row(
        _("positions"),
        _("{count:,} reachable from the start").format(count=solution.positions),
    )
    out.print(table)


def _verdict_table(game: Game, pos: Position, value: int, plies: int) -> Table:
    """The head of solve's table: the position, who is to move, and its value with the plies
    best play takes (for a decided game)."""
    table = Table(
        title=styled("{title}  [dim]{spec}[/]", title=game.title, spec=game.spec),
        show_header=False,
        title_justify="left",
    )
    table.add_column(style="bold")
    table.add_column()
    table.add_row(_("position"), game.format_position(pos))
    side = game.to_move(pos)
    if side is not None:
        table.add_row(_("to move"), "x" if side == 0 else "o")
    if game.is_terminal(pos):
        table.add_row(_("value"), _("{value} (the game is over)").format(value=value_word(value)))
    elif value == DRAW:
        table.add_row(
            _("value"), _("{value} for the player to move").format(value=value_word(value))
        )
    else:
        # The English text says "plies" even for one; other languages may have both forms.
        verdict = ngettext(
            "{value} for the player to move in {count} plies with best play",
            "{value} for the player to move in {count} plies with best play",
            plies,
        )
        table.add_row(_("value"), verdict.format(value=value_word(value), count=plies))
    return table


def _solve_searched(
    solution: SearchSolution, pos: Position, as_json: bool, answers: Oracle
) -> None:
    """The search solver's answer: the value, plies to the end, every move's score (Pons'
    and BitBully's scale), the moves that keep the value and the best of them (the fastest
    win, the slowest loss)."""
    game = solution.game
    searcher = solution.searcher
    cells = len(pos)
    stones = sum(1 for v in pos if v)
    nodes, started = searcher.nodes, time.perf_counter()
    if game.is_terminal(pos):
        # The score agrees with the value: minus the winner's score, not 0, after a win.
        scores: dict[int, int] = {}
        value, plies, score = game.result(pos), 0, solution.score(pos)
    else:
        if searcher.book is None or stones >= searcher.book.plies:
            err.print(_("Searching {spec}…").format(spec=game.spec))
        scores = solution.move_scores(pos)
        score = max(scores.values())
        value = WIN if score > 0 else LOSS if score < 0 else DRAW
        plies = plies_to_end(score, stones, cells)
    seconds = time.perf_counter() - started
    print_route(answers)  # solved: why by search, where this machine cannot enumerate it
    optimal = [m for m, s in scores.items() if (s > 0) - (s < 0) == value]
    best = [m for m, s in scores.items() if s == score]
    if as_json:
        record = {
            "game": game.spec,
            "position": game.format_position(pos),
            "value": value_name(value),
            "score": score,
            "plies": plies,
            "move_scores": {game.format_move(m): s for m, s in scores.items()},
            "optimal_moves": [game.format_move(m) for m in optimal],
            "best_moves": [game.format_move(m) for m in best],
            "method": "search",
            "nodes": searcher.nodes - nodes,
            "seconds": round(seconds, 3),
            "oracle": answers.record(),
        }
        out.print(json.dumps(record), soft_wrap=True)
        return
    table = _verdict_table(game, pos, value, plies)
    table.add_row(_("score"), f"{score:+d}" if score else "0")
    if scores:
        # A line per row of the board on tic-tac-toe (a move is a cell), so no line breaks
        # between a move and its score.
        rows: dict[int, list[str]] = {}
        for m, s in scores.items():
            row = 0 if game.drops else m // game.grid_size()[1]
            rows.setdefault(row, []).append(f"{game.format_move(m)} {s:+d}" if s else
                                            f"{game.format_move(m)} 0")  # fmt: skip
        table.add_row(_("move scores"), "\n".join("  ".join(line) for line in rows.values()))
        table.add_row(_("optimal moves"), " ".join(game.format_move(m) for m in optimal))
        table.add_row(_("best moves"), " ".join(game.format_move(m) for m in best))
    if searcher.nodes > nodes:
        table.add_row(
            _("searched"),
            _("{count:,} positions in {seconds} s").format(
                count=searcher.nodes - nodes, seconds=number(seconds, ".1f")
            ),
        )
    elif searcher.book is not None and scores:
        table.add_row(
            _("searched"),
            _("none (opening book, up to {plies} plies)").format(plies=searcher.book.plies),
        )
    out.print(table)


@app.command("book")
def book_command(
    spec: SpecArg,
    plies: Annotated[
        int, typer.Option("--plies", help="Positions of up to this many stones go in the book.")
    ],
    out_file: Annotated[Path, typer.Option("--out", "-o", help="The book file to write.")],
    workers: Annotated[
        int | None,
        typer.Option(help="Threads here, or Ray tasks at once (default: the number of cores)."),
    ] = None,
    backend: Annotated[str, typer.Option(help="local (threads here) or ray.")] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(help="With --backend ray: the cluster to join (default: start one here)."),
    ] = None,
) -> int:
    """An opening book for a board solved by search (Connect Four): the exact score of every
    position of up to --plies stones, mirror images once. The positions of exactly --plies
    stones are searched, on every core (threads sharing one table) or as Ray tasks; the
    earlier ones follow from them. Progress is saved beside the book every minute and on
    Ctrl-C, and the same command goes on from there."""
    game = parse_spec(spec)
    if not (game.drops and game.searchable):
        raise QarenaError(
            _("{spec} has no book: books are for boards the search solver plays (Connect Four "
              "with four in a row, columns × (rows + 1) at most 64)").format(spec=game.spec)
        )  # fmt: skip
    check_count("--plies", plies, MAX_PLIES, least=0)
    check_backend(backend, ray_address, workers)
    count = len(os.sched_getaffinity(0)) if workers is None else workers
    target = os.fspath(out_file)
    check_target(target)
    check_target(target + ".partial")
    build = BookBuild(game, plies, target, workers=count)
    resumed = build.done
    err.print(
        _("Book of {spec} to {plies} plies: {total:,} positions of {plies} stones, {done:,} "
          "of them scored already (a win at once, or saved progress).").format(
            spec=game.spec, plies=plies, total=build.total, done=resumed
        )
    )  # fmt: skip
    started = time.perf_counter()
    stop = threading.Event()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as progress:
        bar = progress.add_task(_("searching"), total=build.total, completed=resumed)

        def show(done: int, total: int) -> None:
            progress.update(bar, completed=done)

        try:
            if backend == "ray":
                book = _book_on_ray(build, count, ray_address, show)
            else:
                book = build.run(show, stop)
        except KeyboardInterrupt:
            stop.set()
            build.checkpoint()
            book = None
    if book is None:
        err.print(
            _("Stopped: {done:,} of {total:,} positions are saved in {file}; the same command "
              "goes on from there.").format(
                done=build.done, total=build.total, file=build.partial
            )
        )  # fmt: skip
        return told_stop()
    seconds = time.perf_counter() - started
    out.print(
        _("Wrote {file}: {count:,} positions of up to {plies} plies, in {seconds} s.").format(
            file=target, count=len(book), plies=plies, seconds=number(seconds, ".0f")
        )
    )  # fmt: skip
    return 0


def _book_on_ray(
    build: BookBuild, workers: int, address: str | None, show: Callable[[int, int], None]
) -> Book | None:
    """The last ply's positions as Ray tasks, a few per worker; progress saved each minute."""
    from qarena.experiments.backends import run_ray

    entries = max(1 << 20, default_entries() // workers)
    spec, plies = build.game.spec, build.plies
    size = max(1, -(-(build.total - build.done) // (workers * 8)))
    tasks = [
        (spec, plies, places, mine, mask, entries) for places, mine, mask in build.chunks(size)
    ]
    last = [time.monotonic()]

    def done(found: tuple[np.ndarray, np.ndarray]) -> None:
        build.record(*found)
        show(build.done, build.total)
        if time.monotonic() - last[0] > CHECKPOINT_SECONDS:
            build.checkpoint()
            last[0] = time.monotonic()

    try:
        run_ray(tasks, workers, address, done, work=solve_chunk_task)
    finally:
        if build.done < build.total:
            build.checkpoint()
    return build.complete() if build.done == build.total else None
