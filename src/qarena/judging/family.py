"""How each family of learners is judged: one strategy per family, found by one lookup.

A learner kind names the family it is judged as (``Trainable.judging_family``); :func:`family_of`
turns that into its family's :class:`Family`, and every caller asks the family instead of the
kind:

- :class:`OverTables`, the table learners: judged over every position of the game's tables,
  which its runs build (their size bounds a run); an optimality checked whenever asked, its
  curve's points with records against the curve's opponents;
- :class:`AlongPlay`, networks (n-tuple, AlphaZero, any learner that is its own player):
  judged along perfect-play games, or over a uniform sample of all positions where the game
  is enumerated; its curve refused where that judging has no bound, a point's judging (a
  search on threads) ended by the run's stop.

Each family records a run's curve points (:meth:`Family.recorder`), measures a sweep's run at
its end (:meth:`Family.measure`), says what judging takes (:meth:`Family.memory`) and what it
refuses (:meth:`Family.curve_refused`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn, cast

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.opponents import opponent as opponent_of
from qarena.agents.players import PlayerLike, player, plays_as
from qarena.budget import estimate_positions, footprint
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.exact.book import SHIPPED
from qarena.exact.search import DEFAULT_TABLE_BYTES
from qarena.games.base import Game, Move, Position
from qarena.i18n import _, option
from qarena.judging.along_play import judge_along_play
from qarena.judging.best_reply import best_reply, unbeaten
from qarena.judging.evaluation import record_against, strategy_masks
from qarena.judging.player import judge_player
from qarena.judging.sets import shipped_set
from qarena.judging.tables import Optimality, learner_optimality
from qarena.judging.uniform import uniform_rows
from qarena.learn.curve import (
    CURVE_OPPONENTS,
    JUDGED_COLUMNS,
    MAX_POINTS,
    UNIFORM_COLUMNS,
    VARIED_COLUMNS,
    Curve,
    CurvePoint,
    base_columns,
    with_unbeaten,
)
from qarena.learn.family import Trainable
from qarena.learn.learners import table_class
from qarena.learn.tables.base import Learner, Opponent
from qarena.show.curve_svg import curve_svg

__all__ = [
    "FAMILIES",
    "JUDGED_SEARCH_POSITIONS",
    "AlongPlay",
    "Family",
    "Halted",
    "Measured",
    "OverTables",
    "Recorder",
    "check_judged_curve",
    "exact_share",
    "family_of",
    "judging_bytes",
    "judging_refused",
]


class Halted(Exception):
    """A run's own stop reached a point being judged: the run ends stopped, what it learned
    kept, the point dropped."""


def halt_or_raise(should_stop: Callable[[], bool] | None, stop: threads.Stopped) -> NoReturn:
    """A ``stop`` seen while a curve point was judged: this run's own ends the run
    (:class:`Halted`); an outer limit's goes on up, its caller saying what it means."""
    if should_stop is None or not should_stop():
        raise stop
    raise Halted from None


#: Most reachable positions (the budget's estimate) of a board that is solved by search without
#: an opening book on which a network's curve is judged. Below it a perfect-play game is judged
#: in seconds (connect4:6x6, 3·10^11: about 20 s for the first on the 2-core machine, far less
#: for the next, the search's table keeping what it proved); above it one may search for hours
#: (tictactoe:6x6:4, 3·10^15, and tictactoe:5x8:5 had not finished the first in 40 s, nor
#: connect4:7x8, 10^18, which has no book).
JUDGED_SEARCH_POSITIONS = 10**12


def judging_refused(game: Game) -> str | None:
    """Why a network's curve cannot be judged on ``game`` in bounded time, as a clause (None
    when it can): judging plays perfect-play games, every move solved, so the game must be
    enumerated here, or solved by search with an opening book (classic 6×7) or on a board
    small enough that a search ends in seconds (:data:`JUDGED_SEARCH_POSITIONS`). Quick:
    nothing is solved."""
    answers = Oracle.of(game)
    if not answers.searched:  # enumerated here, or refused in the enumeration's own words
        return None if answers.refusal is None else str(answers.refusal).rstrip(".")
    if game.spec in SHIPPED:  # a book is shipped for a Connect Four board only
        return None
    positions = estimate_positions(game)
    if positions <= JUDGED_SEARCH_POSITIONS:
        return None
    return _(
        "on {spec} each of their moves is solved by search, which may take hours (about "
        "10^{exponent} positions and no opening book)"
    ).format(spec=game.spec, exponent=len(str(positions)) - 1)


