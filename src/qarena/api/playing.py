"""Players from Python: anything that plays made a :class:`~qarena.agents.base.Player`, two
players of one game, and one game between them judged move by move (:class:`Playout`)."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field

from qarena.agents.base import Player
from qarena.agents.players import PlayerLike, knows_game, no_game
from qarena.agents.players import player as _player
from qarena.agents.strategies import builtin_game, is_builtin
from qarena.api.games import GameLike, game, python_call
from qarena.budget import check_seed
from qarena.games import Game, Position
from qarena.i18n import _
from qarena.match.duel import Duel, Turn
from qarena.show.display import Board


@python_call
def player(x: PlayerLike, spec: GameLike | None = None, seed: int | None = None) -> Player:
    """Anything that plays, as a :class:`~qarena.agents.base.Player` (``act`` and
    ``values``): see :func:`qarena.agents.players.player` for what it reads and in what
    order. A built-in's name is always the built-in; a file of that name is ``./random``."""
    return _player(x, None if spec is None else game(spec), seed)


@python_call
def players(
    a: PlayerLike, b: PlayerLike, spec: GameLike | None = None, seed: int | None = None
) -> tuple[Game, Player, Player]:
    """Two players of one game: those that know their game (files, learners) are read first,
    so built-in players need ``spec`` only when neither does. Players that draw at random
    are seeded from ``seed`` (A) and ``seed + 1`` (B)."""
    g = None if spec is None else game(spec)
    given = (a, b)
    found: dict[int, Player] = {}
    # A built-in that plays one game only (the shipped network) knows its game as a file does.
    builtin = [isinstance(x, str) and is_builtin(x) and builtin_game(x) is None for x in given]
    knows = [knows_game(x) for x in given]
    for i in sorted(range(2), key=lambda i: not knows[i]):
        x = given[i]
        if g is None and all(builtin):
            raise no_game(player_name(a, None), player_name(b, None))
        seat_seed = None if seed is None else seed + i
        one = _player(x, g, seat_seed)
        if seat_seed is not None:  # a player given as it is draws from the seat's seed too
            one = one.seeded(seat_seed)
        g = one.game
        found[i] = one
    assert g is not None
    return g, found[0], found[1]


def player_name(x: PlayerLike, found: Player | None) -> str:
    """How a player given as ``x`` is named in results: a name or file as given, else the
    player's own name."""
    if isinstance(x, str | os.PathLike):
        return os.fspath(x)
    return found.name if found is not None else type(x).__name__


@dataclass
class Playout:
    """One game between two players, move by move, with the solver's verdict on each move."""

    game: Game
    names: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    positions: list[Position] = field(default_factory=list)
    winner: int | None = None  # 0: A, 1: B, None: a draw

    @property
    def mistakes(self) -> list[Turn]:
        """The moves that gave away some of the position's value."""
        return [t for t in self.turns if not t.kept]

    def lines(self) -> list[str]:
        g = self.game
        out = []
        for i, t in enumerate(self.turns, 1):
            mark = "" if t.kept else "  ✗ " + t.verdict
            out.append(f"{i:>3}. {'AB'[t.mover]} {g.format_move(t.move)}{mark}")
        return out

    def __repr__(self) -> str:
        result = "draw" if self.winner is None else f"{'AB'[self.winner]} wins"
        moves = " ".join(self.game.format_move(t.move) for t in self.turns)
        return (
            f"Playout({self.game.spec}: A = {self.names[0]}, B = {self.names[1]}; {moves}; "
            f"{result}; {len(self.mistakes)} mistakes)"
        )

    def _repr_html_(self) -> str:
        head = "".join(
            f"<th>{html.escape(h)}</th>" for h in ("", _("player"), _("move"), _("solver"))
        )
        rows = f"<tr>{head}</tr>" + "".join(
            f"<tr><td>{i}</td><td>{'AB'[t.mover]}</td>"
            f"<td>{html.escape(self.game.format_move(t.move))}</td>"
            f"<td style='text-align:left'>{html.escape(t.verdict)}</td></tr>"
            for i, t in enumerate(self.turns, 1)
        )
        result = (
            _("Draw.")
            if self.winner is None
            else _("{player} wins.").format(player="AB"[self.winner])
        )
        title = html.escape(f"{self.game.spec}: A = {self.names[0]}, B = {self.names[1]}")
        # The end, the last move marked (the matches it took, the mark it placed).
        before = self.positions[-2] if len(self.positions) > 1 else None
        end = Board(self.game, self.positions[-1], before=before)._repr_html_()
        return f"<p>{title}</p><table>{rows}</table><p>{html.escape(result)}</p>{end}"


@python_call
def play(
    a: PlayerLike,
    b: PlayerLike,
    spec: GameLike | None = None,
    *,
    seed: int = 0,
) -> Playout:
    """One game, ``a`` moving first, each move judged by the solver (as ``qarena watch``).
    Players that draw at random are seeded from ``seed`` (A) and ``seed + 1`` (B)."""
    check_seed(seed)
    g, pa, pb = players(a, b, spec, seed)
    duel = Duel(g, [pa, pb])
    while duel.step() is not None:
        pass
    names = (player_name(a, pa), player_name(b, pb))
    return Playout(g, names, list(duel.turns), list(duel.positions), duel.winner())
