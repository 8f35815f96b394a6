"""The web app: play against an agent and watch one learn. ``create_app`` builds it.

JSON API under ``/api`` (documented at ``/docs``); HTML pages drawn with Jinja2 templates,
htmx for clicks, server-sent events for training progress.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from qarena import __version__
from qarena.i18n import DEFAULT, _, language
from qarena.match.spot import TRAIN_SECONDS
from qarena.web import errors
from qarena.web.jobs import MAX_QUEUED, MAX_RUNNING
from qarena.web.language import Language
from qarena.web.limits import MAX_COST, MAX_POSITIONS, Limits
from qarena.web.middleware import (
    BODY_IDLE_SECONDS,
    MAX_BODY,
    AllowedHosts,
    BodyLimit,
    HeadAsGet,
    SameOrigin,
)
from qarena.web.play import IDLE_SECONDS, MAX_GAMES
from qarena.web.routes import api, pages
from qarena.web.searches import MAX_WAITING, MOVE_SECONDS, SEARCH_SLOTS
from qarena.web.service import Web
from qarena.web.templating import HERE
from qarena.web.upload import ENVELOPE, MAX_UPLOAD, UPLOAD_PATH

log = logging.getLogger("qarena.web")

#: On shutdown, how long running training jobs get to stop and save what they learned.
SHUTDOWN_SECONDS = 30.0


#: Swagger UI and ReDoc, vendored (versions in static/vendor/VERSIONS.txt).
VENDOR = "/static/vendor"


def _docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) and ``/redoc`` from the app's own static files, not a CDN."""
    openapi = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi,
            title="qarena API",
            swagger_js_url=f"{VENDOR}/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url=f"{VENDOR}/swagger-ui/swagger-ui.css",
            swagger_favicon_url="/favicon.ico",
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi,
            title="qarena API",
            redoc_js_url=f"{VENDOR}/redoc/redoc.standalone.js",
            redoc_favicon_url="/favicon.ico",
            with_google_fonts=False,
        )


#: The OpenAPI document's texts for people: translated; everything else (paths, names,
#: schemas, enums) is what programs read, and stays as it is.
OPENAPI_TEXTS = ("summary", "description")


def openapi_texts(node: Any) -> Iterator[str]:
    """Every text for people in an OpenAPI document (for the catalog)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in OPENAPI_TEXTS and isinstance(value, str):
                yield value
            else:
                yield from openapi_texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from openapi_texts(value)


def _translated(node: Any) -> Any:
    """A copy of an OpenAPI document with its texts for people in the current language."""
    if isinstance(node, dict):
        return {
            k: _(v) if k in OPENAPI_TEXTS and isinstance(v, str) else _translated(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_translated(v) for v in node]
    return node


def _openapi_in_every_language(app: FastAPI) -> None:
    """``/openapi.json`` (and so /docs and /redoc) in the request's language, built once per
    language from FastAPI's own document."""
    english = app.openapi
    documents: dict[str, dict[str, Any]] = {}

    def openapi() -> dict[str, Any]:
        spoken = language()
        if spoken not in documents:
            documents[spoken] = english() if spoken == DEFAULT else _translated(english())
        return documents[spoken]

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(  # noqa: PLR0913 - the server's limits, by keyword
    data_dir: Path,
    *,
    max_games: int = MAX_GAMES,
    idle_seconds: float = IDLE_SECONDS,
    max_body: int = MAX_BODY,
    train_seconds: float = TRAIN_SECONDS,
    max_positions: int = MAX_POSITIONS,
    max_cost: int = MAX_COST,
    max_training: int = MAX_RUNNING,
    max_queued: int = MAX_QUEUED,
    shutdown_seconds: float = SHUTDOWN_SECONDS,
    max_upload: int = MAX_UPLOAD,
    allowed_hosts: Iterable[str] = (),
    body_idle_seconds: float = BODY_IDLE_SECONDS,
    move_seconds: float = MOVE_SECONDS,
    search_slots: int = SEARCH_SLOTS,
    max_waiting: int = MAX_WAITING,
) -> FastAPI:
    """The app, with its policy store under ``data_dir`` (made if missing, and tidied: see
    ``PolicyStore.tidy``; QarenaError when it cannot be written). ``max_cost`` is the budget of
    positions × moves a game may have here (see ``MAX_COST``); ``max_upload`` the largest
    policy file the Policies page takes, in bytes (every other request body is at most
    ``max_body``). Requests are answered when their Host header is an IP address, localhost,
    or one of ``allowed_hosts`` (``"*"``: any), so a page that rebinds its own name to this
    machine cannot reach the app (see ``AllowedHosts``). A request body that stops arriving for
    ``body_idle_seconds`` is answered 408. Perfect play searches at most ``move_seconds`` a
    request, on ``search_slots`` threads of its own, with at most ``max_waiting`` requests in
    line for them (see ``searches.py``)."""
    limits = Limits(
        max_games=max_games,
        idle_seconds=idle_seconds,
        train_seconds=train_seconds,
        max_positions=max_positions,
        max_cost=max_cost,
        max_training=max_training,
        max_queued=max_queued,
        max_upload=max_upload,
        move_seconds=move_seconds,
        search_slots=search_slots,
        max_waiting=max_waiting,
    )
    web = Web(Path(data_dir), limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        web.searches.open()  # served again after a stop (a test client's new session)
        try:
            yield
        finally:
            # SIGTERM or Ctrl-C: searches have stopped (they watch ``web.stopping``); stop the
            # training runs, which save what they learned.
            web.searches.close()
            left = await run_in_threadpool(web.jobs.shutdown, shutdown_seconds)
            if left:
                log.warning("%d training runs did not stop within %.0f s", left, shutdown_seconds)

    app = FastAPI(
        title="qarena",
        version=__version__,
        description="Play small combinatorial games against trained agents; train new ones.",
        lifespan=lifespan,
        # The docs pages are served below with their scripts from /static: they work offline.
        docs_url=None,
        redoc_url=None,
    )
    app.state.web = web
    # The one large body is an uploaded policy file, which its route reads as it arrives.
    app.add_middleware(
        BodyLimit,
        limit=max_body,
        streamed={UPLOAD_PATH: max_upload + ENVELOPE},
        idle_seconds=body_idle_seconds,
    )
    app.add_middleware(SameOrigin)
    app.add_middleware(HeadAsGet)
    app.add_middleware(AllowedHosts, names=tuple(allowed_hosts))
    # Outermost: every answer, the other middleware's refusals too, in the request's language.
    app.add_middleware(Language)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    errors.install(app)
    _docs(app)
    _openapi_in_every_language(app)
    app.include_router(api.router)
    app.include_router(pages.router)
    return app
