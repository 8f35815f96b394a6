"""The JSON API (``/api``, with its policy downloads and training events): games, training
runs and stored policies. Documented at ``/docs``; errors are ``{"detail": str}`` bodies."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from qarena.errors import QarenaError
from qarena.i18n import _
from qarena.learn.tables.files import read_preset_record
from qarena.match.session import Conflict
from qarena.web.jobs import LIVE, Job
from qarena.web.models import (
    Detail,
    GameOut,
    JobOut,
    JobStarted,
    MoveIn,
    NewGame,
    PolicyDetail,
    PolicyOut,
    TrainIn,
)
from qarena.web.play import Session
from qarena.web.service import Web, WebDep
from qarena.web.store import PolicyRow, training_of

#: How long an API call that trains on the spot waits, beyond the training's own time limit,
#: for its turn to train; after that it answers 503 and the run goes on for the next call.
SPOT_WAIT = 60.0
#: The longest one server-sent-events response lasts; the browser reconnects at once. Bounded
#: so that open progress pages never hold a server that is stopping.
STREAM_SECONDS = 30.0

games = APIRouter(tags=["games"])
training = APIRouter(tags=["training"])
policies = APIRouter(tags=["policies"])

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
#: ``done``, ``failed`` and ``cancelled``, one line of SVG for ``curve``.
_SSE_EVENT = {
    "type": "object",
    "properties": {
        "event": {"type": "string", "enum": ["progress", "curve", "done", "failed", "cancelled"]},
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


@games.post(
    "/api/games",
    operation_id="new_game",
    response_model=GameOut,
    responses={**_links(200, **_GAME_LINKS), **_errors(400, 403, 404, 413, 422, 503)},
)
async def api_new_game(request: Request, body: NewGame, web: WebDep) -> dict[str, Any]:
    """Start a game. Without ``policy``, the game's best stored agent plays (trained on the
    spot first, for up to 10 s, if there is none; concurrent calls share that run). With
    ``first: ai`` the AI's opening move is already played. 503 when the server is too busy
    to train the agent within a minute, or (with Retry-After) to search perfect play's
    opening now."""
    work = functools.partial(web.new_game_state, body)
    if web.may_search(body.game, body.opponent) and body.policy is None:
        got = await web.searches.run(request, work)
    else:
        got = await run_in_threadpool(work)
    if isinstance(got, Job):
        # Wait in the event loop, not in a worker thread: many people may wait at once.
        await _ended(got, web.limits.train_seconds + SPOT_WAIT)
        session = await run_in_threadpool(web.game_after, got, body)
        return await run_in_threadpool(session.state)
    return got


@games.get(
    "/api/games/{game_id}",
    operation_id="get_game",
    response_model=GameOut,
    responses=_errors(404, 422, 503),
)
async def api_game(request: Request, game_id: str, web: WebDep) -> dict[str, Any]:
    return await _on_game(request, web, game_id, lambda s: None)


async def _on_game(
    request: Request, web: Web, game_id: str, action: Callable[[Session], object]
) -> dict[str, Any]:
    """``action`` on the game and its state: on a search thread when it may search (503 with
    Retry-After when too many wait; stopped, the game is as it was), else on a worker thread."""
    work = functools.partial(web.game_state, game_id, action)
    if web.searching(web.games.get(game_id)):
        return await web.searches.run(request, work)
    return await run_in_threadpool(work)


@games.post(
    "/api/games/{game_id}/moves",
    operation_id="play_move",
    response_model=GameOut,
    responses={**_links(200, **_GAME_LINKS), **_errors(400, 403, 404, 409, 413, 422, 503)},
)
async def api_move(request: Request, game_id: str, body: MoveIn, web: WebDep) -> dict[str, Any]:
    """Play the person's move; the AI replies at once. 503 (with Retry-After) when perfect
    play cannot answer now: too many moves wait, or its search took longer than its time
    limit; the game is then as it was before the call, and the same move may be sent again."""
    return await _on_game(request, web, game_id, lambda s: s.play(body.move))


@games.post(
    "/api/games/{game_id}/undo",
    operation_id="undo_move",
    response_model=GameOut,
    responses=_errors(403, 404, 409, 413, 422, 503),
)
async def api_undo(request: Request, game_id: str, web: WebDep) -> dict[str, Any]:
    """Take back the person's last move and the AI's reply."""
    return await _on_game(request, web, game_id, lambda s: s.undo())


@training.post(
    "/api/train",
    operation_id="start_training",
    status_code=202,
    response_model=JobStarted,
    responses={**_links(202, **_JOB_LINKS), **_errors(400, 403, 413, 422, 503)},
)
def api_train(body: TrainIn, web: WebDep) -> dict[str, Any]:
    """Start training in the background, or queue it (state ``queued``, with its place in
    line) when the server's training slots are taken; 503 when the line is full too, or when
    the runs under way and waiting leave too little memory for it. Follow it at
    ``/train/{job}/events``."""
    job = web.start_training(body)
    return {**job.snapshot(), "events": f"/train/{job.id}/events"}


@training.get(
    "/api/train/{job_id}",
    operation_id="get_training",
    response_model=JobOut,
    responses={**_links(200, get_policy=("policy_id", "policy")), **_errors(404, 422)},
)
def api_job(job_id: str, web: WebDep) -> dict[str, Any]:
    return web.jobs.get(job_id).snapshot()


@training.delete(
    "/api/train/{job_id}",
    operation_id="stop_training",
    status_code=202,
    response_model=JobOut,
    responses=_errors(403, 404, 409, 422),
)
def api_stop_job(job_id: str, web: WebDep) -> dict[str, Any]:
    """Stop a run between chunks; what it learned so far is saved as a policy. A queued run
    leaves the line, ``cancelled``, as does a run stopped before it learned anything. A run
    that has already ended is 409: there is nothing left to stop."""
    job = web.jobs.get(job_id)
    if not web.jobs.cancel(job):
        raise Conflict(
            _("training run {id} has already ended ({state}); there is nothing to stop").format(
                id=job.id, state=job.state
            )
        )
    return job.snapshot()


@policies.get(
    "/api/policies",
    operation_id="list_policies",
    response_model=list[PolicyOut],
    responses=_links(200, get_policy=("policy_id", "0/id"), delete_policy=("policy_id", "0/id")),
)
def api_policies(web: WebDep) -> list[dict[str, Any]]:
    return [_row(r) for r in web.store.list()]


@policies.get(
    "/api/policies/{policy_id}",
    operation_id="get_policy",
    response_model=PolicyDetail,
    responses=_errors(404, 422),
)
def api_policy(policy_id: str, web: WebDep) -> dict[str, Any]:
    """A stored policy, with its hyperparameters and, for runs trained here, whom it trained
    against (``training``: opponent, seat, until_perfect), as its file records them."""
    row = web.store.get(policy_id)
    meta = web.store.meta(policy_id)
    hyper = meta.get("hyperparameters")
    return {
        **_row(row),
        "hyperparameters": hyper if isinstance(hyper, dict) else {},
        "training": training_of(meta),
        "preset": _preset_of(meta),
    }


def _preset_of(meta: dict[str, Any]) -> dict[str, Any] | None:
    """The preset record a policy file keeps, or None (none, or not one qarena wrote)."""
    try:
        return read_preset_record(meta.get("preset"))
    except QarenaError:
        return None


@policies.delete(
    "/api/policies/{policy_id}",
    operation_id="delete_policy",
    status_code=204,
    response_class=Response,
    responses=_errors(403, 404, 422),
)
def api_delete(policy_id: str, web: WebDep) -> Response:
    web.delete(policy_id)
    return Response(status_code=204)


@policies.get(
    "/policies/{policy_id}/download",
    operation_id="download_policy",
    response_class=FileResponse,
    responses={
        200: {
            "content": {"application/octet-stream": {"schema": {"type": "string"}}},
            "description": "The policy file (.npz)",
        },
        **_errors(404, 422),
    },
)
def download(policy_id: str, web: WebDep) -> StreamingResponse:
    # The file is opened here, so a file that vanished is a 404 and one deleted while it is
    # sent is still sent whole.
    row, f = web.store.open(policy_id)
    size = os.fstat(f.fileno()).st_size

    def chunks() -> Iterator[bytes]:
        with f:
            yield from iter(lambda: f.read(1 << 16), b"")

    return StreamingResponse(
        chunks(),
        media_type="application/octet-stream",
        headers={
            "Content-Disposition": f'attachment; filename="{row.filename}"',
            "Content-Length": str(size),
        },
    )


@training.get(
    "/train/{job_id}/events",
    operation_id="training_events",
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
async def events(request: Request, job_id: str, web: WebDep) -> StreamingResponse:
    """Server-sent events: ``progress`` (JSON), ``curve`` (one line of SVG), then ``done``
    (JSON with the policy id and where to go next), ``failed`` or ``cancelled`` (stopped
    before it learned anything). A response ends after 30 s; the browser reconnects."""
    job = web.jobs.get(job_id)

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
                if job.curve_points() != points:
                    points = job.curve_points()
                    yield f"event: curve\ndata: {job.chart()}\n\n"
                # The snapshot's state, not the job's: the run may have ended since, and its
                # end bumps the version, so the next look sends it.
                if snap["state"] == "done":
                    snap["next"] = f"/train/{job.id}/play" if job.spot else None
                    snap["play"] = f"/policies/{snap['policy']}/play"
                    yield f"event: done\ndata: {json.dumps(snap)}\n\n"
                    return
                if snap["state"] in ("failed", "cancelled"):
                    yield f"event: {snap['state']}\ndata: {json.dumps(snap)}\n\n"
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


async def _ended(job: Job, timeout: float) -> None:
    """Wait (without holding a thread) until the job has ended or ``timeout`` has passed."""
    deadline = time.monotonic() + timeout
    while job.state in LIVE and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


def _row(row: PolicyRow) -> dict[str, Any]:
    return {**row.model_dump(), "download": f"/policies/{row.id}/download"}


router = APIRouter()
for _area in (games, training, policies):
    router.include_router(_area)
