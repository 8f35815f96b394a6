"""The language of each request: the one the person chose with the switcher in every page's
header (a cookie), else the best one their browser asks for (``Accept-Language``), else
English. Pages, htmx panels, server-sent events and the API's error texts follow it; data
(JSON keys, enumerations, moves and positions, specs) never changes."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from qarena.errors import QarenaError
from qarena.i18n import DEFAULT, best_match, check_language, speaking

#: The cookie holding the language chosen with the switcher: it wins over Accept-Language.
COOKIE = "qarena_lang"
#: How long the choice is kept: a year.
COOKIE_SECONDS = 365 * 24 * 3600


def chosen(code: str | None) -> str | None:
    """The language a cookie names, if qarena speaks it (None for anything else)."""
    if not code or len(code) > 16:
        return None
    try:
        return check_language(code)
    except QarenaError:
        return None


def request_language(scope: Scope) -> str:
    """The language to answer this request in: the cookie's, else Accept-Language's."""
    if scope.get("type") not in ("http", "websocket"):
        return DEFAULT
    connection = HTTPConnection(scope)
    try:
        cookie = connection.cookies.get(COOKIE)
    except Exception:  # a malformed Cookie header is no reason to fail the request
        cookie = None
    return chosen(cookie) or best_match(Headers(scope=scope).get("accept-language"))


class Language:
    """Runs every request in its language (see :func:`request_language`). Outermost, so the
    other middleware's refusals (too large, another site's request) speak it too. The
    language is a context variable: it reaches the worker threads of sync routes, streamed
    responses and template rendering."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and not scope["path"].startswith("/static/"):
            send = _varied(send)
        with speaking(request_language(scope)):
            await self.app(scope, receive, send)


def _varied(send: Send) -> Send:
    """``send`` that tells caches the answer depends on the language asked for."""

    async def varied(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers.add_vary_header("Accept-Language")
            headers.add_vary_header("Cookie")
        await send(message)

    return varied


def local_path(target: str | None) -> str:
    """``target`` if it is a path on this site ("/train?x=1"), else "/": the switcher's
    ``next`` must never send the browser to another site ("//evil.example", "/\\evil.example",
    "https://evil.example", or one hidden behind a tab or a newline, which browsers drop)."""
    if not target or len(target) > 2000 or not target.startswith("/"):
        return "/"
    if target.startswith("//") or "\\" in target:
        return "/"
    if any(ord(c) <= 0x20 or ord(c) == 0x7F for c in target):
        return "/"
    try:
        parts = urlsplit(target)
    except ValueError:
        return "/"
    if parts.scheme or parts.netloc:
        return "/"
    return target


def current_path(connection: HTTPConnection) -> str:
    """Where the language switcher comes back to: this page, when it can be fetched again
    (a GET); after a form's POST, the page the form was on (its Referer, taken as a path on
    this site), else the start page."""
    if connection.scope.get("method", "GET") in ("GET", "HEAD"):
        query = connection.url.query
        return local_path(connection.url.path + (f"?{query}" if query else ""))
    referer = connection.headers.get("referer", "")
    try:
        parts = urlsplit(referer)
    except ValueError:
        return "/"
    if not parts.path:
        return "/"
    return local_path(parts.path + (f"?{parts.query}" if parts.query else ""))


__all__ = [
    "COOKIE",
    "COOKIE_SECONDS",
    "Language",
    "chosen",
    "current_path",
    "local_path",
    "request_language",
]
