"""Training jobs: a learner trained in a background thread, watched through its snapshots.

At most ``max_running`` runs train at once; the others wait in a bounded line and start, in
order, as runs end. Runs that a person is waiting on to play (``spot`` runs) go ahead of the
runs waiting in the background.

A run is watched by people speaking different languages, so what it keeps is in English (its
thread speaks English) and its snapshot translates it for whoever asks.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from qarena import threads
from qarena.agents.players import PlayerLike
from qarena.agents.spec_players import refuse_code
from qarena.agents.strategies import players_of
from qarena.budget import format_bytes, memory_budget
from qarena.errors import QarenaError
from qarena.games import Game
from qarena.i18n import DEFAULT, _, gettext_noop, speaking
from qarena.judging.family import Family, family_of, judging_refused
from qarena.learn.curve import CurvePoint
from qarena.learn.learners import learner_class
from qarena.match.spot import run_timed
from qarena.training.run import Progress, RunRequest
from qarena.web.exceptions import Full, NotFound
from qarena.web.store import PolicyStore, is_policy_id

log = logging.getLogger("qarena.web")

#: Games a curve point plays per seat against each opponent (fewer than the CLI's: live view).
CURVE_GAMES = 100
#: Points a live curve aims for over a run.
CURVE_POINTS = 40
#: Jobs kept in memory; the oldest finished ones go first.
MAX_JOBS = 200
#: Most episodes one web job may ask for.
MAX_EPISODES = 10_000_000
#: Training runs under way at once: one per core of a small machine; more would only share it.
MAX_RUNNING = 2
#: Runs that may wait for a free slot; beyond that a new run is refused (a bound on memory and on
#: how long the last one waits).
MAX_QUEUED = 16


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def refuse_alone(need: int) -> None:
    """Refuse a run that needs more memory than the server can spare with nothing else
    running: no wait would help."""
    budget = memory_budget()
    if need > budget:
        raise QarenaError(
            _(
                "this run needs about {need} of memory, more than this server can spare "
                "({budget}); ask for a smaller run (fewer or shorter tuples)"
            ).format(need=format_bytes(need), budget=format_bytes(budget))
        )


#: A run's place in line, by the English ordinal's ending (translated as a whole).
_IN_LINE = {
    "st": gettext_noop("{n}st in line"),
    "nd": gettext_noop("{n}nd in line"),
    "rd": gettext_noop("{n}rd in line"),
    "th": gettext_noop("{n}th in line"),
}


def in_line(n: int) -> str:
    """ "2nd in line", in the current language."""
    return _(_IN_LINE[ordinal(n)[-2:]]).format(n=n)


#: Where a training job stands: waiting in line, training, finished with a policy, failed,
#: or cancelled (stopped, by a request or the server, before it learned anything: out of line,
#: or before its first chunk). A run stopped after that is done, ``stopped``, its policy kept.
JobState = Literal["queued", "running", "done", "failed", "cancelled"]
#: The states of a job that has not ended.
LIVE: tuple[JobState, ...] = ("queued", "running")


@dataclass(frozen=True)
class Admitted:
    """A run's request as this server admits it: the learner's settings, the episodes it
    trains, the bytes it takes while it trains and those judging its curve takes, and whether
    it records a curve."""

    config: Any
    total: int
    memory: int
    judging_bytes: int
    curve: bool


@dataclass(frozen=True)
class Spot:
    """A run someone waits for, to play its agent: who moves first then, and the time limit."""

    first: str = "human"
    seconds: float | None = None


@dataclass
class Job:
    """One training run. ``spot`` jobs train the default agent for a game someone wants to play
    now: they stop after ``seconds`` and go on to a game (``first`` says who opens)."""

    id: str
    game: Game
    learner: str
    episodes: int
    opponent: str  # a name, or a stored policy's id
    config: Any  # the learner kind's settings, checked
    seat: str = "both"
    until_perfect: bool = False
    spot: bool = False
    first: str = "human"
    seconds: float | None = None
    state: JobState = "queued"
    queue_position: int | None = None  # 1 for the next to start, while queued
    done: int = 0
    optimality: float | None = None
    points: list[CurvePoint] = field(default_factory=list)  # its curve's, of either kind
    policy: str | None = None
    error: str | None = None
    version: int = 0  # bumped on every change, for watchers
    started: float = field(default_factory=time.monotonic)
    cancel: bool = False
    stopped: bool = False  # stopped early (by request or the time limit); what it learned is kept
    memory: int = 0  # bytes it takes while it trains: its tables, the learner's and the game's
    judging_bytes: int = 0  # bytes judging its curve takes, shared by runs of the same board
    curve: bool = True  # a curve is recorded (not where judging it has no bound)
    preset: dict[str, Any] | None = None  # the write-up's preset and what was given over it
    #: The run asked for, checked (``training.run.request_run``): what the thread sets up.
    request: RunRequest | None = None

    @property
    def family(self) -> Family:
        """How its learner is judged (``judging.family``)."""
        return family_of(learner_class(self.learner))

    def curve_points(self) -> int:
        """The points of its learning curve so far."""
        return len(self.points)

    def chart(self) -> str:
        """Its learning curve so far, as SVG."""
        return self.family.draw(self.points, self.episodes)

    def snapshot(self) -> dict[str, Any]:
        return {
            "job": self.id,
            "game": self.game.spec,
            "learner": self.learner,
            "opponent": self.opponent,
            "state": self.state,
            "episodes": self.done,
            "total": self.episodes,
            "fraction": self.done / self.episodes if self.episodes else 1.0,
            "optimality": self.optimality,
            "points": self.curve_points(),
            "policy": self.policy,
            # Kept in English; shown in the language of whoever asks.
            "error": None if self.error is None else _(self.error),
            "spot": self.spot,
            "first": self.first,
            "seat": self.seat,
            "until_perfect": self.until_perfect,
            "stopped": self.stopped,
            "queue_position": self.queue_position,
            "waiting": None if self.queue_position is None else in_line(self.queue_position),
            "note": self.note(),
        }

    def note(self) -> str | None:
        """Why a network's run records no learning curve, in the current language."""
        if self.curve:
            return None
        why = judging_refused(self.game)
        return (
            None
            if why is None
            else _(
                "no learning curve: it would be judged along perfect-play games, and {why}"
            ).format(why=why)
        )


