"""What every learner shares: hyperparameters, opponents, training calls, greedy play, state."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from qarena.budget import JUDGE_PER_ENTRY, check_memory
from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.kernels import learn as k
from qarena.kernels.rng import seed_state
from qarena.learn.curve import Curve
from qarena.learn.policyfile import ArraySpec
from qarena.transitions.build import GameTables, game_tables
from qarena.transitions.judge import Optimality, optimality_of_values

SCHEDULES = {"constant": k.SCHEDULE_CONSTANT, "linear": k.SCHEDULE_LINEAR, "exp": k.SCHEDULE_EXP}
SEATS = {"first": k.SEAT_FIRST, "second": k.SEAT_SECOND, "both": k.SEAT_BOTH}


@dataclass(frozen=True)
class LearnConfig:
    """Hyperparameters. ``epsilon`` decays to ``epsilon_end`` over the run unless constant.

    Each learner reads the fields it needs (``Learner.hyperparameters``); the matchbox learner
    needs none but ``canonical`` and ``seed``.
    """

    alpha: float = 1.0
    gamma: float = 0.9
    epsilon: float = 1.0
    epsilon_end: float = 0.1
    schedule: str = "linear"
    rewards: tuple[float, float, float] = (1.0, 0.0, -1.0)
    initial: float = 0.0
    canonical: bool = True
    seed: int = 0
    starts: float = 0.0

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
        if not np.isfinite(self.initial):
            raise QarenaError(f"the initial value must be a finite number, not {self.initial}")
        if not 0 <= self.starts <= 1:
            raise QarenaError(f"starts must be a share in [0, 1], not {self.starts}")
        if not 0 <= self.seed < 2**63:
            raise QarenaError(f"seed must be a whole number from 0 to 2**63 - 1, not {self.seed}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rewards"] = list(self.rewards)
        return d


def default_episodes(learner: Learner) -> int:
    """:meth:`Learner.default_episodes`, as a function."""
    return learner.default_episodes()


_NO_STARTS = np.zeros(0, dtype=np.int64)

#: Every LearnConfig field, in order.
ALL_HYPERPARAMETERS = tuple(f.name for f in fields(LearnConfig))


@dataclass
class Opponent:
    """Who the learner plays: itself, or a fixed agent given as the moves it picks among."""

    name: str
    mask: np.ndarray | None = None  # mask[code, move]: moves the opponent picks uniformly among

    @property
    def self_play(self) -> bool:
        return self.mask is None


class Learner(ABC):
    """A learner's tables, the generator state that continues training, and its counters."""

    kind: ClassVar[str]
    title: ClassVar[str]
    #: The LearnConfig fields this learner uses (saved with it, accepted on the command line).
    hyperparameters: ClassVar[tuple[str, ...]]
    #: Where this learner's defaults differ from LearnConfig's.
    defaults: ClassVar[dict[str, Any]] = {}
    #: Default episodes: so many per (position, move) pair it plays on, and at least so many.
    #: The factors come from measured runs over a spread of games (tests/test_learners.py).
    episodes_per_pair: ClassVar[tuple[float, int]]
    #: What its values are called in a table's heading, and in a short one ("AI's value").
    value_label: ClassVar[str] = "learned value"
    value_heading: ClassVar[str] = "value"
    #: Bytes of the learner's own tables per (position, move) and per position, and of the
    #: temporaries its values and their judging hold at once, per (position, move). Read off
    #: the code; benchmarks/memory.py checks them against measured peak RSS.
    state_per_entry: ClassVar[int] = 0
    state_per_position: ClassVar[int] = 0
    work_per_entry: ClassVar[int] = JUDGE_PER_ENTRY

    @classmethod
    def memory(cls, game: Game) -> tuple[int, int]:
        """Bytes of (the learner's tables, its largest set of temporaries) for ``game``."""
        n = game.num_positions
        e = n * game.num_moves
        return cls.state_per_entry * e + cls.state_per_position * n, cls.work_per_entry * e

    @classmethod
    @abstractmethod
    def state_specs(cls, game: Game, config: LearnConfig) -> dict[str, ArraySpec]:
        """Shape and dtype of each array :meth:`state` holds, known without building anything,
        so a policy file's headers are checked before any table is allocated."""

    @classmethod
    def array_specs(cls, game: Game, config: LearnConfig) -> dict[str, ArraySpec]:
        """Shape and dtype of every array a policy file of this learner holds."""
        return {**cls.state_specs(game, config), "rng": ((4,), np.dtype(np.int64))}

    @classmethod
    def format_value(cls, value: float, compact: bool = False) -> str:
        """One learned value for people, in the one number format of every view: ``+0.8100``;
        ``compact`` where room is short (a board cell): ``+0.81``."""
        return f"{value:+.2f}" if compact else f"{value:+.4f}"

    @classmethod
    def describe_value(cls, value: float) -> str:
        """One learned value in a sentence: ``learned value +0.8100``."""
        return f"{cls.value_label} {cls.format_value(value)}"

    @classmethod
    def build_config(cls, given: Mapping[str, Any], base: LearnConfig | None = None) -> LearnConfig:
        """The one check of training settings, for the command line, the web and --resume:
        ``base`` (default: the learner's defaults) with the settings given (None: not given).
        A setting the learner does not use is refused; values are checked by LearnConfig."""
        for name, value in given.items():
            if value is None:
                continue
            if name not in ALL_HYPERPARAMETERS:
                raise QarenaError(f"unknown setting {name!r}")
            if name not in cls.hyperparameters:
                flag = "--epsilon-schedule" if name == "schedule" else "--" + name.replace("_", "-")
                raise QarenaError(f"{flag} does not apply to the {cls.kind} learner")
        chosen = {k: v for k, v in given.items() if v is not None}
        try:
            return replace(base or cls.default_config(), **chosen)
        except TypeError as e:  # a value of the wrong type, from a file or a request
            raise QarenaError(f"training settings are malformed ({e})") from None

    @classmethod
    def default_config(cls, **overrides: Any) -> LearnConfig:
        """The learner's default hyperparameters, with ``overrides`` applied."""
        return LearnConfig(**{**cls.defaults, **overrides})

    def __init__(self, game: Game, config: LearnConfig | None = None) -> None:
        self.game = game
        self.config = config or LearnConfig()
        check_memory(game, "learn", type(self))
        self.tables: GameTables = game_tables(game)
        self.rng = seed_state(self.config.seed)
        self.episodes = 0
        self.steps = 0
        self.run_start = 0  # episodes before this run: the exploration schedule starts here
        self.curve: Curve | None = None  # recorded by training runs that ask for one

    @property
    def _rows(self) -> int:
        return self.game.num_positions

    @property
    def _walk(self) -> k.Walk:
        """The positions the kernels play on: among canonical positions, or all of them."""
        t = self.tables
        succ, start = (t.cnxt, t.cstart) if self.config.canonical else (t.nxt, t.start)
        starts = self._starts if self.config.starts > 0 else _NO_STARTS
        return k.Walk(
            succ, t.moves, t.nmoves, t.result, start, self.game.max_plies, starts, t.mover
        )

    @cached_property
    def _starts(self) -> np.ndarray:
        """Where exploring starts begin: every position the learner plays on."""
        return np.flatnonzero(self.played_positions()).astype(np.int64)

    # --- training -------------------------------------------------------------------
    def train(
        self,
        episodes: int,
        opponent: Opponent | None = None,
        seat: str = "both",
        total_episodes: int | None = None,
    ) -> int:
        """Play ``episodes`` more games, learning from each; returns the moves played.

        ``total_episodes`` is the length of the whole run (counted from the learner's creation
        or restoring), over which the exploration schedule goes from epsilon to its end.
        """
        if episodes <= 0:
            raise QarenaError(f"episodes must be at least 1, not {episodes}")
        if seat not in SEATS:
            raise QarenaError(f"unknown seat {seat!r}; expected {', '.join(SEATS)}")
        opp = opponent or Opponent("self")
        mask = opp.mask if opp.mask is not None else np.zeros((1, 1), dtype=np.bool_)
        done = self.episodes - self.run_start
        total = total_episodes or done + episodes
        steps = self._train(
            k.Versus(mask, opp.self_play, SEATS[seat]), self._run(episodes, done, total)
        )
        self.episodes += episodes
        self.steps += steps
        return steps

    def default_episodes(self) -> int:
        """Episodes that bring this learner to perfect play on any game of up to 10⁵ positions,
        scaled to what there is to learn: the (position, move) pairs among the positions it
        plays on (canonical ones, with canonical positions on)."""
        pairs = int(self.tables.legal[self.played_positions()].sum())
        per_pair, floor = self.episodes_per_pair
        return int(max(floor, math.ceil(per_pair * pairs / 1000) * 1000))

    def warm_up(self) -> None:
        """Compile (or load the cached) kernel without training, so timing excludes it."""
        self._train(
            k.Versus(np.zeros((1, 1), dtype=np.bool_), True, k.SEAT_BOTH), self._run(0, 0, 1)
        )

    @abstractmethod
    def _train(self, versus: k.Versus, run: k.Run) -> int:
        """Run the learner's kernel on :attr:`_walk`; returns the moves played."""

    def _run(self, episodes: int, done: int, total: int) -> k.Run:
        """``episodes`` more, ``done`` of the run's ``total`` behind, with the exploration
        schedule of the config."""
        c = self.config
        return k.Run(
            episodes, done, total, SCHEDULES[c.schedule], c.epsilon, c.epsilon_end, c.starts
        )

    @property
    def _rates(self) -> k.Rates:
        c = self.config
        return k.Rates(c.alpha, c.gamma, np.asarray(c.rewards, dtype=np.float64))

    def played_positions(self) -> np.ndarray:
        """``mask[code]``: the positions the learner keeps values for, those where it may have
        to move (reachable, not over), and with canonical positions on only representatives."""
        t = self.tables
        live: np.ndarray = t.reachable & (t.result == k.NOT_TERMINAL)
        if self.config.canonical:
            live &= t.canon == np.arange(t.canon.size)
        return live

    def _read_through(self, table: np.ndarray) -> np.ndarray:
        """A ``[code, move]`` table for every position, read through the symmetry tables when
        the learner keeps one entry per canonical position and move."""
        if not self.config.canonical:
            return table
        t = self.tables
        out: np.ndarray = table[np.broadcast_to(t.canon[:, None], t.cmove.shape), t.cmove]
        return out

    def _afterstates(self) -> tuple[np.ndarray, np.ndarray]:
        """For each (code, move): the position the move leads to (0 where illegal), and the row
        the learner's per-position tables keep it in."""
        t = self.tables
        after = np.where(t.legal, t.nxt, 0)
        return after, (t.canon[after] if self.config.canonical else after)

    # --- what was learned -----------------------------------------------------------
    @abstractmethod
    def values(self) -> np.ndarray:
        """The learner's score of every (position code, move); it plays the highest."""

    def table_values(self) -> np.ndarray:
        """The learned value of every (position code, move), as ``qarena table`` shows it."""
        return self.values()

    def best_moves(self) -> np.ndarray:
        """``mask[code, move]``: the legal moves of highest score, which greedy play picks among."""
        legal = self.tables.legal
        v = np.where(legal, self.values(), -np.inf)
        best: np.ndarray = legal & (v == v.max(axis=1, keepdims=True))
        return best

    def optimality(self) -> Optimality:
        """Share of decision positions where greedy play keeps the game value (solver-judged)."""
        return optimality_of_values(self.tables, self.values())

    # --- saving and loading ---------------------------------------------------------
    @abstractmethod
    def state(self) -> dict[str, np.ndarray]:
        """The learned tables, by name (the arrays a policy file holds besides ``rng``)."""

    def arrays(self) -> dict[str, np.ndarray]:
        return {**self.state(), "rng": self.rng}

    def restore(self, arrays: dict[str, np.ndarray], episodes: int, steps: int) -> None:
        """Continue from saved arrays (shapes and dtypes already checked against ``arrays()``)."""
        for name, target in self.arrays().items():
            target[...] = arrays[name]
        self.episodes, self.steps, self.run_start = episodes, steps, episodes
        self._check_state()

    def _check_state(self) -> None:  # noqa: B027 - a hook; most learners need no check
        """Refuse restored arrays that no training could have produced."""

    def hyperparameter_values(self) -> dict[str, Any]:
        full = self.config.to_dict()
        return {name: full[name] for name in self.hyperparameters}