def check_judged_curve(game: Game) -> None:
    """Refuse, in one line and before anything is trained, a network's curve on a game where
    judging it has no bound (:func:`judging_refused`)."""
    why = judging_refused(game)
    if why is not None:
        raise QarenaError(
            _(
                "a learning curve is judged along perfect-play games, and {why}; train without "
                "{curve}"
            ).format(why=why, curve=option("--curve"))
        )


def judging_bytes(game: Game) -> int:
    """What judging a network's curve allocates: the search's table on a board solved by
    search, else the game's tables (one of either per board and process: both are cached)."""
    return DEFAULT_TABLE_BYTES if Oracle.of(game).searched else footprint(game, "tables").total


def _columns(learner: Trainable, old: Curve | None) -> tuple[str, ...]:
    """The columns of the learner's curve: its kind's, and for a curve judged along play the
    varied openings' too where the game has that judging set (classic Connect Four), or
    optimality over a uniform sample of all positions where the game is enumerated here; on
    an enumerated game, whether it is unbeaten from the start in each seat too (a resumed
    curve keeps its own)."""
    columns = learner.curve_columns()
    if old is not None and old.points:
        return old.columns
    if columns == JUDGED_COLUMNS and shipped_set(learner.game, "varied") is not None:
        return VARIED_COLUMNS
    if Oracle.of(learner.game).searched:
        return columns
    return with_unbeaten(UNIFORM_COLUMNS if columns == JUDGED_COLUMNS else columns)


def _unbeaten(who: Player) -> tuple[bool | None, bool | None]:
    """Whether the strongest opponent cannot beat ``who`` from the start, moving first and
    moving second, where its game's tables are enumerated (exact, in milliseconds on the
    small boards); (None, None) where the game is solved by search."""
    if Oracle.of(who.game).searched:
        return None, None
    found = best_reply(who)
    return not found.seats["first"].beaten, not found.seats["second"].beaten


class Recorder(ABC):
    """Records one run's curve points, as its learner's family judges them."""

    def __init__(
        self, learner: Trainable, curve: Curve, should_stop: Callable[[], bool] | None = None
    ) -> None:
        self.learner, self.curve, self.should_stop = learner, curve, should_stop

    @property
    def next_at(self) -> int:
        """The total episode count at which the next point is due."""
        return self.curve.next_after(self.learner.episodes)

    @abstractmethod
    def due(self) -> bool:
        """Is a point due now?"""

    @abstractmethod
    def record(
        self, optimality: Optimality | None = None, judging: Callable[[], None] | None = None
    ) -> CurvePoint | None:
        """The point now (None: one for this count exists, or none is kept), reusing
        ``optimality`` when the caller has just checked it; ``judging`` is called first where
        judging a point takes a while (so a view shows the run's progress meanwhile). Raises
        :class:`Halted` when this run's stop ends its judging."""

    @abstractmethod
    def last(self, optimality: Optimality | None, stopped: bool) -> None:
        """The point at the end of the run, wherever it fell (``stopped``: by a stop)."""


