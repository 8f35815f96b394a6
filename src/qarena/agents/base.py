"""The Agent interface: anything that picks a move for a position."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from qarena.games.base import Move, Position


@runtime_checkable
class Agent(Protocol):
    """Picks a legal move in a non-terminal position. Seeded agents own their generator."""

    name: str

    def act(self, position: Position) -> Move: ...
