"""The one loop of every training run: a learner trained in chunks, with progress, checks of
its optimality, its curve's points (recorded as its family judges them,
``judging.family``), a time budget and a clean stop between chunks."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

from qarena.judging.family import Halted, family_of
from qarena.judging.tables import Optimality
from qarena.learn.curve import Curve, CurvePoint
from qarena.learn.family import Trainable
from qarena.learn.tables.base import Opponent

__all__ = ["CHUNK_SECONDS", "Progress", "RunResult", "train_run"]

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
    with family_of(learner).limit(should_stop):  # a stop ends judging that searches
        return _train_run(
            learner, episodes, opponent, seat, until_perfect, check_every, curve, on_progress,
            should_stop, workers, minutes,
        )  # fmt: skip


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
    family = family_of(learner)
    deadline = None if minutes is None else time.monotonic() + 60.0 * minutes

    def time_up() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    def halt() -> bool:  # within a chunk: a stop asked for, or the time budget spent
        return (should_stop is not None and should_stop()) or time_up()

    judge = family.recorder(learner, curve, should_stop) if curve is not None else None
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
        if check_every and done >= next_check:
            next_check += check_every
            optimality = family.optimality(learner)  # None: judged along play, by its curve
            if until_perfect and optimality is not None and optimality.share == 1.0:
                perfect_at = done
        point = None
        if judge is not None and not stopped and judge.due():
            shown = Progress(done, episodes, steps, seconds, None)  # while a point is judged
            judging = None if on_progress is None else functools.partial(on_progress, shown)
            try:
                point = judge.record(optimality, judging)
            except Halted:
                stopped = True  # mid-judging: the episodes are kept
        if on_progress is not None:
            on_progress(Progress(done, episodes, steps, seconds, optimality, point))
        if stopped or timed_out or perfect_at is not None:
            break
    if optimality is None:
        optimality = family.optimality(learner)  # at the end, where it is judged so
        if (
            until_perfect
            and optimality is not None
            and optimality.share == 1.0
            and perfect_at is None
            and not stopped
        ):
            perfect_at = done
    if judge is not None:
        try:
            judge.last(optimality, stopped)  # the end of the run, wherever it fell
        except Halted:
            stopped = True
    last = curve.points[-1] if curve is not None and curve.points else None
    return RunResult(done, steps, seconds, optimality, perfect_at, stopped, last, timed_out)
