"""How the web app's errors are answered: a page for a person's browser, a ``{"detail": str}``
body for everyone else. The errors themselves are in ``exceptions.py``, a leaf module any part
of the app imports without importing the pages."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match

from qarena.errors import QarenaError
from qarena.games.words import sentence
from qarena.i18n import _, gettext_noop, number, speaking
from qarena.web.exceptions import Full, status_of
from qarena.web.language import request_language
from qarena.web.templating import page

__all__ = [
    "PageRoute",
    "error_page",
    "install",
    "is_api",
    "validation_text",
]

log = logging.getLogger("qarena.web")


class PageRoute(APIRoute):
    """A route whose errors are pages (its own, never the browser's Accept header, decides)."""


def is_api(request: Request) -> bool:
    return request.url.path == "/api" or request.url.path.startswith("/api/")


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    return page(request, "error.html", {"message": sentence(message)}, status)


def _answer(request: Request, status: int, message: str, html: bool) -> Response:
    if html:
        return error_page(request, status, message)
    return JSONResponse({"detail": message}, status_code=status)


#: Pydantic's commonest refusals in the reader's language, by its error type (its own words
#: are English): the limit a number or a text broke is given as ``{limit}``.
_REFUSALS = {
    "missing": gettext_noop("required"),
    "extra_forbidden": gettext_noop("not a setting here"),
    "int_parsing": gettext_noop("expected a whole number"),
    "int_type": gettext_noop("expected a whole number"),
    "int_from_float": gettext_noop("expected a whole number"),
    "float_parsing": gettext_noop("expected a number"),
    "float_type": gettext_noop("expected a number"),
    "finite_number": gettext_noop("expected a finite number"),
    "bool_parsing": gettext_noop("expected true or false"),
    "bool_type": gettext_noop("expected true or false"),
    "string_type": gettext_noop("expected text"),
    "greater_than_equal": gettext_noop("must be at least {limit}"),
    "greater_than": gettext_noop("must be more than {limit}"),
    "less_than_equal": gettext_noop("must be at most {limit}"),
    "less_than": gettext_noop("must be less than {limit}"),
    "string_too_long": gettext_noop("too long: at most {limit} characters"),
    "string_too_short": gettext_noop("too short: at least {limit} characters"),
    "too_long": gettext_noop("too many: at most {limit}"),
    "too_short": gettext_noop("too few: at least {limit}"),
    "literal_error": gettext_noop("expected {limit}"),
    "json_invalid": gettext_noop("not valid JSON"),
    "model_attributes_type": gettext_noop("expected an object of settings"),
    "dict_type": gettext_noop("expected an object of settings"),
    "list_type": gettext_noop("expected a list"),
}
_LIMITS = ("ge", "gt", "le", "lt", "max_length", "min_length", "expected")


def _refusal(error: dict[str, object]) -> str:
    """One pydantic error in words: ours where we have them, else pydantic's own."""
    known = _REFUSALS.get(str(error.get("type", "")))
    if known is None:
        return str(error.get("msg", _("invalid")))
    ctx = error.get("ctx")
    limit = next((ctx[k] for k in _LIMITS if isinstance(ctx, dict) and k in ctx), None)
    if "{limit}" in known and limit is None:
        return str(error.get("msg", _("invalid")))
    return _(known).format(limit=number(limit) if isinstance(limit, int | float) else limit)


def validation_text(exc: RequestValidationError | ValidationError) -> str:
    """The refusal in a line: where, and what, in the reader's language."""
    parts = []
    for e in exc.errors():
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        what = _refusal(dict(e))
        parts.append(f"{where}: {what}" if where else what)
    return "; ".join(parts) or _("invalid request")


async def _domain_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, QarenaError)
    page_route = isinstance(request.scope.get("route"), PageRoute)
    response = _answer(request, status_of(exc), str(exc), page_route)
    if isinstance(exc, Full) and exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def _invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return JSONResponse({"detail": validation_text(exc)}, status_code=422)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Unknown URLs and methods: the site's page for a browser, JSON for the API."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        message = _("there is nothing at {path}").format(path=request.url.path)
    elif exc.status_code == 405:
        message = _("{method} is not allowed at {path}").format(
            method=request.method, path=request.url.path
        )
    elif exc.status_code == 400:  # FastAPI could not decode the body (not UTF-8, say)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind in ("multipart/form-data", "application/x-www-form-urlencoded"):
            message = _("the request body could not be read as a form ({kind})").format(kind=kind)
        else:
            message = _("the request body could not be read as JSON")
    else:
        message = str(exc.detail)
    browser = not is_api(request) and "text/html" in request.headers.get("accept", "")
    response = _answer(request, exc.status_code, message, browser)
    response.headers.update(exc.headers or {})
    if exc.status_code == 405:
        response.headers["Allow"] = ", ".join(_allowed(request))
    return response


def _allowed(request: Request) -> list[str]:
    """Every method some route answers at the request's path (HEAD wherever GET is): the
    router names only the first route that matches the path, which left DELETE out."""
    routes: list[BaseRoute] = list(request.app.routes)
    allowed = [
        method
        for method in _METHODS
        if any(r.matches({**request.scope, "method": method})[0] == Match.FULL for r in routes)
    ]
    if "GET" in allowed:
        allowed.append("HEAD")
    return sorted(allowed)


#: Methods a route may answer (HEAD is answered wherever GET is).
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    # Answered outside the language middleware (the error has left it): its language again.
    with speaking(request_language(request.scope)):
        detail = _("internal error; see the server log")
    return JSONResponse({"detail": detail}, status_code=500)


def install(app: FastAPI) -> None:
    """Answer every error the app's way."""
    app.add_exception_handler(QarenaError, _domain_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
