"""The AlphaZero learner's loop: a chunk of games of self-play through its search, then
learning from a replay buffer of the latest positions (:class:`SelfPlayLearning`), in the
synchronous rhythm AlphaZero.jl uses on one machine, and how it learns
(:class:`LearningSettings`) and what a chunk did (:class:`ChunkReport`). The learner kind is
:class:`~qarena.learn.alphazero.learner.AlphaZeroLearner`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from qarena import threads
from qarena.errors import QarenaError
from qarena.games.base import Game, grid_of
from qarena.i18n import _
from qarena.learn.alphazero.net import (
    Moments,
    PolicyValueNet,
    Trainer,
    move_count,
)
from qarena.learn.alphazero.search import SearchSettings, self_play
from qarena.learn.alphazero.workers import Workers


@dataclass(frozen=True)
class LearningSettings:
    """How the network learns: Adam's step size ``alpha`` and L2 ``weight_decay``; batches
    of ``batch`` positions drawn from the latest ``buffer`` positions; after each chunk of
    games, ``reuse`` times as many positions drawn as the chunk added (OpenSpiel's ``reuse``
    the other way round: how often a position is learned from on average); ``seed``."""

    alpha: float = 1e-3
    weight_decay: float = 1e-4
    batch: int = 128
    reuse: float = 4.0
    buffer: int = 50_000
    seed: int = 0


@dataclass
class ChunkReport:
    """What a chunk did: its games and their results for the first player, the positions it
    added, the learning steps taken and the last step's losses."""

    games: int
    results: list[float]
    positions: int
    steps: int
    value_loss: float
    policy_loss: float


@dataclass
class SelfPlayLearning:
    """A network of ``game`` learning by self-play through its search. The buffer keeps the
    latest positions (boards, movers, visit shares, results) in arrays of fixed size."""

    game: Game
    net: PolicyValueNet
    search: SearchSettings = field(default_factory=SearchSettings)
    learning: LearningSettings = field(default_factory=LearningSettings)
    games: int = 0
    _trainer: Trainer | None = field(default=None, repr=False)
    #: Adam's state read from a file, for the trainer when it is made.
    moments_kept: Moments | None = field(default=None, repr=False)
    _filled: int = 0
    _next: int = 0

    def __post_init__(self) -> None:
        grid = grid_of(self.game)
        if grid != self.net.grid:
            raise QarenaError(_("the network was made for another board"))
        size, moves = self.learning.buffer, move_count(grid)
        self._boards = np.zeros((size, grid.cells), dtype=np.int8)
        self._movers = np.zeros(size, dtype=np.int8)
        self._policy = np.zeros((size, moves), dtype=np.float32)
        self._value = np.zeros(size, dtype=np.float32)

    @property
    def trainer(self) -> Trainer:
        if self._trainer is None:
            c = self.learning
            self._trainer = Trainer(self.net, c.alpha, c.weight_decay, self.moments_kept)
            self.moments_kept = None
        return self._trainer

    def moments(self) -> Moments | None:
        """Adam's state, as its file keeps it (None before it has learned)."""
        return self._trainer.moments() if self._trainer is not None else self.moments_kept

    def play_and_learn(self, games: int, pool: Workers | None = None) -> ChunkReport:
        """``games`` games of self-play in lockstep (shared among the ``pool``'s workers when
        given), their positions added to the buffer, then ``reuse`` × their positions /
        ``batch`` learning steps on batches from the buffer.

        The caller's stop (:func:`threads.limit`) is looked at throughout: during the games it
        raises :class:`threads.Stopped` with nothing changed (the chunk's games unfinished,
        not learned from); during the learning it ends the chunk after the last whole step,
        the games counted and what they taught kept (``report.steps`` says how many)."""
        c = self.learning
        # A chunk's randomness comes from the seed and the games before it, nothing else.
        rng = np.random.default_rng([c.seed, self.games])
        if pool is None:
            samples, results = self_play(
                self.game, self.net.evaluate, games, self.search, rng, move_count(self.net.grid)
            )
        else:
            samples, results = pool.play(
                self.game.spec, self.net, games, self.search, c.seed, self.games
            )
        self._add(samples.boards, samples.movers, samples.policy, samples.value)
        steps = max(1, math.ceil(c.reuse * len(samples) / c.batch))
        value_loss = policy_loss = math.nan
        taken = 0
        for _step in range(steps):
            if threads.limit_reached() is not None:
                break
            pick = rng.integers(0, self._filled, min(c.batch, self._filled))
            try:
                value_loss, policy_loss = self.trainer.step(
                    self._boards[pick], self._movers[pick], self._policy[pick],
                    self._value[pick], rng,
                )  # fmt: skip
            except threads.Stopped:
                break  # that step not taken; the ones before it are kept
            taken += 1
        self.trainer.done()
        self.games += games
        return ChunkReport(games, results, len(samples), taken, value_loss, policy_loss)

    def _add(
        self, boards: np.ndarray, movers: np.ndarray, policy: np.ndarray, value: np.ndarray
    ) -> None:
        # The ring's next places, oldest overwritten first.
        size = self._value.shape[0]
        at = (self._next + np.arange(value.shape[0])) % size
        self._boards[at], self._movers[at], self._policy[at], self._value[at] = (
            boards,
            movers,
            policy,
            value,
        )
        self._next = int((self._next + value.shape[0]) % size)
        self._filled = min(size, self._filled + value.shape[0])

    def buffer_arrays(self) -> dict[str, np.ndarray]:
        """The buffer's positions, oldest first (``files.BUFFER_ARRAYS``), as its file
        keeps them (none before a position is added)."""
        if self._filled == 0:
            return {}
        size = self._value.shape[0]
        start = (self._next - self._filled) % size
        at = (start + np.arange(self._filled)) % size
        return {
            "boards": self._boards[at],
            "movers": self._movers[at],
            "policy": self._policy[at],
            "value": self._value[at],
        }

    def restore(self, arrays: dict[str, np.ndarray]) -> None:
        """Fill the buffer with a file's positions (the latest of them, where more were kept
        than it holds)."""
        if arrays:
            self._filled = self._next = 0
            keep = slice(-self._value.shape[0], None)
            self._add(*(arrays[name][keep] for name in ("boards", "movers", "policy", "value")))


# --- the learner kind ----------------------------------------------------------------------


__all__ = ["ChunkReport", "LearningSettings", "SelfPlayLearning"]
