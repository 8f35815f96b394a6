"""The one player abstraction: anything that picks a move for a position.

Every player qarena knows meets :class:`Player`: the built-in strategies (random, perfect, the
games' rule players), a trained agent (:class:`~qarena.agents.greedy.GreedyAgent`), and the
adapters for a plain function or a table a person wrote (:mod:`qarena.agents.players`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from qarena.games.base import Game, Move, Position


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


#: The name this module had before every player met one protocol.
Agent = Player

__all__ = ["Agent", "Player"]
