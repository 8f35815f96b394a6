"""What the page routes share: whether a request came from htmx, the check of who starts, the
redirect to a game's page, and Retry-After on a busy answer."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from qarena.errors import QarenaError
from qarena.i18n import _
from qarena.web.exceptions import Full
from qarena.web.play import Session


def htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def check_first(first: str) -> None:
    if first not in ("human", "ai"):
        raise QarenaError(_("who starts is 'human' or 'ai', not {first!r}").format(first=first))


def to_game(session: Session) -> RedirectResponse:
    return RedirectResponse(f"/games/{session.id}", status_code=303)


def retry(response: Response, e: QarenaError | None) -> Response:
    """The response, with Retry-After when it says the server is busy for a while."""
    if isinstance(e, Full) and e.retry_after is not None:
        response.headers["Retry-After"] = str(e.retry_after)
    return response
