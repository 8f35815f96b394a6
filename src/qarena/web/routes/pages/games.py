"""The game page: a person's game against an agent, its board and side panel (htmx swaps the
panel on a click), its moves, undo, toggles and a new game, each done on a search thread where
it may search; the browser's running score, kept by a cookie."""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from qarena import threads
from qarena.errors import QarenaError
from qarena.exact import Exact, Outcome
from qarena.games import Game, value_name
from qarena.games.words import move_help, rules, sentence
from qarena.i18n import _
from qarena.match.session import Score
from qarena.show.svg import drawing_width, position_svg
from qarena.web.beating import beat_context
from qarena.web.describe import verdict_span
from qarena.web.errors import PageRoute
from qarena.web.exceptions import status_of
from qarena.web.play import Session
from qarena.web.routes.pages.responses import check_first, htmx, retry, to_game
from qarena.web.searches import Busy, bounded
from qarena.web.service import Web, WebDep
from qarena.web.templating import page

router = APIRouter(route_class=PageRoute, include_in_schema=False)


#: The solver of a game, as the pages ask for it: the web's kept solutions (``Web.kept``).
Solver = Callable[[Game], Exact]


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
        return to_game(session)
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
        retry(response, busy)
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
        check_first(first)
    old = web.games.get(game_id)

    def again() -> Response:
        with bounded(web.limits.move_seconds):  # perfect play's opening, when it opens
            session = web.games.new(old.agent, first or old.first)
        session.show_values, session.show_hint = old.show_values, old.show_hint
        session.show_beat = old.show_beat
        return to_game(session)

    if web.searching(old):
        return await web.searches.run(request, again)
    return await run_in_threadpool(again)


def _turn(game: Game, session: Session) -> str:
    if session.over:
        return ""
    if not session.humans_turn():
        return _("The AI's turn.")
    mark = game.seat(session.position)
    return _("Your turn: you play {mark}.").format(mark=mark) if mark else _("Your turn.")
