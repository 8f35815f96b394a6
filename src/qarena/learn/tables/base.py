"""The table learner (:class:`Learner`, a learner kind of ``learn/family.py``): its tables, whom
it trains against (:class:`Opponent`), its training calls, greedy play, what it tells people and
its saved state. Its hyperparameters (``LearnConfig``) and the words they are given in are in
``learn/tables/config.py``; their names are importable from here too.
"""

from __future__ import annotations

import html
import math
from abc import abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from qarena.budget import JUDGE_PER_ENTRY, MAX_FRAME_ENTRIES, check_memory
from qarena.errors import QarenaError
from qarena.exact.space import GameTables, game_tables
from qarena.games.base import Game
from qarena.i18n import _, gettext_noop, ngettext, number, option
from qarena.kernels import learn as k
from qarena.kernels.rng import seed_state
from qarena.learn.curve import Curve
from qarena.learn.family import JudgingFamily, Text, Trainable
from qarena.learn.settings import typed
from qarena.learn.tables.config import (
    ALL_HYPERPARAMETERS,
    NUMBER,
    SCHEDULES,
    SEAT_SETTINGS,
    SEATS,
    SHARED_HYPERPARAMETERS,
    START_ORDERS,
    LearnConfig,
    read_rewards,
    reward_text,
)
from qarena.optional import need
from qarena.policyfile import ArraySpec

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Iterable

    from qarena.games.base import Move, Position


def default_episodes(learner: Learner, self_play: bool = True) -> int:
    """:meth:`Learner.default_episodes`, as a function."""
    return learner.default_episodes(self_play)


_NO_STARTS = np.zeros(0, dtype=np.int64)


@dataclass
class Opponent:
    """Who the learner plays: itself, or a fixed agent given as the moves it picks among."""

    name: str
    mask: np.ndarray | None = None  # mask[row, move]: moves the opponent picks uniformly among

    @property
    def self_play(self) -> bool:
        return self.mask is None


