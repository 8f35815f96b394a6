"""The one player abstraction: anything that picks a move for a position.

Every player qarena knows meets :class:`Player`: the built-in strategies (random, perfect, the
games' rule players), a trained agent (:class:`~qarena.agents.greedy.GreedyAgent`), an n-tuple
network, and the adapters for a plain function or a table a person wrote
(:mod:`qarena.agents.players`). How its values read to people is part of the protocol, with a
default (:class:`~qarena.games.picking.PlayerDefaults`), so no caller asks a player's class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from qarena.games.base import Game, Move, Position
from qarena.games.picking import ChoosingPlayer, Evaluator, PlayerDefaults

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from qarena.exact import Exact
    from qarena.exact.solver import Mover
    from qarena.exact.space import GameTables
    from qarena.learn.family import Trainable


@runtime_checkable
class OwnPlayer(Protocol):
    """What a person's own player object needs: a name, its game, a legal move where play
    goes on (``act``) and, where it has them, its own value of each legal move (``values``;
    None for a player without values). :func:`~qarena.agents.players.player` gives it the
    rest of :class:`Player`'s defaults. A player that draws at random owns its generator,
    seeded when it was made, so a game can be replayed."""

    name: str

    @property
    def game(self) -> Game: ...

    def act(self, position: Position) -> Move: ...

    def values(self, position: Position) -> dict[Move, float] | None: ...


@runtime_checkable
class Player(OwnPlayer, Protocol):
    """Every player qarena hands out: besides its moves, how its values read to people (its
    heading, a value as text, a move's value as text for whoever makes it, a legend, what it
    is). The defaults are :class:`~qarena.games.picking.PlayerDefaults`'s."""

    @property
    def value_heading(self) -> str: ...

    def format_value(self, value: float, compact: bool = False) -> str: ...

    def move_values(self, position: Position) -> dict[Move, float]: ...

    @property
    def thinks(self) -> bool: ...

    @property
    def symmetric(self) -> bool: ...

    def as_evaluator(self) -> Evaluator | None: ...

    def table_choices(
        self, tables: GameTables, rows: np.ndarray | None = None
    ) -> np.ndarray | None: ...

    def choices_at(self, positions: Sequence[Position]) -> np.ndarray | None: ...

    def value_text(self, position: Position, move: Move, mover: Mover = "human") -> str: ...

    def value_legend(self) -> str: ...

    def describe(self) -> str | None: ...

    @property
    def solution(self) -> Exact | None: ...

    def seeded(self, seed: int | None, name: str | None = None) -> Player: ...

    def for_one_game(self, seed: int | None, name: str | None = None) -> Player: ...


@runtime_checkable
class OpponentPlayer(Player, Protocol):
    """A player a person plays against (``qarena play``, the web's game): the moves it picks
    among (``choices``), one of them drawn from a generator given (``pick``), the moves it
    would play and whether it would play one (:class:`~qarena.games.picking.ChoosingPlayer`).
    Met by a trained agent, perfect play, random play and an n-tuple network."""

    def choices(self, position: Position) -> list[Move]: ...

    def pick(self, position: Position, rng: np.random.Generator) -> Move: ...

    def best_at(self, position: Position) -> tuple[Move, ...]: ...

    def would_play(self, position: Position, move: Move) -> bool: ...


@runtime_checkable
class Loaded(OpponentPlayer, Protocol):
    """A learner's player as a server keeps it loaded (the web's stored policies): a rival
    that says which learner it plays from and what keeping it costs. Met by a table
    learner's greedy agent, an n-tuple network and any learner that plays as itself
    (:func:`~qarena.agents.players.plays_as`)."""

    @property
    def learner(self) -> Trainable: ...

    @property
    def nbytes(self) -> int: ...


#: The name this module had before every player met one protocol.
Agent = Player

__all__ = [
    "Agent",
    "ChoosingPlayer",
    "Evaluator",
    "Loaded",
    "OpponentPlayer",
    "OwnPlayer",
    "Player",
    "PlayerDefaults",
]
