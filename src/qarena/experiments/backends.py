"""Where a sweep's runs are trained: in this process, in a pool of processes on this machine,
or on a Ray cluster. Every backend hands each finished run to ``on_done`` in this process,
which alone writes into the sweep's folder, so the folder never depends on a shared disk."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qarena.budget import BASE_BYTES, footprint, format_bytes, memory_budget
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.exact.search import DEFAULT_TABLE_BYTES as SEARCH_TABLE_BYTES
from qarena.experiments.folder import MEASURED, RunOutput, RunRow, SweepFolder, ordered_rows
from qarena.experiments.grid import Fixed, Grid, Setting
from qarena.experiments.sweep import Task, opponent_file, run_task
from qarena.fileio import check_target
from qarena.games import parse_spec
from qarena.games.base import Game
from qarena.i18n import language, ngettext, option
from qarena.learn.learners import learner_class, origin
from qarena.learn.tables.base import Learner
from qarena.processes import spawn_pool, start_ray

BACKENDS = ("local", "ray")
#: results.csv is rewritten at most this often while runs finish (and always at the end).
RESULTS_EVERY_SECONDS = 1.0

OnDone = Callable[[RunOutput], None]


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def run_local(tasks: Sequence[Task], workers: int, on_done: OnDone) -> None:
    """Train ``tasks`` on ``workers`` processes (one: in this process). Ctrl-C raises
    KeyboardInterrupt here after ending the workers; the runs handed over so far are kept."""
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            on_done(run_task(task))
        return
    # Fresh interpreters, not forks: numba's thread pools do not survive a fork.
    pool = spawn_pool(min(workers, len(tasks)))
    try:
        for output in pool.imap_unordered(run_task, tasks, chunksize=1):
            on_done(output)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def run_ray(
    tasks: Sequence[Any],
    workers: int,
    address: str | None,
    on_done: Callable[[Any], None],
    work: Callable[[Any], Any] = run_task,
) -> None:
    """Run ``work`` on each task (by default, train a sweep's run) as Ray tasks of one CPU
    each: on the cluster at ``address``, or on a local Ray instance limited to ``workers``
    CPUs; ``on_done`` gets each output as it comes. Every node needs qarena installed."""
    ray = start_ray(address, workers, option("--backend ray"))
    from ray.exceptions import RayTaskError

    remote = ray.remote(num_cpus=1, max_retries=0)(work)
    pending = [remote.remote(task) for task in tasks]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                output = ray.get(done[0])
            except RayTaskError as e:
                cause = e.cause
                if isinstance(cause, QarenaError):
                    raise QarenaError(str(cause)) from None
                raise
            on_done(output)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        ray.shutdown()


@dataclass
class Plan:
    """A sweep ready to run: its folder (made, or checked to hold the same sweep), its runs in
    grid order, those still to train, and where and how many at once."""

    folder: SweepFolder
    settings: list[Setting]
    tasks: list[Task]
    finished: dict[str, RunRow]
    workers: int
    backend: str = "local"
    ray_address: str | None = None
    note: str | None = None  # why fewer workers than asked for

    @property
    def skipped(self) -> int:
        return len(self.settings) - len(self.tasks)

    def rows(self) -> list[RunRow]:
        """The finished runs' rows, in grid order."""
        return [self.finished[s.name] for s in self.settings if s.name in self.finished]


def fitting_workers(
    fixed: Fixed, settings: Sequence[Setting], asked: int
) -> tuple[int, str | None]:
    """As many workers as asked for, but no more than memory holds: each is a process with a
    run's tables. Also a note saying so when that is fewer."""
    game = parse_spec(fixed.game)
    need = BASE_BYTES + max(_run_bytes(game, fixed, s) for s in settings)
    fit = max(1, memory_budget() // need)
    if asked <= fit:
        return asked, None
    note = ngettext(
        "using {count} worker, not {asked}: each run of {spec} needs up to {need}",
        "using {count} workers, not {asked}: each run of {spec} needs up to {need}",
        fit,
    ).format(count=fit, asked=asked, spec=game.spec, need=format_bytes(need))
    return int(fit), note


def _run_bytes(game: Game, fixed: Fixed, setting: Setting) -> int:
    """What one run takes at most: a table learner's tables and the game's, or a network's
    tables and what judging it takes (the game's tables, or the search solver's)."""
    cls = learner_class(setting.learner)
    if issubclass(cls, Learner):  # its tables are the game's
        opponents = len(MEASURED) + 1
        return footprint(game, "learn", cls, opponents, canonical=fixed.canonical).total
    judging = SEARCH_TABLE_BYTES if Oracle.of(game).searched else footprint(game, "tables").total
    return cls.model_bytes(cls.build_config(setting.given, cls.default_config(game))) + judging


def plan_sweep(
    folder: SweepFolder,
    fixed: Fixed,
    settings: list[Setting],
    *,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    opponent_files: Mapping[str, bytes | None] | None = None,
) -> Plan:
    """Open the folder and list what is left to train; nothing is trained yet."""
    folder.open(fixed)
    finished = folder.finished()
    todo = [s for s in settings if s.name not in finished]
    check_target(folder.results)
    for s in todo:
        check_target(folder.path(s.name))
    asked, note = workers or cores(), None
    if backend == "local" or ray_address is None:
        asked, note = fitting_workers(fixed, todo or settings, asked)
    threads = max(1, cores() // asked) if backend == "local" else 1
    files = opponent_files or {}
    tasks = [
        Task(fixed, s, threads, files.get(s.opponent), language(), origin(s.learner)) for s in todo
    ]
    return Plan(folder, settings, tasks, finished, asked, backend, ray_address, note)


@dataclass(frozen=True)
class SweepSetUp:
    """A sweep's runs set up and checked, its folder not opened yet: what every run shares,
    every run, and each policy file opponent's bytes (read once, to travel to its runs)."""

    fixed: Fixed
    settings: list[Setting]
    files: dict[str, bytes | None]

    def plan(
        self,
        folder: SweepFolder,
        *,
        workers: int | None = None,
        backend: str = "local",
        ray_address: str | None = None,
    ) -> Plan:
        """:func:`plan_sweep` of these runs into ``folder`` (under ``folder.locked()``)."""
        return plan_sweep(
            folder,
            self.fixed,
            self.settings,
            workers=workers,
            backend=backend,
            ray_address=ray_address,
            opponent_files=self.files,
        )


def set_up_sweep(
    game: Game,
    grid: Grid,
    *,
    games: int,
    canonical: bool = True,
    curve: bool = False,
    every: int | None = None,
    until_perfect: bool = False,
) -> SweepSetUp:
    """The runs of ``grid`` on ``game`` as ``qarena sweep`` and ``qarena.sweep`` set them up:
    every run checked, each policy file opponent read, and what the runs share checked against
    them; nothing is opened or trained."""
    settings = grid.settings(game)
    files = {name: opponent_file(game, name) for name in grid.opponents}
    fixed = Fixed(game.spec, canonical, curve, every, games, until_perfect)
    grid.check_fixed(fixed)
    return SweepSetUp(fixed, settings, files)


def run_plan(plan: Plan, on_run: Callable[[RunOutput], None] | None = None) -> bool:
    """Train the plan's runs, saving each as it finishes and the results table as they come
    in and at the end. Returns whether Ctrl-C stopped it (the finished runs are kept)."""
    folder, finished = plan.folder, plan.finished
    written = [0.0]

    def write_results() -> None:
        folder.write_results(ordered_rows(finished, plan.settings))
        written[0] = time.monotonic()

    def done(output: RunOutput) -> None:
        folder.save(output)
        finished[output.name] = output.row
        if on_run is not None:
            on_run(output)
        if time.monotonic() - written[0] >= RESULTS_EVERY_SECONDS:
            write_results()

    try:
        if plan.backend == "ray":
            run_ray(plan.tasks, plan.workers, plan.ray_address, done)
        else:
            run_local(plan.tasks, plan.workers, done)
    except KeyboardInterrupt:
        return True
    finally:
        write_results()
    return False
