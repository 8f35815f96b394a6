"""Tabular Q-learning for two-player alternating games (negamax form in self-play)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.kernels import learn as k
from qarena.kernels.rng import seed_state
from qarena.learn.tables import GameTables, game_tables

SCHEDULES = {"constant": k.SCHEDULE_CONSTANT, "linear": k.SCHEDULE_LINEAR, "exp": k.SCHEDULE_EXP}
SEATS = {"first": k.SEAT_FIRST, "second": k.SEAT_SECOND, "both": k.SEAT_BOTH}


@dataclass(frozen=True)
class QConfig:
    """Hyperparameters. ``epsilon`` decays to ``epsilon_end`` over the run unless constant."""

    alpha: float = 1.0
    gamma: float = 0.9
    epsilon: float = 1.0
    epsilon_end: float = 0.1
    schedule: str = "linear"
    rewards: tuple[float, float, float] = (1.0, 0.0, -1.0)
    initial_q: float = 0.0
    canonical: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.alpha <= 1:
            raise QarenaError(f"alpha must be in (0, 1], not {self.alpha}")
        if not 0 <= self.gamma <= 1:
            raise QarenaError(f"gamma must be in [0, 1], not {self.gamma}")
        for name in ("epsilon", "epsilon_end"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise QarenaError(f"{name.replace('_', '-')} must be in [0, 1], not {value}")
        if self.schedule not in SCHEDULES:
            raise QarenaError(
                f"unknown epsilon schedule {self.schedule!r}; expected {', '.join(SCHEDULES)}"
            )
        if self.schedule == "exp" and (self.epsilon == 0 or self.epsilon_end == 0):
            raise QarenaError("an exponential epsilon schedule needs epsilon and its end above 0")
        if len(self.rewards) != 3 or not all(np.isfinite(self.rewards)):
            raise QarenaError(f"rewards are three numbers WIN,DRAW,LOSS, not {self.rewards}")


@dataclass
class Opponent:
    """Who the learner plays: itself, or a fixed agent given as the moves it picks among."""

    name: str
    mask: np.ndarray | None = None  # mask[code, move]: moves the opponent picks uniformly among

    @property
    def self_play(self) -> bool:
        return self.mask is None


@dataclass
class QLearner:
    """A Q-table ``q[position code, move]`` and the generator state that continues training."""

    game: Game
    config: QConfig = field(default_factory=QConfig)
    q: np.ndarray = field(init=False, repr=False)
    rng: np.ndarray = field(init=False, repr=False)
    episodes: int = 0
    steps: int = 0

    def __post_init__(self) -> None:
        self.tables: GameTables = game_tables(self.game)
        self.q = np.full((self.game.num_positions, self.game.num_moves), self.config.initial_q)
        self.rng = seed_state(self.config.seed)

    def train(
        self,
        episodes: int,
        opponent: Opponent | None = None,
        seat: str = "both",
        total_episodes: int | None = None,
    ) -> int:
        """Play ``episodes`` more games, learning from each; returns the moves played.

        ``total_episodes`` is the length of the whole run, for the exploration schedule.
        """
        if episodes <= 0:
            raise QarenaError(f"episodes must be at least 1, not {episodes}")
        if seat not in SEATS:
            raise QarenaError(f"unknown seat {seat!r}; expected {', '.join(SEATS)}")
        c, t = self.config, self.tables
        opp = opponent or Opponent("self")
        mask = opp.mask if opp.mask is not None else np.zeros((1, 1), dtype=np.bool_)
        steps = k.q_learning(
            self.q,
            t.nxt,
            t.legal,
            t.result,
            t.start,
            t.canon,
            t.cmove,
            c.canonical,
            mask,
            opp.self_play,
            SEATS[seat],
            episodes,
            self.episodes,
            total_episodes or self.episodes + episodes,
            c.alpha,
            c.gamma,
            SCHEDULES[c.schedule],
            c.epsilon,
            c.epsilon_end,
            np.asarray(c.rewards, dtype=np.float64),
            self.rng,
        )
        self.episodes += episodes
        self.steps += int(steps)
        return int(steps)

    def values(self) -> np.ndarray:
        """The learner's value of every (position code, move), canonical entries read through."""
        if not self.config.canonical:
            return self.q
        t = self.tables
        rows = np.broadcast_to(t.canon[:, None], t.cmove.shape)
        values: np.ndarray = self.q[rows, t.cmove]
        return values
