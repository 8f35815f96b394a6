"""The web app through FastAPI's TestClient: the JSON API, the policy store, server-sent
events and the pages' DOM contract. Each test has its own data folder."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from qarena.budget import MAX_SIDE
from qarena.errors import SpecError
from qarena.exact import solve
from qarena.games import DRAW, WIN, parse_spec, value_name
from qarena.learn.learners import load_learner
from qarena.web import create_app
from tests.conftest import at


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path)) as c:
        yield c


def new_game(client: TestClient, spec: str, first: str = "human", **extra: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": spec, "first": first, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def move(client: TestClient, game_id: str, text: str) -> dict[str, Any]:
    r = client.post(f"/api/games/{game_id}/moves", json={"move": text})
    assert r.status_code == 200, r.text
    return r.json()


def best_move(spec: str, state: dict[str, Any]) -> str:
    """The solver's best move for the person in the state's position."""
    game = parse_spec(spec)
    position = game.parse_position(state["position"])
    return game.format_move(solve(game).optimal_moves(position)[0])


def wait_job(client: TestClient, job: str, timeout: float = 20) -> dict[str, Any]:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        snap = client.get(f"/api/train/{job}").json()
        if snap["state"] not in ("queued", "running"):
            return snap
        time.sleep(0.05)
    raise AssertionError("training did not end")


# --- complete games ---------------------------------------------------------------------


def test_nim_1_2_misere_the_first_move_2_2_wins_whatever_the_ai_does(client: TestClient) -> None:
    game = parse_spec("nim:1,2")
    assert solve(game).move_values(game.start())[game.parse_move("2:2")] == WIN
    state = new_game(client, "nim:1,2")
    assert state["to_move"] == "human" and state["legal_moves"] == ["1:1", "2:1", "2:2"]
    assert set(state["q"]) == set(state["legal_moves"])
    state = move(client, state["id"], "2:2")
    # The AI must take the last match, which loses in misère play.
    assert state["history"] == ["2:2", "1:1"] and state["ai_move"] == "1:1"
    assert state["result"] == "human" and state["to_move"] is None
    assert state["legal_moves"] == [] and state["position"] == "0 0"


@pytest.mark.parametrize("spec", ["nim:3,5,7", "nim:2,3:normal", "subtraction:12:3", "tictactoe"])
def test_playing_the_solvers_moves_gets_the_games_value(client: TestClient, spec: str) -> None:
    """The person plays perfectly against a perfectly trained agent: the result is the start's
    value for whoever moves first (the person here)."""
    state = new_game(client, spec)
    assert client.get(f"/api/policies/{state['policy']}").json()["optimality"] == 1.0
    while state["result"] is None:
        state = move(client, state["id"], best_move(spec, state))
    expected = {1: "human", 0: "draw", -1: "ai"}[solve(parse_spec(spec)).start_value]
    assert state["result"] == expected
    assert client.get(f"/api/games/{state['id']}").json() == state


@pytest.mark.parametrize("seed", range(4))
def test_the_person_cannot_beat_a_perfect_tictactoe_agent(client: TestClient, seed: int) -> None:
    rng = random.Random(seed)
    for first in ("human", "ai"):
        state = new_game(client, "tictactoe", first)
        while state["result"] is None:
            state = move(client, state["id"], rng.choice(state["legal_moves"]))
        assert state["result"] in ("ai", "draw")


def test_the_ai_opens_when_it_moves_first(client: TestClient) -> None:
    state = new_game(client, "tictactoe", "ai")
    assert len(state["history"]) == 1 and state["ai_move"] == state["history"][0]
    assert state["to_move"] == "human" and len(state["legal_moves"]) == 8
    assert state["position"].count("x") == 1
    # The perfect heap agent opens with a winning move in nim 3-5-7 (a first-player win).
    state = new_game(client, "nim:3,5,7", "ai")
    game = parse_spec("nim:3,5,7")
    assert solve(game).value_of(game.parse_position(state["position"])) == -WIN


def test_undo_takes_back_the_persons_move_and_the_reply(client: TestClient) -> None:
    state = new_game(client, "tictactoe", "ai")
    opening = state["position"]
    state = move(client, state["id"], state["legal_moves"][0])
    assert len(state["history"]) == 3
    r = client.post(f"/api/games/{state['id']}/undo")
    assert r.status_code == 200 and r.json()["position"] == opening
    assert r.json()["history"] == state["history"][:1]
    r = client.post(f"/api/games/{state['id']}/undo")
    assert r.status_code == 409 and "Nothing to undo" in r.json()["detail"]


def test_a_named_policy_plays(client: TestClient) -> None:
    policy = new_game(client, "nim:1,2")["policy"]
    state = new_game(client, "nim:1,2", policy=policy)
    assert state["policy"] == policy
    r = client.post("/api/games", json={"policy": policy})
    assert r.status_code == 200 and r.json()["game"] == "nim:1,2"
    r = client.post("/api/games", json={"game": "nim:3,5,7", "policy": policy})
    assert r.status_code == 422 and "nim:1,2" in r.json()["detail"]


# --- perfect play --------------------------------------------------------------------------

#: Classic Connect Four's opening moves with perfect play after them (Allis 1988, Tromp): the
#: centre column wins for the first player, its 41st stone the last at the latest (the 21st of
#: the first player's); the columns beside it draw; the other four lose.
CLASSIC_OPENINGS = {"d": ("win", 41), "c": ("draw", 42), "e": ("draw", 42)}


def test_classic_connect_four_plays_perfect_play_from_the_home_menu(client: TestClient) -> None:
    home = client.get("/").text
    assert 'value="classic"' in home and 'name="opponent"' in home
    r = client.post("/play", data={"kind": "classic", "first": "human"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/games/"), r.text
    gid = r.headers["location"].split("/")[-1]
    state = client.get(f"/api/games/{gid}").json()
    # A person choosing perfect play meets it at its strongest (issue 36).
    assert state["game"] == "connect4:6x7:4" and state["opponent"] == "strongest"
    assert state["policy"] is None
    outcomes = state["outcomes"]
    for column, (value, plies) in CLASSIC_OPENINGS.items():
        assert outcomes[column]["value"] == value
        if value == "win":
            assert outcomes[column]["plies"] == plies
    assert all(outcomes[c]["value"] == "loss" for c in "abfg")
    # The page says the same in words: the winner's moves to the end, the person's here.
    page = client.get(f"/games/{gid}").text
    values = table_rows(page, "values")
    assert values is not None
    cells = {c[0]: c[1] for _, c in values.rows[1:]}
    assert cells["d"].startswith("win in 21 of your moves")
    assert cells["c"] == cells["e"] == "draw"
    assert all(cells[c].startswith("loss in ") for c in "abfg")
    # Its values are the solver's: no hint to ask for; the note says whom the person plays.
    has_ids(page, "opponent-note", "toggle-values", "undo")
    assert 'id="toggle-hint"' not in page
    htmx = {"HX-Request": "true"}
    r = client.post(f"/games/{gid}/move", data={"move": "d"}, headers=htmx)
    assert r.status_code == 200
    state = client.get(f"/api/games/{gid}").json()
    # It holds out longest: d, "loss in 20" of the person's moves, not g, "loss in 17".
    assert state["history"] == ["d", "d"]
    # Whatever perfect play answered, the person keeps the win with the best of the moves.
    assert "win" in {o["value"] for o in state["outcomes"].values()}
    ai_values = table_rows(r.text, "ai-values")
    assert ai_values is not None and len(ai_values.rows) == 1 + 7
    assert all(c[1].startswith("loss") for _, c in ai_values.rows[1:])  # the AI is lost
    r = client.post(f"/games/{gid}/undo", headers=htmx)
    assert client.get(f"/api/games/{gid}").json()["history"] == []
    # Switch sides: perfect play opens, in the centre, its only winning move.
    r = client.get(f"/games/{gid}/new?first=ai", follow_redirects=False)
    opened = client.get(r.headers["location"].replace("/games/", "/api/games/")).json()
    assert opened["opponent"] == "strongest" and opened["history"] == ["d"]


def test_perfect_play_is_an_opponent_on_small_games_and_cannot_be_beaten(
    client: TestClient,
) -> None:
    spec = "tictactoe"
    state = new_game(client, spec, opponent="perfect", seed=3)
    assert state["opponent"] == "perfect" and state["policy"] is None
    while state["result"] is None:
        state = move(client, state["id"], best_move(spec, state))
    assert state["result"] == "draw"  # tic-tac-toe is a draw (and perfect play keeps it)
    form = {"kind": "nim", "piles": "1,2", "rule": "misere", "opponent": "perfect", "first": "ai"}
    r = client.post("/play", data=form, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/games/")


def test_what_perfect_play_refuses(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "connect4:6x7", "opponent": "trained"})
    assert r.status_code == 422 and "perfect play" in r.json()["detail"]
    r = client.post("/api/games", json={"game": "nim:1,2", "opponent": "someone"})
    assert r.status_code == 422
    policy = new_game(client, "nim:1,2")["policy"]
    r = client.post("/api/games", json={"policy": policy, "opponent": "perfect"})
    assert r.status_code == 422 and "policy" in r.json()["detail"]
    r = client.post("/play", data={"kind": "nim", "piles": "1,2", "opponent": "someone"})
    assert r.status_code == 422 and "opponent" in r.text


# --- errors -----------------------------------------------------------------------------


def test_error_codes(client: TestClient) -> None:
    r = client.get("/api/games/nosuchgame")
    assert r.status_code == 404 and "no game" in r.json()["detail"]
    r = client.post("/api/games/nosuchgame/moves", json={"move": "1:1"})
    assert r.status_code == 404

    state = new_game(client, "nim:3,5,7")
    gid = state["id"]
    for bad in ("zz", "9:1", "1:4", ""):
        r = client.post(f"/api/games/{gid}/moves", json={"move": bad})
        assert r.status_code == 422 and isinstance(r.json()["detail"], str), bad
    r = client.post(f"/api/games/{gid}/moves", json={"mv": "1:1"})
    assert r.status_code == 422 and "move" in r.json()["detail"]
    r = client.post(
        f"/api/games/{gid}/moves",
        content=b"{not json",
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 422

    # Illegal: a pile emptied earlier (pile 1 stays empty whatever the AI replies).
    state = move(client, gid, "1:3")
    r = client.post(f"/api/games/{gid}/moves", json={"move": "1:1"})
    assert r.status_code == 422 and r.json()["detail"] == "Pile 1 is empty."
    assert client.get(f"/api/games/{gid}").json() == state  # nothing changed

    t = new_game(client, "tictactoe")
    after = move(client, t["id"], "b2")
    taken = next(m for m in ("b2", after["ai_move"]) if m)
    r = client.post(f"/api/games/{t['id']}/moves", json={"move": taken})
    assert r.status_code == 422 and "taken" in r.json()["detail"]

    over = new_game(client, "nim:1,2")
    move(client, over["id"], "2:2")
    r = client.post(f"/api/games/{over['id']}/moves", json={"move": "1:1"})
    assert r.status_code == 409 and "over" in r.json()["detail"]

    for spec in ("chess", "nim:0", "tictactoe:3x3:9", "nim:1,2:sideways", "tictactoe:7x7:5"):
        r = client.post("/api/games", json={"game": spec})
        assert r.status_code == 422 and isinstance(r.json()["detail"], str), spec
    # Too big to train here, but solved by search: a trained agent is refused.
    r = client.post("/api/games", json={"game": "tictactoe:5x5", "opponent": "trained"})
    assert r.status_code == 422 and "perfect play" in r.json()["detail"]
    r = client.post("/api/games", json={"game": "nim", "first": "nobody"})
    assert r.status_code == 422
    r = client.post("/api/games", json={"game": "nim:1,2", "policy": "0123456789ab"})
    assert r.status_code == 404 and "no policy" in r.json()["detail"]
    r = client.post("/api/games", json={"game": "nim:1,2", "policy": "../../etc"})
    assert r.status_code == 404
    assert client.get("/api/policies/0123456789ab").status_code == 404
    assert client.get("/policies/0123456789ab/download").status_code == 404
    assert client.delete("/api/policies/0123456789ab").status_code == 404
    assert client.get("/api/train/nosuchjob").status_code == 404
    assert client.get("/train/nosuchjob/events").status_code == 404


def test_bodies_over_16_kb_are_refused(client: TestClient) -> None:
    big = {"game": "nim", "padding": "x" * 17_000}
    r = client.post("/api/games", json=big)
    assert r.status_code == 413 and "16 KB" in r.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the middleware counts what arrives
        for _ in range(20):
            yield b" " * 1024

    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    # Just under the limit is read as usual.
    r = client.post("/api/games", json={"game": "nim:1,2", "pad": "x" * 15_000})
    assert r.status_code == 200


def test_at_the_cap_a_new_game_pushes_out_the_least_recently_used(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, max_games=3)) as client:
        a, b, c = (new_game(client, "nim:1,2") for _ in range(3))
        client.get(f"/api/games/{a['id']}")  # a is touched: b is now the least recently used
        # Open games never block a new one: the cap makes room.
        for _ in range(2):
            d = new_game(client, "nim:1,2")
            assert client.get(f"/api/games/{d['id']}").status_code == 200
        # b went first, then c; a (touched) and the two newest stay.
        assert client.get(f"/api/games/{b['id']}").status_code == 404
        assert client.get(f"/api/games/{c['id']}").status_code == 404
        assert client.get(f"/api/games/{a['id']}").status_code == 200
        assert len(client.app.state.web.games) == 3  # type: ignore[attr-defined]


def test_idle_games_expire(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, idle_seconds=1.0)) as client:
        idle = new_game(client, "nim:1,2")
        busy = new_game(client, "nim:1,2")
        for _ in range(3):  # a touch now and then keeps a game
            time.sleep(0.4)
            assert client.get(f"/api/games/{busy['id']}").status_code == 200
        r = client.get(f"/api/games/{idle['id']}")
        assert r.status_code == 404 and "without a move" in r.json()["detail"]
        r = client.post(f"/api/games/{idle['id']}/moves", json={"move": "2:2"})
        assert r.status_code == 404
        assert move(client, busy["id"], "2:2")["result"] == "human"
        assert len(client.app.state.web.games) == 1  # type: ignore[attr-defined]


def test_an_unwritable_data_dir_is_one_error(tmp_path: Path) -> None:
    from qarena.errors import QarenaError

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(QarenaError, match="cannot use the data folder"):
        create_app(blocker / "sub")


# --- training and the store -------------------------------------------------------------


def test_train_store_download_delete(client: TestClient, tmp_path: Path) -> None:
    r = client.post(
        "/api/train",
        json={"game": "nim:2,3", "learner": "afterstate", "episodes": 3000, "alpha": 0.5,
              "epsilon": 0.5, "epsilon_end": 0.05, "schedule": "exp", "opponent": "random"},
    )  # fmt: skip
    assert r.status_code == 202, r.text
    snap = wait_job(client, r.json()["job"])
    assert snap["state"] == "done" and snap["episodes"] == 3000 and snap["points"] > 0
    pid = snap["policy"]
    listed = client.get("/api/policies").json()
    assert [p["id"] for p in listed] == [pid]
    assert listed[0]["learner"] == "afterstate" and listed[0]["game"] == "nim:2,3"
    path = tmp_path / "policies" / f"{pid}.npz"
    assert path.is_file()
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT id FROM policies").fetchall() == [(pid,)]

    r = client.get(f"/policies/{pid}/download")
    assert r.status_code == 200 and r.content == path.read_bytes()
    assert r.headers["content-type"] == "application/octet-stream"
    assert f"{pid}.npz" in r.headers["content-disposition"]

    state = new_game(client, "nim:2,3", policy=pid)
    assert state["policy"] == pid

    assert client.delete(f"/api/policies/{pid}").status_code == 204
    assert not path.exists() and client.get("/api/policies").json() == []
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM policies").fetchone() == (0,)
    assert client.delete(f"/api/policies/{pid}").status_code == 404


def test_training_runs_wait_in_line_and_can_be_stopped(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, max_training=1, max_queued=2)) as client:
        # Ten million episodes of nim:2,6,7,8 take seconds: still running when stopped.
        r = client.post("/api/train", json={"game": "nim:2,6,7,8", "episodes": 10_000_000})
        assert r.status_code == 202, r.text
        job = r.json()["job"]
        assert r.json()["state"] == "running" and r.json()["queue_position"] is None
        # The slot is taken: the next runs wait in line, first come first served.
        second = client.post("/api/train", json={"game": "nim", "episodes": 100})
        assert second.status_code == 202, second.text
        assert second.json()["state"] == "queued" and second.json()["queue_position"] == 1
        assert second.json()["waiting"] == "1st in line"
        third = client.post("/api/train", json={"game": "nim:1,2", "episodes": 100}).json()
        assert third["state"] == "queued" and third["waiting"] == "2nd in line"
        page = client.get(f"/train/{third['job']}")
        assert "Waiting: 2nd in line" in page.text and 'data-state="queued"' in page.text
        # The line is full: refused with one sentence.
        full = client.post("/api/train", json={"game": "nim", "episodes": 100})
        assert full.status_code == 503 and "waiting" in full.json()["detail"]
        # Stopping a waiting run takes it out of line, cancelled (issue 54: it said "failed"
        # though nothing went wrong); the one behind it moves up.
        stopped = client.delete(f"/api/train/{second.json()['job']}").json()
        assert stopped["state"] == "cancelled" and stopped["stopped"] and stopped["policy"] is None
        assert "stopped while waiting in line" in stopped["error"]
        page = client.get(f"/train/{second.json()['job']}").text
        assert "Training stopped: it was stopped while waiting in line" in page
        assert "Training failed: it was" not in page
        assert "event: cancelled" in client.get(f"/train/{second.json()['job']}/events").text
        assert client.get(f"/api/train/{third['job']}").json()["queue_position"] == 1

        # Stopped once it has learned something (on a busy machine its first chunk may not be
        # done yet; stopped before it, it would be cancelled, nothing kept).
        t0 = time.monotonic()
        while client.get(f"/api/train/{job}").json()["episodes"] == 0:
            assert time.monotonic() - t0 < 60
            time.sleep(0.05)
        assert client.delete(f"/api/train/{job}").status_code == 202
        snap = wait_job(client, job)
        assert snap["state"] == "done" and snap["stopped"]
        assert 0 < snap["episodes"] < 10_000_000
        # What it learned is kept, with its episode count.
        row = client.get(f"/api/policies/{snap['policy']}").json()
        assert row["episodes"] == snap["episodes"]
        # The slot is free: the waiting run starts and finishes.
        assert wait_job(client, third["job"])["state"] == "done"
        assert client.post("/api/train", json={"game": "nim", "episodes": 100}).status_code == 202
        assert client.delete("/api/train/nosuchjob").status_code == 404


def test_bad_training_settings_are_422(client: TestClient) -> None:
    for body in (
        {"game": "nim", "learner": "sarsa"},
        {"game": "nim", "alpha": 2},
        {"game": "nim", "schedule": "sometimes"},
        {"game": "nim", "opponent": "nobody"},
        {"game": "nim", "episodes": 0},
        {"game": "nimble"},
    ):
        r = client.post("/api/train", json=body)
        assert r.status_code == 422 and isinstance(r.json()["detail"], str), body


def test_training_settings_are_checked_as_the_command_line_checks_them(
    client: TestClient,
) -> None:
    """One check for both: a setting the learner does not use is refused, and the opponents
    are those the command line names for the game (its rule players included)."""
    r = client.post("/api/train", json={"game": "nim", "learner": "matchbox", "alpha": 0.5})
    assert r.status_code == 422
    assert r.json()["detail"] == "--alpha does not apply to the matchbox learner"
    r = client.post("/api/train", json={"game": "tictactoe", "opponent": "bouton"})
    assert r.status_code == 422 and "expected self, random, perfect" in r.json()["detail"]
    r = client.post("/api/train", json={"game": "nim:1,2", "opponent": "bouton", "episodes": 50})
    assert r.status_code == 202
    assert wait_job(client, r.json()["job"])["state"] == "done"
    # The form offers the opponents of the game typed (its rule players only for it).
    page = client.get("/train").text  # nim:3,5,7
    for name in ("self", "random", "perfect", "bouton", "poles"):
        assert f'<option value="{name}"' in page
    assert '<option value="subtraction"' not in page
    field = client.get("/train/opponents", params={"game": "subtraction:9:3"}).text
    assert '<option value="subtraction"' in field and '<option value="bouton"' not in field


def events_of(text: str) -> list[tuple[str, str]]:
    out = []
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith(":")]
        if not lines:
            continue
        event = next(line[7:] for line in lines if line.startswith("event: "))
        data = "\n".join(line[6:] for line in lines if line.startswith("data: "))
        out.append((event, data))
    return out


def test_training_events_stream_progress_then_done(client: TestClient) -> None:
    r = client.post("/api/train", json={"game": "tictactoe", "episodes": 20_000})
    job = r.json()["job"]
    assert r.json()["events"] == f"/train/{job}/events"
    with client.stream("GET", f"/train/{job}/events") as s:
        assert s.status_code == 200
        assert s.headers["content-type"].startswith("text/event-stream")
        text = "".join(s.iter_text())
    events = events_of(text)
    kinds = [e for e, _ in events]
    assert kinds.count("progress") >= 2 and "curve" in kinds and kinds[-1] == "done"
    progress = [json.loads(d) for e, d in events if e == "progress"]
    assert [p["episodes"] for p in progress] == sorted(p["episodes"] for p in progress)
    done = json.loads(events[-1][1])
    assert done["state"] == "done" and done["episodes"] == 20_000 and done["policy"]
    assert done["play"] == f"/policies/{done['policy']}/play" and done["next"] is None
    curve = [d for e, d in events if e == "curve"][-1]
    assert curve.startswith('<svg id="curve"') and "\n" not in curve
    # A finished job streams its end at once.
    with client.stream("GET", f"/train/{job}/events") as s:
        assert events_of("".join(s.iter_text()))[-1][0] == "done"


# --- pages ------------------------------------------------------------------------------


def has_ids(html: str, *ids: str) -> None:
    for i in ids:
        assert f'id="{i}"' in html, i


def test_home_page_and_playing_through_the_form(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    has_ids(r.text, "new-game", "play")
    names = ("kind", "piles", "heap", "take", "rows", "cols", "k", "c4_rows", "c4_cols", "c4_k")
    for name in (*names, "rule", "first"):
        assert f'name="{name}"' in r.text, name
    for value in ("nim", "subtraction", "tictactoe", "connect4", "misere", "normal", "human", "ai"):
        assert f'value="{value}"' in r.text, value
    # A board's sides are bounded as the games bound them (the guide: 12), in every field.
    for name in ("rows", "cols", "c4_rows", "c4_cols"):
        field = re.search(rf'<input name="{name}"[^>]*>', r.text)
        assert field is not None and f'max="{MAX_SIDE}"' in field.group(0), name
    with pytest.raises(SpecError):
        parse_spec(f"connect4:{MAX_SIDE + 1}x4")

    form = {"kind": "tictactoe", "rows": "3", "cols": "3", "k": "3", "first": "human",
            "piles": "3,5,7", "heap": "12", "take": "3", "rule": "misere"}  # fmt: skip
    # No agent yet: the form leads to a training page that goes on to the game.
    r = client.post("/play", data=form, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/train/")
    job = r.headers["location"].split("/")[-1]
    page = client.get(f"/train/{job}")
    assert page.status_code == 200
    has_ids(page.text, "progress", "curve")
    assert wait_job(client, job)["state"] == "done"
    with client.stream("GET", f"/train/{job}/events") as s:
        done = json.loads(events_of("".join(s.iter_text()))[-1][1])
    assert done["next"] == f"/train/{job}/play"
    r = client.get(done["next"], follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/games/")
    # Now an agent exists: the form goes straight to a game.
    r = client.post("/play", data=form, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/games/")

    r = client.post("/play", data={**form, "kind": "nim", "piles": "3,x"})
    assert r.status_code == 422
    has_ids(r.text, "error", "new-game")


def test_connect_four_from_the_home_form(client: TestClient) -> None:
    form = {"kind": "connect4", "c4_rows": "3", "c4_cols": "4", "c4_k": "3", "first": "ai"}
    r = client.post("/play", data=form, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/train/")
    job = wait_job(client, r.headers["location"].split("/")[-1].split("?")[0])
    assert job["state"] == "done" and job["game"] == "connect4:3x4:3"
    r = client.post("/play", data={**form, "c4_rows": "13"})
    assert r.status_code == 422 and "1 to 12 rows and columns" in r.text


def test_the_form_plays_a_game_trained_on_the_command_line(tmp_path: Path) -> None:
    """A game over the web app's budget, trained on the command line into the server's
    policy folder (what the refusal says to do), plays from the home page's form as it
    does from the API; without such a policy the form says how to train it."""
    from qarena.cli import run

    data_dir = tmp_path / "data"
    form = {"kind": "spec", "spec": "tictactoe:3x4:3", "first": "human"}
    # tictactoe:3x4:3 has about 34,000 classes × 12 moves: over a budget of 100,000.
    with TestClient(create_app(data_dir, max_cost=100_000)) as client:
        refused = client.post("/play", data=form, follow_redirects=False)
        assert refused.status_code == 422 and "qarena train tictactoe:3x4:3 --out" in refused.text
        policy = data_dir / "policies" / "0123456789ab.npz"
        assert run(["train", "tictactoe:3x4:3", "--out", str(policy)]) == 0
        r = client.post("/play", data=form, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/games/"), r.text
        game = client.get(r.headers["location"].replace("/games/", "/api/games/")).json()
        assert game["policy"] == "0123456789ab" and game["game"] == "tictactoe:3x4:3"


def test_game_page_contract(client: TestClient) -> None:
    state = new_game(client, "tictactoe")
    gid = state["id"]
    r = client.get(f"/games/{gid}")
    assert r.status_code == 200
    has_ids(r.text, "position", "values", "toggle-values", "toggle-hint", "history", "undo",
            "new-game-link")  # fmt: skip
    assert 'id="result"' not in r.text and 'id="error"' not in r.text
    for cell in ("a1", "b2", "c3"):
        assert f'data-move="{cell}"' in r.text
    assert r.text.count('<tr data-move="') == 9

    htmx = {"HX-Request": "true"}
    r = client.post(f"/games/{gid}/move", data={"move": "b2"}, headers=htmx)
    assert r.status_code == 200 and r.text.lstrip().startswith('<div id="game-panel"')
    has_ids(r.text, "ai-move", "history", "position")
    assert "<li" in r.text and "You: b2" in r.text
    # A taken cell still carries its move; clicking it is a 422 that the panel shows.
    r = client.post(f"/games/{gid}/move", data={"move": "b2"}, headers=htmx)
    assert r.status_code == 422
    has_ids(r.text, "error", "position")
    assert "b2 is taken" in r.text

    r = client.post(f"/games/{gid}/toggle/hint", headers=htmx)
    assert r.status_code == 200 and 'class="verdict' in r.text
    r = client.post(f"/games/{gid}/toggle/values", headers=htmx)
    assert r.status_code == 200 and 'class="q"' not in r.text

    r = client.post(f"/games/{gid}/undo", headers=htmx)
    assert r.status_code == 200 and "You: b2" not in r.text

    # Without htmx a move redirects back to the page.
    r = client.post(f"/games/{gid}/move", data={"move": "a1"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}"

    over = new_game(client, "nim:1,2")
    r = client.post(f"/games/{over['id']}/move", data={"move": "2:2"}, headers=htmx)
    has_ids(r.text, "result")
    assert "You win" in r.text
    r = client.post(f"/games/{over['id']}/move", data={"move": "1:1"}, headers=htmx)
    assert r.status_code == 409
    has_ids(r.text, "error", "result")

    heap = new_game(client, "nim:3,5,7")
    r = client.get(f"/games/{heap['id']}")
    # In a pile of 5, the 2nd match from the left takes 4.
    moves = [m.split('"')[0] for m in r.text.split('class="match takeable live" data-move="')[1:]]
    assert moves[3:8] == ["2:5", "2:4", "2:3", "2:2", "2:1"]

    r = client.get(f"/games/{gid}/new", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] != f"/games/{gid}"
    assert client.get("/games/nosuchgame").status_code == 404


class _TableRows(HTMLParser):
    """The rows of the table with ``id``: each row's class and its cells' text."""

    def __init__(self, id: str) -> None:
        super().__init__()
        self.id, self.depth, self.rows = id, 0, []
        self.caption: str | None = None
        self.found = False
        self._in_caption = self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and (self.depth or dict(attrs).get("id") == self.id):
            self.found = True
            self.depth += 1
        elif self.depth and tag == "caption":
            self._in_caption, self.caption = True, ""
        elif self.depth and tag == "tr":
            self.rows.append((dict(attrs).get("class") or "", []))
        elif self.depth and tag in ("td", "th") and self.rows:
            self.rows[-1][1].append("")
            self._in_cell = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.depth:
            self.depth -= 1
        elif tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_caption and self.caption is not None:
            self.caption += data
        elif self._in_cell:
            self.rows[-1][1][-1] += data


def table_rows(html: str, id: str) -> _TableRows | None:
    """The table ``id`` of a page, or None when the page has none."""
    parsed = _TableRows(id)
    parsed.feed(html)
    return parsed if parsed.found else None


def test_the_ai_values_where_it_moved_follow_the_toggle_undo_and_new_game(
    client: TestClient, tmp_path: Path
) -> None:
    spec = "nim:3,5,7"
    state = new_game(client, spec)
    gid, game = state["id"], parse_spec(spec)
    htmx = {"HX-Request": "true"}
    # The agent's values, read independently: its policy file, loaded, and its own tables.
    policy = tmp_path / "agent.npz"
    policy.write_bytes(client.get(f"/policies/{state['policy']}/download").content)
    learner = load_learner(policy)
    values, best = learner.table_values(), learner.best_moves()

    assert 'id="ai-values"' not in client.get(f"/games/{gid}").text  # the AI has not moved
    r = client.post(f"/games/{gid}/move", data={"move": "1:1"}, headers=htmx)
    assert r.status_code == 200
    table = table_rows(r.text, "ai-values")
    assert table is not None and table.caption == "The AI's values where it moved"
    where = game.apply(game.start(), game.parse_move("1:1"))
    expected = {game.format_move(m): v for m, v in at(learner.tables, values, where).items()}
    header, *rows = table.rows
    assert header[1] == ["AI's move", f"AI's {learner.value_heading}"]
    shown = {cells[0]: cells[1].split()[0] for _, cells in rows}
    assert shown == {m: learner.format_value(v) for m, v in expected.items()}
    played = [cells[0] for cls, cells in rows if cls == "played"]
    assert len(played) == 1 and all("played" in cells[1] for cls, cells in rows if cls)
    state = client.get(f"/api/games/{gid}").json()
    assert played == [state["ai_move"]]
    # The move it played is one of its best: the highest value, and greedy by its tables.
    assert expected[played[0]] == max(expected.values())
    assert at(learner.tables, best, where)[game.parse_move(played[0])]

    r = client.post(f"/games/{gid}/toggle/hint", headers=htmx)
    table = table_rows(r.text, "ai-values")
    assert table is not None and table.rows[0][1][2] == "solver (for the AI)"
    solution = solve(game)
    verdicts = solution.move_values(where)
    cells = {c[0]: c[2] for _, c in table.rows[1:]}
    assert {m: text.split()[0].rstrip(":") for m, text in cells.items()} == {
        game.format_move(m): value_name(v) for m, v in verdicts.items()
    }
    # A loss for the AI comes at the person's move: plies to the end (this move, then the
    # solver's depth after it) over two, as "loss in N of your moves" ("you win next move").
    for m, v in verdicts.items():
        if v in (WIN, DRAW):
            continue
        yours = (1 + solution.depth_of(game.apply(where, m))) // 2
        text = cells[game.format_move(m)]
        assert (f"in {yours} of your moves" in text) if yours > 1 else "next move" in text
    r = client.post(f"/games/{gid}/toggle/values", headers=htmx)
    assert r.status_code == 200 and 'id="ai-values"' not in r.text
    r = client.post(f"/games/{gid}/toggle/values", headers=htmx)
    assert 'id="ai-values"' in r.text
    # Taken back, the reply's table goes with it; a new game starts without one.
    r = client.post(f"/games/{gid}/undo", headers=htmx)
    assert r.status_code == 200 and 'id="ai-values"' not in r.text
    r = client.get(f"/games/{gid}/new")
    assert r.status_code == 200 and 'id="ai-values"' not in r.text
    # The AI's opening has its table at once.
    opened = new_game(client, spec, "ai")
    r = client.get(f"/games/{opened['id']}")
    table = table_rows(r.text, "ai-values")
    assert table is not None and len(table.rows) - 1 == len(game.legal_moves(game.start()))


def test_train_and_policies_pages(client: TestClient) -> None:
    r = client.get("/train")
    assert r.status_code == 200
    has_ids(r.text, "train-form", "progress", "curve")
    form = {"game": "subtraction:9:3", "learner": "matchbox", "episodes": "2000",
            "alpha": "", "gamma": "", "epsilon": "", "epsilon_end": "", "schedule": "",
            "opponent": "perfect"}  # fmt: skip
    r = client.post("/train", data=form, follow_redirects=False)
    assert r.status_code == 303
    job = r.headers["location"].split("/")[-1]
    assert wait_job(client, job)["state"] == "done"
    r = client.get(f"/train/{job}")
    has_ids(r.text, "train-form", "progress", "curve", "play-trained")

    r = client.post("/train", data={**form, "alpha": "lots"})
    assert r.status_code == 422
    has_ids(r.text, "error", "train-form")

    pid = client.get("/api/policies").json()[0]["id"]
    r = client.get("/policies")
    assert r.status_code == 200
    has_ids(r.text, "policies")
    assert f'data-policy="{pid}"' in r.text
    for cls in ("play", "inspect", "download", "delete"):
        assert f'class="{cls}"' in r.text, cls

    r = client.get(f"/policies/{pid}/inspect")
    assert r.status_code == 200 and 'class="verdict' in r.text
    r = client.get(f"/policies/{pid}/inspect", params={"position": "5"})
    assert r.status_code == 200 and r.text.count("<tr data-move=") == 3
    r = client.get(f"/policies/{pid}/inspect", params={"position": "99"})
    assert r.status_code == 422
    has_ids(r.text, "error")

    r = client.get(f"/policies/{pid}/play", params={"first": "ai"}, follow_redirects=False)
    assert r.status_code == 303
    assert client.get(r.headers["location"]).status_code == 200

    r = client.post(f"/policies/{pid}/delete", headers={"HX-Request": "true"})
    assert r.status_code == 200 and r.text == ""
    assert f'data-policy="{pid}"' not in client.get("/policies").text


def test_openapi_documents_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/moves",
                 "/api/train", "/api/policies", "/train/{job_id}/events"):  # fmt: skip
        assert path in paths, path
    assert "/games/{game_id}" not in paths


@pytest.mark.parametrize("case", ["port in use", "bad port", "data dir is a file"])
def test_serve_refuses_with_one_line(case: str, tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    port, data = str(blocker.getsockname()[1]), tmp_path / "data"
    expected = f"port {port} on 127.0.0.1 is in use"
    if case == "bad port":
        port, expected = "70000", "--port must be from 1 to 65535"
    elif case == "data dir is a file":
        data.write_text("not a folder")
        expected = "cannot use the data folder"
        blocker.close()  # serve checks the port first: leave it free
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "qarena", "serve", "--port", port, "--data-dir", str(data)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        blocker.close()
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert expected in proc.stderr and "Traceback" not in proc.stderr


# --- every option of qarena train, uploads, comparisons -----------------------------------


def train_done(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post("/api/train", json=body)
    assert r.status_code == 202, r.text
    snap = wait_job(client, r.json()["job"], timeout=60)
    assert snap["state"] == "done", snap
    return snap


def test_every_training_option_reaches_the_run(client: TestClient, tmp_path: Path) -> None:
    body = {"game": "tictactoe", "learner": "matchbox", "episodes": 3000, "opponent": "random",
            "seat": "first", "until_perfect": True, "epsilon": 0.5, "epsilon_end": 0.05,
            "schedule": "exp", "seed": 7, "canonical": False}  # fmt: skip
    snap = train_done(client, body)
    assert snap["seat"] == "first" and snap["until_perfect"] and snap["opponent"] == "random"
    pid = snap["policy"]
    detail = client.get(f"/api/policies/{pid}").json()
    assert detail["training"] == {"opponent": "random", "seat": "first", "until_perfect": True}
    hyper = detail["hyperparameters"]
    assert hyper["epsilon"] == 0.5 and hyper["epsilon_end"] == 0.05 and hyper["schedule"] == "exp"
    assert hyper["seed"] == 7 and hyper["canonical"] is False and "alpha" not in hyper
    # The file itself says so, read as any policy file is.
    learner = load_learner(tmp_path / "policies" / f"{pid}.npz")
    assert learner.kind == "matchbox" and not learner.config.canonical
    assert learner.config.seed == 7 and learner.episodes == 3000

    body = {"game": "nim:2,3", "learner": "q", "episodes": 1_000_000, "until_perfect": True,
            "alpha": 0.5, "gamma": 0.8, "rewards": [10, 0, -10], "initial": 0.25,
            "starts": 0.5, "start_order": "uniform"}  # fmt: skip
    snap = train_done(client, body)
    # Stopped at perfect play, long before the million episodes asked for.
    assert snap["optimality"] == 1.0 and snap["episodes"] < 1_000_000 and not snap["stopped"]
    detail = client.get(f"/api/policies/{snap['policy']}").json()
    assert detail["training"] == {"opponent": "self", "seat": "both", "until_perfect": True}
    assert detail["hyperparameters"] == {
        "alpha": 0.5, "gamma": 0.8, "epsilon": 1.0, "epsilon_end": 0.1, "schedule": "linear",
        "rewards": [10.0, 0.0, -10.0], "initial": 0.25, "canonical": True, "seed": 0,
        "starts": 0.5, "start_order": "uniform",
    }  # fmt: skip


def test_a_stored_policy_is_an_opponent(client: TestClient) -> None:
    first = train_done(client, {"game": "nim:2,3", "episodes": 2000})["policy"]
    snap = train_done(
        client, {"game": "nim:2,3", "episodes": 2000, "opponent": first, "seat": "second"}
    )
    detail = client.get(f"/api/policies/{snap['policy']}").json()
    assert detail["training"]["opponent"] == first and detail["training"]["seat"] == "second"
    for body, words in (
        ({"game": "nim:1,2", "opponent": first}, "plays nim:2,3, not nim:1,2"),
        ({"game": "nim:2,3", "opponent": "0123456789ab"}, "no stored policy 0123456789ab"),
        ({"game": "nim:2,3", "opponent": first, "canonical": False}, "learned one position per"),
    ):
        r = client.post("/api/train", json=body)
        assert r.status_code == 422 and words in r.json()["detail"], (body, r.text)


def test_options_that_do_not_apply_are_refused_as_the_command_line_refuses_them(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli import run

    cases = [
        ({"learner": "matchbox", "alpha": 0.5}, ["--learner", "matchbox", "--alpha", "0.5"]),
        ({"learner": "matchbox", "rewards": [1, 0, -1]},
         ["--learner", "matchbox", "--rewards", "1,0,-1"]),
        ({"opponent": "random", "starts": 0.5}, ["--opponent", "random", "--starts", "0.5"]),
        ({"opponent": "random", "start_order": "uniform"},
         ["--opponent", "random", "--start-order", "uniform"]),
        ({"seat": "first"}, ["--seat", "first"]),
        ({"opponent": "random", "seat": "middle"}, ["--opponent", "random", "--seat", "middle"]),
        ({"schedule": "exp", "epsilon_end": 0},
         ["--epsilon-schedule", "exp", "--epsilon-end", "0"]),
        ({"start_order": "spiral"}, ["--start-order", "spiral"]),
    ]  # fmt: skip
    for given, flags in cases:
        r = client.post("/api/train", json={"game": "nim:2,3", **given})
        assert r.status_code == 422, (given, r.text)
        capsys.readouterr()
        assert run(["train", "nim:2,3", "--out", str(tmp_path / "x.npz"), *flags]) == 2
        cli = capsys.readouterr().err.strip().removeprefix("error: ")
        assert r.json()["detail"] == cli, given
    assert client.get("/api/policies").json() == []


def test_the_train_form_takes_every_option_and_shows_refusals_at_their_field(
    client: TestClient,
) -> None:
    page = client.get("/train").text
    for name in ("game", "learner", "episodes", "opponent", "seat", "until_perfect", "alpha",
                 "gamma", "epsilon", "epsilon_end", "schedule", "rewards", "initial", "seed",
                 "starts", "start_order", "canonical"):  # fmt: skip
        assert f'name="{name}"' in page, name
    assert '<details id="more-options">' in page  # closed until needed
    assert ">Q-learning</option>" in page and ">Matchbox</option>" in page
    form = {"game": "subtraction:9:3", "learner": "matchbox", "episodes": "2000",
            "opponent": "random", "seat": "first", "until_perfect": "on", "rewards": "",
            "seed": "3", "canonical": "no"}  # fmt: skip
    r = client.post("/train", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    job = wait_job(client, r.headers["location"].split("/")[-1])
    assert job["state"] == "done" and job["seat"] == "first" and job["until_perfect"]
    detail = client.get(f"/api/policies/{job['policy']}").json()
    assert detail["training"] == {"opponent": "random", "seat": "first", "until_perfect": True}
    assert detail["hyperparameters"]["seed"] == 3
    assert detail["hyperparameters"]["canonical"] is False
    # The run's page offers the same settings again.
    page = client.get(f"/train/{job['job']}").text
    assert 'value="3"' in page and '<option value="first" selected>' in page
    assert '<option value="no" selected>' in page and 'name="until_perfect" checked' in page

    for change, field in (
        ({"alpha": "0.5"}, "alpha"),
        ({"rewards": "1,0"}, "rewards"),
        ({"rewards": "1e400,0,-1"}, "rewards"),  # a number, but not a finite one
        ({"opponent": "self"}, "seat"),
        ({"starts": "0.5"}, "starts"),
        ({"seed": "-1"}, "seed"),
        ({"game": "nimble"}, "game"),
    ):
        r = client.post("/train", data={**form, **change})
        assert r.status_code == 422, change
        assert r.text.count('id="error"') == 1 and "field-error" in r.text, change
        # The refused field is marked, and "More options" opens when it is one of them.
        assert re.search(rf'name="{field}"[^>]*aria-invalid="true"', r.text), change
        if field in ("alpha", "rewards", "starts", "seed"):
            assert '<details id="more-options" open>' in r.text


def upload(client: TestClient, name: str, data: bytes) -> Any:
    return client.post(
        "/policies/upload",
        files={"file": (name, data, "application/octet-stream")},
        follow_redirects=False,
    )


def store_files(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "policies").iterdir())


def test_uploading_a_policy_file_stores_it_checked(tmp_path: Path) -> None:
    from qarena.cli import run

    made = tmp_path / "made.npz"
    assert run(["train", "nim:2,3", "--episodes", "3000", "--curve", "--out", str(made)]) == 0
    data_dir = tmp_path / "data"
    with TestClient(create_app(data_dir, max_upload=len(made.read_bytes()) + 10)) as client:
        r = upload(client, "../../../etc/passwd", made.read_bytes())
        assert r.status_code == 303
        pid = r.headers["location"].split("added=")[1]
        row = client.get(f"/api/policies/{pid}").json()
        assert row["game"] == "nim:2,3" and row["episodes"] == 3000 and row["training"] is None
        assert store_files(data_dir) == [f"{pid}.npz"]  # under its id, whatever it was called
        assert (data_dir / "policies" / f"{pid}.npz").read_bytes() == made.read_bytes()
        page = client.get(f"/policies?added={pid}").text
        assert 'id="added"' in page and f'<tr data-policy="{pid}" class="added">' in page
        assert new_game(client, "nim:2,3", policy=pid)["policy"] == pid

        before = store_files(data_dir)
        good = made.read_bytes()
        bad_cases = [
            ("junk.npz", b"not a policy at all", 422, "junk.npz is not a qarena policy file"),
            ("cut.npz", good[: len(good) // 2], 422, "cut.npz"),
            ("flipped.npz", good[:-200] + bytes(200), 422, "flipped.npz"),
            ("empty.npz", b"", 422, "empty.npz is empty"),
            ("big.npz", good + b"x" * 100, 413, "The file is over"),
        ]
        for name, data, status, words in bad_cases:
            r = upload(client, name, data)
            assert r.status_code == status, (name, r.text[-500:])
            assert 'id="upload-error"' in r.text and words in r.text, name
            assert "Traceback" not in r.text and str(data_dir) not in r.text
            assert store_files(data_dir) == before, name  # nothing half-written stays
        assert [p["id"] for p in client.get("/api/policies").json()] == [pid]


def test_an_upload_of_a_game_over_the_budget_is_refused(tmp_path: Path) -> None:
    """A small file of a big game (a 1.36 MB Connect Four 5×5 policy cost the server 56 s and
    5 GB) is held to the budget the web app's own training is held to, read from its
    metadata before the game's tables are built; nothing is stored."""
    from qarena.cli import run

    made = tmp_path / "made.npz"
    assert run(["train", "tictactoe:3x4:3", "--out", str(made)]) == 0
    data_dir = tmp_path / "data"
    # tictactoe:3x4:3 has about 34,000 classes × 12 moves: over a budget of 100,000.
    with TestClient(create_app(data_dir, max_cost=100_000)) as client:
        r = upload(client, "t34.npz", made.read_bytes())
        assert r.status_code == 422, r.text[-300:]
        assert "tictactoe:3x4:3 is too big for the web app to check an upload" in r.text
        assert store_files(data_dir) == []
    with TestClient(create_app(data_dir)) as client:  # within the default budget: taken
        assert upload(client, "t34.npz", made.read_bytes()).status_code == 303


