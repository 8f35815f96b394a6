"""Work on threads that Ctrl-C can stop: compiled loops release the GIL and poll a flag, so the
waiting thread wakes often enough to take the interrupt and raise the flag for them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence


def run_threads(
    work: Sequence[Callable[[], None]],
    stop: Callable[[], None],
    *,
    every: float = 0.2,
    between: Callable[[], bool] | None = None,
) -> None:
    """Run each callable on a thread of its own and wait for them all, waking every ``every``
    seconds (so that Ctrl-C reaches this thread) to call ``between``, which may end the wait
    by returning True. However the wait ends (all done, an error, Ctrl-C, ``between``),
    ``stop`` then asks the threads to finish and they are joined."""
    threads = [threading.Thread(target=w, daemon=True) for w in work]
    try:
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=every)
            if between is not None and between():
                break
    finally:
        stop()
        for t in threads:
            if t.ident is not None:  # started
                t.join()
