"""The web app: play against an agent and watch one learn. ``create_app`` builds it.

JSON API under ``/api`` (documented at ``/docs``); HTML pages drawn with Jinja2 templates,
htmx for clicks, server-sent events for training progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import anyio
from fastapi import FastAPI, Form, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException

from qarena import __version__
from qarena.errors import QarenaError
from qarena.games import Game, HeapGame, Position, Subtraction, TicTacToe, parse_spec, value_name
from qarena.games.words import rules, sentence
from qarena.learn.learners import LEARNERS, learner_class
from qarena.solve import solve
from qarena.web.jobs import MAX_QUEUED, MAX_RUNNING, Job, Jobs
from qarena.web.play import (
    IDLE_SECONDS,
    MAX_GAMES,
    Agent,
    Conflict,
    Full,
    Games,
    NotFound,
    Session,
)
from qarena.web.store import PolicyRow, PolicyStore
from qarena.web.svg import curve_svg, position_svg

log = logging.getLogger("qarena.web")

HERE = Path(__file__).parent
#: Training on the spot stops after this long, perfect or not: the person is waiting.
TRAIN_SECONDS = 10.0
#: Largest game (encoded positions) the web app plays or trains.
MAX_POSITIONS = 1_000_000
#: Largest game the web app builds tables for, as positions × moves: the size of a Q table,
#: which sets both memory (about 60 bytes per pair over all of a learner's tables) and set-up
#: time (about 1 s per million pairs). Measured: nim:5,6,7,8,9 (1.06 M) takes 1.2 s and 60 MB;
#: tictactoe:3x4:3 (6.4 M) 3 s and 280 MB; nim:400,400 (129 M) 59 s and 7.3 GB. Two million
#: keeps any one request to a couple of seconds and ~120 MB, and still covers every game people
#: play here: tictactoe:3x3 (177 k), nim:3,5,7 (2.9 k), subtraction (39), nim:2,6,7,8 (35 k),
#: nim:10,10,10,10 (586 k). Bigger games train on the command line, which has no such limit.
MAX_COST = 2_000_000
MAX_BODY = 16 * 1024
#: Loaded agents kept in memory.
AGENT_CACHE = 16
#: How long an API call that trains on the spot waits, beyond the training's own time limit,
#: for its turn to train; after that it answers 503 and the run goes on for the next call.
SPOT_WAIT = 60.0
#: On shutdown, how long running training jobs get to stop and save what they learned.
SHUTDOWN_SECONDS = 30.0
#: The longest one server-sent-events response lasts; the browser reconnects at once. Bounded
#: so that open progress pages never hold a server that is stopping.
STREAM_SECONDS = 30.0

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]
Scope = MutableMapping[str, Any]

_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: Seeds fit the kernels' 64-bit generator.
MAX_SEED = 2**63 - 1


# --- request and response bodies -----------------------------------------------------------


class NewGame(BaseModel):
    game: str | None = Field(
        default=None, max_length=200, description="Game spec", examples=["nim:3,5,7"]
    )
    first: Literal["human", "ai"] = "human"
    policy: str | None = Field(default=None, max_length=64, description="A policy id")
    seed: int | None = Field(
        default=None, ge=0, le=MAX_SEED, description="Seed for the AI's choice among ties"
    )


class MoveIn(BaseModel):
    move: str = Field(
        max_length=100,
        description="A move: 3:2 (nim: 2 from pile 3), 2 (subtraction), b2 (tic-tac-toe)",
        examples=["1:1"],
    )


class TrainIn(BaseModel):
    game: str = Field(max_length=200, description="Game spec", examples=["nim:2,3"])
    learner: str = Field(default="q", max_length=32, description="q, afterstate or matchbox")
    episodes: int | None = Field(default=None, ge=1, examples=[2000])
    alpha: float | None = Field(default=None, allow_inf_nan=False)
    gamma: float | None = Field(default=None, allow_inf_nan=False)
    epsilon: float | None = Field(default=None, allow_inf_nan=False)
    epsilon_end: float | None = Field(default=None, allow_inf_nan=False)
    schedule: str | None = Field(default=None, max_length=32)
    opponent: str = Field(default="self", max_length=32, description="self, random or perfect")
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)


class Detail(BaseModel):
    """Every error's body."""

    detail: str = Field(description="What went wrong, in one sentence")


class GameOut(BaseModel):
    id: str
    game: str
    policy: str
    first: Literal["human", "ai"]
    position: str
    to_move: Literal["human", "ai"] | None
    legal_moves: list[str]
    q: dict[str, float] = Field(description="The AI's value of each legal move")
    history: list[str]
    ai_move: str | None
    result: Literal["human", "ai", "draw"] | None


class JobOut(BaseModel):
    job: str
    game: str
    learner: str
    opponent: str
    state: Literal["queued", "running", "done", "failed"]
    episodes: int
    total: int
    fraction: float
    optimality: float | None
    points: int
    policy: str | None
    error: str | None
    spot: bool
    first: Literal["human", "ai"]
    stopped: bool
    queue_position: int | None = Field(description="While queued: 1 for the next run to start")
    waiting: str | None = Field(description="While queued, e.g. '2nd in line'")


