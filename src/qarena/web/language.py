"""The language of each request: the one a link names (``?lang=de``, kept as the switcher
keeps it), else the one the person chose with the switcher in every page's header (a cookie),
else the best one their browser asks for (``Accept-Language``), else English. Pages, htmx
panels, server-sent events and the API's error texts follow it; data (JSON keys, enumerations,
moves and positions, specs) never changes."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from qarena.errors import QarenaError
from qarena.i18n import DEFAULT, best_match, check_language, speaking

#: The cookie holding the language chosen with the switcher: it wins over Accept-Language.
COOKIE = "qarena_lang"
#: How long the choice is kept: a year.
COOKIE_SECONDS = 365 * 24 * 3600
#: The query parameter that chooses the language of a shared link (``/compare?lang=de``).
QUERY = "lang"


def chosen(code: str | None) -> str | None:
    """The language a cookie names, if qarena speaks it (None for anything else)."""
    if not code or len(code) > 16:
        return None
    try:
        return check_language(code)
    except QarenaError:
        return None


def keep(response: Response, code: str, secure: bool) -> None:
    """Keep ``code`` as the language chosen, in the cookie the switcher and ``?lang=`` set (a
    year; it wins over the browser's Accept-Language)."""
    response.set_cookie(
        COOKIE, code, max_age=COOKIE_SECONDS, path="/", httponly=True, samesite="lax",
        secure=secure,
    )  # fmt: skip


def query_language(scope: Scope) -> str | None:
    """The language the request's ``lang`` parameter names, if qarena speaks it (None when
    there is none, or for anything else: the request is answered as without it)."""
    raw: bytes = scope.get("query_string", b"")
    if QUERY.encode() not in raw:
        return None
    for key, value in parse_qsl(raw.decode("latin-1"), keep_blank_values=True):
        if key == QUERY:
            return chosen(value)
    return None


def request_language(scope: Scope) -> str:
    """The language to answer this request in: the ``lang`` parameter's, else the cookie's,
    else Accept-Language's."""
    if scope.get("type") not in ("http", "websocket"):
        return DEFAULT
    if (asked := query_language(scope)) is not None:
        return asked
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
    responses and template rendering. A page asked for with ``?lang=`` keeps that language
    for the pages after it, as the switcher does (the cookie)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and not scope["path"].startswith("/static/"):
            send = _varied(send, query_language(scope), scope.get("scheme") == "https")
        with speaking(request_language(scope)):
            await self.app(scope, receive, send)


def _varied(send: Send, asked: str | None, secure: bool) -> Send:
    """``send`` that tells caches the answer depends on the language asked for, and keeps the
    language ``asked`` by the query (None: none) in the cookie."""
    cookie = []
    if asked is not None:
        kept = Response()
        keep(kept, asked, secure)
        cookie = [value for name, value in kept.raw_headers if name == b"set-cookie"]

    async def varied(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers.add_vary_header("Accept-Language")
            headers.add_vary_header("Cookie")
            for value in cookie:
                headers.append("set-cookie", value.decode("latin-1"))
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
    this site), else the start page. Without its ``lang`` parameter, which would undo the
    language chosen."""
    if connection.scope.get("method", "GET") in ("GET", "HEAD"):
        return local_path(_without_lang(connection.url.path, connection.url.query))
    referer = connection.headers.get("referer", "")
    try:
        parts = urlsplit(referer)
    except ValueError:
        return "/"
    if not parts.path:
        return "/"
    return local_path(_without_lang(parts.path, parts.query))


def _without_lang(path: str, query: str) -> str:
    """``path`` with ``query``, less its ``lang`` parameters."""
    if QUERY in query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, v) for k, v in pairs if k != QUERY])
    return path + (f"?{query}" if query else "")


__all__ = [
    "COOKIE",
    "COOKIE_SECONDS",
    "QUERY",
    "Language",
    "chosen",
    "current_path",
    "keep",
    "local_path",
    "query_language",
    "request_language",
]
