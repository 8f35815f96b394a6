"""Watching two agents in the browser's pages: each step plays exactly one move, named by the
ply it was asked at (so two tabs never play two), and the solver judges every move."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from qarena.web import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path)) as c:
        yield c


def _start(client: TestClient, **form: str) -> str:
    r = client.post("/watch", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert re.fullmatch(r"/watch/[0-9a-f]{16}", location)
    return location


def _history(text: str) -> list[str]:
    return re.findall(r"<li class=\"mover-\d[^\"]*\">([^<]*)</li>", text)


HX = {"HX-Request": "true"}


def test_perfect_against_perfect_keeps_every_value_and_the_opener_wins(
    client: TestClient,
) -> None:
    url = _start(client, a="perfect", b="perfect", game="nim:3,5,7", delay="0.25")
    plies = 0
    while True:
        r = client.post(f"{url}/step", data={"at": str(plies)}, headers=HX)
        assert r.status_code == 200
        moves = _history(r.text)
        if 'id="result"' in r.text:
            break
        assert len(moves) == plies + 1
        plies += 1
    # Misère 3-5-7 is won by the opener: A opens the first game, and perfect play keeps it.
    assert "A wins." in r.text and "A won 1, drew 0, B won 0" in r.text
    assert "mistake" not in r.text
    assert all(" — " not in m for m in moves)


def test_a_stale_step_plays_nothing(client: TestClient) -> None:
    url = _start(client, a="random", b="perfect", game="tictactoe")
    first = client.post(f"{url}/step", data={"at": "0"}, headers=HX)
    assert len(_history(first.text)) == 1
    # The same request again, as from a second tab that had not seen the move: no move.
    again = client.post(f"{url}/step", data={"at": "0"}, headers=HX)
    assert _history(again.text) == _history(first.text)
    later = client.post(f"{url}/step", data={"at": "1"}, headers=HX)
    assert len(_history(later.text)) == 2


def test_playing_asks_for_the_next_move_and_pausing_stops(client: TestClient) -> None:
    url = _start(client, a="random", b="random", game="nim", delay="0.5")
    page = client.get(url)
    assert 'id="ticker"' not in page.text and 'id="play"' in page.text
    playing = client.post(f"{url}/play", headers=HX)
    assert 'hx-trigger="load delay:500ms"' in playing.text
    assert 'id="pause"' in playing.text
    paused = client.post(f"{url}/pause", headers=HX)
    assert 'id="ticker"' not in paused.text


def test_the_timers_step_after_a_pause_plays_nothing(client: TestClient) -> None:
    url = _start(client, a="random", b="random", game="nim", delay="0.5")
    playing = client.post(f"{url}/play", headers=HX)
    ticker = re.search(r"<div id=\"ticker\"[^>]*hx-vals='([^']*)'", playing.text)
    assert ticker is not None
    asked = json.loads(ticker.group(1))
    assert asked == {"at": 0, "auto": 1}
    # The Pause overtakes the timer's step: the step then plays nothing, and says paused.
    client.post(f"{url}/pause", headers=HX)
    late = client.post(f"{url}/step", data={k: str(v) for k, v in asked.items()}, headers=HX)
    assert _history(late.text) == [] and 'id="play"' in late.text
    # The Step button still plays a move on a paused duel.
    stepped = client.post(f"{url}/step", data={"at": "0"}, headers=HX)
    assert len(_history(stepped.text)) == 1


def test_a_trained_agent_shows_its_values(client: TestClient, tmp_path: Path) -> None:
    # A policy trained on the spot by playing, then watched against the pole strategy.
    r = client.post("/api/games", json={"game": "nim:3,5,7", "first": "human"})
    assert r.status_code in (200, 201, 202), r.text
    policies = client.get("/api/policies").json()
    deadline = 0
    while not policies and deadline < 200:
        time.sleep(0.05)
        policies = client.get("/api/policies").json()
        deadline += 1
    policy = policies[0]["id"]
    url = _start(client, a=policy, b="poles", game="")
    r = client.post(f"{url}/step", data={"at": "0"}, headers=HX)
    assert 'id="mover-values"' in r.text and "← played" in r.text


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"a": "bouton", "b": "random", "game": "tictactoe"}, "does not play tictactoe"),
        ({"a": "random", "b": "random", "game": "nim:60000,60000,60000"}, "too big"),
        ({"a": "random", "b": "random", "game": "nim", "delay": "7"}, "pause between moves"),
        ({"a": "0123456789ab", "b": "random", "game": "nim"}, "no policy"),
    ],
)
def test_bad_watches_say_why(client: TestClient, form: dict[str, str], says: str) -> None:
    r = client.post("/watch", data=form)
    assert r.status_code in (404, 422)
    assert says.lower() in html.unescape(r.text).lower()