class JobStarted(JobOut):
    events: str = Field(description="Where to follow the run as server-sent events")


class PolicyOut(BaseModel):
    id: str
    game: str
    learner: str
    episodes: int
    optimality: float
    created: str
    download: str


_WHY = {
    400: "The request body cannot be read",
    403: "Refused: the request came from another site",
    404: "Not found",
    409: "Does not fit the game's state",
    413: "The request body is too big",
    422: "Invalid input",
    503: "Busy: try again later",
}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The documented error answers of a route: each a ``{"detail": str}`` body."""
    return {code: {"model": Detail, "description": _WHY[code]} for code in codes}


def _links(status: int, **targets: tuple[str, str]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI links from a route's answer: ``operation=(parameter, field)`` says that the
    answer's ``field`` is the ``parameter`` of that operation (for clients, and for the fuzzer's
    runs that chain calls)."""
    return {
        status: {
            "links": {
                operation: {
                    "operationId": operation,
                    "parameters": {parameter: f"$response.body#/{field}"},
                }
                for operation, (parameter, field) in targets.items()
            }
        }
    }


#: One server-sent event of a training run: ``data`` is JSON (a job snapshot) for ``progress``,
#: ``done`` and ``failed``, one line of SVG for ``curve``.
_SSE_EVENT = {
    "type": "object",
    "properties": {
        "event": {"type": "string", "enum": ["progress", "curve", "done", "failed"]},
        "data": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
    },
    "required": ["event", "data"],
}

_GAME_LINKS = {
    "get_game": ("game_id", "id"),
    "play_move": ("game_id", "id"),
    "undo_move": ("game_id", "id"),
    "get_policy": ("policy_id", "policy"),
    "download_policy": ("policy_id", "policy"),
}
_JOB_LINKS = {
    "get_training": ("job_id", "job"),
    "stop_training": ("job_id", "job"),
    "training_events": ("job_id", "job"),
}


# --- middleware ----------------------------------------------------------------------------