def test_an_upload_of_a_network_is_held_to_its_own_budget_not_the_tables(
    tmp_path: Path,
) -> None:
    """Checking a network's file builds none of its game's tables (its loader holds it to the
    network budget): a network of connect4:5x5, whose tables the web app would not build
    (about 86 million positions), is taken, where a table learner's file of it was not."""
    import qarena

    made = tmp_path / "net.npz"
    net = qarena.train("connect4:5x5", "ntuple", 40, tuples=4, tuple_length=4, seed=1, workers=1)
    net.save(made)
    data_dir = tmp_path / "data"
    with TestClient(create_app(data_dir)) as client:
        r = upload(client, "net.npz", made.read_bytes())
        assert r.status_code == 303, r.text[-300:]
        assert len(store_files(data_dir)) == 1
        assert client.app.state.web.too_big_to_upload(parse_spec("connect4:5x5")) is not None  # type: ignore[attr-defined]


def test_upload_limits_by_content_length_and_by_what_arrives(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, max_upload=50_000)) as client:
        # A Content-Length over the limit is refused before any of the body is read.
        boundary = "qarenaboundary"
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.npz"'
            "\r\nContent-Type: application/octet-stream\r\n\r\n"
        ).encode()
        tail = f"\r\n--{boundary}--\r\n".encode()
        body = head + b"x" * 200_000 + tail
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        r = client.post("/policies/upload", content=body, headers=headers)
        assert r.status_code == 413 and "over 48.8 KB" in r.text and 'id="upload-error"' in r.text

        # Without a Content-Length (chunked), the bytes are counted as they arrive.
        def chunks() -> Iterator[bytes]:
            yield head
            for _ in range(100):
                yield b"x" * 4096
            yield tail

        r = client.post("/policies/upload", content=chunks(), headers=headers)
        assert r.status_code == 413 and 'id="upload-error"' in r.text
        # Not a form, no file: one line each.
        r = client.post(
            "/policies/upload", content=b"{}", headers={"Content-Type": "application/json"}
        )
        assert r.status_code == 422 and "multipart/form-data" in r.text
        r = client.post("/policies/upload", data={"other": "field"}, files={"x": ("a", b"b")})
        assert r.status_code == 422 and "Choose a policy file" in r.text
        assert store_files(tmp_path) == []
        # Every other route keeps the small limit.
        r = client.post("/api/games", content=b" " * 20_000, headers=headers)
        assert r.status_code == 413


