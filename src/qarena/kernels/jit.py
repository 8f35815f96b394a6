"""One place that decides how kernels are compiled."""

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def njit(fn: F) -> F:
    """Compile ``fn`` in nopython mode, cached on disk so later runs start at once."""
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


def njit_parallel(fn: F) -> F:
    """As :func:`njit`, with ``numba.prange`` loops spread over every core (a plain ``range``
    when compiling is off, with the same results)."""
    return cast(F, numba.njit(cache=True, nogil=True, parallel=True)(fn))


def njit_inline(fn: F) -> F:
    """As :func:`njit`, inlined where it is called: small rules called per move would
    otherwise copy the whole GameArrays tuple on every call."""
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(fn))