class BodyLimit:
    """Refuse a request whose body is over ``limit`` bytes with 413: by its Content-Length, and
    by what actually arrives (a chunked or lying client)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(
        self,
        scope: Scope,
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = JSONResponse(
            {"detail": f"the request body is over {self.limit // 1024} KB"}, status_code=413
        )
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                if not value.isdigit():
                    await JSONResponse({"detail": "bad Content-Length"}, 400)(scope, receive, send)
                    return
                if int(value) > self.limit:
                    await too_big(scope, receive, send)
                    return
        body = b""
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await too_big(scope, receive, send)
                return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


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


class SameOrigin:
    """Refuse state-changing requests (POST, PUT, PATCH, DELETE) that another site's page sent,
    with 403: a form or script elsewhere must not start training, play or delete here in the
    name of whoever has this site open (cross-site request forgery)."""

    def __init__(self, app: ASGIApp, refuse: Callable[[Scope], Response]) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(
        self,
        scope: Scope,
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS and cross_site(scope):
            await self.refuse(scope)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class HeadAsGet:
    """Answer HEAD wherever GET is answered: run the request as GET and send its status and
    headers without the body. (FastAPI routes answer only the methods they name.)"""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(
        self,
        scope: Scope,
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        ended = anyio.Event()

        async def send_head(message: Any) -> None:
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


# --- the app -------------------------------------------------------------------------------


class Web:
    """The app's state: stores, games, jobs, loaded agents, and the settings."""

    def __init__(
        self,
        data_dir: Path,
        *,
        max_games: int,
        idle_seconds: float,
        train_seconds: float,
        max_positions: int,
        max_cost: int,
        max_training: int,
        max_queued: int,
    ) -> None:
        self.max_positions = max_positions
        self.max_cost = max_cost
        self.store = PolicyStore(data_dir)
        tidied = self.store.tidy(self.fits)
        (log.warning if tidied else log.info)(
            "policy store %s: removed %d temp files of dead writers, indexed %d policy files "
            "without a row, removed %d invalid ones, left %d too big to load, dropped %d rows "
            "without a file",
            data_dir, tidied.temps, tidied.indexed, tidied.removed, tidied.skipped,
            tidied.dropped,
        )  # fmt: skip
        self.games = Games(max_games, idle_seconds)
        self.jobs = Jobs(self.store, max_training, max_queued)
        self.train_seconds = train_seconds
        self._agents: OrderedDict[str, Agent] = OrderedDict()
        self._lock = threading.Lock()
        self._spot_lock = threading.Lock()
        #: Whether the server is stopping: set when serving under ``qarena serve``.
        self.stopping: Callable[[], bool] = lambda: False

    def too_big(self, game: Game) -> str | None:
        """Why the web app will not build tables for ``game`` (None if it will). Cheap: it
        reads the game's sizes and builds nothing."""
        positions, moves = game.num_positions, game.num_moves
        cost = positions * moves
        if positions > self.max_positions:
            size = f"{positions:,} positions, over its limit of {self.max_positions:,}"
        elif cost > self.max_cost:
            size = (
                f"{positions:,} positions × {moves:,} moves = {cost:,}, "
                f"over its budget of {self.max_cost:,}"
            )
        else:
            return None
        return (
            f"{game.spec} is too big for the web app ({size}), so train it on the command "
            f"line: qarena train {game.spec} --out policy.npz"
        )

    def fits(self, spec: str) -> bool:
        return self.too_big(parse_spec(spec)) is None

    def game(self, spec: str) -> Game:
        """The game a spec names, if it is within the budget: checked before any table is built
        or any training starts."""
        if not spec.isascii():
            # Python reads digits of any script as numbers; specs are typed in ASCII.
            raise QarenaError(
                f"{spec!r} is not a game spec: write it in ASCII letters and digits, e.g. nim:3,5,7"
            )
        game = parse_spec(spec)
        why = self.too_big(game)
        if why is not None:
            raise QarenaError(why)
        return game

    def policy(self, policy_id: str) -> PolicyRow:
        try:
            return self.store.get(policy_id)
        except KeyError:
            raise NotFound(f"no policy {policy_id!r}") from None

    def agent(self, policy_id: str) -> Agent:
        with self._lock:
            agent = self._agents.get(policy_id)
            if agent is not None:
                self._agents.move_to_end(policy_id)
                return agent
        self.policy(policy_id)
        agent = Agent(self.store.load(policy_id), policy=policy_id)
        with self._lock:
            self._agents[policy_id] = agent
            while len(self._agents) > AGENT_CACHE:
                self._agents.popitem(last=False)
        return agent

    def forget(self, policy_id: str) -> None:
        with self._lock:
            self._agents.pop(policy_id, None)

    def agent_or_job(self, game: Game, first: str) -> Agent | Job:
        """The game's best stored agent; else the on-the-spot run training one, shared by
        everyone who asks meanwhile (started if there is none)."""
        row = None
        with self._spot_lock:
            # The run first, the store after: a run stores its policy before it is done, so
            # between the two looks a policy is never missed and never trained twice.
            job = self.jobs.spot_job(game)
            if job is None:
                row = self.store.best_for(game.spec)
                if row is None:
                    job = self.jobs.start(game, spot=True, first=first, seconds=self.train_seconds)
        if row is not None:
            return self.agent(row.id)
        assert job is not None
        return job

    def start_game(self, body: NewGame) -> Session | Job:
        """A new game, or the on-the-spot run to wait for before there can be one."""
        if body.policy is not None:
            game = None if body.game is None else self.game(body.game)
            agent = self.agent(body.policy)
            if game is not None and game.spec != agent.game.spec:
                raise QarenaError(f"policy {body.policy} plays {agent.game.spec}, not {body.game}")
        elif body.game is None:
            raise QarenaError("give a game spec, a policy id, or both")
        else:
            got = self.agent_or_job(self.game(body.game), body.first)
            if isinstance(got, Job):
                return got
            agent = got
        return self.games.new(agent, body.first, body.seed)

    def game_after(self, job: Job, body: NewGame) -> Session:
        """The game ``body`` asked for, once ``job`` (its on-the-spot run) has ended."""
        if job.state == "done" and job.policy is not None:
            return self.games.new(self.agent(job.policy), body.first, body.seed)
        if job.state in ("queued", "running"):
            raise Full(f"the agent for {job.game.spec} is still training; try again in a minute")
        raise QarenaError(job.error or "training failed")

    def session(self, game_id: str) -> Session:
        try:
            return self.games.get(game_id)
        except KeyError:
            raise NotFound(
                f"no game {game_id!r} (a game is forgotten after a while without a move)"
            ) from None

    def job(self, job_id: str) -> Job:
        try:
            return self.jobs.get(job_id)
        except KeyError:
            raise NotFound(f"no training job {job_id!r}") from None

    def start_training(self, body: TrainIn) -> Job:
        game = self.game(body.game)
        overrides = {
            k: v
            for k, v in body.model_dump().items()
            if k in ("alpha", "gamma", "epsilon", "epsilon_end", "schedule", "seed")
            and v is not None
        }
        config = learner_class(body.learner).default_config(**overrides)
        return self.jobs.start(game, body.learner, body.episodes, body.opponent, config)


async def _ended(job: Job, timeout: float) -> None:
    """Wait (without holding a thread) until the job has ended or ``timeout`` has passed."""
    deadline = time.monotonic() + timeout
    while job.state in ("queued", "running") and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


def _detail(exc: Exception) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)