class _TablesRecorder(Recorder):
    """Measures points for one learner judged exactly, keeping the opponents' move tables
    between points."""

    def __init__(
        self, learner: Learner, curve: Curve, should_stop: Callable[[], bool] | None = None
    ) -> None:
        super().__init__(learner, curve, should_stop)
        self.table = learner
        self._masks = strategy_masks(learner.tables, CURVE_OPPONENTS)

    def due(self) -> bool:
        return self.curve.due(self.learner.episodes) and not self._has_current()

    def _has_current(self) -> bool:
        points = self.curve.points
        return bool(points) and points[-1].episodes >= self.learner.episodes

    def record(
        self, optimality: Optimality | None = None, judging: Callable[[], None] | None = None
    ) -> CurvePoint | None:
        """Measure the learner now (unless a point for this episode count exists). The games
        are seeded by the episode count, apart from the learner's own generator, so recording
        a curve does not change what is learned. Quick: ``judging`` is not called."""
        if self._has_current() or self.learner.episodes == 0:
            return None
        if len(self.curve.points) >= MAX_POINTS:
            return None  # full: callers check the run's points fit before it starts
        learner = self.table
        records = record_against(
            learner, self._masks, self.curve.games, learner.config.seed + learner.episodes
        )
        matches = {}
        for name, seats in records.items():
            shares = seats.total.shares()
            matches[name] = (shares["win"], shares["draw"], shares["loss"])
        share = (optimality or learner_optimality(learner)).share
        verdicts = None
        if self.curve.unbeaten:
            try:
                verdicts = unbeaten(plays_as(learner))
            except threads.Stopped as stop:
                # The best reply looks at the stop (a big board takes seconds).
                halt_or_raise(self.should_stop, stop)
        point = CurvePoint(learner.episodes, share, matches, unbeaten=verdicts)
        self.curve.points.append(point)
        return point

    def last(self, optimality: Optimality | None, stopped: bool) -> None:
        self.record(optimality)  # a stopped run's tables are judged as they are


class _AlongPlayRecorder(Recorder):
    """Judges a learner along perfect-play games (any learner: it plays as itself)."""

    def __init__(
        self, learner: Trainable, curve: Curve, should_stop: Callable[[], bool] | None = None
    ) -> None:
        super().__init__(learner, curve, should_stop)
        self._uniform: np.ndarray | None = None

    def uniform(self) -> np.ndarray | None:
        """The rows judged over all positions at each point, drawn once (None: not judged)."""
        if base_columns(self.curve.columns) == UNIFORM_COLUMNS and self._uniform is None:
            self._uniform = uniform_rows(self.learner.game)
        return self._uniform

    def due(self) -> bool:
        return self.curve.due(self.learner.episodes)

    def record(
        self, optimality: Optimality | None = None, judging: Callable[[], None] | None = None
    ) -> CurvePoint | None:
        """The point now, or None; raises Halted when this run's stop ends its judging (the
        point is dropped: only judged points are kept)."""
        learner, curve = self.learner, self.curve
        if judging is not None:
            judging()  # judging takes seconds: the run's progress is shown meanwhile
        if learner.episodes == 0 or (
            curve.points and curve.points[-1].episodes >= learner.episodes
        ):
            return None
        try:
            point = judge_along_play(
                learner,
                curve.games,
                learner.config.seed + learner.episodes,
                varied=curve.columns == VARIED_COLUMNS,
                uniform=self.uniform(),
                unbeaten=curve.unbeaten,
            )
        except threads.Stopped as stop:
            halt_or_raise(self.should_stop, stop)
        curve.points.append(point)
        return point

    def last(self, optimality: Optimality | None, stopped: bool) -> None:
        if not stopped:  # a stop ends a point being judged: none is judged after it
            self.record(optimality)


@dataclass(frozen=True)
class Measured:
    """A sweep's run measured at its end as ``qarena eval`` measures it, with what its row
    says of the run's set-up as its family reads it."""

    optimality: float
    perfect_at: int | None
    #: Its records against each opponent measured, as shares by outcome.
    against: dict[str, dict[str, float]]
    #: Unbeaten from the start moving first, and moving second (None: not measured).
    unbeaten: tuple[bool | None, bool | None]
    #: The settings its row shows (those it reads).
    shown: frozenset[str]
    #: Its kind of table (None: it reads the board as it is).
    canonical: bool | None
    #: The seat it learned in against an opponent (None: self-play, or not one it has).
    seat: str | None
    #: The preset its run started from and the preset's values it replaced.
    preset: str = ""
    overridden: tuple[str, ...] = ()


