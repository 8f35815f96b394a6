"""A trained agent frozen for play: its learned values and greedy choices, computed once."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field

import numpy as np

from qarena.exact.solver import Mover
from qarena.games.base import Game, Move, Position
from qarena.learn.base import Learner


@dataclass
class GreedyAgent:
    """Plays the learner's greedy move, uniformly among ties (drawn from its own generator,
    seeded by ``seed``); shows its value of each move. A :class:`~qarena.agents.base.Player`."""

    learner: Learner
    name: str = ""  # "" : the learner's kind
    seed: int | None = None
    table: np.ndarray = field(init=False, repr=False)
    best: np.ndarray = field(init=False, repr=False)
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.table = self.learner.table_values()
        self.best = self.learner.best_moves()
        self.rng = np.random.default_rng(self.seed)
        if not self.name:
            self.name = self.learner.kind

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], game: Game | None = None, seed: int | None = None
    ) -> GreedyAgent:
        """The agent of a policy file, named by the file's name."""
        from qarena.learn.learners import load_table

        return cls(load_table(path, game), os.path.basename(os.fspath(path)), seed)

    def seeded(self, seed: int | None, name: str | None = None) -> GreedyAgent:
        """The same agent (its tables shared, not copied) drawing from a generator of its own
        seeded by ``seed``: one per game, so games never share a generator."""
        other = copy.copy(self)
        other.seed = seed
        other.rng = np.random.default_rng(seed)
        if name is not None:
            other.name = name
        return other

    @property
    def game(self) -> Game:
        return self.learner.game

    def __repr__(self) -> str:
        return f"GreedyAgent({self.name!r}: {self.learner!r})"

    def _frame(self, position: Position) -> tuple[int, dict[Move, Move]]:
        return self.learner.tables.frame(position)

    def act(self, position: Position) -> Move:
        """The greedy move, uniformly among ties, drawn from the agent's own generator."""
        return self.pick(position, self.rng)

    def pick(self, position: Position, rng: np.random.Generator) -> Move:
        """The greedy move, uniformly among ties, drawn from ``rng``."""
        moves = self.choices(position)
        return moves[int(rng.integers(len(moves)))]

    def choices(self, position: Position) -> list[Move]:
        """The greedy moves it picks among, in the frame of ``position``."""
        row, frame = self._frame(position)
        return [m for m, f in frame.items() if self.best[row, f]]

    def value(self, position: Position, move: Move) -> float:
        """The learned value of ``move`` (for the matchbox learner: 1 allowed, 0 removed)."""
        row, frame = self._frame(position)
        return float(self.table[row, frame[move]]) if move in frame else float("nan")

    def values(self, position: Position) -> dict[Move, float]:
        """:meth:`value` of each legal move, in the game's order of moves."""
        return self.move_values(position)

    def move_values(self, position: Position) -> dict[Move, float]:
        """:meth:`value` of each legal move, in the game's order of moves."""
        row, frame = self._frame(position)
        return {
            m: float(self.table[row, frame[m]]) if m in frame else float("nan")
            for m in self.game.legal_moves(position)
        }

    def mask(self) -> np.ndarray:
        """The moves it picks among in every row of its learner's tables."""
        return self.best

    def best_at(self, position: Position) -> tuple[Move, ...]:
        """The greedy moves it picks among here (:meth:`would_play`), in the game's order."""
        row, frame = self._frame(position)
        return tuple(
            m for m in self.game.legal_moves(position) if m in frame and self.best[row, frame[m]]
        )

    @property
    def value_heading(self) -> str:
        """What its values are called in a table (the learner's kind of value)."""
        return self.learner.value_heading

    def format_value(self, value: float) -> str:
        return self.learner.format_value(value)

    def value_text(self, position: Position, move: Move, mover: Mover = "human") -> str:
        """Its value of ``move`` for whoever makes it, as its learner writes values."""
        return self.learner.format_value(self.value(position, move))

    def value_legend(self) -> str:
        """What its values mean, for a note under them."""
        return self.learner.value_legend()

    def would_play(self, position: Position, move: Move) -> bool:
        """Is ``move`` one of the greedy moves the agent picks among here?"""
        row, frame = self._frame(position)
        return move in frame and bool(self.best[row, frame[move]])