def _validation_text(exc: RequestValidationError | ValidationError) -> str:
    parts = []
    for e in exc.errors():
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        parts.append(f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg")))
    return "; ".join(parts) or "invalid request"


def create_app(
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
) -> FastAPI:
    """The app, with its policy store under ``data_dir`` (made if missing, and tidied: see
    ``PolicyStore.tidy``; QarenaError when it cannot be written). ``max_cost`` is the budget of
    positions × moves a game may have here (see ``MAX_COST``)."""
    web = Web(
        Path(data_dir),
        max_games=max_games,
        idle_seconds=idle_seconds,
        train_seconds=train_seconds,
        max_positions=max_positions,
        max_cost=max_cost,
        max_training=max_training,
        max_queued=max_queued,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            # SIGTERM or Ctrl-C: stop the training runs, which save what they learned.
            left = await run_in_threadpool(web.jobs.shutdown, shutdown_seconds)
            if left:
                log.warning("%d training runs did not stop within %.0f s", left, shutdown_seconds)

    app = FastAPI(
        title="qarena",
        version=__version__,
        description="Play small combinatorial games against trained agents; train new ones.",
        lifespan=lifespan,
    )
    app.state.web = web
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["version"] = __version__

    def page(
        request: Request, name: str, context: dict[str, Any], status: int = 200
    ) -> HTMLResponse:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def error_page(request: Request, status: int, message: str) -> HTMLResponse:
        return page(request, "error.html", {"message": sentence(message)}, status)

    def wants_html(request: Request) -> bool:
        """A person's browser asking for a page (not the API, not a script)."""
        if request.url.path == "/api" or request.url.path.startswith("/api/"):
            return False
        return "text/html" in request.headers.get("accept", "")

    def refuse_cross_site(scope: Scope) -> Response:
        request = Request(scope)
        message = (
            "This request came from another site, so it was refused: only this site's own "
            "pages may change things here"
        )
        if request.url.path == "/api" or request.url.path.startswith("/api/"):
            return JSONResponse({"detail": message}, status_code=403)
        return error_page(request, 403, message)

    app.add_middleware(BodyLimit, limit=max_body)
    app.add_middleware(SameOrigin, refuse=refuse_cross_site)
    app.add_middleware(HeadAsGet)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    # --- errors ----------------------------------------------------------------------------

    def error_json(status: int) -> Callable[[Request, Exception], Awaitable[Response]]:
        async def handler(request: Request, exc: Exception) -> Response:
            return JSONResponse({"detail": _detail(exc)}, status_code=status)

        return handler

    app.add_exception_handler(NotFound, error_json(404))
    app.add_exception_handler(Conflict, error_json(409))
    app.add_exception_handler(Full, error_json(503))
    app.add_exception_handler(QarenaError, error_json(422))

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return JSONResponse({"detail": _validation_text(exc)}, status_code=422)

    async def http_error(request: Request, exc: Exception) -> Response:
        """Unknown URLs and methods: the site's page for a browser, JSON for the API."""
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 404:
            message = f"there is nothing at {request.url.path}"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed at {request.url.path}"
        elif exc.status_code == 400:  # FastAPI could not decode the body (not UTF-8, say)
            message = "the request body could not be read as JSON"
        else:
            message = str(exc.detail)
        if wants_html(request):
            response: Response = error_page(request, exc.status_code, message)
        else:
            response = JSONResponse({"detail": message}, status_code=exc.status_code)
        response.headers.update(exc.headers or {})
        return response

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "internal error; see the server log"}, status_code=500)

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)

    # --- JSON API --------------------------------------------------------------------------

    @app.post(
        "/api/games",
        operation_id="new_game",
        tags=["games"],
        response_model=GameOut,
        responses={**_links(200, **_GAME_LINKS), **_errors(400, 403, 404, 413, 422, 503)},
    )
    async def api_new_game(body: NewGame) -> dict[str, Any]:
        """Start a game. Without ``policy``, the game's best stored agent plays (trained on the
        spot first, for up to 10 s, if there is none; concurrent calls share that run). With
        ``first: ai`` the AI's opening move is already played. 503 when the server is too busy
        to train the agent within a minute."""
        got = await run_in_threadpool(web.start_game, body)
        if isinstance(got, Job):
            # Wait in the event loop, not in a worker thread: many people may wait at once.
            await _ended(got, web.train_seconds + SPOT_WAIT)
            got = await run_in_threadpool(web.game_after, got, body)
        return got.state()

    @app.get(
        "/api/games/{game_id}",
        operation_id="get_game",
        tags=["games"],
        response_model=GameOut,
        responses=_errors(404, 422),
    )
    def api_game(game_id: str) -> dict[str, Any]:
        return web.session(game_id).state()

    @app.post(
        "/api/games/{game_id}/moves",
        operation_id="play_move",
        tags=["games"],
        response_model=GameOut,
        responses={**_links(200, **_GAME_LINKS), **_errors(400, 403, 404, 409, 413, 422)},
    )
    def api_move(game_id: str, body: MoveIn) -> dict[str, Any]:
        """Play the person's move; the AI replies at once."""
        session = web.session(game_id)
        with session.lock:
            session.play(body.move)
            return session.state()

    @app.post(
        "/api/games/{game_id}/undo",
        operation_id="undo_move",
        tags=["games"],
        response_model=GameOut,
        responses=_errors(403, 404, 409, 413, 422),
    )
    def api_undo(game_id: str) -> dict[str, Any]:
        """Take back the person's last move and the AI's reply."""
        session = web.session(game_id)
        with session.lock:
            session.undo()
            return session.state()

    @app.post(
        "/api/train",
        operation_id="start_training",
        status_code=202,
        tags=["training"],
        response_model=JobStarted,
        responses={**_links(202, **_JOB_LINKS), **_errors(400, 403, 413, 422, 503)},
    )
    def api_train(body: TrainIn) -> dict[str, Any]:
        """Start training in the background, or queue it (state ``queued``, with its place in
        line) when the server's training slots are taken; 503 when the line is full too. Follow
        it at ``/train/{job}/events``."""
        job = web.start_training(body)
        return {**job.snapshot(), "events": f"/train/{job.id}/events"}

    @app.get(
        "/api/train/{job_id}",
        operation_id="get_training",
        tags=["training"],
        response_model=JobOut,
        responses={**_links(200, get_policy=("policy_id", "policy")), **_errors(404, 422)},
    )
    def api_job(job_id: str) -> dict[str, Any]:
        return web.job(job_id).snapshot()

    @app.delete(
        "/api/train/{job_id}",
        operation_id="stop_training",
        status_code=202,
        tags=["training"],
        response_model=JobOut,
        responses=_errors(403, 404, 422),
    )
    def api_stop_job(job_id: str) -> dict[str, Any]:
        """Stop a run between chunks; what it learned so far is saved as a policy. A queued run
        leaves the line."""
        job = web.job(job_id)
        web.jobs.cancel(job)
        return job.snapshot()

    @app.get(
        "/api/policies",
        operation_id="list_policies",
        tags=["policies"],
        response_model=list[PolicyOut],
        responses=_links(
            200, get_policy=("policy_id", "0/id"), delete_policy=("policy_id", "0/id")
        ),
    )
    def api_policies() -> list[dict[str, Any]]:
        return [_row(r) for r in web.store.list()]

    @app.get(
        "/api/policies/{policy_id}",
        operation_id="get_policy",
        tags=["policies"],
        response_model=PolicyOut,
        responses=_errors(404, 422),
    )
    def api_policy(policy_id: str) -> dict[str, Any]:
        return _row(web.policy(policy_id))

    @app.delete(
        "/api/policies/{policy_id}",
        operation_id="delete_policy",
        status_code=204,
        tags=["policies"],
        response_class=Response,
        responses=_errors(403, 404, 422),
    )
    def api_delete(policy_id: str) -> Response:
        _delete(policy_id)
        return Response(status_code=204)

    def _delete(policy_id: str) -> None:
        try:
            web.store.delete(policy_id)
        except KeyError:
            raise NotFound(f"no policy {policy_id!r}") from None
        web.forget(policy_id)

    @app.get(
        "/policies/{policy_id}/download",
        operation_id="download_policy",
        tags=["policies"],
        response_class=FileResponse,
        responses={
            200: {
                "content": {"application/octet-stream": {"schema": {"type": "string"}}},
                "description": "The policy file (.npz)",
            },
            **_errors(404, 422),
        },
    )
    def download(policy_id: str) -> FileResponse:
        row = web.policy(policy_id)
        return FileResponse(
            web.store.path(policy_id),
            media_type="application/octet-stream",
            filename=row.filename,
        )

    @app.get(
        "/train/{job_id}/events",
        operation_id="training_events",
        tags=["training"],
        response_class=StreamingResponse,
        responses={
            200: {
                # Before OpenAPI 3.2, an event stream's schema describes each event.
                "content": {"text/event-stream": {"schema": _SSE_EVENT}},
                "description": "Server-sent events",
            },
            **_errors(404, 422),
        },
    )
    async def events(request: Request, job_id: str) -> StreamingResponse:
        """Server-sent events: ``progress`` (JSON), ``curve`` (one line of SVG), then ``done``
        (JSON with the policy id and where to go next) or ``failed``. A response ends after
        30 s; the browser reconnects."""
        job = web.job(job_id)

        async def stream() -> AsyncIterator[str]:
            # The first event also asks the browser to reconnect soon when a response ends
            # before the run does.
            retry = "retry: 500\n"
            seen, points, idle = -1, -1, 0
            until = time.monotonic() + STREAM_SECONDS
            while time.monotonic() < until and not web.stopping():
                if job.version != seen:
                    seen, idle = job.version, 0
                    snap = job.snapshot()
                    yield f"{retry}event: progress\ndata: {json.dumps(snap)}\n\n"
                    retry = ""
                    if len(job.points) != points:
                        points = len(job.points)
                        yield f"event: curve\ndata: {curve_svg(job.points, job.episodes)}\n\n"
                    if job.state == "done":
                        snap["next"] = f"/train/{job.id}/play" if job.spot else None
                        snap["play"] = f"/policies/{job.policy}/play"
                        yield f"event: done\ndata: {json.dumps(snap)}\n\n"
                        return
                    if job.state == "failed":
                        yield f"event: failed\ndata: {json.dumps(snap)}\n\n"
                        return
                else:
                    idle += 1
                    if idle % 50 == 0:
                        yield ": still training\n\n"
                        if await request.is_disconnected():
                            return
                await asyncio.sleep(0.1)

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    # --- pages -----------------------------------------------------------------------------

    def htmx(request: Request) -> bool:
        return request.headers.get("HX-Request") == "true"

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)  # none: spares the log a 404 per page

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home(request: Request) -> HTMLResponse:
        return page(request, "home.html", {"form": HOME_DEFAULTS, "error": None})

    @app.post("/play", response_class=HTMLResponse, include_in_schema=False)
    def play_form(
        request: Request,
        kind: str = Form("nim"),
        piles: str = Form("3,5,7"),
        heap: str = Form("12"),
        take: str = Form("3"),
        rows: str = Form("3"),
        cols: str = Form("3"),
        k: str = Form("3"),
        rule: str = Form("misere"),
        first: str = Form("human"),
    ) -> Response:
        form = {
            "kind": kind, "piles": piles, "heap": heap, "take": take, "rows": rows,
            "cols": cols, "k": k, "rule": rule, "first": first,
        }  # fmt: skip
        try:
            if first not in ("human", "ai"):
                raise QarenaError(f"who starts is 'human' or 'ai', not {first!r}")
            got = web.agent_or_job(web.game(_spec(form)), first)
            if isinstance(got, Job):
                # The run may be shared with someone who chose another opener: say ours.
                mine = "" if first == got.first else f"?first={first}"
                return RedirectResponse(f"/train/{got.id}{mine}", status_code=303)
            session = web.games.new(got, first)
        except QarenaError as e:
            status = 503 if isinstance(e, Full) else 422
            return page(request, "home.html", {"form": form, "error": sentence(str(e))}, status)
        return RedirectResponse(f"/games/{session.id}", status_code=303)

    def panel(request: Request, session: Session, error: str | None = None) -> dict[str, Any]:
        game, position = session.game, session.position
        legal = game.legal_moves(position)
        verdicts: dict[int, int] = {}
        verdict = None
        if session.show_hint and legal:
            solution = solve(game)
            verdicts = solution.move_values(position)
            verdict = value_name(solution.value_of(position))
        clickable = {
            "hx-post": f"/games/{session.id}/move",
        }
        rows = [
            {
                "move": game.format_move(m),
                "value": session.agent.value_text(position, m),
                "best": session.agent.would_play(position, m),
                "verdict": value_name(verdicts[m]) if m in verdicts else None,
            }
            for m in legal
        ]
        return {
            "s": session,
            "game": game,
            "svg": Markup(position_svg(game, position, clickable)),
            "rows": rows,
            "verdict": verdict,
            "error": error,
            "result": session.result_text(),
            "ai_move": session.ai_text(),
            "turn": _turn(game, session),
            "rules": rules(game),
            "move_help": _move_help(game, position),
        }

    def game_response(
        request: Request, session: Session, error: str | None = None, status: int = 200
    ) -> Response:
        context = panel(request, session, error)
        if htmx(request):
            return page(request, "_panel.html", context, status)
        if error is None and request.method == "POST":
            return RedirectResponse(f"/games/{session.id}", status_code=303)
        return page(request, "game.html", context, status)

    def act(request: Request, game_id: str, action: Callable[[Session], None]) -> Response:
        try:
            session = web.session(game_id)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        with session.lock:
            try:
                action(session)
            except Conflict as e:
                return game_response(request, session, sentence(str(e)), 409)
            except QarenaError as e:
                return game_response(request, session, sentence(str(e)), 422)
            return game_response(request, session)

    @app.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    def game_page(request: Request, game_id: str) -> Response:
        return act(request, game_id, lambda s: None)

    @app.post("/games/{game_id}/move", response_class=HTMLResponse, include_in_schema=False)
    def game_move(request: Request, game_id: str, move: str = Form("")) -> Response:
        return act(request, game_id, lambda s: s.play(move))

    @app.post("/games/{game_id}/undo", response_class=HTMLResponse, include_in_schema=False)
    def game_undo(request: Request, game_id: str) -> Response:
        return act(request, game_id, lambda s: s.undo())

    @app.post(
        "/games/{game_id}/toggle/{what}", response_class=HTMLResponse, include_in_schema=False
    )
    def game_toggle(request: Request, game_id: str, what: str) -> Response:
        def flip(s: Session) -> None:
            if what == "values":
                s.show_values = not s.show_values
            elif what == "hint":
                s.show_hint = not s.show_hint
            else:
                raise QarenaError(f"nothing to toggle called {what!r}")

        return act(request, game_id, flip)

    @app.get("/games/{game_id}/new", include_in_schema=False)
    def game_again(request: Request, game_id: str) -> Response:
        try:
            old = web.session(game_id)
            session = web.games.new(old.agent, old.first)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        session.show_values, session.show_hint = old.show_values, old.show_hint
        return RedirectResponse(f"/games/{session.id}", status_code=303)

    def train_context(
        job: Job | None, form: dict[str, Any], error: str | None, first: str | None = None
    ) -> dict[str, Any]:
        return {
            "job": job,
            "next": f"/train/{job.id}/play?first={first or job.first}" if job else None,
            "snap": job.snapshot() if job else None,
            "curve": Markup(curve_svg(job.points if job else [], job.episodes if job else 1)),
            "form": form,
            "error": error,
            "learners": list(LEARNERS),
        }

    @app.get("/train", response_class=HTMLResponse, include_in_schema=False)
    def train_page(request: Request) -> HTMLResponse:
        return page(request, "train.html", train_context(None, TRAIN_DEFAULTS, None))

    @app.post("/train", response_class=HTMLResponse, include_in_schema=False)
    def train_form(
        request: Request,
        game: str = Form("nim"),
        learner: str = Form("q"),
        episodes: str = Form(""),
        alpha: str = Form(""),
        gamma: str = Form(""),
        epsilon: str = Form(""),
        epsilon_end: str = Form(""),
        schedule: str = Form(""),
        opponent: str = Form("self"),
    ) -> Response:
        form = {
            "game": game, "learner": learner, "episodes": episodes, "alpha": alpha,
            "gamma": gamma, "epsilon": epsilon, "epsilon_end": epsilon_end,
            "schedule": schedule, "opponent": opponent,
        }  # fmt: skip
        try:
            body = TrainIn(
                game=game,
                learner=learner,
                episodes=_number(episodes, "episodes", int),
                alpha=_number(alpha, "alpha", float),
                gamma=_number(gamma, "gamma", float),
                epsilon=_number(epsilon, "epsilon", float),
                epsilon_end=_number(epsilon_end, "epsilon end", float),
                schedule=schedule or None,
                opponent=opponent,
            )
            job = web.start_training(body)
        except ValidationError as e:
            context = train_context(None, form, sentence(_validation_text(e)))
            return page(request, "train.html", context, 422)
        except QarenaError as e:
            context = train_context(None, form, sentence(_detail(e)))
            return page(request, "train.html", context, 503 if isinstance(e, Full) else 422)
        return RedirectResponse(f"/train/{job.id}", status_code=303)

    @app.get("/train/{job_id}", response_class=HTMLResponse, include_in_schema=False)
    def job_page(request: Request, job_id: str, first: str | None = None) -> Response:
        try:
            job = web.job(job_id)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        first = first if first in ("human", "ai") else None
        if job.spot and job.state == "done":
            # Small games train before this page is asked for: go straight on to the game.
            return RedirectResponse(
                f"/train/{job_id}/play?first={first or job.first}", status_code=303
            )
        form = {**TRAIN_DEFAULTS, "game": job.game.spec, "learner": job.learner,
                "episodes": str(job.episodes), "opponent": job.opponent}  # fmt: skip
        return page(request, "train.html", train_context(job, form, None, first))

    @app.post("/train/{job_id}/stop", include_in_schema=False)
    def job_stop(request: Request, job_id: str) -> Response:
        try:
            web.jobs.cancel(web.job(job_id))
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        return RedirectResponse(f"/train/{job_id}", status_code=303)

    @app.get("/train/{job_id}/play", include_in_schema=False)
    def job_play(request: Request, job_id: str, first: str | None = None) -> Response:
        try:
            job = web.job(job_id)
            if job.policy is None:
                raise QarenaError(job.error or "the agent is still training")
            who = first if first in ("human", "ai") else job.first
            session = web.games.new(web.agent(job.policy), who)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        except QarenaError as e:
            return error_page(request, 503 if isinstance(e, Full) else 409, str(e))
        return RedirectResponse(f"/games/{session.id}", status_code=303)

    @app.get("/policies", response_class=HTMLResponse, include_in_schema=False)
    def policies_page(request: Request) -> HTMLResponse:
        return page(request, "policies.html", {"rows": web.store.list()})

    @app.get("/policies/{policy_id}/play", include_in_schema=False)
    def policy_play(request: Request, policy_id: str, first: str = "human") -> Response:
        try:
            if first not in ("human", "ai"):
                raise QarenaError(f"who starts is 'human' or 'ai', not {first!r}")
            session = web.games.new(web.agent(policy_id), first)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        except QarenaError as e:
            return error_page(request, 503 if isinstance(e, Full) else 422, str(e))
        return RedirectResponse(f"/games/{session.id}", status_code=303)

    @app.post("/policies/{policy_id}/delete", include_in_schema=False)
    def policy_delete(request: Request, policy_id: str) -> Response:
        try:
            _delete(policy_id)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        if htmx(request):
            return HTMLResponse("")  # the row swaps out
        return RedirectResponse("/policies", status_code=303)

    @app.get("/policies/{policy_id}/inspect", response_class=HTMLResponse, include_in_schema=False)
    def inspect(request: Request, policy_id: str, position: str | None = None) -> Response:
        try:
            row = web.policy(policy_id)
            agent = web.agent(policy_id)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        game = agent.game
        error = None
        pos: Position = game.start()
        if position:
            try:
                if not position.isascii():
                    # Python reads digits of any script as numbers; positions are ASCII.
                    raise QarenaError(
                        f"{position!r} is not a position: write it in ASCII letters and digits"
                    )
                pos = game.parse_position(position)
                solve(game).value_of(pos)  # refuses positions play cannot reach
            except QarenaError as e:
                error, pos = sentence(str(e)), game.start()
        solution = solve(game)
        verdicts = solution.move_values(pos)
        moves = [
            {
                "move": game.format_move(m),
                "value": agent.value_text(pos, m),
                "best": agent.would_play(pos, m),
                "verdict": value_name(verdicts[m]),
                "next": game.format_position(game.apply(pos, m)),
            }
            for m in game.legal_moves(pos)
        ]
        learner = agent.learner
        context = {
            "row": row,
            "game": game,
            "learner": learner,
            "hyper": learner.hyperparameter_values(),
            "position": game.format_position(pos),
            "start": game.format_position(game.start()),
            "svg": Markup(position_svg(game, pos, None)),
            "value": value_name(solution.value_of(pos)),
            "over": game.is_terminal(pos),
            "moves": moves,
            "error": error,
            "curve": (
                Markup(curve_svg(learner.curve.points, learner.episodes))
                if learner.curve is not None and learner.curve.points
                else None
            ),
        }
        return page(request, "inspect.html", context, 422 if error else 200)

    return app


