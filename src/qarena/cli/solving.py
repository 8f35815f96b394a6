"""qarena solve: exact values from the solver."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from qarena.cli.common import PositionOpt, SpecArg, announce, app, out, styled
from qarena.games import DRAW, parse_spec, value_name, value_word
from qarena.i18n import _, ngettext
from qarena.solve import solve


@app.command("solve")
def solve_command(
    spec: SpecArg,
    position: PositionOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Value and optimal moves of the start position (or of --position), by exact solution."""
    game = parse_spec(spec)
    pos = game.parse_position(position) if position is not None else game.start()
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