def test_compare_draws_the_curves_of_the_chosen_policies(client: TestClient) -> None:
    a = train_done(client, {"game": "nim:2,3", "episodes": 2000})["policy"]
    b = train_done(client, {"game": "nim:2,3", "learner": "matchbox", "episodes": 2000})["policy"]
    page = client.get("/compare").text
    assert f'value="{a}"' in page and f'value="{b}"' in page and "compare-chart" not in page
    page = client.get("/compare", params={"id": [a, b], "metric": "random"}).text
    assert page.count('<polyline class="series"') == 2
    assert f'data-series="{a}"' in page and f'data-series="{b}"' in page
    assert 'viewBox="0 0 ' in page and "Wins vs random" in page
    r = client.get("/compare", params={"id": ["0123456789ab"]})
    assert r.status_code == 422 and "No policy" in r.text and "0123456789ab" in r.text
    r = client.get("/compare", params={"id": [a] * 3 + [f"{i:012x}" for i in range(9)]})
    assert r.status_code == 422 and "at most 8" in r.text


def test_the_guide_states_the_web_apps_budget() -> None:
    """The web app's guide gives the budget the code holds games to (the page's refusals name
    it from the same constants), where it says what the browser trains and where it lists the
    API's errors."""
    from qarena.web.limits import MAX_COST, MAX_POSITIONS

    root = Path(__file__).resolve().parents[1]
    text = " ".join((root / "docs" / "web.md").read_text(encoding="utf-8").split())
    assert f"at most {MAX_POSITIONS:,} positions" in text
    assert f"{MAX_COST:,} positions × moves" in text
    assert f"budget of {MAX_POSITIONS:,} positions and {MAX_COST:,} positions × moves" in text


