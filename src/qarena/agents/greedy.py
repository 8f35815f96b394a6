"""A trained agent frozen for play: its learned values and greedy choices, computed once."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qarena.games.base import Game, Move, Position
from qarena.learn.base import Learner


@dataclass
class GreedyAgent:
    """Plays the learner's greedy move, uniformly among ties; shows its value of each move."""

    learner: Learner
    values: np.ndarray = field(init=False, repr=False)
    best: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.values = self.learner.table_values()
        self.best = self.learner.best_moves()

    @property
    def game(self) -> Game:
        return self.learner.game

    def _frame(self, position: Position) -> tuple[int, dict[Move, Move]]:
        return self.learner.tables.frame(position)

    def pick(self, position: Position, rng: np.random.Generator) -> Move:
        """The greedy move, uniformly among ties."""
        row, frame = self._frame(position)
        moves = [m for m, f in frame.items() if self.best[row, f]]
        return moves[int(rng.integers(len(moves)))]

    def value(self, position: Position, move: Move) -> float:
        """The learned value of ``move`` (for the matchbox learner: 1 allowed, 0 removed)."""
        row, frame = self._frame(position)
        return float(self.values[row, frame[move]]) if move in frame else float("nan")

    def move_values(self, position: Position) -> dict[Move, float]:
        """:meth:`value` of each legal move, in the game's order of moves."""
        row, frame = self._frame(position)
        return {
            m: float(self.values[row, frame[m]]) if m in frame else float("nan")
            for m in self.game.legal_moves(position)
        }

    def best_at(self, position: Position) -> tuple[Move, ...]:
        """The greedy moves it picks among here (:meth:`would_play`), in the game's order."""
        row, frame = self._frame(position)
        return tuple(
            m for m in self.game.legal_moves(position) if m in frame and self.best[row, frame[m]]
        )

    def value_text(self, position: Position, move: Move) -> str:
        return self.learner.format_value(self.value(position, move))

    def would_play(self, position: Position, move: Move) -> bool:
        """Is ``move`` one of the greedy moves the agent picks among here?"""
        row, frame = self._frame(position)
        return move in frame and bool(self.best[row, frame[move]])
