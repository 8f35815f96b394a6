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

    def pick(self, position: Position, rng: np.random.Generator) -> Move:
        """The greedy move, uniformly among ties."""
        moves = np.flatnonzero(self.best[self.game.encode(position)])
        return int(moves[rng.integers(moves.size)])

    def value(self, position: Position, move: Move) -> float:
        """The learned value of ``move`` (for the matchbox learner: 1 allowed, 0 removed)."""
        return float(self.values[self.game.encode(position), move])

    def value_text(self, position: Position, move: Move) -> str:
        return self.learner.format_value(self.value(position, move))

    def would_play(self, position: Position, move: Move) -> bool:
        """Is ``move`` one of the greedy moves the agent picks among here?"""
        return bool(self.best[self.game.encode(position), move])