# --- helpers for the pages -----------------------------------------------------------------

HOME_DEFAULTS = {
    "kind": "nim", "piles": "3,5,7", "heap": "12", "take": "3", "rows": "3", "cols": "3",
    "k": "3", "rule": "misere", "first": "human",
}  # fmt: skip

TRAIN_DEFAULTS = {
    "game": "nim:3,5,7", "learner": "q", "episodes": "", "alpha": "", "gamma": "",
    "epsilon": "", "epsilon_end": "", "schedule": "", "opponent": "self",
}  # fmt: skip


def _row(row: PolicyRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "game": row.game,
        "learner": row.learner,
        "episodes": row.episodes,
        "optimality": row.optimality,
        "created": row.created,
        "download": f"/policies/{row.id}/download",
    }


def _digits(text: str, what: str) -> str:
    """A whole number typed in a form, checked to be ASCII digits: Python's int() would also
    read "३" (Devanagari three) and other scripts' digits."""
    text = text.strip()
    if not _INT.fullmatch(text):
        raise QarenaError(
            f"{what} must be a whole number written with the digits 0-9, not {text!r}"
        )
    return text


def _spec(form: dict[str, str]) -> str:
    """The game spec the home form describes."""
    kind, normal = form["kind"], form["rule"] == "normal"
    if form["rule"] not in ("misere", "normal"):
        raise QarenaError(f"the rule is 'misere' or 'normal', not {form['rule']!r}")
    if kind == "nim":
        piles = [_digits(p, "each pile") for p in form["piles"].replace(",", " ").split()]
        if not piles:
            raise QarenaError("give the piles, e.g. 3,5,7")
        return f"nim:{','.join(piles)}" + (":normal" if normal else "")
    if kind == "subtraction":
        heap, take = _digits(form["heap"], "the heap"), _digits(form["take"], "the largest take")
        return f"subtraction:{heap}:{take}" + (":normal" if normal else "")
    if kind == "tictactoe":
        rows, cols = _digits(form["rows"], "rows"), _digits(form["cols"], "columns")
        return f"tictactoe:{rows}x{cols}:{_digits(form['k'], 'in a row to win')}"
    raise QarenaError(f"unknown game {kind!r}; expected nim, subtraction or tictactoe")


