"""Training jobs: a learner trained in a background thread, watched through its snapshots."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from qarena.errors import QarenaError
from qarena.evaluate.curve import Curve, CurvePoint
from qarena.games import Game
from qarena.learn.base import LearnConfig
from qarena.learn.learners import make_learner
from qarena.learn.opponents import opponent
from qarena.learn.run import Progress, default_episodes, train_run
from qarena.web.play import Full, NotFound
from qarena.web.store import PolicyStore

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


@dataclass
class Job:
    """One training run. ``spot`` jobs train the default agent for a game someone wants to play
    now: they stop after ``seconds`` and go on to a game (``first`` says who opens)."""

    id: str
    game: Game
    learner: str
    episodes: int
    opponent: str
    config: LearnConfig
    spot: bool = False
    first: str = "human"
    seconds: float | None = None
    state: str = "running"  # running, done, failed
    done: int = 0
    optimality: float | None = None
    points: list[CurvePoint] = field(default_factory=list)
    policy: str | None = None
    error: str | None = None
    version: int = 0  # bumped on every change, for watchers
    started: float = field(default_factory=time.monotonic)
    cancel: bool = False
    stopped: bool = False  # stopped early (by request or the time limit); what it learned is kept

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
            "points": len(self.points),
            "policy": self.policy,
            "error": self.error,
            "spot": self.spot,
            "first": self.first,
            "stopped": self.stopped,
        }


class Jobs:
    """Training jobs by id, each in its own daemon thread; finished policies go to the store."""

    def __init__(self, store: PolicyStore, max_running: int = MAX_RUNNING) -> None:
        self.store = store
        self.max_running = max_running
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFound(job_id)
        return job

    def spot_job(self, game: Game) -> Job | None:
        """A running on-the-spot job for this game, to share rather than start another."""
        with self._lock:
            return next(
                (
                    j
                    for j in self._jobs.values()
                    if j.spot and j.state == "running" and j.game.spec == game.spec
                ),
                None,
            )

    def start(
        self,
        game: Game,
        learner: str = "q",
        episodes: int | None = None,
        opponent_name: str = "self",
        config: LearnConfig | None = None,
        *,
        spot: bool = False,
        first: str = "human",
        seconds: float | None = None,
    ) -> Job:
        """Check the settings, then train in the background."""
        fresh = make_learner(learner, game, config)  # checks the learner's name
        if opponent_name not in ("self", "random", "perfect"):
            raise QarenaError(
                f"unknown opponent {opponent_name!r}; expected self, random or perfect"
            )
        total = episodes if episodes is not None else default_episodes(fresh)
        if not 1 <= total <= MAX_EPISODES:
            raise QarenaError(f"episodes must be from 1 to {MAX_EPISODES:,}, not {total}")
        job = Job(
            secrets.token_hex(6),
            game,
            learner,
            total,
            opponent_name,
            fresh.config,
            spot=spot,
            first=first,
            seconds=seconds,
        )
        with self._lock:
            running = sum(j.state == "running" for j in self._jobs.values())
            if running >= self.max_running:
                raise Full(
                    f"{running} training runs are under way; start another when one has finished"
                )
            finished = [j for j in self._jobs.values() if j.state != "running"]
            for old in finished[: max(0, len(self._jobs) + 1 - MAX_JOBS)]:
                del self._jobs[old.id]
            self._jobs[job.id] = job
        threading.Thread(target=self._run, args=(job,), daemon=True, name=f"train-{job.id}").start()
        return job

    def run_now(self, job: Job) -> None:
        """Wait for a job to end (used by API calls that train on the spot)."""
        while job.state == "running":
            time.sleep(0.05)

    def _run(self, job: Job) -> None:
        try:
            learner = make_learner(job.learner, job.game, job.config)
            learner.warm_up()
            learner.optimality()  # solve first: any time limit is for training
            opp = opponent(learner.tables, job.opponent)
            every = max(1, job.episodes // CURVE_POINTS)
            curve = Curve(every, games=CURVE_GAMES, early=True)
            t0 = time.monotonic()

            def on_progress(p: Progress) -> None:
                job.done = p.episodes
                if p.optimality is not None:
                    job.optimality = p.optimality.share
                if p.point is not None:
                    job.points = [*curve.points]
                    job.optimality = p.point.optimality
                job.version += 1

            def should_stop() -> bool:
                late = job.seconds is not None and time.monotonic() - t0 > job.seconds
                return job.cancel or late

            result = train_run(
                learner,
                job.episodes,
                None if opp.self_play else opp,
                until_perfect=job.spot,
                curve=curve,
                on_progress=on_progress,
                should_stop=should_stop,
            )
            job.done = result.episodes
            job.stopped = result.stopped
            job.optimality = result.optimality.share
            job.points = [*curve.points]
            job.policy = self.store.add(learner).id
            job.state = "done"
        except QarenaError as e:
            job.error, job.state = str(e), "failed"
        except Exception as e:  # a thread has no one else to tell
            log.exception("training job %s failed", job.id)
            job.error, job.state = f"training failed: {e}", "failed"
        finally:
            job.version += 1
