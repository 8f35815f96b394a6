"""Work on threads that Ctrl-C can stop: compiled loops release the GIL and poll a flag, so the
waiting thread wakes often enough to take the interrupt and raise the flag for them.

The same wait honours the caller's :func:`limit`: a stop flag (a web run stopped, a client gone)
or a deadline (a move's time limit), set around any work with ``with limit(...)``. A search deep
inside that work then stops within a fraction of a second and :class:`Stopped` is raised, with
nothing stored that was not proved. The limit lives in a context variable, so it follows the
request or run that set it and no other.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from qarena.errors import QarenaError
from qarena.i18n import _


class Stopped(QarenaError):
    """Work given up because its caller's :func:`limit` was reached: ``why`` is "stopped" (its
    stop flag) or "time" (its deadline)."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


@dataclass(frozen=True)
class Limit:
    """When work done for one caller must end: ``should_stop`` returns True, or the monotonic
    clock passes ``deadline``; ``outer`` is the limit it was set inside, which holds too."""

    should_stop: Callable[[], bool] | None = None
    deadline: float | None = None
    outer: Limit | None = None

    def reached(self) -> str | None:
        """ "stopped", "time", or None while the work may go on."""
        if self.should_stop is not None and self.should_stop():
            return "stopped"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "time"
        return None if self.outer is None else self.outer.reached()


_LIMIT: contextvars.ContextVar[Limit | None] = contextvars.ContextVar("qarena_limit", default=None)


@contextlib.contextmanager
def limit(
    should_stop: Callable[[], bool] | None = None, seconds: float | None = None
) -> Iterator[Limit]:
    """Within the block, searches (and any work that calls :func:`check`) end with
    :class:`Stopped` once ``should_stop()`` is true or ``seconds`` have passed. Nested limits
    all hold."""
    deadline = None if seconds is None else time.monotonic() + seconds
    current = Limit(should_stop, deadline, _LIMIT.get())
    token = _LIMIT.set(current)
    try:
        yield current
    finally:
        _LIMIT.reset(token)


def limit_reached() -> str | None:
    """Why the caller's limit is reached ("stopped" or "time"), or None (also when none is set)."""
    current = _LIMIT.get()
    return None if current is None else current.reached()


def _stopped(why: str) -> Stopped:
    if why == "time":
        return Stopped(_("the search took longer than its time limit and was stopped"), why)
    return Stopped(_("the work was stopped before it finished"), why)


def check() -> None:
    """Raise :class:`Stopped` when the caller's limit is reached."""
    why = limit_reached()
    if why is not None:
        raise _stopped(why)


def run_threads(
    work: Sequence[Callable[[], None]],
    stop: Callable[[], None],
    *,
    every: float = 0.2,
    between: Callable[[], bool] | None = None,
    limited: bool = True,
) -> None:
    """Run each callable on a thread of its own and wait for them all, waking every ``every``
    seconds (so that Ctrl-C reaches this thread) to call ``between``, which may end the wait
    by returning True. However the wait ends (all done, an error, Ctrl-C, ``between``, the
    caller's :func:`limit`), ``stop`` then asks the threads to finish and they are joined.

    With ``limited`` (the default) the caller's :func:`limit` ends the wait too, and
    :class:`Stopped` is raised once the threads are joined; work with a stop of its own (a
    training run's chunks) passes False and stops through ``between``."""
    if limited:
        check()
    why: str | None = None
    threads = [threading.Thread(target=w, daemon=True) for w in work]
    try:
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=every)
            if between is not None and between():
                break
            if limited:
                why = limit_reached()
                if why is not None:
                    break
    finally:
        stop()
        for t in threads:
            if t.ident is not None:  # started
                t.join()
    if why is not None:
        raise _stopped(why)
