"""The pages a person's browser shows: the home form, games (htmx swaps the panel on a click),
training runs and stored policies. Their errors are pages too (see ``PageRoute``)."""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from qarena import threads
from qarena.agents.strategies import STRATEGIES
from qarena.errors import QarenaError
from qarena.evaluate.svg import drawing_width, position_svg
from qarena.exact import Exact, Oracle, Outcome
from qarena.games import Game, value_name, value_word
from qarena.games.words import move_help, rules, sentence
from qarena.i18n import DEFAULT, _, check_language, language, speaking
from qarena.match.duel import LABELS, value_text
from qarena.match.session import Conflict, Score
from qarena.web.beating import beat_context
from qarena.web.describe import verdict_span
from qarena.web.errors import PageRoute, validation_text
from qarena.web.exceptions import Full, NotFound, status_of
from qarena.web.forms import (
    TRAIN_DEFAULTS,
    HomeForm,
    TrainForm,
    form_number,
    game_spec,
    home_defaults,
    home_values,
    opponent_of,
)
from qarena.web.jobs import Job
from qarena.web.language import keep as keep_language
from qarena.web.language import local_path
from qarena.web.models import TrainIn
from qarena.web.play import DELAYS, Session, Watch
from qarena.web.searches import Busy, bounded
from qarena.web.service import Web, WebDep
from qarena.web.templating import page
from qarena.web.thinking import PRESETS
from qarena.web.upload import UPLOAD_PATH, receive_policy, size_text
from qarena.web.views import (
    compare_context,
    error_field,
    inspect_context,
    job_form,
    opponent_choices,
    train_context,
)

router = APIRouter(route_class=PageRoute, include_in_schema=False)

#: The solver of a game, as the pages ask for it: the web's kept solutions (``Web.kept``).
Solver = Callable[[Game], Exact]


def htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def _check_first(first: str) -> None:
    if first not in ("human", "ai"):
        raise QarenaError(_("who starts is 'human' or 'ai', not {first!r}").format(first=first))


def _to_game(session: Session) -> RedirectResponse:
    return RedirectResponse(f"/games/{session.id}", status_code=303)


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
        _check_first(first)
        got = web.opponent_for(game_spec(fields), first, opponent_of(fields))
        if isinstance(got, Job):
            # The run may be shared with someone who chose another opener: say ours.
            mine = "" if first == got.first else f"?first={first}"
            return RedirectResponse(f"/train/{got.id}{mine}", status_code=303)
        with bounded(web.limits.move_seconds):  # perfect play's opening, when it opens
            session = web.games.new(got, first)
    except QarenaError as e:
        return _home_refusal(request, fields, e)
    return _to_game(session)


def _home_refusal(request: Request, fields: HomeForm, e: QarenaError) -> Response:
    context = {"form": home_values(fields), "error": sentence(str(e))}
    return _retry(page(request, "home.html", context, status_of(e)), e)


def _retry(response: Response, e: QarenaError | None) -> Response:
    """The response, with Retry-After when it says the server is busy for a while."""
    if isinstance(e, Full) and e.retry_after is not None:
        response.headers["Retry-After"] = str(e.retry_after)
    return response


# --- games -------------------------------------------------------------------------------

#: The cookie naming a browser, for its running score: a random id, HttpOnly and SameSite=Lax,
#: gone when the browser closes.
BROWSER_COOKIE = "qarena_browser"
_BROWSER_ID = re.compile(r"[0-9a-f]{32}")


def _browser(request: Request) -> tuple[str, bool]:
    """The browser's id, and whether it is new (its cookie still to be set)."""
    given = request.cookies.get(BROWSER_COOKIE, "")
    if _BROWSER_ID.fullmatch(given):
        return given, False
    return secrets.token_hex(16), True


