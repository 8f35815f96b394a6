"""qarena watch: two players play each other move by move in the terminal, each move shown with
the mover's own values and the solver's verdict, and a summary at the end."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from qarena.agents.base import Player
from qarena.budget import check_count, check_seed
from qarena.cli.common import (
    PlayerA,
    PlayerB,
    PlayersGameOpt,
    announce,
    app,
    out,
    route,
    styled,
)
from qarena.errors import QarenaError
from qarena.games import Game, Move, parse_spec, value_name, value_word
from qarena.i18n import _, ngettext, number
from qarena.match.duel import LABELS, Duel, Turn, about, load_players, value_text
from qarena.show.text import draw

#: Most games one watch plays (each is shown move by move).
MAX_WATCH_GAMES = 10_000
#: Longest pause between moves, in seconds.
MAX_DELAY = 60.0
#: The pause between moves when watching in a terminal; piped output does not wait.
DEFAULT_DELAY = 1.0


def _values_table(game: Game, turn: Turn, label: str, player: Player) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column(_("move"), style="bold")
    table.add_column(_("{player}'s value").format(player=label), justify="right")
    table.add_column(_("solver"))
    table.add_column("")
    values = turn.values or {}
    for m, v in values.items():
        mark = _("← played") if m == turn.move else ""
        table.add_row(
            game.format_move(m), value_text(player, v), value_word(turn.verdicts[m]), mark
        )
    return table


def _turn_record(game: Game, turn: Turn, label: str) -> dict[str, Any]:
    """A move in ``watch --json``."""
    values = turn.values
    return {
        "player": label,
        "move": game.format_move(turn.move),
        "values": None if values is None else {game.format_move(m): v for m, v in values.items()},
        "solver": value_name(turn.after),
        "kept": turn.kept,
    }


def _show_turn(duel: Duel, turn: Turn, mover: Player) -> None:
    """A move for people: who played what, the solver's verdict, the mover's values, the board."""
    game, label = duel.game, LABELS[turn.mover]
    seat = game.seat(turn.position)
    out.print()
    if seat:
        plays = _("[bold]{player}[/] ({mark}) plays [bold]{move}[/]: {verdict}")
    else:
        plays = _("[bold]{player}[/] plays [bold]{move}[/]: {verdict}")
    out.print(
        styled(
            plays, player=label, mark=seat, move=game.format_move(turn.move), verdict=turn.verdict
        )
    )
    if turn.values is not None:
        out.print(_values_table(game, turn, label, mover))
    out.print(draw(game, duel.position))


def pause_of(delay: float | None) -> float:
    """The pause between moves: ``--delay`` as given (checked), else a second in a terminal
    and none when piped."""
    if delay is not None and not 0 <= delay <= MAX_DELAY:
        raise QarenaError(
            _("--delay must be from 0 to {most:g} seconds, not {delay:g}").format(
                most=MAX_DELAY, delay=delay
            )
        )
    return delay if delay is not None else (DEFAULT_DELAY if out.is_terminal else 0.0)


def replay(duel: Duel, line: Sequence[Move], pause: float) -> None:
    """A game played from the start along ``line``, shown move by move as watch shows a game
    (each mover's own values beside the solver's verdict, the board), then how it ended."""
    out.print(draw(duel.game, duel.position))
    for move in line:
        turn = duel.step(move)
        if turn is None:  # the line ends where the game does: nothing is left to play
            break
        if pause:
            time.sleep(pause)
        _show_turn(duel, turn, duel.players[turn.mover])
    out.print(duel.result_text())


@app.command("watch")
def watch_command(
    first: PlayerA,
    second: PlayerB,
    spec: PlayersGameOpt = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Games to play; A opens the odd ones.")
    ] = 1,
    delay: Annotated[
        float | None,
        typer.Option(
            help="Seconds between moves (default: 1 in a terminal, none when piped).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the players' random choices.")] = 0,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object: every move and the summary.")
    ] = False,
) -> None:
    """Watch two players play each other: trained agents (policy files) or built-in players.
    Each move is shown with the mover's values (for a trained agent) and the solver's verdict:
    whether it keeps the position's value."""
    check_count("--games", games, MAX_WATCH_GAMES)
    check_seed(seed)
    pause = pause_of(delay)
    if as_json:
        pause = 0.0
    if spec is not None:
        announce(parse_spec(spec))
    game, players = load_players((first, second), spec, seed)
    route(game)  # every move is judged: says why where this machine searches to judge it
    duel = Duel(game, players)
    # Per player: wins, draws, losses, moves, moves that kept the value.
    tally = [dict.fromkeys(("win", "draw", "loss", "moves", "kept"), 0) for _ in players]
    record: list[dict[str, Any]] = []
    if not as_json:
        for label, p in zip(LABELS, players, strict=True):
            out.print(f"{label}: {p.name} ({about(p)})", markup=False)
    for g in range(games):
        duel.new_game(a_first=g % 2 == 0)
        opener = LABELS[duel.mover()]
        if not as_json:
            out.print()
            out.rule(
                _("Game {number} of {games}: {player} moves first").format(
                    number=g + 1, games=games, player=opener
                )
            )
            out.print(draw(game, duel.position))
        moves: list[dict[str, Any]] = []
        while (turn := duel.step()) is not None:
            label = LABELS[turn.mover]
            t = tally[turn.mover]
            t["moves"] += 1
            t["kept"] += turn.kept
            moves.append(_turn_record(game, turn, label))
            if not as_json:
                if pause:
                    time.sleep(pause)
                _show_turn(duel, turn, players[turn.mover])
        winner = duel.winner()
        for i in range(2):
            outcome = "draw" if winner is None else "win" if winner == i else "loss"
            tally[i][outcome] += 1
        record.append(
            {"first": opener, "moves": moves, "winner": None if winner is None else LABELS[winner]}
        )
        if not as_json:
            out.print(duel.result_text())
    if as_json:
        out.print(
            json.dumps(
                {
                    "game": game.spec,
                    "a": first,
                    "b": second,
                    "games": record,
                    "summary": {LABELS[i]: tally[i] for i in range(2)},
                }
            ),
            soft_wrap=True,
        )
        return
    out.print()
    out.print(_tally_table(players, tally, games))


def _tally_table(players: list[Player], tally: list[dict[str, int]], games: int) -> Table:
    """Each player's results over the games, and how many of its moves kept the value."""
    table = Table(
        title=ngettext("{count:,} game", "{count:,} games", games).format(count=games),
        title_justify="left",
    )
    table.add_column(_("player"), style="bold")
    for column in (_("wins"), _("draws"), _("losses"), _("moves"), _("kept the value")):
        table.add_column(column, justify="right")
    for label, p, t in zip(LABELS, players, tally, strict=True):
        kept = (
            f"{number(t['kept'], ',')} ({number(t['kept'] / t['moves'], '.0%')})"
            if t["moves"]
            else "-"
        )
        table.add_row(
            f"{label}: {p.name}",
            number(t["win"], ","),
            number(t["draw"], ","),
            number(t["loss"], ","),
            number(t["moves"], ","),
            kept,
        )
    return table