class Learner(Trainable):
    """A table learner (a learner kind, ``learn/family.py``): its tables, the generator state
    that continues training, and its counters."""

    #: Judged over every position of its tables; its curve measures it against random and
    #: perfect play in both seats.
    judging_family: ClassVar[JudgingFamily] = "exact"
    keeps_table: ClassVar[bool] = True

    kind: ClassVar[str]
    #: Its name for people ("Q-learning"), in the reader's language; ``kind`` is its name as
    #: data (files, URLs, the command line).
    title: ClassVar[Text]
    #: The LearnConfig fields this learner uses (saved with it, accepted on the command line).
    hyperparameters: ClassVar[tuple[str, ...]]
    #: Where this learner's defaults differ from LearnConfig's.
    defaults: ClassVar[dict[str, Any]] = {}
    #: Default episodes: so many per (position, move) pair it plays on, and at least so many,
    #: for episodes that begin at the start; and the sweeps of exploring starts that bring it
    #: to perfect play when every self-play episode sweeps (the default). The factors come
    #: from measured runs over a spread of games (tests/test_learners.py, BENCHMARKS.md).
    episodes_per_pair: ClassVar[tuple[float, int]]
    sweeps: ClassVar[int]
    #: What its values are called in a table's heading, and in a short one ("AI's value"),
    #: in the reader's language.
    value_label: ClassVar[Text] = Text(gettext_noop("learned value"))
    value_heading: ClassVar[Text] = Text(gettext_noop("value"))
    #: How far off a win is counted, for ``value_legend``: "move" (either player's, as in
    #: negamax Q-learning) or "own move" (the mover's own, as in afterstate learning).
    discount_per: ClassVar[str] = "move"
    #: Bytes of the learner's own tables per (row, move) and per row of its tables; of a
    #: sweep's starts per (row, move) (int64 pairs, about half the entries), while training;
    #: and of the temporaries its values() hold at once, per (row, move). Read off the code;
    #: benchmarks/memory.py checks them against measured peak RSS.
    state_per_entry: ClassVar[int] = 0
    state_per_position: ClassVar[int] = 0
    #: Q-learning's self-play target negates the next position's value (see k.Rates).
    negamax: ClassVar[bool] = True
    sweep_per_entry: ClassVar[int] = 4
    values_per_entry: ClassVar[int] = 0

    @classmethod
    def memory(cls, game: Game, rows: int, opponents: int = 0) -> tuple[int, int]:
        """Bytes of (the learner's tables, its largest set of temporaries) for ``game``, whose
        tables have ``rows`` rows: training (``opponents`` 0), or playing greedily against
        ``opponents`` fixed ones (their masks are counted by the caller)."""
        e = rows * game.num_moves
        state = cls.state_per_entry * e + cls.state_per_position * rows
        if opponents == 0:
            state += cls.sweep_per_entry * e
        work = cls.values_per_entry * e + (JUDGE_PER_ENTRY * e if opponents else 0)
        return state, work

    @classmethod
    @abstractmethod
    def state_specs(cls, game: Game, config: LearnConfig, rows: int) -> dict[str, ArraySpec]:
        """Shape and dtype of each array :meth:`state` holds for tables of ``rows`` rows, so a
        policy file's headers are checked before any of the learner's tables is allocated."""

    @classmethod
    def array_specs(cls, game: Game, config: LearnConfig, rows: int) -> dict[str, ArraySpec]:
        """Shape and dtype of every array a policy file of this learner holds."""
        return {**cls.state_specs(game, config, rows), "rng": ((4,), np.dtype(np.int64))}

    @classmethod
    def format_value(cls, value: float, compact: bool = False) -> str:
        """One learned value for people, in the one number format of every view: ``+0.8100``;
        ``compact`` where room is short (a board cell): ``+0.81``."""
        return number(value, "+.2f" if compact else "+.4f")

    @classmethod
    def describe_value(cls, value: float) -> str:
        """One learned value in a sentence: ``learned value +0.8100``."""
        return f"{cls.value_label} {cls.format_value(value)}"

    def value_legend(self) -> str:
        """What its values mean, in a sentence or two for people, from its own settings: the
        rewards and the discount ``gamma``."""
        win, draw, loss = (reward_text(r) for r in self.config.rewards)
        gamma = self.config.gamma
        scale = _(
            "Values are for the player making the move: {win} a sure win, {draw} a draw, "
            "{loss} a sure loss."
        ).format(win=win, draw=draw, loss=loss)
        if gamma == 1:
            discount = _("There is no discount (γ = 1): a far-off win counts as a near one.")
        elif self.discount_per == "move":
            discount = _(
                "A win further off is worth less, γ = {gamma} per move: a win two moves later "
                "(one each) is worth {worth}."
            ).format(gamma=number(gamma, "g"), worth=number(gamma**2, ".3g"))
        else:
            discount = _(
                "A win further off is worth less, γ = {gamma} per own move: a win with the "
                "mover's next move is worth {worth}."
            ).format(gamma=number(gamma, "g"), worth=number(gamma, ".3g"))
        return f"{scale} {discount}"

    @classmethod
    def build_config(cls, given: Mapping[str, Any], base: LearnConfig | None = None) -> LearnConfig:
        """The one check of training settings, for the command line, the web and --resume:
        ``base`` (default: the learner's defaults) with the settings given (None: not given).
        A setting the learner does not use is refused; values are checked by LearnConfig."""
        for name, value in given.items():
            if value is None:
                continue
            if name not in ALL_HYPERPARAMETERS:
                raise QarenaError(_("unknown setting {name!r}").format(name=name))
            if name not in cls.hyperparameters:
                flag = "--epsilon-schedule" if name == "schedule" else "--" + name.replace("_", "-")
                raise QarenaError(
                    _("{flag} does not apply to the {learner} learner").format(
                        flag=option(flag, name), learner=cls.kind
                    )
                )
        chosen: dict[str, Any] = {k: typed(k, v) for k, v in given.items() if v is not None}
        try:
            return replace(base or cls.default_config(), **chosen)
        except TypeError as e:  # a value of the wrong type, from a file or a request
            raise QarenaError(
                _("training settings are malformed ({problem})").format(problem=e)
            ) from None

    @classmethod
    def default_config(cls, game: Game | None = None, **overrides: Any) -> LearnConfig:
        """The learner's default hyperparameters (the same for every game), with ``overrides``
        applied."""
        return LearnConfig(**{**cls.defaults, **overrides})

    @classmethod
    def create(cls, game: Game, config: Any) -> Learner:
        return cls(game, config)

    @classmethod
    def read(
        cls,
        path: str | os.PathLike[str],
        meta: Mapping[str, Any],
        game: Game | None = None,
        budget: int | None = None,
    ) -> Learner:
        from qarena.learn.tables.files import read_table  # the file's module imports this one

        return read_table(path, {cls.kind: cls}, game, cls.kind)

    def save(
        self,
        path: str | os.PathLike[str],
        inputs: Iterable[str | os.PathLike[str]] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        from qarena.learn.tables.files import save_table

        save_table(path, self, inputs, extra)

    def to_bytes(self, extra: Mapping[str, Any] | None = None) -> bytes:
        from qarena.learn.tables.files import table_bytes

        return table_bytes(self, extra)

    def train_chunk(
        self,
        episodes: int,
        total: int,
        *,
        opponent: Opponent | None = None,
        seat: str = "both",
        workers: int = 1,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        return self.train(episodes, opponent, seat, total_episodes=total)

    def __init__(self, game: Game, config: LearnConfig | None = None) -> None:
        self.game = game
        self.config = config or LearnConfig()
        self.tables: GameTables = game_tables(game, self.config.canonical)
        check_memory(
            game, "learn", type(self), positions=self.tables.rows, canonical=self.config.canonical
        )
        self.rng = seed_state(self.config.seed)
        self.episodes = 0
        self.steps = 0
        self.run_start = 0  # episodes before this run: the exploration schedule starts here
        self.seconds = 0.0  # of training, in this process (not saved)
        self.curve: Curve | None = None  # recorded by training runs that ask for one
        #: The preset a run started from and the settings given over it (learn/presets.py):
        #: ``{"name": ..., "overridden": [...]}``; None without one.
        self.preset: dict[str, Any] | None = None
        #: Each row's legal moves in the order its greedy steps break ties in, taking the
        #: first highest (:meth:`break_ties_first`); None: ties broken uniformly at random.
        self.tie_order: np.ndarray | None = None

    @property
    def _rows(self) -> int:
        return self.tables.rows

    @property
    def _walk(self) -> k.Walk:
        """The positions the kernels play on: the rows of the learner's tables (classes, with
        canonical positions on)."""
        t = self.tables
        starts = self._starts if self.config.starts > 0 else _NO_STARTS
        moves = t.moves if self.tie_order is None else self.tie_order
        return k.Walk(
            t.nxt, moves, t.nmoves, t.result, t.start, self.game.max_plies, starts, t.mover
        )

    def break_ties_first(
        self, order: Callable[[Game, Position], Iterable[Move]] | None = None
    ) -> None:
        """From now on, each greedy step of training takes the first of the highest values in
        ``order(game, position)``'s order of the position's legal moves (None: the game's own order,
        that of ``qarena table``) instead of one of them at random: the rule of code that
        picks with Python's ``max`` over its list of moves. Exploring steps stay uniform. It
        is not saved with the learner: a caller that resumes one gives it again."""
        t = self.tables
        ordered = t.moves.copy()
        if order is not None:
            for row in np.flatnonzero(t.nmoves > 0):
                position = t.position(int(row))
                _row, frame = t.frame(position)  # the row's own frame, with canonical positions
                # Moves alike under a symmetry are one move of the row: its first place.
                given = list(dict.fromkeys(frame.get(m, -1) for m in order(self.game, position)))
                legal = t.moves[row, : t.nmoves[row]]
                if sorted(given) != sorted(int(m) for m in legal):
                    raise QarenaError(
                        _(
                            "a tie order must list every legal move of {position} and no other"
                        ).format(position=self.game.format_position(position))
                    )
                ordered[row, : len(given)] = given
        self.tie_order = ordered

    @cached_property
    def _starts(self) -> np.ndarray:
        """Where exploring starts begin: every position the learner plays on, or for sweeps
        every (position, move) pair of them as ``position * moves + move``, each position
        after every one it leads to, so that what a start learns rests on what was learned."""
        t = self.tables
        if self.config.start_order == "uniform":
            return np.flatnonzero(self.played_positions()).astype(np.int64)
        pairs: np.ndarray = k.sweep_pairs(t.order, t.moves, t.nmoves)
        return pairs

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
            raise QarenaError(_("episodes must be at least 1, not {count}").format(count=episodes))
        if seat not in SEATS:
            raise QarenaError(
                _("unknown seat {seat!r}; expected {names}").format(
                    seat=seat, names=", ".join(SEATS)
                )
            )
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

    def default_episodes(self, self_play: bool = True) -> int:
        """Episodes that bring this learner to perfect play, scaled to what there is to learn:
        the (position, move) pairs among the positions it plays on (canonical ones, with
        canonical positions on). In self-play where every episode is a sweeping exploring
        start, :attr:`sweeps` passes over those pairs; else :attr:`episodes_per_pair`, which
        holds for games of up to 10⁵ positions."""
        pairs = int(self.tables.legal[self.played_positions()].sum())
        c = self.config
        if self_play and c.starts == 1.0 and c.start_order == "sweep":
            return int(max(1000, self.sweeps * pairs))
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
            episodes,
            done,
            total,
            SCHEDULES[c.schedule],
            c.epsilon,
            c.epsilon_end,
            c.starts,
            START_ORDERS[c.start_order],
            self.episodes,
            c.epsilon if c.epsilon_second is None else c.epsilon_second,
        )

    @property
    def _rates(self) -> k.Rates:
        c = self.config
        second = c.alpha if c.alpha_second is None else c.alpha_second
        return k.Rates(
            c.alpha,
            c.gamma,
            np.asarray(c.rewards, dtype=np.float64),
            self.negamax,
            second,
            self.tie_order is not None,
        )

    def played_positions(self) -> np.ndarray:
        """``mask[row]``: the rows the learner keeps values for, those where it may have to
        move (not over)."""
        return self.tables.live

    def _afterstates(self) -> np.ndarray:
        """For each (row, move): the row the move leads to (0 where illegal)."""
        t = self.tables
        after: np.ndarray = np.where(t.legal, t.nxt, 0)
        return after

    # --- what was learned -----------------------------------------------------------
    @abstractmethod
    def values(self) -> np.ndarray:
        """The learner's score of every (row, move), in the row's frame; it plays the highest."""

    def table_values(self) -> np.ndarray:
        """The learned value of every (row, move), as ``qarena table`` shows it."""
        return self.values()

    def entries(self) -> Iterator[tuple[str, str, str]]:
        """Every entry of its table as text: (position, move, value), the rows it plays on
        in order, each row's legal moves in order (``qarena table --csv``'s rows)."""
        t, game = self.tables, self.game
        values = self.table_values()
        for row in np.flatnonzero(self.played_positions()):
            text = game.format_position(t.position(int(row)))
            for m in np.flatnonzero(t.legal[row]):
                # Ten significant digits: exact for the values training produces in practice
                # (0.81, not 0.8100000000000001), and 1 / 0 for the matchbox learner.
                yield text, game.format_move(int(m)), f"{float(values[row, m]):.10g}"

    def to_pandas(self) -> Any:
        """Its table as a pandas DataFrame: a row per (position, move) with its value (one
        position per symmetry class with canonical positions); pandas must be installed.
        Larger tables than ``budget.MAX_FRAME_ENTRIES`` are refused: ``qarena table --csv``
        writes any size."""
        pd = need("pandas", "pandas")
        t = self.tables
        count = int(t.legal[self.played_positions()].sum())
        if count > MAX_FRAME_ENTRIES:
            raise QarenaError(
                _(
                    "its table has {count:,} entries, more than a DataFrame here holds "
                    "({most:,}); write it with qarena table --csv"
                ).format(count=count, most=MAX_FRAME_ENTRIES)
            )
        frame = pd.DataFrame(list(self.entries()), columns=["position", "move", "value"])
        frame["value"] = frame["value"].astype(float)
        return frame

    def best_moves(self) -> np.ndarray:
        """``mask[row, move]``: the legal moves of highest score, which greedy play picks among."""
        legal = self.tables.legal
        v = np.where(legal, self.values(), -np.inf)
        best: np.ndarray = legal & (v == v.max(axis=1, keepdims=True))
        return best

    def loaded_text(self, file: str, share: float | None = None) -> str:
        if share is None:  # not judged: said as any learner says it
            return super().loaded_text(file)
        n = self.episodes
        if share == 1.0:
            # No article before the learner's name: "a afterstate TD(0)" read wrong in English.
            text = ngettext(
                "Loaded an agent for {spec} from {file}: {learner}, {count:,} episodes; it plays "
                "perfectly.",
                "Loaded an agent for {spec} from {file}: {learner}, {count:,} episodes; it plays "
                "perfectly.",
                n,
            )
        else:
            text = ngettext(
                "Loaded an agent for {spec} from {file}: {learner}, {count:,} episodes; it plays "
                "the best move in {share:.1%} of positions.",
                "Loaded an agent for {spec} from {file}: {learner}, {count:,} episodes; it plays "
                "the best move in {share:.1%} of positions.",
                n,
            )
        return text.format(learner=self.title, spec=self.game.spec, file=file, count=n, share=share)

    def trained_text(self, share: float | None = None) -> str:
        if share is None:
            return super().trained_text()
        return ngettext(
            "{count:,} episode; it plays the best move in {percent}% of positions.",
            "{count:,} episodes; it plays the best move in {percent}% of positions.",
            self.episodes,
        ).format(count=self.episodes, percent=number(100 * share, ".1f"))

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

    def _check_state(self) -> None:
        """Refuse restored arrays that no training could have produced."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.game.spec}, learner={self.kind!r}, "
            f"episodes={self.episodes:,}, seed={self.config.seed}, rows={self.tables.rows:,})"
        )

    def _repr_html_(self) -> str:
        """In a notebook: the game, the learner, its episodes and settings, as a table."""
        rows = [
            (_("game"), self.game.spec),
            (_("learner"), f"{self.kind} ({self.title})"),
            (_("episodes"), number(self.episodes, ",")),
            *((name, str(value)) for name, value in self.hyperparameter_values().items()),
        ]
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in rows
        )
        return f"<table>{body}</table>"

    def hyperparameter_values(self) -> dict[str, Any]:
        full = self.config.to_dict()
        return {name: full[name] for name in self.hyperparameters}


# The hyperparameters' names live in learn/tables/config.py; callers import them from here too.
__all__ = [
    "ALL_HYPERPARAMETERS",
    "NUMBER",
    "SCHEDULES",
    "SEATS",
    "SEAT_SETTINGS",
    "SHARED_HYPERPARAMETERS",
    "START_ORDERS",
    "LearnConfig",
    "Learner",
    "Opponent",
    "default_episodes",
    "read_rewards",
    "reward_text",
]
