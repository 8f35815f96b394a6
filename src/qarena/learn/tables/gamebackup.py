"""The tic-tac-toe blog's own learner (seed 003): every position of a game backed up at its
end, from the last to the first, each toward the value of the one after it."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from qarena.games.base import Game
from qarena.i18n import gettext_noop
from qarena.kernels import learn as k
from qarena.learn.family import Text
from qarena.learn.tables.afterstate import AfterstateLearner
from qarena.learn.tables.base import LearnConfig
from qarena.policyfile import ArraySpec


class GameBackupLearner(AfterstateLearner):
    """``v[seat, row]``: the value of ``row`` to ``seat``, for every position of its games,
    those its opponent moves from too; moves are chosen on the positions one's own moves
    produce, as the afterstate learner does.

    In impartial games the position does not tell whose turn it is, so one table serves both
    seats with a row per view: ``v[0]`` for the player who moved there, ``v[1]`` for the
    player to move (see ``kernels.learn.game_backup_learning``).
    """

    kind = "game-backup"
    # The blog's values: rewards 1 / 0.5 / 0, every position not yet decided 0.25, no
    # discount. Its step is 0.1·α (α 0.99 and 0.8 for its two agents); --alpha is that step.
    defaults: ClassVar[dict[str, Any]] = {
        "alpha": 0.1,
        "gamma": 1.0,
        "rewards": (1.0, 0.5, 0.0),
        "initial": 0.25,
        "epsilon_end": 0.0,
    }
    title = Text(gettext_noop("end-of-game backup (the tic-tac-toe blog's rule)"))
    # Every position of the game is a link of the chain: one γ per move, either player's.
    discount_per = "move"
    episodes_per_pair = (150.0, 100_000)
    # Measured, seeds 0-9 with --until-perfect: at 200 sweeps (151,200 episodes on 3-5-7 nim,
    # 454,000 on tic-tac-toe) perfect play comes after 112,000-139,000 and 275,000-384,000;
    # at 150 sweeps (113,400 on nim) the slower seeds do not get there.
    sweeps = 200

    @classmethod
    def state_specs(cls, game: Game, config: LearnConfig, rows: int) -> dict[str, ArraySpec]:
        return {"v": ((2, rows), np.dtype(np.float64))}

    def __init__(self, game: Game, config: LearnConfig | None = None) -> None:
        super().__init__(game, config)
        # Two rows always: a seat each, or in impartial games a view each.
        self.v = np.full((2, self._rows), self.config.initial)

    def _train(self, versus: k.Versus, run: k.Run) -> int:
        return int(k.game_backup_learning(self.v, self._walk, versus, run, self._rates, self.rng))
