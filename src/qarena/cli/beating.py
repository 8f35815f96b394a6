"""``qarena beat``: can a player be beaten from the start, by anyone, and how?"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from qarena import api
from qarena.agents.base import Player
from qarena.agents.players import ScriptPlayer, no_game
from qarena.agents.strategies import builtin_game, is_builtin
from qarena.cli.common import app, out, styled
from qarena.cli.watch import pause_of, replay
from qarena.errors import QarenaError
from qarena.games import LOSS, value_word
from qarena.i18n import _, number
from qarena.i18n import seconds as seconds_text
from qarena.judging.best_reply import SEATS, BestReply, SeatReply
from qarena.judging.refutation import DEFAULT_POSITIONS, DEFAULT_SECONDS, check_budget
from qarena.match.duel import Duel, about


@app.command("beat")
def beat_command(
    policy: Annotated[
        str,
        typer.Argument(
            metavar="PLAYER",
            help="A policy file, or a built-in player (random, perfect, strongest, bouton, "
            "poles, poles-strict, subtraction) with --game; or {spec_players}.",
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
    positions: Annotated[
        int,
        typer.Option(
            help="On a board solved by search (classic Connect Four): the most positions the "
            "search for a line that beats it asks about, in each seat.",
        ),
    ] = DEFAULT_POSITIONS,
    seconds: Annotated[
        float,
        typer.Option(
            help="On a board solved by search: the most seconds that search takes, in each "
            "seat (the start's value and the line played on to its end come on top).",
        ),
    ] = DEFAULT_SECONDS,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="Then replay each seat's line on the board, move by move, as qarena watch "
            "shows a game: the player's moves are ones it may play, with its own values.",
        ),
    ] = False,
    delay: Annotated[
        float | None,
        typer.Option(
            help="With --watch, seconds between moves (default: 1 in a terminal, none when piped).",
        ),
    ] = None,
) -> None:
    """Can it be beaten? The best reply to a player from the start: in each seat, what the
    strongest opponent who knows its moves can force against it, and the line that forces it.
    Exact where the game's tables fit here; on a board solved by search (classic Connect Four),
    a search for a line that beats it, within --positions and --seconds."""
    if seat not in (*SEATS, "both"):
        raise QarenaError(
            _("--seat must be first, second or both, not {seat!r}").format(seat=seat[:80])
        )
    shipped = builtin_game(policy)
    if shipped is not None and spec is None:
        spec = shipped.spec
    if is_builtin(policy) and spec is None:
        raise no_game(policy)
    if watch and as_json:
        raise QarenaError(
            _(
                "--watch shows the lines on the board and --json gives them as moves: give one "
                "of them"
            )
        )
    if delay is not None and not watch:
        raise QarenaError(_("--delay is the pause between the moves --watch shows"))
    pause = pause_of(delay)
    check_budget(positions, seconds)
    who = api.player(policy, spec, 0)
    who.name = policy  # as given: the path (or name) the person typed, as watch shows it
    seats = SEATS if seat == "both" else (seat,)
    found = api.best_reply(who, seats=seats, positions=positions, seconds=seconds)
    if as_json:
        out.print(json.dumps({"game": found.game, "best_reply": found.to_json()}), soft_wrap=True)
        return
    _show(found)
    if watch:
        _watch(who, found, pause)


def _watch(who: Player, found: BestReply, pause: float) -> None:
    """Each seat's line replayed on the board, as ``qarena watch`` shows a game: A the player
    (its moves the line's, ones it may play, with its own values), B the best reply."""
    game = who.game
    out.print()
    out.print(f"A: {who.name} ({about(who)})", markup=False)
    out.print(_("B: the best reply, an opponent who knows A's moves"), markup=False)
    rules = {
        "first": _("A moves first against the best reply"),
        "second": _("A moves second against the best reply"),
    }
    for name, reply in found.seats.items():
        if not reply.line:  # a search that found no line within its budget: nothing to show
            continue
        first = name == "first"
        # B's side of the line, as a script: its moves are the line's, in turn.
        theirs = reply.line[1::2] if first else reply.line[::2]
        # A player that searches keeps its tree along one game: each line gets its own.
        own = who.for_one_game(0)
        duel = Duel(game, [own, ScriptPlayer(theirs, game, _("best reply"))], a_first=first)
        out.print()
        out.rule(rules[name])
        replay(duel, reply.line, pause)


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
        kept = _("{kept} of {decisions} ({share})")
        if reply.search is not None:
            kept = _("{kept} of the {decisions} the search judged")
        if reply.search is not None and not reply.decisions:
            kept = "—"  # a lost start: nothing to search
        table.add_row(
            seat_words[name],
            value_word(reply.value),
            value_word(reply.secured) if reply.proved else "—",
            (_("yes") if reply.beaten else _("no")) if reply.proved else _("none found"),
            kept.format(
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
        if reply.search is not None:
            _searched(name, reply)
            continue
        text = lines[name, reply.beaten].format(line=" ".join(reply.line_text))
        out.print(text, markup=False)


def _searched(name: str, reply: SeatReply) -> None:
    """A seat on a board solved by search: the line, or that none was found within the
    budget (never "unbeatable"), what a line's outcome proves, and what the search spent."""
    spent = reply.search
    assert spent is not None
    budget = {
        "positions": number(spent.max_positions, ","),
        "seconds": seconds_text(spent.max_seconds, ",g"),
    }
    if not reply.proved:
        text = {
            "first": _(
                "Moving first, no line that beats it: none found within {positions} positions "
                "and {seconds}. That proves nothing either way: a longer search may find one."
            ),
            "second": _(
                "Moving second, no line that beats it: none found within {positions} positions "
                "and {seconds}. That proves nothing either way: a longer search may find one."
            ),
        }[name].format(**budget)
    elif reply.beaten:
        text = {
            "first": _("Moving first, it is beaten by: {line}"),
            "second": _("Moving second, it is beaten by: {line}"),
        }[name].format(line=" ".join(reply.line_text))
        if reply.secured > LOSS:
            text += "\n" + _(
                "(The opponent can force at least this outcome, perhaps more: the search "
                "stops at the first mistake it proves.)"
            )
    else:
        text = {
            "first": _("Moving first, it holds; a line of best play against it: {line}"),
            "second": _("Moving second, it holds; a line of best play against it: {line}"),
        }[name].format(line=" ".join(reply.line_text))
    out.print(text, markup=False)
    out.print(
        _("  (searched {positions} positions in {seconds})").format(
            positions=number(spent.positions, ","), seconds=seconds_text(spent.seconds, ".1f")
        ),
        markup=False,
    )
