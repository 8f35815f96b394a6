"""qarena compete: two players of the same game play each other, each moving first in turn, or
from each opening of a file with each side to move."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from qarena import api
from qarena.agents.players import no_game
from qarena.agents.strategies import builtin_game, is_builtin
from qarena.budget import check_seed
from qarena.cli.common import PlayerA, PlayerB, PlayersGameOpt, app, err, out, print_route, styled
from qarena.cli.judged_text import print_json
from qarena.cli.match_options import JsonOpt, SeedOpt, check_games
from qarena.cli.position_files import read_positions
from qarena.games import Game, value_word
from qarena.i18n import _, ngettext, number
from qarena.match.duel import about
from qarena.show.matches import Record


@app.command("compete")
def compete_command(
    first: PlayerA,
    second: PlayerB,
    spec: PlayersGameOpt = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help="Games each player opens (1,000; 10 on boards solved by search or with a "
            "player that thinks); with --openings, games from each opening with each side to "
            "move (1).",
        ),
    ] = None,
    seed: SeedOpt = 0,
    openings: Annotated[
        Path | None,
        typer.Option(
            "--openings",
            help="A file of opening positions, one a line (the game's text form, or Connect "
            "Four's move digits; blank lines and # comments skipped): each is played from both "
            "sides, A to move there and B to move there.",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Two players of the same game play each other, each moving first in turn: trained agents
    (policy files) or built-in players. With --openings, from each opening of a file instead,
    as engine testers play opening suites."""
    if games is not None:
        check_games(games)
    check_seed(seed)
    if spec is None and all(is_builtin(x) and builtin_game(x) is None for x in (first, second)):
        raise no_game(first, second)
    # The reader drops a trailing "# comment" as it does for --positions.
    lines = None if openings is None else read_positions(openings)
    # A spinner on a terminal: games played move by move (a player that thinks, a board
    # solved by search) take a while, and a silent minute looks like a hang.
    with err.status(_("playing the games…")):
        result = api.compete(first, second, spec, games=games, seed=seed, openings=lines)
    if result.oracle is not None:
        print_route(result.oracle)
    games = result.a_first.games
    game = api.game(result.game)
    players = result.players
    a_first, b_first = result.a_first, result.b_first
    if as_json:
        record: dict[str, Any] = {
            "game": game.spec,
            "a": first,
            "b": second,
            "games": games,
            "a_first": a_first.shares(),
            "b_first": b_first.shares(),
            "oracle": None if result.oracle is None else result.oracle.record(),
        }
        if result.openings:
            found = result.to_json()
            record.update(games_each=found["games_each"], openings=found["openings"])
        print_json(record)
        return

    def who(i: int) -> str:
        return about(players[i])

    if result.openings:
        _print_openings(result, game, f"A: {first} ({who(0)})", f"B: {second} ({who(1)})")
        return
    table = Table()
    table.add_column(_("order"), style="bold")
    table.add_column(_("A wins"), justify="right")
    table.add_column(_("draws"), justify="right")
    table.add_column(_("B wins"), justify="right")
    orders = ((_("A first"), a_first), (_("B first"), b_first), (_("both"), a_first + b_first))
    for name, r in orders:
        table.add_row(name, *(number(n, ",") for n in (r.win, r.draw, r.loss)))
    out.print(
        styled(
            ngettext(
                "[bold]{game}[/]  [dim]{spec}, {games:,} game in each order[/]",
                "[bold]{game}[/]  [dim]{spec}, {games:,} games in each order[/]",
                games,
            ),
            game=game.title,
            spec=game.spec,
            games=games,
        )
    )
    out.print(f"A: {first} ({who(0)})")
    out.print(f"B: {second} ({who(1)})")
    out.print(table)


#: Most openings ``qarena compete --openings`` shows a row for; more show only the totals.
MAX_OPENING_ROWS = 30


def _cells(record: Record) -> str:
    """A's record in one cell: A wins/draws/B wins."""
    return "/".join(number(n, ",") for n in (record.win, record.draw, record.loss))


def _print_openings(result: api.Competition, game: Game, a: str, b: str) -> None:
    """The table of a match from openings: a row for each (when there are few enough to read),
    then the totals, each as A's record with A and with B to move at the openings."""
    each = result.openings[0].a_to_move.games
    count = len(result.openings)
    out.print(
        styled(
            "[bold]{game}[/]  [dim]{spec}, {openings}, {games}[/]",
            game=game.title,
            spec=game.spec,
            openings=ngettext("{count:,} opening", "{count:,} openings", count).format(count=count),
            games=ngettext(
                "{games:,} game each way",
                "{games:,} games each way",
                each,
            ).format(games=each),
        )
    )
    out.print(a)
    out.print(b)
    table = Table()
    if count <= MAX_OPENING_ROWS:
        table.add_column(_("opening"), style="bold")
        table.add_column(_("to move"))
        table.add_column(_("value"))
        table.add_column(_("A to move"), justify="right")
        table.add_column(_("B to move"), justify="right")
        for o in result.openings:
            table.add_row(
                o.opening,
                game.seat(o.position) or "",
                "—" if o.value is None else value_word(o.value),
                _cells(o.a_to_move),
                _cells(o.b_to_move),
            )
        table.add_section()
        table.add_row(_("all"), "", "", _cells(result.a_first), _cells(result.b_first))
        out.print(table)
        out.print(
            _(
                "Each cell: A wins/draws/B wins. Value: the opening's for the side to move "
                "with perfect play (— where only a search would tell)."
            ),
            style="dim",
        )
        return
    table.add_column(_("side to move"), style="bold")
    table.add_column(_("A wins"), justify="right")
    table.add_column(_("draws"), justify="right")
    table.add_column(_("B wins"), justify="right")
    totals = (
        (_("A to move"), result.a_first),
        (_("B to move"), result.b_first),
        (_("both"), result.total),
    )
    for name, r in totals:
        table.add_row(name, *(number(n, ",") for n in (r.win, r.draw, r.loss)))
    out.print(table)
