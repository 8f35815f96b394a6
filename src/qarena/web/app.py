"""The web app: play against an agent and watch one learn. ``create_app`` builds it.

JSON API under ``/api`` (documented at ``/docs``); HTML pages drawn with Jinja2 templates,
htmx for clicks, server-sent events for training progress.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any, Literal

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
from pydantic import BaseModel, Field

from qarena import __version__
from qarena.errors import QarenaError
from qarena.games import Game, HeapGame, Position, Subtraction, TicTacToe, parse_spec, value_name
from qarena.games.words import rules, sentence
from qarena.learn.learners import LEARNERS, learner_class
from qarena.solve import solve
from qarena.web.jobs import MAX_RUNNING, Job, Jobs
from qarena.web.play import Agent, Conflict, Full, Games, NotFound, Session
from qarena.web.store import PolicyRow, PolicyStore
from qarena.web.svg import curve_svg, position_svg

log = logging.getLogger("qarena.web")

HERE = Path(__file__).parent
#: Training on the spot stops after this long, perfect or not: the person is waiting.
TRAIN_SECONDS = 10.0
#: Largest game (encoded positions) the web app plays or trains: bigger ones take minutes.
MAX_POSITIONS = 1_000_000
MAX_BODY = 16 * 1024
#: Loaded agents kept in memory.
AGENT_CACHE = 16

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


# --- request bodies ------------------------------------------------------------------------


class NewGame(BaseModel):
    game: str | None = Field(default=None, max_length=200, description="Game spec, e.g. nim:3,5,7")
    first: Literal["human", "ai"] = "human"
    policy: str | None = Field(default=None, max_length=64, description="A policy id")
    seed: int | None = Field(default=None, ge=0, description="Seed for the AI's choice among ties")


class MoveIn(BaseModel):
    move: str = Field(max_length=100, description="A move, e.g. 3:2 (nim), 2 (subtraction), b2")


class TrainIn(BaseModel):
    game: str = Field(max_length=200)
    learner: str = "q"
    episodes: int | None = Field(default=None, ge=1)
    alpha: float | None = None
    gamma: float | None = None
    epsilon: float | None = None
    epsilon_end: float | None = None
    schedule: str | None = None
    opponent: str = "self"
    seed: int | None = Field(default=None, ge=0)


# --- the body-size guard -------------------------------------------------------------------


class BodyLimit:
    """Refuse a request whose body is over ``limit`` bytes with 413: by its Content-Length, and
    by what actually arrives (a chunked or lying client)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
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


# --- the app -------------------------------------------------------------------------------


class Web:
    """The app's state: stores, games, jobs, loaded agents, and the settings."""

    def __init__(
        self,
        data_dir: Path,
        max_games: int,
        max_open_games: int,
        train_seconds: float,
        max_positions: int,
        max_training: int,
    ) -> None:
        self.store = PolicyStore(data_dir)
        self.games = Games(max_games, max_open_games)
        self.jobs = Jobs(self.store, max_training)
        self.train_seconds = train_seconds
        self.max_positions = max_positions
        self._agents: OrderedDict[str, Agent] = OrderedDict()
        self._lock = threading.Lock()
        self._spot_lock = threading.Lock()

    def game(self, spec: str) -> Game:
        game = parse_spec(spec)
        if game.num_positions > self.max_positions:
            raise QarenaError(
                f"{game.spec} has {game.num_positions:,} positions, more than the web app "
                f"plays ({self.max_positions:,}); use the command line for it"
            )
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

    def spot_job(self, game: Game, first: str) -> Job:
        """The running on-the-spot job for this game, or a new one."""
        with self._spot_lock:
            job = self.jobs.spot_job(game)
            if job is None:
                job = self.jobs.start(game, spot=True, first=first, seconds=self.train_seconds)
            return job

    def agent_for(self, game: Game, first: str) -> Agent:
        """The game's best stored agent, trained on the spot (and waited for) if there is none."""
        row = self.store.best_for(game.spec)
        if row is None:
            job = self.spot_job(game, first)
            self.jobs.run_now(job)
            if job.state != "done" or job.policy is None:
                raise QarenaError(job.error or "training failed")
            return self.agent(job.policy)
        return self.agent(row.id)

    def new_game(self, body: NewGame) -> Session:
        if body.policy is not None:
            agent = self.agent(body.policy)
            if body.game is not None and self.game(body.game).spec != agent.game.spec:
                raise QarenaError(f"policy {body.policy} plays {agent.game.spec}, not {body.game}")
        elif body.game is None:
            raise QarenaError("give a game spec, a policy id, or both")
        else:
            agent = self.agent_for(self.game(body.game), body.first)
        return self.games.new(agent, body.first, body.seed)

    def session(self, game_id: str) -> Session:
        try:
            return self.games.get(game_id)
        except KeyError:
            raise NotFound(
                f"no game {game_id!r} (finished games are forgotten after a while)"
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


def _detail(exc: Exception) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)


