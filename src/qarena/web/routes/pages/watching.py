"""Watching two players: the Watch form and a duel's page, stepped one move at a time by the
page's timer or by hand, played, paused and restarted."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from qarena.agents.strategies import STRATEGIES
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.games import value_name, value_word
from qarena.games.words import rules, sentence
from qarena.i18n import _
from qarena.match.duel import LABELS, value_text
from qarena.show.svg import position_svg
from qarena.web.errors import PageRoute
from qarena.web.exceptions import NotFound, status_of
from qarena.web.forms import form_number
from qarena.web.play import DELAYS, Watch
from qarena.web.routes.pages.responses import htmx, retry
from qarena.web.searches import Busy, bounded
from qarena.web.service import Web, WebDep
from qarena.web.templating import page
from qarena.web.thinking import PRESETS

router = APIRouter(route_class=PageRoute, include_in_schema=False)


def _watch_form(**given: str) -> dict[str, str]:
    return {"a": "perfect", "b": "random", "game": "nim:3,5,7", "delay": "1.0", **given}


def _watch_page(request: Request, web: Web, form: dict[str, str], error: str | None) -> Response:
    context = {
        "form": form,
        "error": error,
        "builtins": [*STRATEGIES, "network"],
        # Every preset: the game is typed here, and a preset that does not play it is refused.
        "thinking": PRESETS,
        "policies": web.store.list(),
        "delays": list(DELAYS),
    }
    return page(request, "watch.html", context, 200 if error is None else 422)


@router.get("/watch", response_class=HTMLResponse)
def watch_page(request: Request, web: WebDep, a: str = "perfect", b: str = "random") -> Response:
    web.store.refresh()
    return _watch_page(request, web, _watch_form(a=a, b=b), None)


@router.post("/watch", response_class=HTMLResponse)
def watch_form(
    request: Request,
    web: WebDep,
    a: Annotated[str, Form()] = "perfect",
    b: Annotated[str, Form()] = "random",
    game: Annotated[str, Form()] = "nim:3,5,7",
    delay: Annotated[str, Form()] = "1.0",
) -> Response:
    form = _watch_form(a=a, b=b, game=game, delay=delay)
    try:
        watch = web.start_watch(a, b, game, form_number(delay, _("the pause"), float))
    except QarenaError as e:
        return _watch_page(request, web, form, sentence(str(e)))
    return RedirectResponse(f"/watch/{watch.id}", status_code=303)


def _watch_panel(w: Watch) -> dict[str, Any]:
    game = w.game
    last = None
    if w.turns:
        turn = w.turns[-1]
        label = LABELS[turn.mover]
        seat = game.seat(turn.position)
        rows = []
        if turn.values is not None:
            mover = w.players[turn.mover]
            rows = [
                {
                    "move": game.format_move(m),
                    "value": value_text(mover, v),
                    "played": m == turn.move,
                    "verdict": value_name(turn.verdicts[m]),
                    "verdict_text": value_word(turn.verdicts[m]),
                }
                for m, v in turn.values.items()
            ]
        last = {
            "label": label,
            "text": (
                _("{player} ({mark}) played {move}") if seat else _("{player} played {move}")
            ).format(player=label, mark=seat, move=game.format_move(turn.move)),
            "verdict": turn.verdict,
            "class": value_name(turn.after) if turn.kept else "loss",
            "rows": rows,
        }
    result = w.result_text() if w.over else None
    turn_text = "" if w.over else _("{player} to move.").format(player=LABELS[w.mover()])
    history = [
        {
            "mover": t.mover,
            "label": LABELS[t.mover],
            "move": game.format_move(t.move),
            "kept": t.kept,
            "verdict": t.verdict,
        }
        for t in w.turns
    ]
    return {
        "w": w,
        "game": game,
        "labels": LABELS,
        "svg": Markup(
            position_svg(game, w.position, None, before=w.turns[-1].position if w.turns else None)
        ),
        "last": last,
        "result": result,
        "turn": turn_text,
        "history": history,
        "rules": rules(game),
        # A finished game stays on the board a little longer before the next one.
        "pause": int(1000 * w.delay * (3 if w.over else 1)),
    }


def _watch_act(
    request: Request, web: Web, watch_id: str, action: Callable[[Watch], object]
) -> Response:
    busy: Busy | None = None
    with web.watches.playing(watch_id) as w:
        try:
            with bounded(web.limits.move_seconds):
                action(w)
        except Busy as e:
            # A step works everything out before it changes the duel: nothing to put back.
            busy = e
        context = _watch_panel(w)
    if busy is not None:
        # Said where the turn is; a running duel's timer asks for the step again.
        context["turn"] = sentence(str(busy))
    status = 200 if busy is None else status_of(busy)
    if htmx(request):
        return retry(page(request, "_watch_panel.html", context, status), busy)
    if request.method == "POST" and busy is None:
        return RedirectResponse(f"/watch/{watch_id}", status_code=303)
    return retry(page(request, "watch_game.html", context, status), busy)


@router.get("/watch/{watch_id}", response_class=HTMLResponse)
def watch_game(request: Request, watch_id: str, web: WebDep) -> Response:
    return _watch_act(request, web, watch_id, lambda w: None)


@router.post("/watch/{watch_id}/step", response_class=HTMLResponse)
async def watch_step(
    request: Request, watch_id: str, web: WebDep, at: str = Form(""), auto: str = Form("")
) -> Response:
    """One move at ply ``at``. A step the page's timer asks for (``auto``) plays only while
    the duel is running, so a Pause that crossed it on the way is kept to. On a board solved
    by search the step (a perfect player's move, the solver's verdict) goes through the
    search gate, as moves against perfect play do."""
    ply = int(at) if at.isascii() and at.isdigit() and len(at) < 8 else -1

    def step(w: Watch) -> None:
        if not auto or w.running:
            w.advance(ply)

    work = functools.partial(_watch_act, request, web, watch_id, step)
    watch = web.watches.get(watch_id)
    if Oracle.of(watch.game).searched or any(p.thinks for p in watch.players):
        return await web.searches.run(request, work)
    return await run_in_threadpool(work)


@router.post("/watch/{watch_id}/{action}", response_class=HTMLResponse)
def watch_control(request: Request, watch_id: str, action: str, web: WebDep) -> Response:
    def act(w: Watch) -> None:
        if action == "play":
            w.running = True
        elif action == "pause":
            w.running = False
        elif action == "restart":
            w.new_game(w.a_first)
        else:
            raise NotFound(_("nothing to do called {action!r}").format(action=action))

    return _watch_act(request, web, watch_id, act)
