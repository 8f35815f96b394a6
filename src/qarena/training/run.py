"""A training run: episodes in short chunks, with progress, optional optimality checks, and a
clean stop between chunks. Shared by the command line and the web app."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from qarena import threads
from qarena.agents.opponents import opponent as opponent_of
from qarena.agents.players import PlayerLike
from qarena.budget import check_checks, estimate_positions, footprint
from qarena.errors import QarenaError, TooLargeError
from qarena.evaluate.matches import SeatRecords
from qarena.evaluate.report import record_against, strategy_masks
from qarena.games.base import Game
from qarena.i18n import _, option
from qarena.learn.base import SEATS, Learner, Opponent, default_episodes
from qarena.learn.curve import (
    CURVE_GAMES,
    CURVE_OPPONENTS,
    MAX_POINTS,
    Curve,
    CurvePoint,
    JudgedCurve,
    JudgedPoint,
    early_points,
)
from qarena.learn.learners import learner_class
from qarena.learn.ntuple import NTupleNetwork
from qarena.optimality.judge import Optimality

__all__ = [
    "CHUNK_SECONDS",
    "JUDGED_GAMES",
    "JUDGED_SEARCH_POSITIONS",
    "NETWORK_CHUNK",
    "MatrixRow",
    "NetworkResult",
    "Progress",
    "RunPlan",
    "RunResult",
    "check_judged_curve",
    "check_versus",
    "default_episodes",
    "judge_network",
    "judging_bytes",
    "judging_refused",
    "matrix_row",
    "network_curve",
    "new_curve",
    "new_learner",
    "plan_run",
    "train_network",
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
    judged: JudgedPoint | None = None  # an n-tuple network's curve point, likewise


@dataclass
class RunResult:
    episodes: int  # in this run
    steps: int
    seconds: float
    optimality: Optimality
    perfect_at: int | None  # with until_perfect: episodes of this run when first perfect
    stopped: bool  # stopped early by ``should_stop``


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


def new_learner(game: Game, kind: str, given: Mapping[str, Any], canonical: bool = True) -> Learner:
    """A fresh learner of ``kind`` with the learner's defaults and the settings ``given`` (None:
    not given): what ``qarena train`` and every run of a sweep start from."""
    cls = learner_class(kind)
    return cls(game, cls.build_config(given, cls.default_config(canonical=canonical)))


def new_curve(learner: Learner, total: int, every: int | None) -> Curve:
    """The curve this run extends: the learner's own when resumed, else a new one. Without
    --every, points come every 1% of the run and, before the first, at 1, 2, 5, 10, 20, …
    episodes, so a log axis shows how learning starts."""
    old = learner.curve
    if every is None and old is not None:
        every = old.every  # a resumed curve keeps its spacing
    early = old.early if old is not None else every is None
    step = every or max(1, total // 100)
    before = old.points if old is not None else []
    room = MAX_POINTS - len(before) - 1
    if room < 1:
        raise QarenaError(
            _("its learning curve is full ({most:,} points); train without {curve}").format(
                most=MAX_POINTS, curve=option("--curve")
            )
        )
    start, end = learner.episodes, learner.episodes + total
    extra = sum(start < e <= end for e in early_points(step)) if early else 0
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
    games = old.games if old is not None else CURVE_GAMES
    return Curve(step, games, list(before), early)


class CurveRecorder:
    """Measures points for one learner, keeping the opponents' move tables between points."""

    def __init__(self, learner: Learner, curve: Curve) -> None:
        self.learner = learner
        self.curve = curve
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
        share = (optimality or learner.optimality()).share
        point = CurvePoint(learner.episodes, share, matches)
        self.curve.points.append(point)
        return point