def _panel(
    session: Session,
    score: Score,
    solver: Solver,
    error: str | None = None,
    beat_offered: bool = False,
) -> dict[str, Any]:
    game, position, agent = session.game, session.position, session.agent
    beat = beat_context(session, beat_offered)
    legal = game.legal_moves(position)
    # The solver's outcomes, as a hint beside a learned agent's values; perfect play's own
    # values are the solver's, so it needs no hint.
    hint = session.show_hint and not session.perfect
    outcomes: dict[int, Outcome] = solver(game).move_outcomes(position) if hint and legal else {}
    verdict = None
    if legal and (hint or (session.perfect and session.show_values)):
        verdict = solver(game).value_of(position)
    # A move shows #thinking until answered, and no other action is sent meanwhile.
    clickable = {
        "hx-post": f"/games/{session.id}/move",
        "hx-indicator": "#thinking",
        "hx-disabled-elt": "#game-panel button",
    }
    rows = [
        {
            "move": game.format_move(m),
            "value": agent.value_text(position, m) if session.show_values else "",
            "best": agent.would_play(position, m),
            "verdict": value_name(outcomes[m].value) if m in outcomes else None,
            "verdict_text": outcomes[m].words() if m in outcomes else None,
        }
        for m in legal
    ]
    reply = session.last_reply
    best = sum(1 for r in rows if r["best"])
    best_texts = {r["value"] for r in rows if r["best"]}
    return {
        **_ai_values(session, solver),
        "s": session,
        "game": game,
        "svg": Markup(
            position_svg(
                game,
                position,
                clickable,
                before=None if reply is None else reply.position,
                suggested=None if beat is None else beat.get("move"),
            )
        ),
        "beat": beat,
        "beat_offered": beat_offered,
        "rows": rows,
        # The AI's values of the person's moves: a thinking player has none (it thinks on its
        # own turns only), so its column and the "←" note are left out rather than empty.
        "own_values": session.show_values and (best > 0 or not session.thinking),
        "hint": hint,
        # "←" picks out the AI's choice; when every move ties, it would pick out nothing.
        "best_count": best,
        "mark_best": best == 1 or best < len(rows),
        # Perfect play's values are verdicts: every move may keep the game's value ("loss")
        # while the distances differ ("loss in 3", "loss in 12"), which is not "the same".
        "best_apart": len(best_texts) > 1,
        # The board side is as wide as its drawing (Connect Four's 7 columns), no wider: the
        # rest of the row goes to the side panel's tables.
        "board_width": drawing_width(game),
        "legend": agent.value_legend(),
        "verdict": None if verdict is None else value_name(verdict),
        "verdict_span": None if verdict is None else verdict_span(verdict),
        "error": error,
        "result": session.result_text(),
        "ai_move": session.ai_text(),
        "turn": _turn(game, session),
        "rules": rules(game),
        "move_help": game.click_help(),
        "type_help": move_help(game, position) if legal else "",
        "score": score,
        "other": "ai" if session.first == "human" else "human",
    }


def _ai_values(session: Session, solver: Solver) -> dict[str, Any]:
    """The AI's own values where it last moved, when the values are shown. Read from
    ``last_reply``, which is rebuilt from the game's positions: after an undo, a new game or
    a move in another tab the table is that of the move on the board."""
    reply = session.last_reply if session.show_values else None
    if reply is None:
        return {"ai_rows": [], "ai_tied": None, "ai_tied_apart": False}
    game, agent = session.game, session.agent
    # The solver's outcomes here are for the AI, the one to move where it chose.
    hint = session.show_hint and not session.perfect
    outcomes = solver(game).move_outcomes(reply.position) if hint else {}
    rows = [
        {
            "move": game.format_move(m),
            "value": agent.value_text(reply.position, m, "ai"),
            "played": m == reply.move,
            "verdict": value_name(outcomes[m].value) if m in outcomes else None,
            "verdict_text": outcomes[m].words("ai") if m in outcomes else None,
        }
        for m in reply.values
    ]
    tied = [game.format_move(m) for m in reply.best] if reply.tied else None
    # Tied by value, perhaps at different distances (perfect play: "win in 4", "win in 16").
    texts = {agent.value_text(reply.position, m, "ai") for m in reply.best}
    return {"ai_rows": rows, "ai_tied": tied, "ai_tied_apart": len(texts) > 1}


def _game_response(
    request: Request, web: Web, session: Session, score: Score, error: str | None, status: int
) -> Response:
    context = _panel(session, score, web.kept.get, error, web.offers_beat(session))
    if htmx(request):
        return page(request, "_panel.html", context, status)
    if error is None and request.method == "POST":
        return _to_game(session)
    return page(request, "game.html", context, status)


async def _act(
    request: Request,
    web: Web,
    game_id: str,
    action: Callable[[Session], object],
    hint: bool = False,
) -> Response:
    """Do ``action`` to the game and show it: on a search thread when that may search
    (``hint``: the action may show the solver's verdicts), else on a worker thread."""
    work = functools.partial(_act_now, request, web, game_id, action)
    if web.searching(web.games.get(game_id), hint):
        return await web.searches.run(request, work)
    return await run_in_threadpool(work)


