"""Pools of fresh worker processes (spawned, not forked: numba's and PyTorch's thread pools do
not survive a fork), for a sweep's runs and for a learner's games of self-play: Ctrl-C is left
to the process that owns the pool, and the workers never run the user's script again. And Ray,
joined or started, for the same work on a cluster (:func:`start_ray`)."""

from __future__ import annotations

import multiprocessing
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool
from typing import Any


def quiet_worker() -> None:
    """A worker's start: Ctrl-C reaches the whole process group, and the pool's owner decides
    what stops (it ends the pool), so a worker never dies half-way through handing back."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def main_not_rerun() -> Iterator[None]:
    """While the pool starts, its spawned workers do not re-run the user's script.

    A spawned worker runs the parent's ``__main__`` again (by its file, or by its module name
    under ``python -m``) unless the script guards with ``if __name__ == "__main__":``; a
    script calling ``qarena.sweep`` at its top level would start the sweep again in every
    worker, forever. The workers need nothing from it (a task is qarena's code and plain
    data), so they start as from a notebook, whose ``__main__`` has no file."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {
        k: main.__dict__[k] for k in ("__file__", "__spec__") if k in main.__dict__
    }
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


#: Seconds to wait for a Ray cluster's address to answer before ``ray.init`` is asked to join
#: it: Ray itself retries an address nobody listens at for minutes, logging all the while.
CONNECT_SECONDS = 5.0


def unreachable(address: str) -> str | None:
    """Why nothing answers at ``address`` (``host:port``, or ``ray://host:port``), in a few
    words; None when something does, or when it is not an address to try (``auto``: Ray
    finds the cluster itself)."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS):
            return None
    except OSError as e:
        return e.strerror or type(e).__name__


def start_ray(address: str | None, workers: int, flag: str) -> Any:
    """Ray, joined to the cluster at ``address`` or started here with ``workers`` CPUs; one
    line saying how to install it, or why it did not start (``flag``: the option that asked
    for it, as the refusal names it)."""
    import logging

    from qarena.errors import QarenaError
    from qarena.i18n import _

    try:
        import ray
        from ray.exceptions import RayError
    except ImportError:
        raise QarenaError(
            _("{backend} needs Ray; install it with: pip install 'qarena[ray]'").format(
                backend=flag
            )
        ) from None
    problem = unreachable(address) if address else None
    if problem is not None:
        raise QarenaError(
            _(
                "cannot reach a Ray cluster at {address} ({problem}); expected the address "
                "of one running (ray start --head prints it)"
            ).format(address=address, problem=problem)
        )
    try:
        ray.init(
            address=address or None,
            num_cpus=None if address else workers,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    except (ConnectionError, RayError, ValueError, RuntimeError) as e:
        problem = str(e).splitlines()[0][:200]
        if address:
            text = _("cannot start the Ray cluster at {address}: {problem}")
        else:
            text = _("cannot start a local Ray instance: {problem}")
        raise QarenaError(text.format(address=address, problem=problem)) from None
    return ray


def spawn_pool(workers: int, initializer: Callable[[], None] = quiet_worker) -> Pool:
    """A pool of ``workers`` fresh processes, each started by ``initializer``."""
    context = multiprocessing.get_context("spawn")
    with main_not_rerun():
        return context.Pool(workers, initializer=initializer)


__all__ = [
    "CONNECT_SECONDS",
    "main_not_rerun",
    "quiet_worker",
    "spawn_pool",
    "start_ray",
    "unreachable",
]
