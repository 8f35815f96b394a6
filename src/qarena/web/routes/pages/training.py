"""The Train page: its form, the Opponent field for the game typed so far, a run's page, its
stop, and the agent it trained played."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from qarena.errors import QarenaError
from qarena.games.words import sentence
from qarena.i18n import DEFAULT, _, language, speaking
from qarena.match.session import Conflict
from qarena.web.errors import PageRoute, validation_text
from qarena.web.exceptions import Full, status_of
from qarena.web.forms import TRAIN_DEFAULTS, TrainForm
from qarena.web.models import TrainIn
from qarena.web.routes.pages.responses import to_game
from qarena.web.service import Web, WebDep
from qarena.web.templating import page
from qarena.web.views import error_field, job_form, opponent_choices, train_context

router = APIRouter(route_class=PageRoute, include_in_schema=False)


@router.get("/train", response_class=HTMLResponse)
def train_page(request: Request, web: WebDep) -> HTMLResponse:
    return page(request, "train.html", train_context(web, None, TRAIN_DEFAULTS))


@router.post("/train", response_class=HTMLResponse)
def train_form(request: Request, web: WebDep, fields: Annotated[TrainForm, Form()]) -> Response:
    form = fields.model_dump()
    try:
        job = web.start_training(TrainIn(**fields.body()))
    except ValidationError as e:
        where = e.errors()[0].get("loc", ("",))[0] if e.errors() else ""
        context = train_context(web, None, form, sentence(validation_text(e)), str(where) or None)
        return page(request, "train.html", context, 422)
    except QarenaError as e:
        text = str(e)
        context = train_context(web, None, form, sentence(text), _field_of(web, fields, e))
        return page(request, "train.html", context, status_of(e))
    return RedirectResponse(f"/train/{job.id}", status_code=303)


def _field_of(web: Web, fields: TrainForm, error: QarenaError) -> str | None:
    """The form field a refusal is about, found by its English words: in another language,
    the same checks run again in English (they start nothing) for the refusal's English
    text."""
    if language() == DEFAULT or isinstance(error, Full):
        return error_field(error, str(error))
    with speaking(DEFAULT):
        try:
            web.check_training(TrainIn(**fields.body()))
        except QarenaError as again:
            return error_field(again, str(again))
        except ValidationError:
            return None
    return None


@router.get("/train/opponents", response_class=HTMLResponse)
def train_opponents(
    request: Request, web: WebDep, game: str = "", opponent: str = "self"
) -> HTMLResponse:
    """The Opponent field for the game typed so far (htmx swaps it in as the game changes)."""
    form = {"game": game[:200], "opponent": opponent[:32]}
    context = {"form": form, "error": None, "opponent_choices": opponent_choices(web, game[:200])}
    return page(request, "_opponents.html", context)


@router.get("/train/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, job_id: str, web: WebDep, first: str | None = None) -> Response:
    job = web.jobs.get(job_id)
    first = first if first in ("human", "ai") else None
    if job.spot and job.state == "done":
        # Small games train before this page is asked for: go straight on to the game.
        return RedirectResponse(f"/train/{job_id}/play?first={first or job.first}", status_code=303)
    return page(request, "train.html", train_context(web, job, job_form(job), first=first))


@router.post("/train/{job_id}/stop")
def job_stop(job_id: str, web: WebDep) -> Response:
    web.jobs.cancel(web.jobs.get(job_id))
    return RedirectResponse(f"/train/{job_id}", status_code=303)


@router.get("/train/{job_id}/play")
def job_play(job_id: str, web: WebDep, first: str | None = None) -> Response:
    job = web.jobs.get(job_id)
    if job.policy is None:
        raise Conflict(_(job.error) if job.error else _("the agent is still training"))
    who = first if first in ("human", "ai") else job.first
    return to_game(web.games.new(web.agent(job.policy), who))
