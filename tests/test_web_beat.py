"""The game page's "Show me how to beat it" (issue 55), through FastAPI's TestClient, and the
best reply from a position under way it stands on (``best_reply(..., start=, certain=)``).

Facts from outside the code under test: a plain minimax over the game's rules and the agent's
own moves (no tables, no solver) gives the outcome from every position; games played through
the page, following the move it marks, end as it says (a trained agent that ties is beaten in
every game, whichever of its ties it picks; perfect play holds the draw, and every move the
page marks is one the solver says keeps it); and nothing is offered where it cannot be exact
and quick (a board solved by search, a player that thinks)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

import qarena
from qarena.agents.base import Player
from qarena.exact import solve
from qarena.games import parse_spec
from qarena.games.base import Game, Position
from qarena.judging.best_reply import best_reply
from qarena.learn.family import Trainable
from qarena.web import beating, create_app

HX = {"HX-Request": "true"}


@pytest.fixture(scope="module")
def weak() -> Trainable:
    """The issue's agent: a tic-tac-toe Q-table after 2,000 episodes, seed 7 (92.8% optimal;
    moving first, beaten from the start whichever of its tied moves it picks)."""
    return qarena.train("tictactoe", episodes=2000, seed=7)


@pytest.fixture(scope="module")
def untied() -> Trainable:
    """The same agent with its ties broken by noise far below its values' steps: it plays one
    move everywhere, so what can be forced against it is what it can be led to."""
    learner = qarena.train("tictactoe", episodes=2000, seed=7)
    q = learner.q  # type: ignore[attr-defined]
    q += np.random.default_rng(0).uniform(0, 1e-6, q.shape)
    return learner


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path_factory.mktemp("web"))) as c:
        yield c


# --- the best reply from a position under way, against a plain minimax ---------------------


def _may_play(player: Player, position: Position) -> list[int]:
    choices = getattr(player, "choices", None)
    return list(choices(position)) if callable(choices) else [player.act(position)]


def _minimax(game: Game, player: Player, certain: bool) -> Any:
    """The outcome for ``player`` from a position, who moves there given, against the strongest
    opponent, by recursion over the rules alone: at its turns its worst of the moves it may
    play (what it can be led to), or with ``certain`` its best (what is forced whichever it
    picks)."""

    @functools.cache
    def outcome(position: Position, agents_turn: bool) -> int:
        if game.is_terminal(position):
            end = game.result(position)  # for the player to move there
            return end if agents_turn else -end
        if agents_turn:
            found = [outcome(game.apply(position, m), False) for m in _may_play(player, position)]
            return max(found) if certain else min(found)
        return min(outcome(game.apply(position, m), True) for m in game.legal_moves(position))

    return outcome


def _positions(game: Game, count: int, seed: int) -> list[tuple[Position, int]]:
    """Positions under way, by random legal play from the start, with the plies to each."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        position, plies = game.start(), 0
        for _ in range(int(rng.integers(0, 7))):
            if game.is_terminal(position):
                break
            moves = game.legal_moves(position)
            position = game.apply(position, moves[int(rng.integers(len(moves)))])
            plies += 1
        if not game.is_terminal(position):
            found.append((position, plies))
    return found


@pytest.mark.parametrize("certain", [False, True])
def test_the_best_reply_from_a_position_under_way_is_a_plain_minimax(
    weak: Trainable, certain: bool
) -> None:
    player = qarena.player(weak)
    game = player.game
    outcome = _minimax(game, player, certain)
    for position, _plies in _positions(game, 12, seed=3):
        found = best_reply(player, start=position, certain=certain)
        for seat, reply in found.seats.items():
            agent_first = seat == "first"
            assert reply.secured == outcome(position, agent_first), (position, seat)
            # The line is a legal game from the position to its end, ending as it says, the
            # agent's moves among its own.
            here, agents_turn = position, agent_first
            for move in reply.line:
                assert move in game.legal_moves(here)
                if agents_turn:
                    assert move in _may_play(player, here)
                here, agents_turn = game.apply(here, move), not agents_turn
            assert game.is_terminal(here)
            end = game.result(here)
            assert (end if agents_turn else -end) == reply.secured
    # From the start, ``start`` changes nothing.
    plain, given = best_reply(player), best_reply(player, start=game.start())
    assert plain.to_json() == given.to_json()


# --- the game page ---------------------------------------------------------------------------


def _new(client: TestClient, **body: Any) -> str:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    gid: str = r.json()["id"]
    return gid


def _beat(page: str) -> tuple[str, str | None]:
    """The hint's words and the move marked on the board (None: none)."""
    found = re.search(r'<p id="beat-text">(.*?)</p>', page, re.S)
    assert found is not None, "no hint"
    words = unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()
    marked = re.findall(r'<g class="[^"]*\bsuggested\b[^"]*" data-move="([^"]+)"', page)
    assert len(marked) <= 1
    return words, marked[0] if marked else None


def _follow(client: TestClient, gid: str, expect: str) -> str:
    """Play the game to its end (its hint shown), each move the one the page marks, whose
    words must hold ``expect``; the game's result."""
    page = client.get(f"/games/{gid}", headers=HX).text
    while True:
        state = client.get(f"/api/games/{gid}").json()
        if state["result"] is not None:
            assert 'id="beat"' not in page  # nothing to show after the end
            return str(state["result"])
        words, move = _beat(page)
        assert expect in words, words
        assert move is not None and f'<strong class="beat-move">{move}</strong>' in page
        page = client.post(f"/games/{gid}/move", data={"move": move}, headers=HX).text


