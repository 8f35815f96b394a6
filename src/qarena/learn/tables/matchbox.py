"""The matchbox learner (MENACE, and the classic "Nimm" learner): a box of still-allowed moves
per position; losing moves are taken out."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.i18n import _, gettext_noop
from qarena.kernels import learn as k
from qarena.learn.family import Text
from qarena.learn.tables.base import LearnConfig, Learner
from qarena.policyfile import ArraySpec


class MatchboxLearner(Learner):
    """``allowed[row, move]`` and ``alive[row]``, the number of moves still allowed."""

    kind = "matchbox"
    title = Text(gettext_noop("matchbox"))
    episodes_per_pair = (80.0, 20_000)
    sweeps = 80
    # Exploring starts do not pay here: a box learns only from lost games, and on long games
    # (a subtraction heap of 200) starts leave it short of perfect play (BENCHMARKS.md).
    defaults: ClassVar[dict[str, Any]] = {"starts": 0.0}
    #: A box left empty takes the move that led to it along (the learner's one idea).
    propagate: ClassVar[bool] = True
    #: It plays a known win first: a move that wins at once, or into an emptied box.
    known_wins: ClassVar[bool] = True
    value_label = Text(gettext_noop("allowed"))
    value_heading = Text(gettext_noop("box"))
    hyperparameters = (
        "epsilon",
        "epsilon_end",
        "schedule",
        "canonical",
        "seed",
        "starts",
        "start_order",
    )
    state_per_entry = 1  # allowed, bool
    state_per_position = 4  # alive, int32
    values_per_entry = 19  # values(): afterstate rows, wins, scores
    sweep_per_entry = 0  # no exploring starts by default

    @classmethod
    def format_value(cls, value: float, compact: bool = False) -> str:
        if compact:
            return _("ok") if value else "✗"
        return _("allowed") if value else _("removed")

    @classmethod
    def describe_value(cls, value: float) -> str:
        return _("allowed in its matchbox") if value else _("removed from its matchbox")

    def value_legend(self) -> str:
        return _(
            "allowed: the move is still in the AI's matchbox for this position, and it picks "
            "among those at random; removed: the move was taken out after it lost a game."
        )

    @classmethod
    def state_specs(cls, game: Game, config: LearnConfig, rows: int) -> dict[str, ArraySpec]:
        return {
            "allowed": ((rows, game.num_moves), np.dtype(np.bool_)),
            "alive": ((rows,), np.dtype(np.int32)),
        }

    def __init__(self, game: Game, config: LearnConfig | None = None) -> None:
        super().__init__(game, config)
        self.allowed = self.tables.legal & self.played_positions()[:, None]
        self.alive = self.allowed.sum(axis=1).astype(np.int32)

    def _train(self, versus: k.Versus, run: k.Run) -> int:
        return int(
            k.matchbox_learning(
                self.allowed,
                self.alive,
                self._walk,
                versus,
                run,
                self.rng,
                self.propagate,
                self.known_wins,
            )
        )

    def values(self) -> np.ndarray:
        """2 for a known win, 1 for an allowed move, 0 for a removed one."""
        if not self.known_wins:
            return self.table_values()
        t = self.tables
        after = self._afterstates()
        ended = t.result[after] != k.NOT_TERMINAL
        wins = np.where(ended, t.result[after] < 0, self.alive[after] == 0)
        score: np.ndarray = np.where(t.legal & wins, 2.0, self.table_values())
        return score

    def table_values(self) -> np.ndarray:
        """1 for an allowed move, 0 for a removed one."""
        allowed = self.allowed.astype(np.float64)
        return np.where(self.tables.legal, allowed, np.nan)

    def _check_state(self) -> None:
        if not np.array_equal(self.alive, self.allowed.sum(axis=1)):
            raise QarenaError(_("the matchbox counts do not match its allowed moves"))

    def state(self) -> dict[str, np.ndarray]:
        return {"allowed": self.allowed, "alive": self.alive}


class EliminationLearner(MatchboxLearner):
    """The first version of the 12-stick write-up's learner, as it describes it: after a lost
    game it removes its last move from that position's box, and it picks uniformly among the
    moves still in a box (among all, once a box is empty). Nothing more: a box left empty does
    not take the move before it along, and it does not look for a winning move. It does not
    explore (ε = 0), as written. Against best play it keeps walking into lost positions
    (subtraction:12:3: well short of perfect play where the matchbox learner is perfect)."""

    kind = "elimination"
    title = Text(gettext_noop("elimination (the 12-stick write-up's first version)"))
    propagate = False
    known_wins = False
    defaults: ClassVar[dict[str, Any]] = {
        "starts": 0.0,
        "epsilon": 0.0,
        "epsilon_end": 0.0,
        "schedule": "constant",
    }


class ChainEliminationLearner(EliminationLearner):
    """The better version of the 12-stick write-up's learner, as it describes it (seed 001,
    line 26): after a lost game its last move is removed, and where that leaves every move of
    a position removed, the move before it too. Nothing more: unlike ``matchbox`` it does not
    play a known win first, so a winning move it has never lost with is one allowed move among
    others, and it picks uniformly among them. It does not explore (ε = 0), as written."""

    kind = "chain-elimination"
    title = Text(gettext_noop("chain elimination (the 12-stick write-up's better version)"))
    propagate = True
    known_wins = False
