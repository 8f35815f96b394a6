"""The app's ASGI middleware: the hosts it answers to, a body size limit, refusing other sites'
requests, and HEAD."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

import anyio
from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from qarena.i18n import _
from qarena.web.errors import error_page, is_api
from qarena.web.exceptions import BodyStalled, BodyTooLarge

#: The largest request body, in bytes.
MAX_BODY = 16 * 1024
#: Longest wait for the next part of a request body: a client that stops sending (a
#: Content-Length it never delivers) is answered 408 and let go, not held open for ever.
BODY_IDLE_SECONDS = 30.0


def _stalled() -> JSONResponse:
    return JSONResponse(
        {"detail": _("the request body stopped arriving; send it again")}, status_code=408
    )


def _too_big(limit: int) -> JSONResponse:
    """The answer to a body over ``limit`` bytes (built only when one is)."""
    return JSONResponse(
        {"detail": _("the request body is over {size} KB").format(size=limit // 1024)},
        status_code=413,
    )


class BodyLimit:
    """Refuse a request whose body is over ``limit`` bytes with 413: by its Content-Length, and
    by what actually arrives (a chunked or lying client).

    The paths in ``streamed`` (path: its own limit) are routes that read a large body as it
    arrives (an upload): theirs is not gathered here but passed on as it comes, counted, and
    the read that finds it over its limit (by Content-Length, before any of it) raises
    :class:`BodyTooLarge`, which the route answers in its own way."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int = MAX_BODY,
        streamed: Mapping[str, int] | None = None,
        idle_seconds: float = BODY_IDLE_SECONDS,
    ) -> None:
        self.app = app
        self.limit = limit
        self.streamed = dict(streamed or {})
        self.idle_seconds = idle_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.streamed.get(scope["path"], self.limit)
        declared = 0
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                if not value.isdigit():
                    bad = JSONResponse({"detail": _("bad Content-Length")}, 400)
                    await bad(scope, receive, send)
                    return
                declared = int(value)
                if declared > limit and scope["path"] not in self.streamed:
                    await _too_big(limit)(scope, receive, send)
                    return
        if scope["path"] in self.streamed:
            await self.app(scope, _counted(receive, declared, limit, self.idle_seconds), send)
            return
        body = b""
        more = True
        while more:
            try:
                with anyio.fail_after(self.idle_seconds):
                    message = await receive()
            except TimeoutError:
                await _stalled()(scope, receive, send)
                return
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > limit:
                await _too_big(limit)(scope, receive, send)
                return
        if not _whole_form(scope, body):
            await _broken_form(scope, receive, send)
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _whole_form(scope: Scope, body: bytes) -> bool:
    """Whether a multipart form's body ends as every one must, with its closing delimiter
    (RFC 2046): the form parser takes a body cut short for a form without fields, which
    then played a default game."""
    kind, _sep, rest = Headers(scope=scope).get("content-type", "").partition(";")
    if kind.strip().lower() != "multipart/form-data":
        return True
    boundary = ""
    for part in rest.split(";"):
        name, _eq, value = part.strip().partition("=")
        if name.strip().lower() == "boundary":
            boundary = value.strip().strip('"')
    if not boundary:
        return False
    return body.rstrip(b"\r\n").endswith(b"--" + boundary.encode("latin-1") + b"--")


async def _broken_form(scope: Scope, receive: Receive, send: Send) -> None:
    """A form that cannot be read: 400, in one line, as a page for a browser's page."""
    request = Request(scope)
    message = _("the request body could not be read as a form ({kind})").format(
        kind="multipart/form-data"
    )
    browser = not is_api(request) and "text/html" in request.headers.get("accept", "")
    answer = (
        error_page(request, 400, message)
        if browser
        else JSONResponse({"detail": message}, status_code=400)
    )
    await answer(scope, receive, send)


