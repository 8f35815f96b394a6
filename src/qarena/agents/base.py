"""The one player abstraction: anything that picks a move for a position.

Every player qarena knows meets :class:`Player`: the built-in strategies (random, perfect, the
games' rule players), a trained agent (:class:`~qarena.agents.greedy.GreedyAgent`), and the
adapters for a plain function or a table a person wrote (:mod:`qarena.agents.players`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from qarena.games.base import Game, Move, Position

if TYPE_CHECKING:
    import numpy as np

    from qarena.exact.solver import Mover


@runtime_checkable
class Player(Protocol):
    """Picks a legal move where play goes on (``act``) and, where it has them, shows its own
    value of each legal move (``values``; None for a player without values). A player that
    draws at random owns its generator, seeded when it was made, so a game can be replayed."""

    name: str

    @property
    def game(self) -> Game: ...

    def act(self, position: Position) -> Move: ...

    def values(self, position: Position) -> dict[Move, float] | None: ...


class Rival(Player, Protocol):
    """A player a person plays against (``qarena play``, the web's game): besides its moves,
    its own value of each move as text, which moves it would pick among, and what its values
    mean. Met by a trained agent, perfect play and an n-tuple network."""

    @property
    def value_heading(self) -> str: ...

    def pick(self, position: Position, rng: np.random.Generator) -> Move: ...

    def move_values(self, position: Position) -> dict[Move, float]: ...

    def best_at(self, position: Position) -> tuple[Move, ...]: ...

    def would_play(self, position: Position, move: Move) -> bool: ...

    def value_text(self, position: Position, move: Move, mover: Mover = "human") -> str: ...

    def value_legend(self) -> str: ...


#: The name this module had before every player met one protocol.
Agent = Player

__all__ = ["Agent", "Player", "Rival"]
