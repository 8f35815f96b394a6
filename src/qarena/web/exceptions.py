"""The web app's errors, by what went wrong, and the HTTP status that answers each. A leaf
module: the store, the jobs and the pages import it; how errors are answered (pages or JSON)
is ``errors.py``."""

from __future__ import annotations

from qarena.errors import QarenaError
from qarena.match.session import Conflict

__all__ = ["BodyStalled", "BodyTooLarge", "Conflict", "Full", "NotFound", "status_of"]


class BodyStalled(QarenaError):
    """A request body that stopped arriving (408)."""


class NotFound(QarenaError):
    """No such game, policy or job."""


class Full(QarenaError):
    """The server is too busy for this now (the training line is full); try again later, in
    ``retry_after`` seconds when it is known (sent as Retry-After)."""

    retry_after: int | None = None


class BodyTooLarge(QarenaError):
    """A request body over its route's limit, found while the route reads it."""


def status_of(exc: QarenaError) -> int:
    """The HTTP status that answers a domain error; 422 for bad input."""
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Conflict):
        return 409
    if isinstance(exc, Full):
        return 503
    if isinstance(exc, BodyTooLarge):
        return 413
    if isinstance(exc, BodyStalled):
        return 408
    return 422
