"""The start page: the home form (a game and whom to play against, the game started or its
training run waited for), the language switcher, and the favicon's empty answer."""

from __future__ import annotations

import functools
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from qarena.errors import QarenaError
from qarena.games.words import sentence
from qarena.i18n import check_language
from qarena.web.errors import PageRoute
from qarena.web.exceptions import status_of
from qarena.web.forms import HomeForm, game_spec, home_defaults, home_values, opponent_of
from qarena.web.jobs import Job
from qarena.web.language import keep as keep_language
from qarena.web.language import local_path
from qarena.web.routes.pages.responses import check_first, retry, to_game
from qarena.web.searches import Busy, bounded
from qarena.web.service import Web, WebDep
from qarena.web.templating import page

router = APIRouter(route_class=PageRoute, include_in_schema=False)


@router.get("/favicon.ico")
def favicon() -> Response:
    return Response(status_code=204)  # none: spares the log a 404 per page


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> HTMLResponse:
    return page(request, "home.html", {"form": home_defaults(), "error": None})


@router.get("/language/{code}")
def choose_language(request: Request, code: str, next: str = "/") -> Response:
    """The language switcher in every page's header: keep the choice in a cookie (a year; it
    wins over the browser's Accept-Language) and go back to the page, which ``next`` names
    (a path on this site only: anything else goes to the start page)."""
    chosen = check_language(code)
    response = RedirectResponse(local_path(next), status_code=303)
    keep_language(response, chosen, request.url.scheme == "https")
    return response


@router.post("/play", response_class=HTMLResponse)
async def play_form(request: Request, web: WebDep, fields: Annotated[HomeForm, Form()]) -> Response:
    work = functools.partial(_play_form, request, web, fields)
    try:
        spec: str | None = game_spec(fields)
        opponent: str | None = opponent_of(fields)
    except QarenaError:
        spec = opponent = None  # refused by the work itself, in the form
    if web.may_search(spec, opponent):
        try:
            return await web.searches.run(request, work)
        except Busy as e:
            return _home_refusal(request, fields, e)
    return await run_in_threadpool(work)


def _play_form(request: Request, web: Web, fields: HomeForm) -> Response:
    first = fields.first
    try:
        check_first(first)
        got = web.opponent_for(game_spec(fields), first, opponent_of(fields))
        if isinstance(got, Job):
            # The run may be shared with someone who chose another opener: say ours.
            mine = "" if first == got.first else f"?first={first}"
            return RedirectResponse(f"/train/{got.id}{mine}", status_code=303)
        with bounded(web.limits.move_seconds):  # perfect play's opening, when it opens
            session = web.games.new(got, first)
    except QarenaError as e:
        return _home_refusal(request, fields, e)
    return to_game(session)


def _home_refusal(request: Request, fields: HomeForm, e: QarenaError) -> Response:
    context = {"form": home_values(fields), "error": sentence(str(e))}
    return retry(page(request, "home.html", context, status_of(e)), e)
