"""qarena solve: exact values from the solver."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer
from rich.table import Table

from qarena.cli.common import PositionOpt, SpecArg, announce, app, err, out, styled
from qarena.games import DRAW, LOSS, WIN, Position, parse_spec, value_name, value_word
from qarena.i18n import _, ngettext, number
from qarena.solve import SearchSolution, oracle, solve
from qarena.solve.search import plies_to_end


@app.command("solve")
def solve_command(
    spec: SpecArg,
    position: PositionOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Value and optimal moves of the start position (or of --position), by exact solution;
    boards too big to enumerate (classic Connect Four) are solved by search, with every
    move's score."""
    game = parse_spec(spec)
    pos = game.parse_position(position) if position is not None else game.start()
    found = oracle(game)
    if isinstance(found, SearchSolution):
        _solve_by_search(found, pos, as_json)
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
        }
        out.print(json.dumps(record), soft_wrap=True)
        return
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
        plies = solution.depth_of(pos)
        # The English text says "plies" even for one; other languages may have both forms.
        verdict = ngettext(
            "{value} for the player to move in {count} plies with best play",
            "{value} for the player to move in {count} plies with best play",
            plies,
        )
        table.add_row(_("value"), verdict.format(value=value_word(value), count=plies))
    if not game.is_terminal(pos):
        table.add_row(_("optimal moves"), " ".join(moves))
    table.add_row(
        _("positions"),
        _("{count:,} reachable from the start").format(count=solution.positions),
    )
    out.print(table)


def _solve_by_search(solution: SearchSolution, pos: Position, as_json: bool) -> None:
    """The search solver's answer: the value, plies to the end, every move's score (Pons'
    and BitBully's scale), the moves that keep the value and the best of them (the fastest
    win, the slowest loss)."""
    game = solution.game
    searcher = solution.searcher
    cells = game.rows * game.cols
    stones = sum(1 for v in pos if v)
    nodes, started = searcher.nodes, time.perf_counter()
    if game.is_terminal(pos):
        scores: dict[int, int] = {}
        value, plies, score = game.result(pos), 0, 0
    else:
        if searcher.book is None or stones >= searcher.book.plies:
            err.print(_("Searching {spec}…").format(spec=game.spec))
        scores = solution.move_scores(pos)
        score = max(scores.values())
        value = WIN if score > 0 else LOSS if score < 0 else DRAW
        plies = plies_to_end(score, stones, cells)
    seconds = time.perf_counter() - started
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
        }
        out.print(json.dumps(record), soft_wrap=True)
        return
    table = Table(
        title=styled("{title}  [dim]{spec}[/]", title=game.title, spec=game.spec),
        show_header=False,
        title_justify="left",
    )
    table.add_column(style="bold")
    table.add_column()
    table.add_row(_("position"), game.format_position(pos))
    side = game.to_move(pos)
    if side is not None and not game.is_terminal(pos):
        table.add_row(_("to move"), "x" if side == 0 else "o")
    if game.is_terminal(pos):
        table.add_row(_("value"), _("{value} (the game is over)").format(value=value_word(value)))
    elif value == DRAW:
        table.add_row(
            _("value"), _("{value} for the player to move").format(value=value_word(value))
        )
    else:
        verdict = ngettext(
            "{value} for the player to move in {count} plies with best play",
            "{value} for the player to move in {count} plies with best play",
            plies,
        )
        table.add_row(_("value"), verdict.format(value=value_word(value), count=plies))
    if scores:
        table.add_row(_("score"), f"{score:+d}" if score else "0")
        shown = [f"{game.format_move(m)} {s:+d}" if s else f"{game.format_move(m)} 0"
                 for m, s in scores.items()]  # fmt: skip
        table.add_row(_("move scores"), "  ".join(shown))
        table.add_row(_("optimal moves"), " ".join(game.format_move(m) for m in optimal))
        table.add_row(_("best moves"), " ".join(game.format_move(m) for m in best))
    table.add_row(
        _("searched"),
        _("{count:,} positions in {seconds} s").format(
            count=searcher.nodes - nodes, seconds=number(seconds, ".1f")
        ),
    )
    out.print(table)
