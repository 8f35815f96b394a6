"""One place that decides how kernels are compiled."""

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def njit(fn: F) -> F:
    """Compile ``fn`` in nopython mode, cached on disk so later runs start at once."""
    return cast(F, numba.njit(cache=True, nogil=True)(fn))
