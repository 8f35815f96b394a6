"""Where a sweep's runs are trained: in this process, in a pool of processes on this machine,
or on a Ray cluster. Every backend hands each finished run to ``on_done`` in this process,
which alone writes into the sweep's folder, so the folder never depends on a shared disk."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence

from qarena.errors import QarenaError
from qarena.experiments.sweep import RunOutput, Task, run_task

BACKENDS = ("local", "ray")

OnDone = Callable[[RunOutput], None]


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _quiet_worker() -> None:
    # Ctrl-C reaches the whole process group: the sweep's own process decides what stops
    # (it ends the pool), so a worker never dies half-way through handing back a run.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_local(tasks: Sequence[Task], workers: int, on_done: OnDone) -> None:
    """Train ``tasks`` on ``workers`` processes (one: in this process). Ctrl-C raises
    KeyboardInterrupt here after ending the workers; the runs handed over so far are kept."""
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            on_done(run_task(task))
        return
    # Fresh interpreters, not forks: numba's thread pools do not survive a fork.
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(min(workers, len(tasks)), initializer=_quiet_worker)
    try:
        for output in pool.imap_unordered(run_task, tasks, chunksize=1):
            on_done(output)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def run_ray(tasks: Sequence[Task], workers: int, address: str | None, on_done: OnDone) -> None:
    """Train ``tasks`` as Ray tasks of one CPU each: on the cluster at ``address``, or on a
    local Ray instance limited to ``workers`` CPUs. Every node needs qarena installed."""
    try:
        import ray
        from ray.exceptions import RayError, RayTaskError
    except ImportError:
        raise QarenaError(
            "--backend ray needs Ray; install it with: pip install 'qarena[ray]'"
        ) from None
    try:
        ray.init(
            address=address or None,
            num_cpus=None if address else workers,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    except (ConnectionError, RayError, ValueError, RuntimeError) as e:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise QarenaError(f"cannot start {where}: {str(e).splitlines()[0][:200]}") from None
    remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
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