class Family(ABC):
    """How a family of learners is judged, and what that asks of a run."""

    #: Its name, as ``Trainable.judging_family`` gives it.
    name: ClassVar[str]
    #: Whether its learners hold the game's tables (a value for every position): their runs
    #: build the game's tables, which a bound on a game's size holds them to.
    tables: ClassVar[bool]

    @abstractmethod
    def table(self, learner: Trainable) -> Learner | None:
        """The learner as the table learner it is (None: it holds no table of positions)."""

    @abstractmethod
    def optimality(self, learner: Trainable) -> Optimality | None:
        """Its optimality over every position now (None: judged along play, by its curve)."""

    def share(self, learner: Trainable) -> float | None:
        """Its share of decision positions kept, where it is judged over every position."""
        found = self.optimality(learner)
        return None if found is None else found.share

    @abstractmethod
    def opponent(self, learner: Trainable, who: PlayerLike) -> Opponent:
        """Whom it learns against, as its training takes it."""

    @abstractmethod
    def curve_refused(self, game: Game) -> str | None:
        """Why its curve cannot be judged on ``game`` in bounded time (None: it can)."""

    def check_curve(self, game: Game) -> None:  # noqa: B027 - a hook: tables' curves are bounded
        """Refuse, in one line and before anything is trained, a curve that cannot be judged."""

    @abstractmethod
    def memory(
        self, kind: type[Trainable], game: Game, config: Any, curve: bool
    ) -> tuple[int, int]:
        """Bytes a run of ``kind`` with ``config`` on ``game`` takes while it trains, and bytes
        judging its curve (``curve``: recorded) takes, one per board and process."""

    def limit(self, should_stop: Callable[[], bool] | None) -> AbstractContextManager[Any]:
        """What a run's judging is done within: a stop ends judging that searches."""
        return nullcontext()

    @abstractmethod
    def recorder(
        self, learner: Trainable, curve: Curve, should_stop: Callable[[], bool] | None
    ) -> Recorder:
        """What records the learner's curve points."""

    def columns(self, learner: Trainable, old: Curve | None) -> tuple[str, ...]:
        """The columns of its curve on its game (a resumed curve ``old`` keeps its own)."""
        return _columns(learner, old)

    def draw(self, points: list[CurvePoint], total: int) -> str:
        """Its curve's points as SVG, as its family's points are drawn."""
        return curve_svg(points, total)

    def comparable(self, curve: Curve | None) -> bool:
        """Whether its curve may be drawn beside others (optimality over every position)."""
        return True

    def break_ties_first(
        self, learner: Trainable, order: Callable[[Game, Position], Iterable[Move]]
    ) -> bool:
        """Make its greedy steps take the first highest value in ``order``; False where it
        has no such steps (and the order is not its own)."""
        return False

    @abstractmethod
    def measure(  # noqa: PLR0913 - a sweep's run, by keyword
        self,
        learner: Trainable,
        *,
        optimality: Optimality | None,
        perfect_at: int | None,
        curve: Curve | None,
        games: int,
        seed: int,
        names: Iterable[str],
        canonical: bool,
        opponent: str,
        seat: str,
        preset: tuple[str, tuple[str, ...]] = ("", ()),
    ) -> Measured:
        """A sweep's run measured at its end (``optimality``, ``perfect_at``: the run's own),
        against the opponents ``names`` in ``games`` games a seat from ``seed``."""


class OverTables(Family):
    """The table learners: judged over every position of the game's tables."""

    name = "exact"
    tables = True

    def table(self, learner: Trainable) -> Learner:
        # Found by its judging, which only the table learners (over their tables) declare.
        return cast(Learner, learner)

    def optimality(self, learner: Trainable) -> Optimality:
        return learner_optimality(self.table(learner))

    def opponent(self, learner: Trainable, who: PlayerLike) -> Opponent:
        return opponent_of(self.table(learner).tables, who)

    def curve_refused(self, game: Game) -> str | None:
        return None

    def memory(
        self, kind: type[Trainable], game: Game, config: Any, curve: bool
    ) -> tuple[int, int]:
        opponents = len(CURVE_OPPONENTS) + 1
        cls = table_class(kind.kind)  # judged over its tables: a table learner
        need = footprint(game, "learn", cls, opponents, canonical=config.canonical)
        return need.total, 0

    def recorder(
        self, learner: Trainable, curve: Curve, should_stop: Callable[[], bool] | None
    ) -> Recorder:
        return _TablesRecorder(self.table(learner), curve, should_stop)

    def break_ties_first(
        self, learner: Trainable, order: Callable[[Game, Position], Iterable[Move]]
    ) -> bool:
        self.table(learner).break_ties_first(order)
        return True

    def measure(  # noqa: PLR0913 - a sweep's run, by keyword
        self,
        learner: Trainable,
        *,
        optimality: Optimality | None,
        perfect_at: int | None,
        curve: Curve | None,
        games: int,
        seed: int,
        names: Iterable[str],
        canonical: bool,
        opponent: str,
        seat: str,
        preset: tuple[str, tuple[str, ...]] = ("", ()),
    ) -> Measured:
        """Measured as ``qarena eval`` measures it: over every position, and its matches
        through the compiled kernels."""
        table = self.table(learner)
        names = tuple(names)
        records = record_against(table, strategy_masks(table.tables, names), games, seed)
        if curve is not None and perfect_at is None:
            perfect_at = next((p.episodes for p in curve.points if p.optimality == 1.0), None)
        assert optimality is not None, "a table learner's run is judged at its end"
        return Measured(
            optimality=optimality.share,
            perfect_at=perfect_at,
            against={name: records[name].total.shares() for name in names},
            unbeaten=_unbeaten(player(table, table.game)),
            shown=frozenset(table.hyperparameters),
            canonical=canonical,
            seat=None if opponent == "self" else seat,
            preset=preset[0],
            overridden=preset[1],
        )


