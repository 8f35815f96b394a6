"""Two players against each other from Python (:func:`compete`, as ``qarena compete``): their
records each way round (:class:`Competition`), from the start or from openings
(:class:`OpeningResult`)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from qarena.agents.base import Player
from qarena.agents.opponents import move_mask
from qarena.agents.players import PlayerLike, canonical
from qarena.api.games import GameLike, game, python_call
from qarena.api.playing import player_name, players
from qarena.budget import MAX_GAMES, check_count, check_seed
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.exact.space import game_tables
from qarena.games import Game, Position, value_word
from qarena.games.base import VALUE_WORDS
from qarena.i18n import _
from qarena.judging.sampled import DEFAULT_SAMPLED_GAMES, given_positions, play_games
from qarena.show.matches import Record, play_series


@dataclass(frozen=True)
class OpeningResult:
    """The games played from one opening, each way round: ``opening`` as it was given (its
    text, or the game's text form of a position given as components), ``position`` the
    position, ``to_move`` the side to move there (0 the first player, 1 the second, None in an
    impartial game), ``value`` its value for the side to move where that is cheap to know
    (``WIN`` 1, ``DRAW`` 0, ``LOSS`` -1, from :meth:`Oracle.known_value`; else None), and
    A's records (wins, draws, losses) with A to move there (``a_to_move``) and with B to move
    (``b_to_move``)."""

    opening: str
    position: Position
    to_move: int | None
    value: int | None
    a_to_move: Record
    b_to_move: Record

    @property
    def total(self) -> Record:
        return self.a_to_move + self.b_to_move

    def to_json(self, game: Game) -> dict[str, Any]:
        """What ``qarena compete --openings --json`` prints of it: counts, not shares."""
        return {
            "opening": self.opening,
            "position": game.format_position(self.position),
            "to_move": self.to_move,
            "seat": game.seat(self.position),
            "value": None if self.value is None else VALUE_WORDS[self.value],
            "a_to_move": _counts(self.a_to_move),
            "b_to_move": _counts(self.b_to_move),
        }


def _counts(record: Record) -> dict[str, int]:
    return {"win": record.win, "draw": record.draw, "loss": record.loss}


@dataclass(frozen=True)
class Competition:
    """Two players' games against each other, each opening ``games`` of them: the records are
    A's (wins, draws, losses). Played from openings (``compete(..., openings=...)``),
    ``a_first`` and ``b_first`` are A's records over every opening with A and with B to move
    there, and ``openings`` holds each opening's own (empty without openings)."""

    game: str
    a: str
    b: str
    a_first: Record
    b_first: Record
    players: tuple[Player, ...] = field(repr=False, compare=False, default=())
    #: What answered the game: its family, the route taken here and why they differ.
    oracle: Oracle | None = field(repr=False, compare=False, default=None)
    #: Each opening's games, in the order given (empty when the games start at the start).
    openings: tuple[OpeningResult, ...] = field(repr=False, default=())

    @property
    def total(self) -> Record:
        return self.a_first + self.b_first

    def to_json(self) -> dict[str, Any]:
        found = {
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "games": self.a_first.games,
            "a_first": self.a_first.shares(),
            "b_first": self.b_first.shares(),
            **({} if self.oracle is None else {"oracle": self.oracle.record()}),
        }
        if self.openings:
            g = game(self.game)
            found["games_each"] = self.openings[0].a_to_move.games
            found["openings"] = [o.to_json(g) for o in self.openings]
        return found

    def __repr__(self) -> str:
        t = self.total
        return (
            f"Competition({self.game}: {self.a} vs {self.b}, {t.games} games: "
            f"A wins {t.win}, draws {t.draw}, B wins {t.loss})"
        )

    def _repr_html_(self) -> str:
        # From openings, the orders are who is to move there, and each opening has a row too.
        orders = (_("A to move"), _("B to move")) if self.openings else (_("A first"), _("B first"))
        rows = ((orders[0], self.a_first), (orders[1], self.b_first), (_("both"), self.total))
        cells = "".join(
            f"<tr><td>{html.escape(name)}</td><td>{r.win}</td><td>{r.draw}</td>"
            f"<td>{r.loss}</td></tr>"
            for name, r in rows
        )
        head = "".join(
            f"<th>{html.escape(h)}</th>" for h in (_("order"), _("A wins"), _("draws"), _("B wins"))
        )
        title = html.escape(f"{self.game}: A = {self.a}, B = {self.b}")
        found = f"<p>{title}</p><table><tr>{head}</tr>{cells}</table>"
        if not self.openings:
            return found
        head = "".join(
            f"<th>{html.escape(h)}</th>"
            for h in (_("opening"), _("value"), _("A to move"), _("B to move"))
        )
        cells = "".join(
            f"<tr><td>{html.escape(o.opening)}</td>"
            f"<td>{'—' if o.value is None else html.escape(value_word(o.value))}</td>"
            + "".join(f"<td>{r.win}/{r.draw}/{r.loss}</td>" for r in (o.a_to_move, o.b_to_move))
            + "</tr>"
            for o in self.openings
        )
        return f"{found}<table><tr>{head}</tr>{cells}</table>"


@python_call
def compete(
    a: PlayerLike,
    b: PlayerLike,
    spec: GameLike | None = None,
    *,
    games: int | None = None,
    seed: int = 0,
    openings: Sequence[object] | None = None,
) -> Competition:
    """``a`` and ``b`` play ``games`` games with each moving first, as ``qarena compete``:
    each picks uniformly among the moves it would play (a trained agent among its ties).
    Players that share values across symmetries meet the others among all positions. Games
    too big to enumerate (classic Connect Four) are played move by move, 10 each way unless
    told (perfect play searches each of its moves); others 1,000, through the compiled kernels,
    or move by move where they do not fit here (``Competition.oracle`` says why). A player
    that thinks (``mcts:N``, ``alphabeta:D:FILE``) plays move by move on any game, searching
    only the positions its games reach, 10 games each way unless told.

    With ``openings`` (positions as texts, such as Connect Four's move digits ``"1"``, or as
    the game's components), the games start there instead, move by move on any game: from
    each, ``games`` (1 unless told) with A to move and as many with B to move, as engine
    testers play opening suites. Every opening is read and checked, and the games counted
    against the budget, before a game is played; ``Competition.openings`` holds each one's
    records and, where cheap to know, its value (:class:`OpeningResult`)."""
    check_seed(seed)
    g, pa, pb = players(a, b, spec, seed=seed)
    both = (pa, pb)
    answers = Oracle.of(g)
    if openings is not None:
        return _from_openings(g, a, b, pa, pb, answers, openings, 1 if games is None else games)
    # A player that thinks searches for each move it makes: the compiled kernel needs its
    # move in every position of the game (tens of thousands of searches on a small board), so
    # its games are played move by move, as on a board solved by search, asking it only where
    # they go; and fewer of them unless told, as there.
    thinks = any(p.thinks for p in both)
    if answers.searched or thinks:
        count = answers.games if games is None else games
        if games is None and thinks:
            count = min(count, DEFAULT_SAMPLED_GAMES)
        check_count("games", count, MAX_GAMES)
        a_first = play_games(g, pa, pb, count)
        b_first = play_games(g, pb, pa, count).flipped()
        return Competition(
            g.spec, player_name(a, pa), player_name(b, pb), a_first, b_first, both, answers
        )
    games = answers.games if games is None else games
    check_count("games", games, MAX_GAMES)
    tables = game_tables(g, canonical(both))
    ma, mb = (move_mask(tables, p) for p in both)
    a_first = play_series(tables, ma, mb, games, seed, "compete/a-first")
    b_first = play_series(tables, mb, ma, games, seed, "compete/b-first").flipped()
    return Competition(
        g.spec, player_name(a, pa), player_name(b, pb), a_first, b_first, both, answers
    )


def _from_openings(
    g: Game,
    a: PlayerLike,
    b: PlayerLike,
    pa: Player,
    pb: Player,
    answers: Oracle,
    openings: Sequence[object],
    games: int,
) -> Competition:
    """``compete`` from each of ``openings``, ``games`` games each way round, move by move."""
    check_count("games", games, MAX_GAMES)
    positions = given_positions(g, openings, "--openings")
    if games * len(positions) > MAX_GAMES:
        raise QarenaError(
            _(
                "{openings:,} openings of {games:,} games each way are more games than a "
                "match plays ({most:,} each way)"
            ).format(openings=len(positions), games=games, most=MAX_GAMES)
        )
    found = []
    for given, position in zip(openings, positions, strict=True):
        text = given if isinstance(given, str) else g.format_position(position)
        a_moves = play_games(g, pa, pb, games, position)
        b_moves = play_games(g, pb, pa, games, position).flipped()
        value = answers.known_value(position)
        found.append(OpeningResult(text, position, g.to_move(position), value, a_moves, b_moves))
    a_first = sum((o.a_to_move for o in found), Record(0, 0, 0))
    b_first = sum((o.b_to_move for o in found), Record(0, 0, 0))
    return Competition(
        g.spec,
        player_name(a, pa),
        player_name(b, pb),
        a_first,
        b_first,
        (pa, pb),
        answers,
        tuple(found),
    )