@pytest.mark.parametrize(
    "body",
    [
        {"episodes": True},
        {"episodes": "100"},
        {"alpha": True},
        {"seed": False},
        {"until_perfect": 1},
        {"canonical": "no"},
        {"rewards": [True, 0, -1]},
    ],
)
def test_json_numbers_and_booleans_are_what_they_say(
    client: TestClient, body: dict[str, Any]
) -> None:
    """JSON's true is not the number 1, and "100" is not 100: refused, not taken as
    something else (``{"episodes": true}`` used to train one episode)."""
    r = client.post("/api/train", json={"game": "nim:1,2", **body})
    assert r.status_code == 422, r.text
    assert client.post("/api/games", json={"game": "nim:1,2", "seed": True}).status_code == 422


def test_a_stored_network_is_listed_inspected_played_and_watched(tmp_path: Path) -> None:
    """An n-tuple network's file, uploaded or put in the policy folder, works as a policy
    does: listed (no exact optimality of its own), inspected beside the solver's verdicts,
    played and watched; never a training opponent, never the game's best stored agent."""
    from qarena.cli import run
    from qarena.exact import solve
    from qarena.learn.ntuple.files import load_network

    made = tmp_path / "net.npz"
    args = ["train", "tictactoe", "--learner", "ntuple", "--tuples", "4", "--episodes", "2000"]
    assert run([*args, "--workers", "1", "--out", str(made)]) == 0
    net = load_network(made)
    data_dir = tmp_path / "data"
    with TestClient(create_app(data_dir)) as client:
        r = upload(client, "net.npz", made.read_bytes())
        assert r.status_code == 303, r.text
        pid = r.headers["location"].split("added=")[1]
        row = client.get(f"/api/policies/{pid}").json()
        assert (row["learner"], row["episodes"], row["optimality"]) == ("ntuple", 2000, None)
        listing = client.get(f"/policies?added={pid}").text
        assert "N-tuple network" in listing and "2,000 games of self-play" in listing

        game = parse_spec("tictactoe")
        position = game.apply(game.start(), 0)  # x in a1
        text = game.format_position(position)
        page = client.get(f"/policies/{pid}/inspect", params={"position": text}).text
        verdicts = solve(game).move_values(position)
        values = net.move_values(position)
        for m in game.legal_moves(position):
            # Each move's row: the network's value and the solver's verdict, as computed here.
            cells = re.search(rf'<tr data-move="{game.format_move(m)}"[^>]*>(.*?)</tr>', page, re.S)
            assert cells is not None
            assert f"{values[m]:+.4f}" in cells.group(1)
            assert f"verdict-{value_name(verdicts[m])}" in cells.group(1)
        assert "tuples" in page and 'href="/compare?id=' not in page

        state = new_game(client, "tictactoe", policy=pid)
        assert state["game"] == "tictactoe:3x3:3"
        assert client.get(f"/policies/{pid}/play", follow_redirects=False).status_code == 303
        assert client.get("/watch", params={"a": pid, "b": "perfect"}).status_code == 200

        # Not a training opponent, nor the agent the home page's "trained" opponent picks.
        refused = client.post(
            "/api/train", json={"game": "tictactoe", "opponent": pid, "episodes": 100}
        )
        assert refused.status_code == 422 and "n-tuple network" in refused.text
        # Trained without a curve: named among the policies that have none.
        compare = client.get("/compare", params={"id": pid}).text
        assert 'id="no-curve"' in compare and "compare-chart" not in compare