class Jobs:
    """Training jobs by id, each in its own daemon thread once it starts; finished policies go
    to the store."""

    def __init__(
        self, store: PolicyStore, max_running: int = MAX_RUNNING, max_queued: int = MAX_QUEUED
    ) -> None:
        self.store = store
        self.max_running = max_running
        self.max_queued = max_queued
        self._jobs: dict[str, Job] = {}
        self._queue: list[Job] = []  # in the order they will start
        self._threads: dict[str, threading.Thread] = {}
        self._closed = False
        self._lock = threading.Lock()

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFound(_("no training job {id!r}").format(id=job_id))
        return job

    def spot_job(self, game: Game) -> Job | None:
        """A running or waiting on-the-spot job for this game, to share rather than start
        another."""
        with self._lock:
            return next(
                (
                    j
                    for j in self._jobs.values()
                    if j.spot and j.state in LIVE and j.game.spec == game.spec
                ),
                None,
            )

    def start(self, request: RunRequest, *, spot: Spot | None = None) -> Job:
        """Check the run ``request`` asks for (:meth:`check`), then train it in the background:
        at once if a slot is free, else after the runs ahead of it in line. Full when the line
        is full. ``spot``, for a run someone waits for to play."""
        admitted = self.check(request)
        job = Job(
            secrets.token_hex(6),
            request.game,
            request.kind,
            admitted.total,
            str(request.opponent),
            admitted.config,
            seat=request.seat,
            until_perfect=request.until_perfect,
            spot=spot is not None,
            first=spot.first if spot is not None else "human",
            seconds=spot.seconds if spot is not None else None,
            memory=admitted.memory,
            judging_bytes=admitted.judging_bytes,
            curve=admitted.curve,
            preset=request.preset,
            request=dataclasses.replace(request, curve=admitted.curve),
        )
        return self._enqueue(job)

    def _check_memory(self, job: Job) -> None:
        """Refuse a run whose memory, with what the runs under way and waiting hold, is more
        than this server can spare (under the lock): each run is held to what the others
        leave, not to the whole machine. Judging a board's curve is counted once: runs of one
        board share it."""
        budget = memory_budget()
        live = [j for j in self._jobs.values() if j.state in LIVE and j is not job]
        boards = {j.game.spec: j.judging_bytes for j in live if j.judging_bytes}
        held = sum(j.memory for j in live) + sum(boards.values())
        need = job.memory + (0 if job.game.spec in boards else job.judging_bytes)
        refuse_alone(need)
        if held + need > budget:
            raise Full(
                _(
                    "this run needs about {need} of memory, and the runs under way or waiting "
                    "hold {held} of the {budget} this server can spare; try again when one has "
                    "finished, or ask for a smaller run"
                ).format(
                    need=format_bytes(need), held=format_bytes(held), budget=format_bytes(budget)
                )
            )

    def _enqueue(self, job: Job) -> Job:
        spot = job.spot
        with self._lock:
            if self._closed:
                raise Full(_("the server is stopping; start the run again once it is back"))
            if self._running() >= self.max_running and len(self._queue) >= self.max_queued:
                raise Full(
                    _(
                        "{running} training runs are under way and {waiting} are waiting, the "
                        "most this server keeps; try again when one has finished"
                    ).format(running=self._running(), waiting=len(self._queue))
                )
            self._check_memory(job)
            finished = [j for j in self._jobs.values() if j.state not in LIVE]
            for old in finished[: max(0, len(self._jobs) + 1 - MAX_JOBS)]:
                del self._jobs[old.id]
            self._jobs[job.id] = job
            # A person waiting to play goes ahead of runs waiting in the background (their
            # runs are short: they stop after ``seconds``); the line is first come, first
            # served otherwise.
            at = len(self._queue)
            if spot:
                at = next((i for i, j in enumerate(self._queue) if not j.spot), at)
            self._queue.insert(at, job)
            self._dispatch()
        return job

    def check(self, request: RunRequest) -> Admitted:
        """The checks of :meth:`start`, which start nothing: the learner's settings (the
        kind's own checks), whom it plays here (a name, or a stored policy's id: a web request
        must not name files on the server), the episodes within this server's limit, and the
        memory it takes with nothing else running. Its curve is recorded where judging it has
        a bound; elsewhere (boards searched without a book, or too big to solve) it trains
        without one, and says so."""
        game, opponent_name = request.game, str(request.opponent)
        refuse_code(opponent_name)  # a file's own code (connectx:FILE) never runs here
        config = request.config()
        if is_policy_id(opponent_name):
            self._check_policy_opponent(opponent_name, game, request.canonical)
        else:
            # Every opponent the command line offers by name (its policy files are stored
            # policies here).
            named = ("self", *players_of(game))
            if opponent_name not in named:
                raise QarenaError(
                    _(
                        "unknown opponent {name!r} for {spec}; expected {names}, or a stored "
                        "policy's id"
                    ).format(name=opponent_name, spec=game.spec, names=", ".join(named))
                )
        episodes = request.episodes
        if episodes is not None and not 1 <= episodes <= MAX_EPISODES:
            raise QarenaError(
                _("episodes must be from 1 to {most:,}, not {count}").format(
                    most=MAX_EPISODES, count=episodes
                )
            )
        curve = request.curve_refused() is None
        memory, judging_bytes = request.memory(config, curve)
        refuse_alone(memory + judging_bytes)
        # Unasked, the default run (on-the-spot runs too, within their time limit).
        return Admitted(config, request.total(config), memory, judging_bytes, curve)

    def _check_policy_opponent(self, policy_id: str, game: Game, canonical: bool) -> None:
        """A stored policy to train against: it exists, plays the game, and has tables of the
        same rows (positions one per symmetry, or every one) as the learner's (``canonical``),
        which its moves are given in."""
        try:
            row = self.store.get(policy_id)
        except NotFound:
            raise QarenaError(
                _("there is no stored policy {id} to train against").format(id=policy_id)
            ) from None
        if row.game != game.spec:
            raise QarenaError(
                _(
                    "policy {id} plays {game}, not {spec}: train against a policy of the same game"
                ).format(id=policy_id, game=row.game, spec=game.spec)
            )
        if not row.tables:
            raise QarenaError(
                _(
                    "policy {id} is an n-tuple network; a learner trains against a table "
                    "learner's policy or a built-in player"
                ).format(id=policy_id)
            )
        hyper = self.store.meta(policy_id).get("hyperparameters")
        theirs = hyper.get("canonical", True) if isinstance(hyper, dict) else True
        if theirs != canonical:
            learned = (
                _(
                    "policy {id} learned one position per symmetry; train on the same positions "
                    "to play against it"
                )
                if theirs
                else _(
                    "policy {id} learned every position; train on the same positions to play "
                    "against it"
                )
            )
            raise QarenaError(learned.format(id=policy_id))

    def _opponent(self, job: Job) -> PlayerLike | None:
        """The player a stored policy's id stands for (None: a name, which the run resolves
        as the command line does)."""
        if not is_policy_id(job.opponent):
            return None
        other = self.store.load(job.opponent)
        table = family_of(other).table(other)
        if table is None:  # checked when the run was asked for: no tables
            raise QarenaError(f"policy {job.opponent} is an n-tuple network")
        # As a policy file opponent on the command line: uniformly among its best moves.
        return table

    def cancel(self, job: Job) -> bool:
        """Stop a job: a running one between chunks (what it learned is saved); a waiting one
        leaves the line at once, having learned nothing. False when it had already ended."""
        with self._lock:
            if job.state not in LIVE:
                return False
            job.cancel = True
            if job.state == "queued":
                self._drop(
                    job,
                    gettext_noop(
                        "it was stopped while waiting in line, before it learned anything"
                    ),
                )
                self._renumber()
            return True

    def shutdown(self, timeout: float) -> int:
        """Drop the waiting runs, stop the running ones and wait up to ``timeout`` seconds for
        them to save what they learned, refusing new runs meanwhile. Returns how many are still
        running. (New runs are taken again afterwards: an app may be served again, as test
        harnesses do.)"""
        with self._lock:
            self._closed = True
            for job in [*self._queue]:
                self._drop(job, gettext_noop("the server stopped before this run started"))
            for job in self._jobs.values():
                if job.state == "running":
                    job.cancel = True
            threads = list(self._threads.values())
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._closed = False
        return sum(t.is_alive() for t in threads)

    def _running(self) -> int:
        return sum(j.state == "running" for j in self._jobs.values())

    def _drop(self, job: Job, why: str) -> None:
        """Take a waiting job out of the line (under the lock); ``why`` is in English (a
        message id), translated where it is shown."""
        self._queue.remove(job)
        job.queue_position = None
        job.stopped = True
        job.error, job.state = why, "cancelled"
        job.version += 1

    def _dispatch(self) -> None:
        """Start waiting jobs while slots are free, then number the rest (under the lock)."""
        while self._queue and self._running() < self.max_running and not self._closed:
            job = self._queue.pop(0)
            job.state, job.queue_position = "running", None
            job.version += 1
            thread = threading.Thread(
                target=self._run, args=(job,), daemon=True, name=f"train-{job.id}"
            )
            self._threads[job.id] = thread
            thread.start()
        self._renumber()

    def _renumber(self) -> None:
        for i, job in enumerate(self._queue, 1):
            if job.queue_position != i:
                job.queue_position = i
                job.version += 1

    def _run(self, job: Job) -> None:
        # What the run keeps (its error) is in English, translated for whoever reads it. Its
        # stop ends any search inside it (a curve point judged) within a fraction of a second.
        with speaking(DEFAULT), threads.limit(should_stop=lambda: job.cancel):
            try:
                self._train(job)
                job.state = "done"
            except QarenaError as e:
                # Stopped before it kept anything: what was asked for, not a failure.
                stopped = job.cancel and job.policy is None
                job.error, job.state = str(e), "cancelled" if stopped else "failed"
            except Exception as e:  # a thread has no one else to tell
                log.exception("training job %s failed", job.id)
                job.error, job.state = f"training failed: {e}", "failed"
            finally:
                job.version += 1
                with self._lock:
                    self._threads.pop(job.id, None)
                    self._dispatch()  # this run's slot is free: the next in line starts

    def _train(self, job: Job) -> None:
        """The run its request sets up (``RunRequest.plan``, as ``qarena train``'s), with
        what is the web's: a stored policy as the opponent, a live view's lighter curve, one
        thread (the runs at once are the server's slots), the time limit of an on-the-spot
        run."""
        assert job.request is not None
        plan = job.request.plan(
            opponent=self._opponent(job),
            episodes=job.episodes,
            workers=1,
            most_games=CURVE_GAMES,
            most_points=CURVE_POINTS,
        )
        curve = plan.curve

        def on_progress(p: Progress) -> None:
            job.done = p.episodes
            if p.optimality is not None:
                job.optimality = p.optimality.share
            if p.point is not None and curve is not None:
                job.points = [*curve.points]
                if not curve.judged:  # its points are judged over every position
                    job.optimality = p.point.optimality
            job.version += 1

        # An on-the-spot run is `qarena train`'s default run, as `qarena play`'s is: checking
        # for perfect play every 1% of the run cost mid-size games most of their time limit.
        result, _took = run_timed(
            plan, seconds=job.seconds, on_progress=on_progress, should_stop=lambda: job.cancel
        )
        job.done = result.episodes
        job.stopped = result.stopped
        job.points = [*curve.points] if curve is not None else []
        if result.episodes == 0:
            # Stopped (the server shutting down) before the first chunk: nothing to keep.
            raise QarenaError(_("it was stopped before it learned anything"))
        if result.optimality is not None:
            job.optimality = result.optimality.share
        # How it was trained, beyond its settings, where it could have played another: the
        # file says so wherever it goes.
        extra = None
        if type(plan.learner).takes("--opponent"):
            training = {
                "opponent": job.opponent,
                "seat": job.seat,
                "until_perfect": job.until_perfect,
            }
            extra = {"training": training}
        job.policy = self.store.add(plan.learner, extra).id