def _number(text: str, what: str, kind: type[int] | type[float]) -> Any:
    """A number typed in a form (None when empty), in ASCII digits only: int() and float()
    would also read other scripts' digits, and float() reads "nan" and "inf"."""
    text = text.strip()
    if not text:
        return None
    if kind is int:
        if len(text) > 20 or not _INT.fullmatch(text):
            raise QarenaError(
                f"{what} must be a whole number written with the digits 0-9, not {text!r}"
            )
        return int(text)
    if len(text) > 40 or not _FLOAT.fullmatch(text):
        raise QarenaError(f"{what} must be a number such as 0.5, not {text!r}")
    return float(text)


def _turn(game: Game, session: Session) -> str:
    if session.over:
        return ""
    if not session.humans_turn():
        return "The AI's turn."
    if isinstance(game, TicTacToe):
        mark = "x" if game.to_move(session.position) == 0 else "o"
        return f"Your turn: you play {mark}."
    return "Your turn."


def _move_help(game: Game, position: Position) -> str:
    if isinstance(game, Subtraction):
        return f"Click a match to take it and every match to its right (1 to {game.k})."
    if isinstance(game, HeapGame):
        return "Click a match to take it and every match to its right in that pile."
    if isinstance(game, TicTacToe):
        return "Click an empty cell."
    return "Type a move."
