"""A trained agent frozen for play: its learned values and greedy choices, computed once."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qarena.games.base import Game, Move, Position
from qarena.games.picking import ChoosingPlayer
from qarena.i18n import ngettext
from qarena.learn.tables.base import Learner


@dataclass
class GreedyAgent(ChoosingPlayer):
    """Plays the learner's greedy move, uniformly among ties (drawn from its own generator,
    seeded by ``seed``); shows its value of each move. An
    :class:`~qarena.agents.base.OpponentPlayer`."""

    learner: Learner
    name: str = ""  # "" : the learner's kind
    seed: int | None = None
    table: np.ndarray = field(init=False, repr=False)
    best: np.ndarray = field(init=False, repr=False)
    rng: np.random.Generator = field(init=False, repr=False)
    #: A table of one entry per symmetry class plays every image of a class alike.
    symmetric: bool = field(init=False, repr=False, default=False)

    def __post_init__(self) -> None:
        self.symmetric = bool(self.learner.tables.canonical)
        self.table = self.learner.table_values()
        self.best = self.learner.best_moves()
        self.rng = np.random.default_rng(self.seed)
        if not self.name:
            self.name = self.learner.kind

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
        row, frame = self._frame(position)
        return {
            m: float(self.table[row, frame[m]]) if m in frame else float("nan")
            for m in self.game.legal_moves(position)
        }

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays it holds with its learner's and its game's tables (an array
        shared or viewed counted once): what keeping it loaded costs."""
        arrays: dict[int, np.ndarray] = {}
        for owner in (self, self.learner, self.learner.tables):
            for value in vars(owner).values():
                if isinstance(value, np.ndarray):
                    base = value.base if isinstance(value.base, np.ndarray) else value
                    arrays[id(base)] = base
        return sum(a.nbytes for a in arrays.values())

    def mask(self) -> np.ndarray:
        """The moves it picks among in every row of its learner's tables."""
        return self.best

    @property
    def value_heading(self) -> str:
        """What its values are called in a table (the learner's kind of value)."""
        return self.learner.value_heading

    def format_value(self, value: float, compact: bool = False) -> str:
        """One value as its learner writes values."""
        return self.learner.format_value(value, compact)

    def value_legend(self) -> str:
        """What its values mean, for a note under them."""
        return self.learner.value_legend()

    def describe(self) -> str:
        """Its learner and how long it trained: ``q, 30,000 episodes``."""
        learner = self.learner
        return ngettext(
            "{learner}, {count:,} episode", "{learner}, {count:,} episodes", learner.episodes
        ).format(learner=learner.kind, count=learner.episodes)
