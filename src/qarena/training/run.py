"""A training run: episodes in short chunks, with progress, optional optimality checks, and a
clean stop between chunks. Shared by the command line and the web app."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from qarena import threads
from qarena.agents.opponents import opponent as opponent_of
from qarena.agents.players import PlayerLike, plays_as
from qarena.budget import (
    MAX_EPISODES,
    check_checks,
    check_count,
    check_seed,
    estimate_positions,
    footprint,
)
from qarena.errors import QarenaError, TooLargeError
from qarena.evaluate.matches import SeatRecords
from qarena.games.base import Game
from qarena.i18n import _, option
from qarena.judging.along_play import judge_along_play
from qarena.judging.best_reply import unbeaten
from qarena.judging.evaluation import record_against, strategy_masks
from qarena.judging.sets import shipped_set
from qarena.judging.tables import Optimality, learner_optimality
from qarena.judging.uniform import uniform_rows
from qarena.learn.base import SEATS, Learner, Opponent, default_episodes
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
from qarena.learn.family import Trainable, refuse_options
from qarena.learn.learners import learner_class, table_class
from qarena.learn.ntuple import CHUNK as NETWORK_CHUNK
from qarena.learn.ntuple import JUDGED_GAMES
from qarena.learn.presets import resolve as resolve_preset
from qarena.learn.settings import KIND_SETTINGS

__all__ = [
    "CHUNK_SECONDS",
    "JUDGED_GAMES",
    "JUDGED_SEARCH_POSITIONS",
    "MAX_MINUTES",
    "NETWORK_CHUNK",
    "MatrixRow",
    "Progress",
    "RunPlan",
    "RunRequest",
    "RunResult",
    "check_counts",
    "check_judged_curve",
    "check_minutes",
    "check_versus",
    "default_episodes",
    "judging_bytes",
    "judging_refused",
    "matrix_row",
    "new_curve",
    "new_learner",
    "new_table",
    "plan_run",
    "request_run",
    "train_run",
]

#: Aim for chunks of about this many seconds, so progress stays live and a stop is quick.
CHUNK_SECONDS = 0.05


@dataclass
class Progress:
    """What a run reports after each chunk."""

    episodes: int  # in this run
    total: int
    steps: int  # in this run
    seconds: float  # training time in this run, kernel calls only
    optimality: Optimality | None  # when checked after this chunk
    point: CurvePoint | None = None  # when a curve point was recorded after this chunk


@dataclass
class RunResult:
    """What a run of any learner did."""

    episodes: int  # in this run
    steps: int
    seconds: float
    #: Over every position, at the end (learners judged exactly); None for those judged
    #: along play, whose judgement is their curve's last point.
    optimality: Optimality | None
    perfect_at: int | None  # with until_perfect: episodes of this run when first perfect
    stopped: bool  # stopped early by ``should_stop``
    point: CurvePoint | None = None  # the curve's last point, when there is a curve
    #: Ended by its time budget (``minutes``) before its episodes were done: a run's normal
    #: end, judged like one, unlike a stop.
    timed_out: bool = False

    @property
    def exact(self) -> Optimality:
        """Its optimality over every position, for a learner judged exactly."""
        assert self.optimality is not None, "a run of a learner judged along play"
        return self.optimality


def check_versus(self_play: bool, seat: str, given: Mapping[str, Any]) -> None:
    """Refuse settings that do not fit whom the learner plays, in the command line's words:
    a seat other than both in self-play; exploring starts (``given``'s ``starts`` and
    ``start_order``) against an opponent."""
    if seat not in SEATS:
        raise QarenaError(
            _("unknown seat {seat!r}; expected {names}").format(seat=seat, names=", ".join(SEATS))
        )
    if self_play and seat != "both":
        raise QarenaError(
            _("{seat} applies only against an {opponent}; self-play takes both").format(
                seat=option("--seat"), opponent=option("--opponent")
            )
        )
    if not self_play:
        for name in ("starts", "start_order"):
            if given.get(name):  # as the command line reads them: 0 starts fits any run
                flag = "--" + name.replace("_", "-")
                raise QarenaError(
                    _("{flag} applies to self-play; against an {opponent} games start anew").format(
                        flag=option(flag), opponent=option("--opponent")
                    )
                )


def _every(step: int) -> str:
    """The curve's spacing as its reader sets it: ``--every 100``, ``every=100``."""
    return option(f"--every {step}", f"every={step}")


