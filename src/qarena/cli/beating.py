"""``qarena beat``: can a player be beaten from the start, by anyone, and how?"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from qarena import api
from qarena.agents.players import no_game
from qarena.agents.strategies import builtin_game, is_builtin
from qarena.cli.common import app, out, styled
from qarena.errors import QarenaError
from qarena.games import value_word
from qarena.i18n import _, number
from qarena.judging.best_reply import SEATS, BestReply


@app.command("beat")
def beat_command(
    policy: Annotated[
        str,
        typer.Argument(
            metavar="PLAYER",
            help="A policy file, or a built-in player (random, perfect, strongest, bouton, "
            "poles, poles-strict, subtraction) with --game.",
        ),
    ],
    spec: Annotated[
        str | None, typer.Option("--game", help="The game, for a built-in player.")
    ] = None,
    seat: Annotated[
        str,
        typer.Option(help="The player's seat: first, second, or both."),
    ] = "both",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Can it be beaten? The best reply to a player from the start, exactly: in each seat, what
    the strongest opponent who knows its moves can force against it, and the line that forces
    it (a board whose tables fit here)."""
    if seat not in (*SEATS, "both"):
        raise QarenaError(
            _("--seat must be first, second or both, not {seat!r}").format(seat=seat[:80])
        )
    shipped = builtin_game(policy)
    if shipped is not None and spec is None:
        spec = shipped.spec
    if is_builtin(policy) and spec is None:
        raise no_game(policy)
    found = api.best_reply(policy, spec)
    seats = SEATS if seat == "both" else (seat,)
    found = BestReply(found.game, {s: found.seats[s] for s in seats})
    if as_json:
        out.print(json.dumps({"game": found.game, "best_reply": found.to_json()}), soft_wrap=True)
        return
    _show(found)


def _show(found: BestReply) -> None:
    out.print(
        styled(
            _(
                "[bold]Can it be beaten?[/]  [dim]{spec}: against the strongest opponent, who "
                "knows its moves[/]"
            ),
            spec=found.game,
        )
    )
    table = Table(box=box.SIMPLE)
    for heading in (
        _("seat"),
        _("start"),
        _("it gets"),
        _("beaten"),
        _("its decisions an opponent can reach, value kept"),
    ):
        table.add_column(heading)
    seat_words = {"first": _("moving first"), "second": _("moving second")}
    for name, reply in found.seats.items():
        table.add_row(
            seat_words[name],
            value_word(reply.value),
            value_word(reply.secured),
            _("yes") if reply.beaten else _("no"),
            _("{kept} of {decisions} ({share})").format(
                kept=number(reply.kept, ","),
                decisions=number(reply.decisions, ","),
                share=number(reply.share, ".1%"),
            ),
        )
    out.print(table)
    lines = {
        ("first", True): _("Moving first, it is beaten by: {line}"),
        ("second", True): _("Moving second, it is beaten by: {line}"),
        ("first", False): _("Moving first, it holds; a line of best play against it: {line}"),
        ("second", False): _("Moving second, it holds; a line of best play against it: {line}"),
    }
    for name, reply in found.seats.items():
        text = lines[name, reply.beaten].format(line=" ".join(reply.line_text))
        out.print(text, markup=False)
