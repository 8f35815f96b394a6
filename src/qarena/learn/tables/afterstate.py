"""The afterstate value learner of Sutton & Barto's tic-tac-toe example: TD(0) on the positions
one's own moves produce, one table per seat (one shared table in impartial games)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from qarena.games.base import Game
from qarena.i18n import gettext_noop
from qarena.kernels import learn as k
from qarena.learn.family import Text
from qarena.learn.tables.base import ALL_HYPERPARAMETERS, LearnConfig, Learner
from qarena.policyfile import ArraySpec


class AfterstateLearner(Learner):
    """``v[seat, row]``: the value to ``seat`` of reaching ``row`` by its own move.

    In impartial games (Nim, subtraction) the position alone decides the game, not who is to
    move, so the two seats' tables would estimate one function: there ``v`` has a single row
    that both seats learn, which halves the episodes needed.
    """

    kind = "afterstate"
    # TD(0) on afterstates learns the values of the policies being played, so exploration
    # must fade out completely for the values to become those of best play.
    defaults: ClassVar[dict[str, Any]] = {"alpha": 0.5, "epsilon_end": 0.0}
    title = Text(gettext_noop("afterstate TD(0)"))
    # A position's value backs up into the mover's previous afterstate, one γ per own move.
    discount_per = "own move"
    episodes_per_pair = (150.0, 100_000)
    # TD(0) learns the values of the play it sees, so exploration must fade out over the run.
    sweeps = 150
    hyperparameters = ALL_HYPERPARAMETERS  # reward-driven learners use every setting
    state_per_position = 16  # v: a float64 per seat (at most two)
    # values(): afterstate rows, learned values, outcomes (int64), finals
    # and the result (float64), besides judging.
    values_per_entry = 41

    @classmethod
    def state_specs(cls, game: Game, config: LearnConfig, rows: int) -> dict[str, ArraySpec]:
        seats = 1 if game.impartial else 2
        return {"v": ((seats, rows), np.dtype(np.float64))}

    def __init__(self, game: Game, config: LearnConfig | None = None) -> None:
        super().__init__(game, config)
        seats = 1 if game.impartial else 2
        self.v = np.full((seats, self._rows), self.config.initial)

    def _train(self, versus: k.Versus, run: k.Run) -> int:
        return int(k.afterstate_learning(self.v, self._walk, versus, run, self._rates, self.rng))

    def values(self) -> np.ndarray:
        """For each (row, move), the mover's value of the position the move produces: from the
        mover's own table where the position tells whose turn it is (tic-tac-toe), else from
        the one shared table."""
        t, c = self.tables, self.config
        after = self._afterstates()
        seat = 0 if self.v.shape[0] == 1 else np.maximum(t.mover, 0)[:, None]
        learned = self.v[seat, after]
        rewards = np.asarray(c.rewards)
        # result[after] is the outcome for the opponent, who is to move there.
        outcome = -t.result[after].astype(np.int64)
        ended = t.result[after] != k.NOT_TERMINAL
        final = rewards[np.select([outcome > 0, outcome == 0], [0, 1], 2)]
        values: np.ndarray = np.where(t.legal, np.where(ended, final, learned), np.nan)
        return values

    def state(self) -> dict[str, np.ndarray]:
        return {"v": self.v}