def test_following_the_marked_moves_beats_an_agent_in_either_seat(
    client: TestClient, untied: Trainable
) -> None:
    """Against the agent without ties, every game played by the marked moves ends in the
    person's win, whoever starts."""
    player = qarena.player(untied)
    outcome = _minimax(player.game, player, certain=True)
    # Beaten from the start in both seats, by the plain minimax.
    assert outcome(player.game.start(), True) == outcome(player.game.start(), False) == -1
    web = client.app.state.web  # type: ignore[attr-defined]
    policy = web.store.add(untied).id
    for first in ("ai", "human"):
        for seed in range(2):
            gid = _new(client, policy=policy, first=first, seed=seed)
            client.post(f"/games/{gid}/toggle/beat", headers=HX)
            result = _follow(client, gid, "it leads to a win against this AI, whichever of")
            assert result == "human", (first, seed)


def test_an_agent_that_ties_is_said_to_be_beatable_only_by_luck(
    client: TestClient, weak: Trainable
) -> None:
    """The issue's agent picks at random among tied moves: from the start no win can be forced
    against it, though it can be led to lose (the plain minimax says both)."""
    player = qarena.player(weak)
    game = player.game
    assert _minimax(game, player, certain=True)(game.start(), False) == 0
    assert _minimax(game, player, certain=False)(game.start(), False) == -1
    web = client.app.state.web  # type: ignore[attr-defined]
    gid = _new(client, policy=web.store.add(weak).id, first="human", seed=0)
    words, move = _beat(client.post(f"/games/{gid}/toggle/beat", headers=HX).text)
    assert words.startswith("You cannot force a win against this AI from here: the best you")
    assert "It may still lose" in words and move is not None


def test_against_perfect_play_the_page_says_it_cannot_be_beaten(client: TestClient) -> None:
    game = parse_spec("tictactoe")
    solution = solve(game)
    for first in ("human", "ai"):
        gid = _new(client, game="tictactoe", opponent="perfect", first=first, seed=1)
        page = client.post(f"/games/{gid}/toggle/beat", headers=HX).text
        words, move = _beat(page)
        assert words.startswith("This AI cannot be beaten from here: the best you can force is")
        # The move marked keeps the draw, as the solver says.
        position = game.parse_position(client.get(f"/api/games/{gid}").json()["position"])
        assert move is not None
        assert solution.move_outcomes(position)[game.parse_move(move)].value == 0
        assert _follow(client, gid, "cannot be beaten") == "draw"


def test_a_lost_position_and_a_won_one_are_said_so(client: TestClient) -> None:
    # Misère Nim 1-2 is won for the mover (take both of pile 2); 2-2 is lost for the mover.
    gid = _new(client, game="nim:1,2", opponent="perfect")
    words, move = _beat(client.post(f"/games/{gid}/toggle/beat", headers=HX).text)
    assert words == "Play 2:2: it leads to a win against this AI, whichever of its moves it picks."
    assert move == "2:2"
    gid = _new(client, game="nim:2,2", opponent="perfect")
    words, move = _beat(client.post(f"/games/{gid}/toggle/beat", headers=HX).text)
    assert words == "This AI cannot be beaten from here: it wins whatever you play."
    assert move is None


def test_it_is_offered_only_where_it_is_exact_and_quick(client: TestClient) -> None:
    gid = _new(client, game="tictactoe", opponent="perfect")
    assert 'id="toggle-beat"' in client.get(f"/games/{gid}").text
    # A player that thinks searches anew in each game; a board solved by search has no tables.
    for body in (
        {"game": "tictactoe", "opponent": "mcts:50", "seed": 0},
        {"game": "connect4", "opponent": "strongest"},
    ):
        gid = _new(client, **body)
        page = client.post(f"/games/{gid}/toggle/beat", headers=HX).text
        assert 'id="toggle-beat"' not in page and 'id="beat"' not in page


def test_it_is_worked_out_once_per_position_and_bounded_in_time(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = beating.Session.beating

    def counted(self: Any, certain: bool = True) -> Any:
        calls.append(1)
        return real(self, certain)

    monkeypatch.setattr(beating.Session, "beating", counted)
    gid = _new(client, game="tictactoe", opponent="perfect")
    client.post(f"/games/{gid}/toggle/beat", headers=HX)
    client.get(f"/games/{gid}")
    client.post(f"/games/{gid}/toggle/values", headers=HX)
    assert len(calls) == 2  # certain and possible, once for the position
    # Out of time: said so, and the game goes on as before.
    monkeypatch.setattr(beating, "BEAT_SECONDS", 0.0)
    page = client.post(f"/games/{gid}/move", data={"move": "b2"}, headers=HX).text
    words, move = _beat(page)
    assert words.startswith("How to beat it was not worked out within") and move is None
    assert client.get(f"/api/games/{gid}").json()["to_move"] == "human"


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("de", "Zeigen, wie man die KI schlägt"),
        ("ru", "Показать, как обыграть ИИ"),
    ],
)
def test_it_is_worded_in_each_language(client: TestClient, lang: str, words: str) -> None:
    gid = _new(client, game="nim:2,2", opponent="perfect")
    client.post(f"/games/{gid}/toggle/beat", headers=HX)
    page = client.get(f"/games/{gid}?lang={lang}").text
    assert words in page
    text, _move = _beat(page)
    assert "cannot" not in text and text


def test_a_page_of_its_own(tmp_path: Path) -> None:
    """The whole page (not htmx's panel) shows it too, after a reload."""
    with TestClient(create_app(tmp_path)) as c:
        gid = _new(c, game="nim:1,2", opponent="perfect")
        c.post(f"/games/{gid}/toggle/beat", headers=HX)
        page = c.get(f"/games/{gid}").text
        assert "<html" in page and _beat(page)[1] == "2:2"