class AlongPlay(Family):
    """Networks: judged along perfect-play games (over a uniform sample of all positions too,
    where the game is enumerated)."""

    name = "along_play"
    tables = False

    def table(self, learner: Trainable) -> None:
        return None

    def optimality(self, learner: Trainable) -> None:
        return None

    def opponent(self, learner: Trainable, who: PlayerLike) -> Opponent:
        return Opponent("self")  # it learns by self-play: another opponent is refused first

    def curve_refused(self, game: Game) -> str | None:
        return judging_refused(game)

    def check_curve(self, game: Game) -> None:
        check_judged_curve(game)

    def memory(
        self, kind: type[Trainable], game: Game, config: Any, curve: bool
    ) -> tuple[int, int]:
        return kind.model_bytes(config, game), judging_bytes(game) if curve else 0

    def limit(self, should_stop: Callable[[], bool] | None) -> AbstractContextManager[Any]:
        # Judging along play searches (threads.run_threads), which end once the flag is set.
        return threads.limit(should_stop=should_stop)

    def recorder(
        self, learner: Trainable, curve: Curve, should_stop: Callable[[], bool] | None
    ) -> Recorder:
        return _AlongPlayRecorder(learner, curve, should_stop)

    def draw(self, points: list[CurvePoint], total: int) -> str:
        return curve_svg(points, total, judged=True)

    def comparable(self, curve: Curve | None) -> bool:
        return curve is not None and curve.everywhere

    def measure(  # noqa: PLR0913 - a sweep's run, by keyword
        self,
        learner: Trainable,
        *,
        optimality: Optimality | None,
        perfect_at: int | None,
        curve: Curve | None,
        games: int,
        seed: int,
        names: Iterable[str],
        canonical: bool,
        opponent: str,
        seat: str,
        preset: tuple[str, tuple[str, ...]] = ("", ()),
    ) -> Measured:
        """Judged as ``qarena eval`` judges it, with the best reply to the same moves the
        judging asked for (where every position is judged)."""
        evaluation = judge_player(player(learner, learner.game), games, seed, reply=True)
        reply = evaluation.best_reply
        return Measured(
            optimality=evaluation.optimality.share,
            perfect_at=None,
            against={name: evaluation.matches[name].total.shares() for name in names},
            unbeaten=(None, None)
            if reply is None
            else (not reply.seats["first"].beaten, not reply.seats["second"].beaten),
            shown=frozenset(learner.hyperparameters) - {"seed"},
            canonical=None,  # a network reads the board as it is, its mirror image summed in
            seat=None,
        )


#: Every family, by the name a learner kind's ``judging`` gives it.
FAMILIES: Mapping[str, Family] = {f.name: f for f in (OverTables(), AlongPlay())}


def family_of(learner: Trainable | type[Trainable]) -> Family:
    """How ``learner`` (or a learner kind) is judged: the one lookup every caller makes."""
    return FAMILIES[learner.judging_family]


def exact_share(learner: Trainable) -> float | None:
    """The share of decision positions where a learner's greedy play keeps the solver's
    value, for a learner judged over every position (its tables); None for one judged along
    play, which ``qarena eval`` judges (by samples on a board too big to enumerate)."""
    return family_of(learner).share(learner)