def train_run(  # noqa: PLR0913 - a run's options, by keyword (qarena.train's)
    learner: Learner,
    episodes: int,
    opponent: Opponent | None = None,
    seat: str = "both",
    *,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: Curve | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> RunResult:
    """Train for ``episodes`` (fewer when perfect play is reached with ``until_perfect``, or
    when ``should_stop`` says so between chunks). Optimality is checked every ``check_every``
    episodes when given (or with ``until_perfect``), and always at the end. With ``curve``, a
    point is recorded whenever the learner's total episode count is a multiple of its
    ``every``, and at the end; the curve becomes the learner's, and is saved with it."""
    learner.warm_up()
    recorder = None
    if curve is not None:
        learner.curve = curve
        recorder = CurveRecorder(learner, curve)
    if until_perfect and check_every is None:
        check_every = max(1_000, episodes // 100)
    done = steps = 0
    seconds = 0.0
    chunk = 1_000
    next_check = check_every or 0
    perfect_at: int | None = None
    stopped = False
    optimality: Optimality | None = None
    while done < episodes:
        if should_stop is not None and should_stop():
            stopped = True
            break
        # A chunk ends where a check or a curve point is due.
        n = min(
            chunk,
            episodes - done,
            next_check - done if check_every else episodes,
            recorder.next_at - learner.episodes if recorder is not None else episodes,
        )
        t0 = time.perf_counter()
        steps += learner.train(n, opponent, seat, total_episodes=episodes)
        elapsed = time.perf_counter() - t0
        seconds += elapsed
        done += n
        if elapsed > 0:
            chunk = max(100, min(1_000_000, int(n * CHUNK_SECONDS / elapsed)))
        optimality = None
        if check_every and done >= next_check:
            next_check += check_every
            optimality = learner.optimality()
            if until_perfect and optimality.share == 1.0:
                perfect_at = done
        point = None
        if recorder is not None and recorder.due():
            point = recorder.record(optimality)
        if on_progress is not None:
            on_progress(Progress(done, episodes, steps, seconds, optimality, point))
        if perfect_at is not None:
            break
    if optimality is None:
        optimality = learner.optimality()
        if until_perfect and optimality.share == 1.0 and perfect_at is None and not stopped:
            perfect_at = done
    if recorder is not None:
        recorder.record(optimality)  # the end of the run, wherever it fell
    return RunResult(done, steps, seconds, optimality, perfect_at, stopped)


@dataclass
class RunPlan:
    """A training run set up and checked, nothing trained yet: the learner (new or resumed),
    whom it plays, how long, and what it records. ``qarena train`` and ``qarena.train`` both
    start from :func:`plan_run`."""

    learner: Learner
    opponent: Opponent
    seat: str
    total: int
    until_perfect: bool = False
    check_every: int | None = None
    curve: Curve | None = None

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
        )


def plan_run(  # noqa: PLR0913 - a run's options, by keyword (qarena.train's)
    game: Game,
    kind: str,
    given: Mapping[str, Any],
    *,
    canonical: bool = True,
    resume: Learner | None = None,
    opponent: PlayerLike = "self",
    seat: str = "both",
    episodes: int | None = None,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: bool = False,
    every: int | None = None,
) -> RunPlan:
    """Set up a run as ``qarena train`` does: the settings ``given`` (None: the learner's
    default, or with ``resume`` that learner's own) checked against whom it plays, a fresh
    learner of ``kind`` (or ``resume``, going on), the opponent (any player, or ``"self"``),
    the run's length (``episodes``, else scaled to the game) and its curve."""
    check_versus(isinstance(opponent, str) and opponent == "self", seat, given)
    if resume is not None:
        if resume.game.spec != game.spec:
            raise QarenaError(
                _("it is a policy for {game}, not {spec}").format(
                    game=resume.game.spec, spec=game.spec
                )
            )
        learner = resume
        learner.config = type(learner).build_config(given, learner.config)
    else:
        learner = new_learner(game, kind, given, canonical=canonical)
    opp = opponent_of(learner.tables, opponent)
    total = episodes or default_episodes(learner, opp.self_play)
    if check_every is not None:
        check_checks("--check-every", check_every, total)
    run_curve = new_curve(learner, total, every) if curve else None
    return RunPlan(learner, opp, seat, total, until_perfect, check_every, run_curve)


#: Games of self-play between two reports of progress (or looks at a curve point) for an
#: n-tuple network: about a second on classic Connect Four, half a minute on tictactoe:12x12:5,
#: so a stop is also looked at within a chunk (every 0.2 s). Fixed, so one thread learns the
#: same network from the same seed however the run is watched.
NETWORK_CHUNK = 10_000
#: Games of perfect play (and as many against it) behind each point of a network's curve.
JUDGED_GAMES = 50


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


def network_curve(net: NTupleNetwork, total: int, every: int | None, games: int) -> JudgedCurve:
    """The curve this run of ``total`` games extends: the network's own when resumed (its
    spacing kept unless ``every`` is given), else a new one with a point every ``every``
    games (default: a tenth of the run, and before the first at 1,000, 2,000, 5,000, …
    games, so a log axis shows how learning starts). Refused where judging it has no bound
    (:func:`check_judged_curve`)."""
    check_judged_curve(net.game)
    old = net.curve
    step = every or (old.every if old is not None else max(1, total // 10))
    early = old.early if old is not None else every is None
    before = old.points if old is not None else []
    points = len(before) + (net.games + total) // step - net.games // step + 1
    if early:
        points += len(early_points(step))
    if points > MAX_POINTS:
        raise QarenaError(
            _(
                "{asked} would record {points:,} points; a curve holds at most {most:,}, so "
                "use {enough} or more"
            ).format(
                asked=_every(step),
                points=points,
                most=MAX_POINTS,
                enough=_every(-(-total // max(1, MAX_POINTS - len(before) - 1))),
            )
        )
    return JudgedCurve(step, old.games if old is not None else games, list(before), early)


def judge_network(net: NTupleNetwork, games: int, seed: int) -> JudgedPoint:
    """The network judged now: its optimality along ``games`` games of perfect play and its
    record moving first in ``games`` games against perfect play."""
    from qarena.evaluate.sampled import along_perfect_play
    from qarena.exact import oracle

    optimality, record = along_perfect_play(net, oracle(net.game), games, seed)
    shares = record.shares()
    return JudgedPoint(
        net.games, net.seconds, optimality.share, (shares["win"], shares["draw"], shares["loss"])
    )


class _Halted(Exception):
    """A run's own stop reached a point being judged."""


@dataclass
class NetworkResult:
    games: int  # in this run
    steps: int
    seconds: float
    point: JudgedPoint | None  # the curve's last point, when there is a curve
    stopped: bool


def train_network(
    net: NTupleNetwork,
    games: int,
    *,
    workers: int = 1,
    curve: JudgedCurve | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> NetworkResult:
    """``games`` games of self-play in chunks of :data:`NETWORK_CHUNK`, on ``workers``
    threads, stopping early when ``should_stop`` says so between chunks. With ``curve``, the
    network is judged whenever its game count is a multiple of the curve's ``every``, and at
    the end; the curve becomes the network's and is saved with it. A stop also ends a point
    being judged within a fraction of a second (the point is dropped; what was learned is
    kept, and the run ends stopped)."""
    net.check_room(games)  # before any chunk: a run that would overflow its count never starts
    if curve is not None:
        net.curve = curve
    # Judging searches (threads.run_threads), which end once the limit's flag is set.
    with threads.limit(should_stop=should_stop):
        return _train_network(net, games, workers, curve, on_progress, should_stop)


def _train_network(
    net: NTupleNetwork,
    games: int,
    workers: int,
    curve: JudgedCurve | None,
    on_progress: Callable[[Progress], None] | None,
    should_stop: Callable[[], bool] | None,
) -> NetworkResult:
    done = steps = 0
    seconds = 0.0
    stopped = False

    def record() -> JudgedPoint | None:
        """The point now, or None; raises Stopped when this run's stop ends its judging (the
        point is dropped: only judged points are kept)."""
        assert curve is not None
        if net.games == 0 or (curve.points and curve.points[-1].games >= net.games):
            return None
        try:
            point = judge_network(net, curve.games, net.config.seed + net.games)
        except threads.Stopped:
            if should_stop is None or not should_stop():
                raise  # an outer limit's: its caller says what it means
            raise _Halted from None
        curve.points.append(point)
        return point

    while done < games:
        if should_stop is not None and should_stop():
            stopped = True
            break
        n = min(NETWORK_CHUNK, games - done)
        if curve is not None:
            n = min(n, curve.next_after(net.games) - net.games)
        t0 = time.perf_counter()
        before = net.games
        steps += net.train(n, games, workers, should_stop)
        elapsed = time.perf_counter() - t0
        seconds += elapsed
        net.seconds += elapsed
        done += net.games - before
        stopped = net.games - before < n  # stopped within the chunk
        point = None
        if curve is not None and not stopped and curve.due(net.games):
            if on_progress is not None:  # the games so far, while the point is judged
                on_progress(Progress(done, games, steps, seconds, None))
            try:
                point = record()
            except _Halted:
                stopped = True  # mid-judging: the games are kept
        if on_progress is not None:
            on_progress(Progress(done, games, steps, seconds, None, judged=point))
        if stopped:
            break
    if curve is not None and not stopped:
        try:
            record()  # the end of the run, wherever it fell
        except _Halted:
            stopped = True
    last = curve.points[-1] if curve is not None and curve.points else None
    return NetworkResult(done, steps, seconds, last, stopped)


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
    cls = learner_class(kind)
    learner = cls(game, cls.default_config(seed=seed))
    n = episodes or default_episodes(learner, trainer == "self")
    with status(n) if status is not None else nullcontext():
        opp = opponent_of(learner.tables, trainer)
        run = train_run(learner, n, opp, "both" if trainer == "self" else seat)
        records = record_against(learner, judges, games, seed)
    return MatrixRow(n, run.optimality.share, records, learner)