def test_an_index_from_before_networks_keeps_its_rows(tmp_path: Path) -> None:
    import sqlite3

    from qarena.web.store import PolicyStore

    data_dir = tmp_path / "data"
    (data_dir / "policies").mkdir(parents=True)
    with sqlite3.connect(data_dir / "index.sqlite3") as db:
        db.execute(
            "CREATE TABLE policies (id TEXT PRIMARY KEY, game TEXT NOT NULL, learner TEXT NOT "
            "NULL, episodes INTEGER NOT NULL, optimality REAL NOT NULL, created TEXT NOT NULL)"
        )
        db.execute("INSERT INTO policies VALUES ('0123456789ab', 'nim', 'q', 5, 0.5, '2026-01-01')")
    store = PolicyStore(data_dir)
    assert store.get("0123456789ab").optimality == 0.5
    with sqlite3.connect(data_dir / "index.sqlite3") as db:
        notnull = {r[1]: r[3] for r in db.execute("PRAGMA table_info(policies)")}
    assert notnull["optimality"] == 0


def test_the_train_page_trains_a_network_as_the_command_line_does(
    client: TestClient, tmp_path: Path
) -> None:
    """A network's run from the API is `qarena train --learner ntuple --workers 1 --curve`
    with the same settings: the stored file holds the same tables and the same curve, which
    the page draws as it comes. What a network does not take is refused in the command
    line's words, at its field on the page."""
    import numpy as np

    from qarena.cli import run
    from qarena.learn.ntuple.files import load_network

    r = client.post(
        "/api/train",
        json={"game": "tictactoe", "learner": "ntuple", "tuples": 5, "tuple_length": 4,
              "lam": 0.5, "episodes": 1500, "seed": 3},
    )  # fmt: skip
    assert r.status_code == 202, r.text
    done = wait_job(client, r.json()["job"])
    assert done["state"] == "done" and done["episodes"] == 1500 and done["optimality"] is None
    row = client.get(f"/api/policies/{done['policy']}").json()
    assert (row["learner"], row["episodes"], row["optimality"]) == ("ntuple", 1500, None)
    stored = load_network(client.app.state.web.store.path(done["policy"]))  # type: ignore[attr-defined]
    made = tmp_path / "made.npz"
    args = ["train", "tictactoe", "--learner", "ntuple", "--tuples", "5", "--tuple-length", "4"]
    args += ["--lambda", "0.5", "--episodes", "1500", "--seed", "3", "--workers", "1", "--curve"]
    assert run([*args, "--out", str(made)]) == 0
    cli = load_network(made)
    np.testing.assert_array_equal(stored.weights, cli.weights)
    assert stored.curve is not None and cli.curve is not None
    curves = (stored.curve, cli.curve)
    same = [[(p.games, p.optimality, p.record) for p in c.points] for c in curves]
    assert same[0] == same[1]
    assert done["points"] == len(cli.curve.points) == 10  # every tenth of the run
    page = client.get(f"/train/{done['job']}").text
    assert "1,500 games of self-play" in page and 'id="play-trained"' in page
    assert "optimality along perfect play" in page and "learning curve, 10 points" in page
    inspect = client.get(f"/policies/{done['policy']}/inspect").text
    assert "learning curve, 10 points" in inspect

    for body, says in (
        ({"learner": "ntuple", "gamma": 0.5}, "--gamma does not apply to the ntuple learner"),
        ({"learner": "ntuple", "opponent": "random"}, "--opponent does not apply to the ntuple"),
        ({"learner": "q", "tuples": 5}, "--tuples applies to --learner ntuple only"),
        ({"learner": "ntuple", "tuples": 0}, "tuples"),
    ):
        r = client.post("/api/train", json={"game": "tictactoe", **body})
        assert r.status_code == 422 and says in r.text, r.text
    form = {"game": "tictactoe", "learner": "ntuple", "lam": "2"}
    page = client.post("/train", data=form).text
    # The refusal is shown at the λ field, inside the opened "More options".
    assert re.search(r'name="lam"[^>]*aria-invalid="true"', page)
    assert '<details id="more-options" open>' in page


