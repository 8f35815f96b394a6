"""Stored policies: the Policies page and its upload, a policy played, deleted or inspected
position by position, and stored policies' learning curves compared."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from qarena.errors import QarenaError
from qarena.games.words import sentence
from qarena.web.errors import PageRoute
from qarena.web.exceptions import status_of
from qarena.web.routes.pages.responses import check_first, htmx, to_game
from qarena.web.searches import bounded
from qarena.web.service import Web, WebDep
from qarena.web.templating import page
from qarena.web.upload import UPLOAD_PATH, receive_policy, size_text
from qarena.web.views import compare_context, inspect_context

router = APIRouter(route_class=PageRoute, include_in_schema=False)


def _policies_page(
    request: Request,
    web: Web,
    added: str | None = None,
    upload_error: str | None = None,
    status: int = 200,
) -> HTMLResponse:
    web.store.refresh()  # policies trained on the command line into the folder show up
    rows = web.store.list()
    context = {
        "rows": rows,
        "added": next((r for r in rows if r.id == added), None),
        "upload_error": upload_error,
        "max_upload": size_text(web.limits.max_upload),
        "unreadable": web.store.unreadable(),
    }
    return page(request, "policies.html", context, status)


@router.get("/policies", response_class=HTMLResponse)
def policies_page(request: Request, web: WebDep, added: str | None = None) -> HTMLResponse:
    return _policies_page(request, web, added)


@router.post(UPLOAD_PATH, response_class=HTMLResponse)
async def policy_upload(request: Request, web: WebDep) -> Response:
    """A policy file from the person's computer, into the store: refused in a line on the
    page (nothing stored) when it is too big or not a valid policy file."""
    try:
        row = await receive_policy(request, web.store, web.limits.max_upload, web.too_big_to_upload)
    except QarenaError as e:
        return _policies_page(request, web, None, sentence(str(e)), status_of(e))
    return RedirectResponse(f"/policies?added={row.id}", status_code=303)


@router.get("/policies/{policy_id}/play")
def policy_play(policy_id: str, web: WebDep, first: str = "human") -> Response:
    check_first(first)
    return to_game(web.games.new(web.agent(policy_id), first))


@router.post("/policies/{policy_id}/delete")
def policy_delete(request: Request, policy_id: str, web: WebDep) -> Response:
    web.delete(policy_id)
    if htmx(request):
        return HTMLResponse("")  # the row swaps out
    return RedirectResponse("/policies", status_code=303)


@router.get("/policies/{policy_id}/inspect", response_class=HTMLResponse)
async def inspect(
    request: Request,
    policy_id: str,
    web: WebDep,
    position: str | None = None,
    came_from: Annotated[str | None, Query(alias="from")] = None,
) -> Response:
    """A stored agent's values, position by position: a click on a move walks to the
    position after it (``from`` is where the walk came from, for the way back). A network's
    board solved by search has its verdicts searched through the search gate."""

    def show() -> Response:
        with bounded(web.limits.move_seconds):
            context = inspect_context(web, policy_id, position, came_from)
        return page(request, "inspect.html", context, 422 if context["error"] else 200)

    row = await run_in_threadpool(web.store.get, policy_id)
    if not row.tables and web.may_search(row.game):
        return await web.searches.run(request, show)
    return await run_in_threadpool(show)


@router.get("/compare", response_class=HTMLResponse)
def compare(
    request: Request,
    web: WebDep,
    game: str = "",
    metric: str = "optimality",
    ids: Annotated[list[str] | None, Query(alias="id")] = None,
) -> Response:
    """Stored policies' learning curves on one chart."""
    context = compare_context(web, game[:200], [i[:64] for i in ids or []], metric[:32])
    return page(request, "compare.html", context, 422 if context["error"] else 200)
