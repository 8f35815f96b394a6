"""Tabular Q-learning for two-player alternating games (negamax form in self-play)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from qarena.games.base import Game
from qarena.i18n import _, gettext_noop, number
from qarena.kernels import learn as k
from qarena.learn.family import Text
from qarena.learn.tables.base import (
    ALL_HYPERPARAMETERS,
    SHARED_HYPERPARAMETERS,
    LearnConfig,
    Learner,
    reward_text,
)
from qarena.policyfile import ArraySpec


class QLearner(Learner):
    """A Q-table ``q[row, move]``; one table serves both seats."""

    kind = "q"
    title = Text(gettext_noop("Q-learning"))
    episodes_per_pair = (150.0, 20_000)
    # One sweep is enough at every alpha measured (BENCHMARKS.md); the second is a margin.
    sweeps = 2
    # Reward-driven: every setting but the second player's, since its backward updates serve
    # both seats alike.
    hyperparameters = SHARED_HYPERPARAMETERS
    state_per_entry = 8  # q, float64; values() is q itself

    @classmethod
    def state_specs(cls, game: Game, config: LearnConfig, rows: int) -> dict[str, ArraySpec]:
        return {"q": ((rows, game.num_moves), np.dtype(np.float64))}

    def __init__(self, game: Game, config: LearnConfig | None = None) -> None:
        super().__init__(game, config)
        self.q = np.full((self._rows, game.num_moves), self.config.initial)

    def _train(self, versus: k.Versus, run: k.Run) -> int:
        return int(k.q_learning(self.q, self._walk, versus, run, self._rates, self.rng))

    def values(self) -> np.ndarray:
        """The learner's value of every (row, move)."""
        return self.q

    def state(self) -> dict[str, np.ndarray]:
        return {"q": self.q}


class NaiveQLearner(QLearner):
    """A baseline, not a way to learn: one-step Q-learning that adds the best value of the
    next position as it is, without the two-player sign flip (a mistake kept to show why the
    flip matters; none of the write-ups qarena grew from made it). In self-play the next
    position is the opponent's, so it learns to steer into positions that are good for whoever
    moves there, the opponent: on 3-5-7 nim it stays far from perfect play however long it
    trains. Against a fixed opponent it is
    Q-learning (the target looks past the reply to its own next position)."""

    kind = "naive-q"
    title = Text(gettext_noop("naive Q-learning (no sign flip)"))
    negamax = False

    def value_legend(self) -> str:
        win, draw, loss = (reward_text(r) for r in self.config.rewards)
        return _(
            "{win} a move that wins at once, {draw} a draw, {loss} a move that loses at once. "
            "This baseline adds up the next position's value (γ = {gamma} per move) without "
            "turning it round for the opponent, who moves there: its other values do not say "
            "who wins."
        ).format(win=win, draw=draw, loss=loss, gamma=number(self.config.gamma, "g"))


class SeatQLearner(QLearner):
    """The Q-learning of the write-ups qarena grew from: the course's Nim assignment (its
    ``NimAI``), the term paper on 3-5-7 Nim and the course notebook on 1-3-5-7 all use this
    rule. One table for both players, each value the mover's. A player's move is updated when
    that player is next to move, toward ``gamma`` times the best value of the position it then
    faces (no sign flip is needed: it is the same player's view); a move that ends the game
    is updated toward the mover's reward, and the other player's last move toward the other's.
    Updates are made during the game, move by move. The defaults are the course's: α = 0.5,
    ε = 0.1 throughout, γ = 1, rewards ±1, every game from the opening; the term paper's are
    ``alpha=0.1, gamma=0.8, rewards=(100, 0, -100)``.

    Where a position tells whose turn it is (tic-tac-toe, Connect Four) the one table is a
    table per seat already: the two players never meet the same position."""

    kind = "seat-q"
    title = Text(gettext_noop("seat Q-learning (the course's rule)"))
    defaults: ClassVar[dict[str, Any]] = {
        "alpha": 0.5,
        "gamma": 1.0,
        "epsilon": 0.1,
        "epsilon_end": 0.1,
        "schedule": "constant",
        "starts": 0.0,
    }
    episodes_per_pair = (150.0, 20_000)
    sweeps = 2
    # Each seat's moves are updated from that seat's own view, so each may learn and explore
    # at its own rates (--alpha-second, --epsilon-second).
    hyperparameters = ALL_HYPERPARAMETERS

    def _train(self, versus: k.Versus, run: k.Run) -> int:
        return int(k.seat_q_learning(self.q, self._walk, versus, run, self._rates, self.rng))