def _validation_text(exc: RequestValidationError) -> str:
    parts = []
    for e in exc.errors():
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        parts.append(f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg")))
    return "; ".join(parts) or "invalid request"


def create_app(
    data_dir: Path,
    *,
    max_games: int = 1_000,
    max_open_games: int = 500,
    max_body: int = MAX_BODY,
    train_seconds: float = TRAIN_SECONDS,
    max_positions: int = MAX_POSITIONS,
    max_training: int = MAX_RUNNING,
) -> FastAPI:
    """The app, with its policy store under ``data_dir`` (made if missing; QarenaError when it
    cannot be written)."""
    web = Web(Path(data_dir), max_games, max_open_games, train_seconds, max_positions, max_training)
    app = FastAPI(
        title="qarena",
        version=__version__,
        description="Play small combinatorial games against trained agents; train new ones.",
    )
    app.state.web = web
    app.add_middleware(BodyLimit, limit=max_body)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["version"] = __version__

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

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "internal error; see the server log"}, status_code=500)

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, unexpected)

    # --- JSON API --------------------------------------------------------------------------

    @app.post("/api/games", tags=["games"])
    def api_new_game(body: NewGame) -> dict[str, Any]:
        """Start a game. Without ``policy``, the game's best stored agent plays (trained on the
        spot first, for up to 10 s, if there is none). With ``first: ai`` the AI's opening move
        is already played."""
        return web.new_game(body).state()

    @app.get("/api/games/{game_id}", tags=["games"])
    def api_game(game_id: str) -> dict[str, Any]:
        return web.session(game_id).state()

    @app.post("/api/games/{game_id}/moves", tags=["games"])
    def api_move(game_id: str, body: MoveIn) -> dict[str, Any]:
        """Play the person's move; the AI replies at once."""
        session = web.session(game_id)
        with session.lock:
            session.play(body.move)
            return session.state()

    @app.post("/api/games/{game_id}/undo", tags=["games"])
    def api_undo(game_id: str) -> dict[str, Any]:
        """Take back the person's last move and the AI's reply."""
        session = web.session(game_id)
        with session.lock:
            session.undo()
            return session.state()

    @app.post("/api/train", status_code=202, tags=["training"])
    def api_train(body: TrainIn) -> dict[str, Any]:
        """Start training in the background; follow it at ``/train/{job}/events``."""
        job = web.start_training(body)
        return {**job.snapshot(), "events": f"/train/{job.id}/events"}

    @app.get("/api/train/{job_id}", tags=["training"])
    def api_job(job_id: str) -> dict[str, Any]:
        return web.job(job_id).snapshot()

    @app.delete("/api/train/{job_id}", status_code=202, tags=["training"])
    def api_stop_job(job_id: str) -> dict[str, Any]:
        """Stop a run between chunks; what it learned so far is saved as a policy."""
        job = web.job(job_id)
        job.cancel = True
        return job.snapshot()

    @app.get("/api/policies", tags=["policies"])
    def api_policies() -> list[dict[str, Any]]:
        return [_row(r) for r in web.store.list()]

    @app.get("/api/policies/{policy_id}", tags=["policies"])
    def api_policy(policy_id: str) -> dict[str, Any]:
        return _row(web.policy(policy_id))

    @app.delete("/api/policies/{policy_id}", status_code=204, tags=["policies"])
    def api_delete(policy_id: str) -> Response:
        _delete(policy_id)
        return Response(status_code=204)

    def _delete(policy_id: str) -> None:
        try:
            web.store.delete(policy_id)
        except KeyError:
            raise NotFound(f"no policy {policy_id!r}") from None
        web.forget(policy_id)

    @app.get("/policies/{policy_id}/download", tags=["policies"])
    def download(policy_id: str) -> FileResponse:
        row = web.policy(policy_id)
        return FileResponse(
            web.store.path(policy_id),
            media_type="application/octet-stream",
            filename=row.filename,
        )

    @app.get("/train/{job_id}/events", tags=["training"])
    async def events(request: Request, job_id: str) -> StreamingResponse:
        """Server-sent events: ``progress`` (JSON), ``curve`` (one line of SVG), then ``done``
        (JSON with the policy id and where to go next) or ``failed``."""
        job = web.job(job_id)

        async def stream() -> AsyncIterator[str]:
            seen, points, idle = -1, -1, 0
            while True:
                if job.version != seen:
                    seen, idle = job.version, 0
                    snap = job.snapshot()
                    yield f"event: progress\ndata: {json.dumps(snap)}\n\n"
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

    def page(
        request: Request, name: str, context: dict[str, Any], status: int = 200
    ) -> HTMLResponse:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def error_page(request: Request, status: int, message: str) -> HTMLResponse:
        return page(request, "error.html", {"message": sentence(message)}, status)

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
            game = web.game(_spec(form))
            row = web.store.best_for(game.spec)
            if row is None:
                job = web.spot_job(game, first)
                return RedirectResponse(f"/train/{job.id}", status_code=303)
            session = web.games.new(web.agent(row.id), first)
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
        except Full as e:
            return error_page(request, 503, str(e))
        session.show_values, session.show_hint = old.show_values, old.show_hint
        return RedirectResponse(f"/games/{session.id}", status_code=303)

    def train_context(job: Job | None, form: dict[str, Any], error: str | None) -> dict[str, Any]:
        return {
            "job": job,
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
        except (QarenaError, ValueError) as e:
            context = train_context(None, form, sentence(_detail(e)))
            return page(request, "train.html", context, 422)
        return RedirectResponse(f"/train/{job.id}", status_code=303)

    @app.get("/train/{job_id}", response_class=HTMLResponse, include_in_schema=False)
    def job_page(request: Request, job_id: str) -> Response:
        try:
            job = web.job(job_id)
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        if job.spot and job.state == "done":
            # Small games train before this page is asked for: go straight on to the game.
            return RedirectResponse(f"/train/{job_id}/play", status_code=303)
        form = {**TRAIN_DEFAULTS, "game": job.game.spec, "learner": job.learner,
                "episodes": str(job.episodes), "opponent": job.opponent}  # fmt: skip
        return page(request, "train.html", train_context(job, form, None))

    @app.post("/train/{job_id}/stop", include_in_schema=False)
    def job_stop(request: Request, job_id: str) -> Response:
        try:
            web.job(job_id).cancel = True
        except NotFound as e:
            return error_page(request, 404, _detail(e))
        return RedirectResponse(f"/train/{job_id}", status_code=303)

    @app.get("/train/{job_id}/play", include_in_schema=False)
    def job_play(request: Request, job_id: str) -> Response:
        try:
            job = web.job(job_id)
            if job.policy is None:
                raise QarenaError(job.error or "the agent is still training")
            session = web.games.new(web.agent(job.policy), job.first)
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


def _spec(form: dict[str, str]) -> str:
    """The game spec the home form describes."""
    kind, normal = form["kind"], form["rule"] == "normal"
    if form["rule"] not in ("misere", "normal"):
        raise QarenaError(f"the rule is 'misere' or 'normal', not {form['rule']!r}")
    if kind == "nim":
        piles = ",".join(p for p in form["piles"].replace(",", " ").split())
        return f"nim:{piles}" + (":normal" if normal else "")
    if kind == "subtraction":
        return f"subtraction:{form['heap'].strip()}:{form['take'].strip()}" + (
            ":normal" if normal else ""
        )
    if kind == "tictactoe":
        return f"tictactoe:{form['rows'].strip()}x{form['cols'].strip()}:{form['k'].strip()}"
    raise QarenaError(f"unknown game {kind!r}; expected nim, subtraction or tictactoe")


def _number(text: str, what: str, kind: type[int] | type[float]) -> Any:
    text = text.strip()
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        raise QarenaError(f"{what} must be a number, not {text!r}") from None


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