def new_learner(
    game: Game, kind: str, given: Mapping[str, Any], canonical: bool = True
) -> Trainable:
    """A fresh learner of ``kind`` with the learner's defaults for ``game`` and the settings
    ``given`` (None: not given): what ``qarena train`` and every run of a sweep start from."""
    cls = learner_class(kind)
    base = cls.default_config(game) if canonical else cls.default_config(game, canonical=False)
    return cls.create(game, cls.build_config(given, base))


def new_table(game: Game, kind: str, given: Mapping[str, Any], canonical: bool = True) -> Learner:
    """:func:`new_learner` for what measures a learner by its tables (a sweep's records, the
    matrix, a game trained on the spot): ``kind`` must be a table learner."""
    learner = new_learner(game, table_class(kind).kind, given, canonical)
    assert isinstance(learner, Learner)
    return learner


def new_curve(
    learner: Trainable,
    total: int,
    every: int | None,
    *,
    most_games: int | None = None,
    most_points: int | None = None,
) -> Curve:
    """The curve this run of ``total`` extends: the learner's own when resumed (its spacing
    kept unless ``every`` is given), else a new one of the learner's kind. Without
    ``every``, points come every ``total / learner.curve_points`` and, before the first, at
    1, 2, 5, 10, 20, … episodes (from 1,000 games, judged along play), so a log axis shows
    how learning starts. A view that shows it live asks for a lighter one: at most
    ``most_games`` games a point and ``most_points`` points a run. Refused where judging
    along play has no bound."""
    if learner.judging == "along_play":
        check_judged_curve(learner.game)  # before anything is trained
    old = learner.curve
    if every is None and old is not None:
        every = old.every  # a resumed curve keeps its spacing
    early = old.early if old is not None else every is None
    per_run = learner.curve_points
    if most_points is not None:
        per_run = min(per_run, most_points)
    step = every or max(1, total // per_run)
    before = old.points if old is not None else []
    room = MAX_POINTS - len(before) - 1
    if room < 1:
        raise QarenaError(
            _("its learning curve is full ({most:,} points); train without {curve}").format(
                most=MAX_POINTS, curve=option("--curve")
            )
        )
    games = old.games if old is not None else learner.curve_games
    if most_games is not None:
        games = min(games, most_games)
    curve = Curve(step, games, list(before), early, _columns(learner, old))
    start, end = learner.episodes, learner.episodes + total
    extra = sum(start < e <= end for e in curve._early())
    points = len(before) + end // step - start // step + extra + 1
    if points > MAX_POINTS:
        raise QarenaError(
            _(
                "{asked} would record {points:,} points; a curve holds at most {most:,}, so "
                "use {enough} or more"
            ).format(
                asked=_every(step), points=points, most=MAX_POINTS, enough=_every(-(-total // room))
            )
        )
    return curve


class CurveRecorder:
    """Measures points for one learner judged exactly, keeping the opponents' move tables
    between points."""

    def __init__(
        self, learner: Learner, curve: Curve, should_stop: Callable[[], bool] | None = None
    ) -> None:
        self.learner = learner
        self.curve = curve
        self.should_stop = should_stop
        self._masks = strategy_masks(learner.tables, CURVE_OPPONENTS)

    @property
    def next_at(self) -> int:
        """The total episode count at which the next point is due."""
        return self.curve.next_after(self.learner.episodes)

    def due(self) -> bool:
        return self.curve.due(self.learner.episodes) and not self._has_current()

    def _has_current(self) -> bool:
        points = self.curve.points
        return bool(points) and points[-1].episodes >= self.learner.episodes

    def record(self, optimality: Optimality | None = None) -> CurvePoint | None:
        """Measure the learner now (unless a point for this episode count exists), reusing
        ``optimality`` when the caller has just checked it. The games are seeded by the episode
        count, apart from the learner's own generator, so recording a curve does not change
        what is learned."""
        if self._has_current() or self.learner.episodes == 0:
            return None
        if len(self.curve.points) >= MAX_POINTS:
            return None  # full: callers check the run's points fit before it starts
        learner = self.learner
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
                _halt_or_raise(self.should_stop, stop)
        point = CurvePoint(learner.episodes, share, matches, unbeaten=verdicts)
        self.curve.points.append(point)
        return point


def train_run(  # noqa: PLR0913 - a run's options, by keyword (qarena.train's)
    learner: Trainable,
    episodes: int,
    opponent: Opponent | None = None,
    seat: str = "both",
    *,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: Curve | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    workers: int = 1,
    minutes: float | None = None,
) -> RunResult:
    """Train any learner for ``episodes``, in chunks: fewer when perfect play is reached with
    ``until_perfect``, when ``should_stop`` says so (between chunks; a learner on threads
    also within one, counting the episodes it played), or once ``minutes`` of wall time have
    passed (the same way; the run then ends as if its episodes were done, judged at its end).
    A learner judged exactly has its optimality checked every ``check_every`` episodes when
    given (or with ``until_perfect``), and always at the end. With ``curve``, a point is
    recorded whenever the learner's total count is due one (its ``every``, its early points),
    and at the end; the curve becomes the learner's, and is saved with it. A stop that
    reaches a point being judged along play ends it within a fraction of a second (the point
    is dropped; what was learned is kept, and the run ends stopped)."""
    learner.check_room(episodes)  # a run that would overflow its count never starts
    learner.warm_up()
    if curve is not None:
        learner.curve = curve
    # Judging along play searches (threads.run_threads), which end once the flag is set.
    with (
        threads.limit(should_stop=should_stop) if learner.judging == "along_play" else nullcontext()
    ):
        return _train_run(
            learner, episodes, opponent, seat, until_perfect, check_every, curve, on_progress,
            should_stop, workers, minutes,
        )  # fmt: skip


class _Halted(Exception):
    """A run's own stop reached a point being judged."""


def _halt_or_raise(should_stop: Callable[[], bool] | None, stop: threads.Stopped) -> NoReturn:
    """A ``stop`` seen while a curve point was judged: this run's own ends the run (_Halted,
    what it learned kept, the point dropped); an outer limit's goes on up, its caller saying
    what it means."""
    if should_stop is None or not should_stop():
        raise stop
    raise _Halted from None


def _train_run(  # noqa: PLR0913, PLR0912, PLR0915 - the one loop of every run
    learner: Trainable,
    episodes: int,
    opponent: Opponent | None,
    seat: str,
    until_perfect: bool,
    check_every: int | None,
    curve: Curve | None,
    on_progress: Callable[[Progress], None] | None,
    should_stop: Callable[[], bool] | None,
    workers: int,
    minutes: float | None,
) -> RunResult:
    exact = isinstance(learner, Learner) and learner.judging == "exact"
    deadline = None if minutes is None else time.monotonic() + 60.0 * minutes

    def time_up() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    def halt() -> bool:  # within a chunk: a stop asked for, or the time budget spent
        return (should_stop is not None and should_stop()) or time_up()

    judge = _judge(learner, curve, should_stop) if curve is not None else None
    if until_perfect and check_every is None:
        check_every = max(1_000, episodes // 100)
    done = steps = 0
    seconds = 0.0
    # A fixed chunk (learn the same from a seed however watched), or one sized to the time.
    chunk = learner.chunk or 1_000
    next_check = check_every or 0
    perfect_at: int | None = None
    stopped = timed_out = False
    optimality: Optimality | None = None
    while done < episodes:
        if should_stop is not None and should_stop():
            stopped = True
            break
        if time_up():
            timed_out = True
            break
        # A chunk ends where a check or a curve point is due.
        n = min(
            chunk,
            episodes - done,
            next_check - done if check_every else episodes,
            curve.next_after(learner.episodes) - learner.episodes
            if curve is not None
            else episodes,
        )
        t0 = time.perf_counter()
        before = learner.episodes
        steps += learner.train_chunk(
            n, episodes, opponent=opponent, seat=seat, workers=workers,
            should_stop=(halt if deadline is not None else should_stop)
            if learner.chunk is not None
            else None,
        )  # fmt: skip
        elapsed = time.perf_counter() - t0
        seconds += elapsed
        learner.seconds += elapsed
        done += learner.episodes - before
        if learner.episodes - before < n:  # ended within the chunk: by a stop, or by the time
            asked = should_stop is not None and should_stop()
            timed_out = deadline is not None and not asked
            stopped = not timed_out
        if learner.chunk is None and elapsed > 0:
            chunk = max(100, min(1_000_000, int(n * CHUNK_SECONDS / elapsed)))
        optimality = None
        if exact and check_every and done >= next_check:
            assert isinstance(learner, Learner)
            next_check += check_every
            optimality = learner_optimality(learner)
            if until_perfect and optimality.share == 1.0:
                perfect_at = done
        point = None
        if judge is not None and not stopped and judge.due():
            if on_progress is not None and learner.judging == "along_play":
                on_progress(Progress(done, episodes, steps, seconds, None))  # while it is judged
            try:
                point = judge.record(optimality)
            except _Halted:
                stopped = True  # mid-judging: the episodes are kept
        if on_progress is not None:
            on_progress(Progress(done, episodes, steps, seconds, optimality, point))
        if stopped or timed_out or perfect_at is not None:
            break
    if exact and optimality is None:
        assert isinstance(learner, Learner)
        optimality = learner_optimality(learner)
        if until_perfect and optimality.share == 1.0 and perfect_at is None and not stopped:
            perfect_at = done
    if judge is not None and not (stopped and learner.judging == "along_play"):
        try:
            judge.record(optimality)  # the end of the run, wherever it fell
        except _Halted:
            stopped = True
    last = curve.points[-1] if curve is not None and curve.points else None
    return RunResult(done, steps, seconds, optimality, perfect_at, stopped, last, timed_out)


class _AlongPlay:
    """Judges a learner along perfect-play games (any learner: it plays as itself)."""

    def __init__(
        self, learner: Trainable, curve: Curve, should_stop: Callable[[], bool] | None
    ) -> None:
        self.learner, self.curve, self.should_stop = learner, curve, should_stop
        self._uniform: np.ndarray | None = None

    def uniform(self) -> np.ndarray | None:
        """The rows judged over all positions at each point, drawn once (None: not judged)."""
        if base_columns(self.curve.columns) == UNIFORM_COLUMNS and self._uniform is None:
            self._uniform = uniform_rows(self.learner.game)
        return self._uniform

    def due(self) -> bool:
        return self.curve.due(self.learner.episodes)

    def record(self, optimality: Optimality | None = None) -> CurvePoint | None:
        """The point now, or None; raises _Halted when this run's stop ends its judging (the
        point is dropped: only judged points are kept)."""
        learner, curve = self.learner, self.curve
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
            _halt_or_raise(self.should_stop, stop)
        curve.points.append(point)
        return point


def _columns(learner: Trainable, old: Curve | None) -> tuple[str, ...]:
    """The columns of the learner's curve: its kind's, and for a curve judged along play the
    varied openings' too where the game has that judging set (classic Connect Four), or
    optimality over a uniform sample of all positions where the game is enumerated here; on
    an enumerated game, whether it is unbeaten from the start in each seat too (a resumed
    curve keeps its own)."""
    from qarena.exact import Oracle

    columns = learner.curve_columns()
    if old is not None and old.points:
        return old.columns
    if columns == JUDGED_COLUMNS and shipped_set(learner.game, "varied") is not None:
        return VARIED_COLUMNS
    if Oracle.of(learner.game).searched:
        return columns
    return with_unbeaten(UNIFORM_COLUMNS if columns == JUDGED_COLUMNS else columns)


def _judge(
    learner: Trainable, curve: Curve, should_stop: Callable[[], bool] | None
) -> CurveRecorder | _AlongPlay:
    """What records the learner's curve points, as its kind is judged."""
    if learner.judging == "exact":
        assert isinstance(learner, Learner)
        return CurveRecorder(learner, curve, should_stop)
    return _AlongPlay(learner, curve, should_stop)


@dataclass
class RunPlan:
    """A training run set up and checked, nothing trained yet: the learner (new or resumed),
    whom it plays, how long, and what it records. ``qarena train``, ``qarena.train``, the web's
    jobs and sweeps all start from :func:`plan_run`."""

    learner: Trainable
    opponent: Opponent
    seat: str
    total: int
    until_perfect: bool = False
    check_every: int | None = None
    curve: Curve | None = None
    workers: int = 1
    #: Its time budget: training ends after this many minutes of wall time (None: none).
    minutes: float | None = None

    def run(
        self,
        on_progress: Callable[[Progress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> RunResult:
        return train_run(
            self.learner,
            self.total,
            self.opponent,
            self.seat,
            until_perfect=self.until_perfect,
            check_every=self.check_every,
            curve=self.curve,
            on_progress=on_progress,
            should_stop=should_stop,
            workers=self.workers,
            minutes=self.minutes,
        )


def plan_run(  # noqa: PLR0913 - a run's options, by keyword (qarena.train's)
    game: Game,
    kind: str,
    given: Mapping[str, Any],
    *,
    canonical: bool = True,
    resume: Trainable | None = None,
    resumed_from: str | None = None,
    opponent: PlayerLike = "self",
    seat: str = "both",
    episodes: int | None = None,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: bool = False,
    every: int | None = None,
    workers: int | None = None,
    preset: dict[str, Any] | None = None,
    most_games: int | None = None,
    most_points: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    minutes: float | None = None,
) -> RunPlan:
    """Set up a run of any learner as ``qarena train`` does: the settings ``given`` (None: the
    learner's default, or with ``resume`` that learner's own) checked against whom it plays,
    a fresh learner of ``kind`` (or ``resume``, going on; ``resumed_from`` names its file),
    the opponent (any player, or ``"self"``), the run's length (``episodes``, else scaled to
    the game), its curve (a live view's lighter one with ``most_games``/``most_points``,
    :func:`new_curve`), its threads (``workers``; default: every core, for a learner that
    runs on threads), where its games are played (``backend``, ``ray_address``), its time
    budget (``minutes``) and the ``preset`` record it keeps."""
    import os

    cls = type(resume) if resume is not None else learner_class(kind)
    self_play = isinstance(opponent, str) and opponent == "self"
    _check_kind(cls, game, given, self_play, seat, canonical, until_perfect, check_every, curve)
    if resume is not None:
        if not canonical and getattr(resume.config, "canonical", False):
            raise QarenaError(
                _("{file} learned canonical positions; --no-canonical cannot change that").format(
                    file=resumed_from or _("the learner")
                )
            )
        if resume.game.spec != game.spec:
            raise QarenaError(
                _("it is a policy for {game}, not {spec}").format(
                    game=resume.game.spec, spec=game.spec
                )
            )
        for name in cls.fixed_settings():
            value = given.get(name)
            if value is not None and value != getattr(resume.config, name):
                raise QarenaError(
                    _("{file} was made with other {flag}; a resumed network keeps its own").format(
                        file=resumed_from or _("the network"), flag="--" + name.replace("_", "-")
                    )
                )
        learner = resume
        learner.config = cls.build_config(given, learner.config)
    else:
        learner = new_learner(game, kind, given, canonical=canonical)
    if isinstance(learner, Learner):
        opp = opponent_of(learner.tables, opponent)
    else:
        opp = Opponent("self")  # refused above unless self-play
    total = episodes or learner.default_episodes(opp.self_play)
    learner.check_room(total, resumed_from)
    if check_every is not None:
        check_checks("--check-every", check_every, total)
    run_curve = (
        new_curve(learner, total, every, most_games=most_games, most_points=most_points)
        if curve
        else None
    )
    cores = len(os.sched_getaffinity(0))
    threads_ = (workers or cores) if cls.threaded else 1
    if preset is not None:
        learner.preset = preset
    learner.use_backend(backend, ray_address)
    return RunPlan(
        learner, opp, seat, total, until_perfect, check_every, run_curve, threads_, minutes
    )


def _check_kind(  # noqa: PLR0913 - what a kind refuses, by the run's options
    cls: type[Trainable],
    game: Game,
    given: Mapping[str, Any],
    self_play: bool,
    seat: str,
    canonical: bool,
    until_perfect: bool,
    check_every: int | None,
    curve: bool,
) -> None:
    """Refuse what the learner kind ``cls`` has no use for, in one line and before anything
    is built: a self-play learner's opponent, seat, symmetry and checks; a seat or exploring
    starts that do not fit whom it plays; a curve that cannot be judged in bounded time."""
    if cls.self_play_only:
        refuse_options(
            (
                ("--opponent", not self_play),
                ("--seat", seat != "both"),
                ("--no-canonical", not canonical),
                ("--until-perfect", until_perfect),
                ("--check-every", check_every is not None),
            ),
            cls.kind,
        )
    check_versus(self_play, seat, given)
    if curve and cls.judging == "along_play":
        check_judged_curve(game)  # before anything is built: judging it may have no bound


def check_counts(
    episodes: int | None,
    check_every: int | None = None,
    every: int | None = None,
    workers: int | None = None,
) -> None:
    """Refuse a run's counts out of their bounds, each named as its reader names it
    (``--episodes``, or ``episodes`` from Python)."""
    import os

    if episodes is not None:
        check_count("--episodes", episodes, MAX_EPISODES)
    if check_every is not None:
        check_count("--check-every", check_every, MAX_EPISODES)
    if every is not None:
        check_count("--every", every, MAX_EPISODES)
    if workers is not None:
        check_count("--workers", workers, len(os.sched_getaffinity(0)) * 4)


#: The longest time budget a run takes: a week.
MAX_MINUTES = 7 * 24 * 60


def check_minutes(minutes: object, name: str = "--minutes") -> None:
    """Refuse a time budget that is not a number of minutes above 0 and at most a week."""
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, int | float)
        or not 0 < minutes <= MAX_MINUTES
    ):
        raise QarenaError(
            _("{flag} must be a number of minutes above 0 and at most {most:,}, not {value}")
            .format(flag=option(name), most=MAX_MINUTES, value=str(minutes)[:40])
        )  # fmt: skip


@dataclass
class RunRequest:
    """A run as a front end asks for it, its preset applied and every choice of its learner
    kind made and checked (:func:`request_run`), nothing built yet. ``qarena train``,
    ``qarena.train`` and the web's Train API all go through it; each adds only what is its
    own (files and progress; a callback; stored policies, the job queue, time limits and the
    memory a run is admitted against)."""

    game: Game
    kind: str
    given: dict[str, Any]
    opponent: PlayerLike = "self"
    seat: str = "both"
    episodes: int | None = None
    #: The preset's record, kept in the learner's file (None: no preset).
    preset: dict[str, Any] | None = None
    canonical: bool = True
    until_perfect: bool = False
    check_every: int | None = None
    curve: bool = False
    every: int | None = None
    workers: int | None = None
    #: Where its games are played (``--backend``): "local", or "ray" at ``ray_address``.
    backend: str = "local"
    ray_address: str | None = None
    #: Its time budget in minutes of wall time (``--minutes``; None: its episodes only).
    minutes: float | None = None
    #: Whether ``canonical`` was asked for (else a preset's or the default: a resumed
    #: learner keeps its own kind of table).
    canonical_given: bool = False

    @property
    def learner(self) -> type[Trainable]:
        """The learner kind it trains."""
        return learner_class(self.kind)

    @property
    def self_play(self) -> bool:
        return isinstance(self.opponent, str) and self.opponent == "self"

    @property
    def tables(self) -> bool:
        """Whether the run builds the game's tables (a learner judged over every position):
        what a bound on a game's size holds a run to; a learner judged along play learns a
        game of any size (its model, not the game's tables, takes the memory)."""
        return self.learner.judging == "exact"

    def config(self) -> Any:
        """The learner's settings, its defaults for the game with those given, checked by the
        kind's declaration, with the kind's checks of the game and of its model's size: before
        anything is allocated."""
        cls = self.learner
        cls.check_game(self.game)
        base = (
            cls.default_config(self.game)
            if self.canonical
            else cls.default_config(self.game, canonical=False)
        )
        config = cls.build_config(self.given, base)
        cls.check_fits(config, self.game)
        return config

    def curve_refused(self) -> str | None:
        """Why its curve cannot be judged in bounded time, as a clause (None when it can): a
        learner judged along play, on a board where that has no bound
        (:func:`judging_refused`)."""
        return judging_refused(self.game) if self.learner.judging == "along_play" else None

    def memory(self, config: Any, curve: bool) -> tuple[int, int]:
        """Bytes the run takes while it trains (the game's tables, the learner's own, its
        working arrays and the move masks of its opponent and its curve's; or its model), and
        bytes judging its curve along play takes (one per board and process: runs of one board
        share it)."""
        cls = self.learner
        if cls.judging == "exact":
            opponents = len(CURVE_OPPONENTS) + 1
            kind = table_class(self.kind)  # judged over its tables: a table learner
            need = footprint(self.game, "learn", kind, opponents, canonical=config.canonical)
            return need.total, 0
        return cls.model_bytes(config, self.game), judging_bytes(self.game) if curve else 0

    def total(self, config: Any) -> int:
        """The episodes the run trains: those asked for, else the kind's default for the game
        (known from the game, or from a fresh learner)."""
        if self.episodes is not None:
            return self.episodes
        cls = self.learner
        known = cls.default_length(self.game)
        if known is not None:
            return known
        return int(cls.create(self.game, config).default_episodes(self.self_play))

    def plan(
        self,
        *,
        resume: Trainable | None = None,
        resumed_from: str | None = None,
        opponent: PlayerLike | None = None,
        episodes: int | None = None,
        workers: int | None = None,
        most_games: int | None = None,
        most_points: int | None = None,
    ) -> RunPlan:
        """The run set up (:func:`plan_run`): with ``resume`` going on from that learner,
        against ``opponent`` when given (the player its opponent's name stands for, as the web
        loads a stored policy), for ``episodes`` when given, on ``workers`` threads when given
        (for a learner that runs on threads), and with a live view's lighter curve
        (``most_games``, ``most_points``)."""
        canonical, preset = self.canonical, self.preset
        if resume is not None and not self.canonical_given:
            canonical = bool(getattr(resume.config, "canonical", canonical))
            over = list((preset or {}).get("overridden") or [])
            if preset is not None and canonical != self.canonical and "canonical" not in over:
                # The file's kind of table, not the preset's: said as an override.
                preset = {**preset, "overridden": [*over, "canonical"]}
        return plan_run(
            self.game,
            self.kind,
            self.given,
            canonical=canonical,
            resume=resume,
            resumed_from=resumed_from,
            opponent=self.opponent if opponent is None else opponent,
            seat=self.seat,
            episodes=self.episodes if episodes is None else episodes,
            until_perfect=self.until_perfect,
            check_every=self.check_every,
            curve=self.curve,
            every=self.every,
            workers=self.workers if workers is None else workers,
            preset=preset,
            most_games=most_games,
            most_points=most_points,
            backend=self.backend,
            ray_address=self.ray_address,
            minutes=self.minutes,
        )


#: Where a learner's games may be played: here, or on a Ray cluster.
BACKENDS = ("local", "ray")


def check_backend(cls: type[Trainable], backend: str, ray_address: str | None) -> None:
    """Refuse, in one line, a backend that is not one, one the learner kind ``cls`` cannot
    play on, an address without Ray, or Ray not installed."""
    import importlib.util

    if backend not in BACKENDS:
        raise QarenaError(
            _("unknown backend {backend!r}; expected {backends}").format(
                backend=str(backend)[:40], backends=", ".join(BACKENDS)
            )
        )
    if ray_address is not None and backend != "ray":
        raise QarenaError(_("--ray-address applies to --backend ray"))
    if backend not in cls.backends:
        raise QarenaError(
            _("{flag} applies to {learners} only").format(
                flag=option("--backend " + backend),
                learners=_learners_of(lambda k: backend in k.backends),
            )
        )
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        raise QarenaError(_("--backend ray needs Ray; install it with: pip install 'qarena[ray]'"))


def _reads(name: str, cls: type[Trainable]) -> bool:
    return name in cls.hyperparameters


def _learners_of(reads: Callable[[type[Trainable]], bool]) -> str:
    """The learner kinds for which ``reads`` holds, as the command line names them:
    ``--learner ntuple or alphazero``."""
    from qarena.learn.learners import LEARNERS

    kinds = [kind for kind, cls in LEARNERS.items() if reads(cls)]
    return "--learner " + _(" or ").join(kinds)


def request_run(  # noqa: PLR0913 - a run's options, by keyword (qarena.train's)
    game: Game,
    kind: str | None,
    given: Mapping[str, Any],
    *,
    preset: str | None = None,
    opponent: PlayerLike | None = None,
    seat: str | None = None,
    episodes: int | None = None,
    canonical: bool | None = None,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: bool = False,
    every: int | None = None,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    minutes: float | None = None,
) -> RunRequest:
    """A front end's request (the learner ``kind``, the settings ``given``, a ``preset``'s
    name, the opponent, seat, episodes and ``canonical``, its kind of table; None: not given)
    made a checked :class:`RunRequest`: the preset fills what was not given (the write-up's
    own table, one entry per position; qarena's defaults without one), the learner kind is
    the one named, and what it has no use for is refused in one line (another kind's
    settings, ``workers`` for a learner on one thread, a self-play learner's opponent, a seat
    or exploring starts that do not fit whom it plays, a curve that cannot be judged)."""
    canonical_given = canonical is not None
    run, settings, record = resolve_preset(
        preset,
        game.spec,
        {
            "learner": kind,
            "opponent": opponent,
            "seat": seat,
            "episodes": episodes,
            "canonical": canonical,
        },
        given,
    )
    canonical = bool(run["canonical"])
    cls = learner_class(run["learner"])
    for s in KIND_SETTINGS:
        if settings.get(s.name) is not None and s.name not in cls.hyperparameters:
            readers = _learners_of(functools.partial(_reads, s.name))
            raise QarenaError(
                _("{flag} applies to {learners} only").format(
                    flag=option(s.option), learners=readers
                )
            )
    if workers is not None and not cls.threaded:
        raise QarenaError(
            _("{flag} applies to {learners} only").format(
                flag=option("--workers"), learners=_learners_of(lambda k: k.threaded)
            )
        )
    check_backend(cls, backend, ray_address)
    if minutes is not None:
        check_minutes(minutes)
    if settings.get("seed") is not None:
        check_seed(settings["seed"])
    request = RunRequest(
        game, cls.kind, settings, run["opponent"], run["seat"], run["episodes"], record,
        canonical, until_perfect, check_every, curve, every, workers, backend, ray_address,
        minutes, canonical_given,
    )  # fmt: skip
    _check_kind(
        cls, game, settings, request.self_play, request.seat, canonical, until_perfect,
        check_every, curve,
    )  # fmt: skip
    return request


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
    from qarena.exact import Oracle, check_fits
    from qarena.exact.book import SHIPPED

    if not Oracle.of(game).searched:
        if game.searchable:
            return None
        try:
            check_fits(game)  # enumerated where it fits
        except TooLargeError as e:
            return str(e).rstrip(".")
        return None
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
    from qarena.exact import Oracle
    from qarena.exact.search import DEFAULT_TABLE_BYTES

    return DEFAULT_TABLE_BYTES if Oracle.of(game).searched else footprint(game, "tables").total


@dataclass(frozen=True)
class MatrixRow:
    """One row of ``qarena matrix``: an agent trained against one player, and its record in
    each seat against each judge."""

    episodes: int
    optimality: float
    records: dict[str, SeatRecords]
    learner: Learner


def matrix_row(  # noqa: PLR0913 - the matrix's settings, by keyword
    game: Game,
    kind: str,
    trainer: str,
    judges: Mapping[str, Any],
    *,
    episodes: int | None,
    games: int,
    seed: int,
    seat: str = "both",
    status: Callable[[int], AbstractContextManager[Any]] | None = None,
) -> MatrixRow:
    """A fresh ``kind`` learner (seeded ``seed``) trained against ``trainer`` (``self``, or a
    player learnt from in ``seat``; self-play takes both seats), then ``games`` games in each
    seat against each judge (by name, its move mask). ``qarena matrix`` and the report share
    it, so the command the report prints gives the report's numbers."""
    cls = table_class(kind)
    learner = cls(game, cls.default_config(seed=seed))
    n = episodes or default_episodes(learner, trainer == "self")
    with status(n) if status is not None else nullcontext():
        opp = opponent_of(learner.tables, trainer)
        run = train_run(learner, n, opp, "both" if trainer == "self" else seat)
        records = record_against(learner, judges, games, seed)
    return MatrixRow(n, run.exact.share, records, learner)