def test_a_networks_curve_is_compared_beside_a_table_learners_by_optimality(
    tmp_path: Path,
) -> None:
    """A network trained with a curve on an enumerated board has a line on the Compare page
    beside a Q-learner's: its optimality over a uniform sample of all positions. Another
    measure, or a curve judged along play only, is refused in words."""
    from qarena.cli import run

    net_file, q_file = tmp_path / "net.npz", tmp_path / "q.npz"
    args = ["train", "tictactoe", "--learner", "ntuple", "--tuples", "4", "--episodes", "2000"]
    assert run([*args, "--workers", "1", "--curve", "--out", str(net_file)]) == 0
    assert run(["train", "tictactoe", "--curve", "--out", str(q_file)]) == 0
    with TestClient(create_app(tmp_path / "data")) as client:
        ids = []
        for path in (net_file, q_file):
            r = upload(client, path.name, path.read_bytes())
            assert r.status_code == 303, r.text
            ids.append(r.headers["location"].split("added=")[1])
        inspect = client.get(f"/policies/{ids[0]}/inspect").text
        assert f'href="/compare?id={ids[0]}"' in inspect and "s-uniform" in inspect
        page = client.get("/compare", params={"id": ids}).text
        assert page.count('<polyline class="series"') == 2
        assert f'data-series="{ids[0]}"' in page and f'data-series="{ids[1]}"' in page
        r = client.get("/compare", params={"id": ids, "metric": "random"})
        assert r.status_code == 422 and "by optimality" in r.text
        # Both curves record whether each was unbeaten from the start: compared as steps.
        assert "s-unbeaten" in inspect
        page = client.get("/compare", params={"id": ids, "metric": "unbeaten"}).text
        assert page.count('<polyline class="series"') == 2
        assert "Seats unbeaten from the start (of 2)" in page