def _counted(receive: Receive, declared: int, limit: int, idle_seconds: float) -> Receive:
    """``receive`` for a streamed body: it raises BodyTooLarge once the body is known to be
    over ``limit`` bytes, by its Content-Length (``declared``) or by what has arrived, and
    BodyStalled when no part of it comes for ``idle_seconds``."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        if declared > limit:
            raise BodyTooLarge(_("the request body is over {size:,} bytes").format(size=limit))
        try:
            with anyio.fail_after(idle_seconds):
                message = await receive()
        except TimeoutError:
            raise BodyStalled(_("the request body stopped arriving; send it again")) from None
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(_("the request body is over {size:,} bytes").format(size=limit))
        return message

    return counted


#: Methods that change nothing, so any site may send them.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL; None when it has none (``null``, garbage)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def _own_origins(scope: Scope, headers: Headers) -> set[tuple[str, str, int] | None]:
    """The origin this request was sent to: its scheme and its Host header (else the socket).
    Behind a reverse proxy that rewrites Host, also the one X-Forwarded-Host names: a browser
    cannot add that header to another site's request without a CORS preflight, which this app
    never grants, so trusting it lets no other site in."""
    scheme = scope.get("scheme", "http")
    host = headers.get("host")
    if not host:
        server = scope.get("server")
        if server:
            host = f"[{server[0]}]:{server[1]}" if ":" in server[0] else f"{server[0]}:{server[1]}"
    origins = {_origin(f"{scheme}://{host}")} if host else set()
    forwarded = headers.get("x-forwarded-host", "").split(",")[0].strip()
    if forwarded:
        proto = headers.get("x-forwarded-proto", "").split(",")[0].strip() or scheme
        origins.add(_origin(f"{proto}://{forwarded}"))
    origins.discard(None)
    return origins


def cross_site(scope: Scope) -> bool:
    """Whether a request comes from another site, by what the browser says: Sec-Fetch-Site,
    then Origin, else Referer. A request with neither Origin nor Referer (curl, scripts, the
    API's clients) is not a browser's cross-site request and passes."""
    headers = Headers(scope=scope)
    if headers.get("sec-fetch-site", "").strip().lower() == "cross-site":
        return True
    claimed = headers.get("origin")
    if claimed is None:
        claimed = headers.get("referer")
        if claimed is None:
            return False
    # An opaque origin ("null": a sandboxed frame, a data: page) is never this site.
    theirs = _origin(claimed.strip())
    return theirs is None or theirs not in _own_origins(scope, headers)


def _refusal(scope: Scope) -> Response:
    request = Request(scope)
    message = _(
        "This request came from another site, so it was refused: only this site's own "
        "pages may change things here"
    )
    if is_api(request):
        return JSONResponse({"detail": message}, status_code=403)
    return error_page(request, 403, message)


class SameOrigin:
    """Refuse state-changing requests (POST, PUT, PATCH, DELETE) that another site's page sent,
    with 403: a form or script elsewhere must not start training, play or delete here in the
    name of whoever has this site open (cross-site request forgery)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS and cross_site(scope):
            await _refusal(scope)(scope, receive, send)
            return
        await self.app(scope, receive, send)


#: Names that are this machine wherever the server runs; any IP address is allowed too.
LOCAL_NAMES = ("localhost",)


def host_name(host: str) -> str | None:
    """The name or address of a Host header, lowercased, without its port or brackets; None
    when it is not a host at all."""
    parts = _origin(f"http://{host.strip()}")
    return parts[1] if parts is not None else None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class AllowedHosts:
    """Answer only requests whose Host header names this server: an IP address, ``localhost``,
    or a name in ``names`` (``qarena serve --host NAME`` and ``--allow-host NAME``).

    DNS rebinding: another site's page can make its own name resolve to 127.0.0.1 and then
    call this server as that site, with its own name in Host — same-origin to the browser, so
    the same-site check passes. An address in Host is never such a name, so addresses pass;
    ``*`` in ``names`` turns the check off (behind a proxy that checks hosts itself)."""

    def __init__(self, app: ASGIApp, names: Iterable[str] = ()) -> None:
        self.app = app
        self.names = {n.strip().lower().strip("[]") for n in (*LOCAL_NAMES, *names)}

    def allows(self, host: str | None) -> bool:
        if "*" in self.names:
            return True
        if not host:
            return False
        name = host_name(host)
        if name is None:
            return False
        return _is_address(name) or name in self.names or name.endswith(".localhost")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.allows(Headers(scope=scope).get("host")):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        message = _(
            "This server does not answer to the host {host!r}: open it by its address, such as "
            "127.0.0.1, or as localhost, or start it with --allow-host NAME"
        ).format(host=Headers(scope=scope).get("host", "")[:100])
        answer = (
            JSONResponse({"detail": message}, status_code=400)
            if is_api(request)
            else error_page(request, 400, message)
        )
        await answer(scope, receive, send)


class HeadAsGet:
    """Answer HEAD wherever GET is answered: run the request as GET and send its status and
    headers without the body. (FastAPI routes answer only the methods they name.)"""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        ended = anyio.Event()

        async def send_head(message: Message) -> None:
            if message["type"] == "http.response.start":
                await send(message)
            elif message["type"] == "http.response.body" and not ended.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                ended.set()

        async with anyio.create_task_group() as tg:

            async def run() -> None:
                await self.app({**scope, "method": "GET"}, receive, send_head)
                tg.cancel_scope.cancel()

            tg.start_soon(run)
            await ended.wait()
            # The head is sent: a streamed body (server-sent events) need not go on.
            tg.cancel_scope.cancel()