def _act_now(
    request: Request, web: Web, game_id: str, action: Callable[[Session], object]
) -> Response:
    """Do ``action`` to the game and show it; a refused action is shown in the game. The game's
    result goes to the running score of the browser playing it: the first to open it. When
    perfect play's search is given up (its time limit), the game is put back as it was and
    shown so, with why."""
    browser, new = _browser(request)
    error: str | None = None
    status = 200
    busy: Busy | None = None
    seconds = web.limits.move_seconds
    with web.games.playing(game_id) as session:
        if session.owner is None:
            session.owner = browser
        before = session.snapshot()

        def show() -> Response:
            if session.owner == browser:
                web.scores.record(browser, session)
            score = web.scores.score(browser, session.game.spec)
            return _game_response(request, web, session, score, error, status)

        try:
            with bounded(seconds):
                try:
                    action(session)
                except QarenaError as e:
                    if isinstance(e, threads.Stopped | Busy):
                        raise  # given up midway: the game is put back as it was
                    error, status = sentence(str(e)), status_of(e)
                response = show()
        except Busy as e:
            session.restore(before)
            busy, error, status = e, sentence(str(e)), status_of(e)
            # The game as it was: its verdicts were shown before, so they are kept.
            with bounded(seconds):
                response = show()
        _retry(response, busy)
    if new:
        response.set_cookie(
            BROWSER_COOKIE,
            browser,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
    return response


@router.get("/games/{game_id}", response_class=HTMLResponse)
async def game_page(request: Request, game_id: str, web: WebDep) -> Response:
    return await _act(request, web, game_id, lambda s: None)


@router.post("/games/{game_id}/move", response_class=HTMLResponse)
async def game_move(request: Request, game_id: str, web: WebDep, move: str = Form("")) -> Response:
    return await _act(request, web, game_id, lambda s: s.play(move))


@router.post("/games/{game_id}/undo", response_class=HTMLResponse)
async def game_undo(request: Request, game_id: str, web: WebDep) -> Response:
    return await _act(request, web, game_id, lambda s: s.undo())


@router.post("/games/{game_id}/toggle/{what}", response_class=HTMLResponse)
async def game_toggle(request: Request, game_id: str, what: str, web: WebDep) -> Response:
    def flip(s: Session) -> None:
        if what == "values":
            s.show_values = not s.show_values
        elif what == "hint":
            s.show_hint = not s.show_hint
        elif what == "beat":
            s.show_beat = not s.show_beat
        else:
            raise QarenaError(_("nothing to toggle called {what!r}").format(what=what))

    return await _act(request, web, game_id, flip, hint=what == "hint")


@router.get("/games/{game_id}/new")
async def game_again(
    request: Request, game_id: str, web: WebDep, first: str | None = None
) -> Response:
    """A new game against the same agent, opened by the same player or by ``first`` (what
    "Switch sides" asks for)."""
    if first is not None:
        _check_first(first)
    old = web.games.get(game_id)

    def again() -> Response:
        with bounded(web.limits.move_seconds):  # perfect play's opening, when it opens
            session = web.games.new(old.agent, first or old.first)
        session.show_values, session.show_hint = old.show_values, old.show_hint
        session.show_beat = old.show_beat
        return _to_game(session)

    if web.searching(old):
        return await web.searches.run(request, again)
    return await run_in_threadpool(again)


# --- watching two agents ------------------------------------------------------------------


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
        return _retry(page(request, "_watch_panel.html", context, status), busy)
    if request.method == "POST" and busy is None:
        return RedirectResponse(f"/watch/{watch_id}", status_code=303)
    return _retry(page(request, "watch_game.html", context, status), busy)


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


# --- training ----------------------------------------------------------------------------


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
    return _to_game(web.games.new(web.agent(job.policy), who))


# --- stored policies ---------------------------------------------------------------------


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
    _check_first(first)
    return _to_game(web.games.new(web.agent(policy_id), first))


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


# --- words for the pages -----------------------------------------------------------------


def _turn(game: Game, session: Session) -> str:
    if session.over:
        return ""
    if not session.humans_turn():
        return _("The AI's turn.")
    mark = game.seat(session.position)
    return _("Your turn: you play {mark}.").format(mark=mark) if mark else _("Your turn.")
