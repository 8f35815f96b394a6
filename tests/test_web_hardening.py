"""The web app under hostile or heavy use: cross-site requests, games too big to build, many
people starting the same game at once, idle games, a store left untidy by killed writers, HEAD,
unknown URLs and digits of other scripts. Each test has its own data folder."""

from __future__ import annotations

import concurrent.futures
import logging
import re
import secrets
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from qarena.cli.app import run
from qarena.games import parse_spec
from qarena.web import create_app
from tests.test_web_api import wait_job

EVIL = "http://evil.example"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path)) as c:
        yield c


def new_game(client: TestClient, spec: str, **extra: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": spec, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def one_sentence(text: str) -> bool:
    return "\n" not in text and text.count(". ") == 0


# --- DNS rebinding: the hosts the server answers to ------------------------------------


def test_a_page_that_rebinds_its_name_to_this_machine_is_refused(tmp_path: Path) -> None:
    """A page at evil.example whose name now resolves to 127.0.0.1 sends its requests with
    ``Host: evil.example`` and its own Origin: same-origin to the browser, so only the Host
    header tells. It can neither train, nor download, nor delete."""
    with TestClient(create_app(tmp_path), base_url="http://127.0.0.1:8000") as local:
        job = local.post("/api/train", json={"game": "nim:1,2"}).json()["job"]
        policy = wait_job(local, job)["policy"]
        rebound = {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"}
        r = local.post("/api/train", json={"game": "nim:1,2"}, headers=rebound)
        assert r.status_code == 400 and "evil.example" in r.json()["detail"]
        assert one_sentence(r.json()["detail"].rstrip("."))
        assert local.get(f"/policies/{policy}/download", headers=rebound).status_code == 400
        assert local.delete(f"/api/policies/{policy}", headers=rebound).status_code == 400
        page = local.get("/", headers={**rebound, "Accept": "text/html"})
        assert page.status_code == 400 and 'id="error"' in page.text
        # The policy is still there, for the machine's own pages.
        assert local.get(f"/api/policies/{policy}").status_code == 200


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "192.168.1.5:8000", "app.localhost"],
)
def test_addresses_and_localhost_are_answered(tmp_path: Path, host: str) -> None:
    with TestClient(create_app(tmp_path)) as c:
        assert c.get("/api/policies", headers={"Host": host}).status_code == 200


def test_names_the_server_is_told_of_are_answered(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, allowed_hosts=["Box.lan"])) as c:
        assert c.get("/api/policies", headers={"Host": "box.lan:8000"}).status_code == 200
        assert c.get("/api/policies", headers={"Host": "other.lan"}).status_code == 400
        assert c.get("/api/policies", headers={"Host": ""}).status_code == 400
    with TestClient(create_app(tmp_path, allowed_hosts=["*"])) as c:
        assert c.get("/api/policies", headers={"Host": "other.lan"}).status_code == 200


# --- cross-site requests ----------------------------------------------------------------


def test_state_changes_from_another_site_are_refused(client: TestClient) -> None:
    evil = {"Origin": EVIL}
    form = {"kind": "nim", "piles": "1,2", "rule": "misere", "first": "human"}
    for path, data in (("/train", {"game": "nim:1,2"}), ("/play", form)):
        r = client.post(path, data=data, headers={**evil, "Accept": "text/html"})
        assert r.status_code == 403, path
        assert r.headers["content-type"].startswith("text/html")
        assert 'id="error"' in r.text and "another site" in r.text
    r = client.post("/api/games", json={"game": "nim:1,2"}, headers=evil)
    assert r.status_code == 403 and "another site" in r.json()["detail"]
    assert one_sentence(r.json()["detail"])
    r = client.post("/api/train", json={"game": "nim:1,2"}, headers=evil)
    assert r.status_code == 403
    assert client.delete("/api/policies/x", headers=evil).status_code == 403
    # Nothing was started or stored.
    assert client.get("/api/policies").json() == []
    assert len(client.app.state.web.jobs._jobs) == 0  # type: ignore[attr-defined]

    # The browser's own word, without an Origin; a Referer elsewhere; an opaque origin; another
    # port on the same host.
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"},
        {"Referer": f"{EVIL}/page"},
        {"Origin": "null"},
        {"Origin": "http://testserver:8080"},
        {"Origin": "https://testserver"},
        {"Origin": "not a url at all"},
    ):
        r = client.post("/api/games", json={"game": "nim:1,2"}, headers=headers)
        assert r.status_code == 403, headers

    # Reading is fine from anywhere.
    assert client.get("/api/policies", headers=evil).status_code == 200
    assert client.get("/", headers=evil).status_code == 200


def test_same_site_and_plain_api_clients_still_work(client: TestClient) -> None:
    for headers in (
        {},  # curl, scripts: neither Origin nor Referer
        {"Origin": "http://testserver"},
        {"Origin": "http://TestServer:80"},
        {"Referer": "http://testserver/train"},
        {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"},
        {"Sec-Fetch-Site": "none"},  # typed in the address bar
    ):
        r = client.post("/api/games", json={"game": "nim:1,2"}, headers=headers)
        assert r.status_code == 200, (headers, r.text)
    # Behind a reverse proxy that rewrites Host: the forwarded host is this site too.
    proxied = {"X-Forwarded-Host": "games.example", "X-Forwarded-Proto": "https"}
    r = client.post(
        "/api/games",
        json={"game": "nim:1,2"},
        headers={**proxied, "Origin": "https://games.example"},
    )
    assert r.status_code == 200, r.text
    r = client.post("/api/games", json={"game": "nim:1,2"}, headers={**proxied, "Origin": EVIL})
    assert r.status_code == 403
    form = {"kind": "nim", "piles": "1,2", "rule": "misere", "first": "human"}
    r = client.post(
        "/play", data=form, headers={"Origin": "http://testserver"}, follow_redirects=False
    )
    assert r.status_code == 303
    pid = client.get("/api/policies").json()[0]["id"]
    r = client.delete(f"/api/policies/{pid}", headers={"Origin": "http://testserver"})
    assert r.status_code == 204


# --- the cost budget --------------------------------------------------------------------


def test_games_over_the_budget_are_refused_before_anything_is_built(client: TestClient) -> None:
    t0 = time.monotonic()
    r = client.post("/api/train", json={"game": "nim:400,400", "episodes": 1})
    assert time.monotonic() - t0 < 2
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "nim:400,400" in detail and "160,801 positions" in detail and "800 moves" in detail
    assert "qarena train nim:400,400" in detail and one_sentence(detail)
    assert len(client.app.state.web.jobs._jobs) == 0  # type: ignore[attr-defined]

    for spec in ("nim:400,400", "tictactoe:4x4"):
        r = client.post("/api/games", json={"game": spec})
        assert r.status_code == 422 and "command line" in r.json()["detail"], spec
    r = client.post(
        "/play", data={"kind": "nim", "piles": "400,400", "rule": "misere", "first": "human"}
    )
    assert r.status_code == 422 and "command line" in r.text
    r = client.post("/train", data={"game": "nim:400,400", "episodes": "1"})
    assert r.status_code == 422 and "command line" in r.text
    assert client.get("/api/policies").json() == []


def test_the_default_budget_covers_the_games_people_play(tmp_path: Path) -> None:
    web = create_app(tmp_path).state.web
    for spec in ("tictactoe:3x3", "nim:3,5,7", "subtraction", "nim:2,6,7,8", "nim:10,10,10,10"):
        assert web.too_big(parse_spec(spec)) is None, spec
    assert web.too_big(parse_spec("nim:400,400")) is not None


def test_the_budget_is_a_setting(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, max_cost=100)) as client:
        assert client.post("/api/games", json={"game": "nim:1,2"}).status_code == 200  # 6 × 3
        r = client.post("/api/games", json={"game": "nim:3,5,7"})  # 192 × 15
        assert r.status_code == 422 and "budget" in r.json()["detail"]


def test_a_game_too_big_to_train_here_plays_from_a_policy_put_in_the_folder(
    tmp_path: Path,
) -> None:
    """Trained on the command line into the server's policy folder with the command the
    refusal gives, run as it is (before, it asked the reader to make up a NAME of 12 hex
    digits): the game then plays from the stored policy, no restart needed."""
    with TestClient(create_app(tmp_path, max_cost=100)) as client:
        r = client.post("/api/games", json={"game": "nim:3,5,7"})
        detail = r.json()["detail"]
        assert r.status_code == 422 and "192 positions × 15 moves" in detail
        folder = tmp_path / "policies"
        command = re.search(r"qarena (train nim:3,5,7 --out (\S+)) ", detail)
        assert command is not None, detail
        name = Path(command.group(2))
        assert name.parent == folder and re.fullmatch(r"[0-9a-f]{12}\.npz", name.name), name
        assert run(command.group(1).split()) == 0
        game = client.post("/api/games", json={"game": "nim:3,5,7", "first": "ai"}).json()
        assert game["policy"] == name.stem and game["game"] == "nim:3,5,7"
        assert len(game["history"]) == 1  # the stored agent opened
        page = client.get("/policies").text
        assert "nim:3,5,7" in page


def test_mid_size_games_train_on_the_spot_without_an_episode_count(client: TestClient) -> None:
    """tictactoe:3x4:3's default run is more episodes than a request may ask for; on the spot
    the run is capped by time (and stops at perfect play), not refused."""
    game = new_game(client, "tictactoe:3x4:3")
    policy = client.get(f"/api/policies/{game['policy']}").json()
    assert policy["game"] == "tictactoe:3x4:3" and policy["optimality"] == 1.0


# --- one run for many people -----------------------------------------------------------


def test_concurrent_first_games_share_one_training_run(tmp_path: Path) -> None:
    """Fifty people start the same untrained game at once: everyone gets a game, and one run
    trains the one agent they all play."""
    with TestClient(create_app(tmp_path)) as client:
        results: list[tuple[int, dict[str, Any]]] = []
        lock = threading.Lock()
        go = threading.Barrier(50)

        def start() -> None:
            go.wait()
            r = client.post("/api/games", json={"game": "nim:2,3,4"})
            with lock:
                results.append((r.status_code, r.json()))

        threads = [threading.Thread(target=start) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert [code for code, _ in results] == [200] * 50, results[:3]
        policies = client.get("/api/policies").json()
        assert len(policies) == 1 and policies[0]["game"] == "nim:2,3,4"
        assert {body["policy"] for _, body in results} == {policies[0]["id"]}
        assert len({body["id"] for _, body in results}) == 50
        assert len(list((tmp_path / "policies").glob("*.npz"))) == 1


def test_on_the_spot_runs_wait_in_line_ahead_of_background_runs(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, max_training=1)) as client:
        r = client.post("/api/train", json={"game": "nim:2,6,7,8", "episodes": 10_000_000})
        long_run = r.json()["job"]
        waiting = client.post("/api/train", json={"game": "nim:1,2", "episodes": 100}).json()
        assert waiting["waiting"] == "1st in line"
        # A person starts an untrained game: its run goes ahead of the background one.
        form = {"kind": "nim", "piles": "1,3", "rule": "misere", "first": "ai"}
        r = client.post("/play", data=form, follow_redirects=False)
        spot = r.headers["location"].split("/")[-1]
        snap = client.get(f"/api/train/{spot}").json()
        assert snap["state"] == "queued" and snap["waiting"] == "1st in line" and snap["spot"]
        page = client.get(f"/train/{spot}")
        assert "Waiting: 1st in line" in page.text
        assert client.get(f"/api/train/{waiting['job']}").json()["waiting"] == "2nd in line"
        # Someone else asks for the same game, the person starting: same run, their opener.
        r = client.post("/play", data={**form, "first": "human"}, follow_redirects=False)
        assert r.headers["location"] == f"/train/{spot}?first=human"
        client.delete(f"/api/train/{long_run}")
        assert wait_job(client, spot)["state"] == "done"
        r = client.get(f"/train/{spot}/play?first=human", follow_redirects=False)
        game = client.get(r.headers["location"].replace("/games/", "/api/games/")).json()
        assert game["first"] == "human" and game["history"] == []
        r = client.get(f"/train/{spot}/play", follow_redirects=False)  # the run's own opener
        game = client.get(r.headers["location"].replace("/games/", "/api/games/")).json()
        assert game["first"] == "ai" and len(game["history"]) == 1


# --- startup ----------------------------------------------------------------------------


def test_startup_tidies_what_killed_writers_left(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(create_app(tmp_path)) as client:
        kept = new_game(client, "nim:1,2")["policy"]
        orphan = new_game(client, "nim:2,2")["policy"]
        big = new_game(client, "nim:3,5,7")["policy"]
        rows = {p["id"]: p for p in client.get("/api/policies").json()}
    folder = tmp_path / "policies"
    # A writer killed between the file and its row: two orphan files, one under a new name.
    copy = secrets.token_hex(6)
    shutil.copy(folder / f"{orphan}.npz", folder / f"{copy}.npz")
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        db.execute("DELETE FROM policies WHERE id IN (?, ?)", (orphan, big))
        # A row whose file is gone.
        db.execute(
            "INSERT INTO policies VALUES ('0123456789ab', 'nim:1,2', 'q', 5, 1.0, '2024-01-01')"
        )
    (folder / "abcdefabcdef.npz").write_bytes(b"half a zip file")  # not a policy
    temps = [folder / f".{secrets.token_hex(6)}.npz.{secrets.token_hex(8)}.qarena-tmp"]
    for temp in temps:
        temp.write_bytes(b"partial")
    # Another program's temp file, under a name qarena's writer once used: not ours.
    other = folder / f".{secrets.token_hex(6)}.npz.{secrets.token_hex(8)}.tmp"
    other.write_bytes(b"partial")
    (folder / "notes.txt").write_text("not ours")

    caplog.set_level(logging.INFO, logger="qarena.web")
    # A memory budget that nim:3,5,7's tables are over (about 70 kB, where nim:2,2's take a
    # few): its orphan file is left alone, neither loaded nor lost.
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "20000")
    app = create_app(tmp_path)
    with TestClient(app) as client:
        listed = {p["id"]: p for p in client.get("/api/policies").json()}
    assert set(listed) == {kept, orphan, copy}
    for pid in (orphan, copy):
        for key in ("game", "learner", "episodes", "optimality"):
            assert listed[pid][key] == rows[orphan][key], key
        # A file that does not load is left as it is, and the Policies page says why.
        shown = client.get("/policies").text
    assert not any(t.exists() for t in temps)
    assert (folder / "abcdefabcdef.npz").read_bytes() == b"half a zip file"
    assert other.exists()
    assert 'id="unreadable"' in shown and "abcdefabcdef.npz" in shown
    assert (folder / f"{big}.npz").exists() and (folder / "notes.txt").exists()
    message = next(r.getMessage() for r in caplog.records if "policy store" in r.getMessage())
    assert "removed 1 temp files" in message and "indexed 2 policy files" in message
    assert "1 that do not load and 1 too big to load" in message
    assert "dropped 1 rows" in message

    # Tidy now: a second start finds nothing to do (but the big file, still too big).
    caplog.clear()
    create_app(tmp_path)
    message = next(r.getMessage() for r in caplog.records if "policy store" in r.getMessage())
    assert "indexed 0" in message and "1 too big to load" in message and "dropped 0" in message
    # With room for it, it is indexed.
    monkeypatch.delenv("QARENA_MEMORY_LIMIT")
    with TestClient(create_app(tmp_path)) as client:
        assert big in {p["id"] for p in client.get("/api/policies").json()}


# --- HEAD, unknown URLs -----------------------------------------------------------------


def test_head_works_wherever_get_does(client: TestClient) -> None:
    state = new_game(client, "nim:1,2")
    r = client.post("/api/train", json={"game": "nim:2,6,7,8", "episodes": 10_000_000})
    running = r.json()["job"]
    for path in (
        "/",
        "/train",
        "/policies",
        f"/games/{state['id']}",
        f"/policies/{state['policy']}/inspect",
        f"/policies/{state['policy']}/download",
        "/api/policies",
        f"/api/games/{state['id']}",
        "/static/qarena.css",
        "/openapi.json",
        f"/train/{running}/events",  # a stream: the head comes back at once
    ):
        get = client.get(path)
        t0 = time.monotonic()
        head = client.head(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"", path
        assert head.headers["content-type"] == get.headers["content-type"], path
        assert time.monotonic() - t0 < 5, path
    assert client.head("/nothing-here").status_code == 404
    assert client.head("/api/games/nosuchgame").status_code == 404
    client.delete(f"/api/train/{running}")


def test_unknown_urls_are_a_page_for_browsers_and_json_for_the_api(client: TestClient) -> None:
    html = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    r = client.get("/no/such/page", headers=html)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert 'id="error"' in r.text and "/no/such/page" in r.text and "<header>" in r.text
    r = client.get("/no/such/page")
    assert r.status_code == 404 and r.json()["detail"] == "there is nothing at /no/such/page"
    for path in ("/api/nothing", "/api", "/api/games/a/b/c"):
        r = client.get(path, headers=html)
        assert r.status_code == 404 and isinstance(r.json()["detail"], str), path
    r = client.put("/api/policies", headers=html)
    assert r.status_code == 405 and "PUT is not allowed" in r.json()["detail"]
    assert "GET" in r.headers["allow"]


# --- digits of other scripts ------------------------------------------------------------


def test_numbers_are_ascii_digits_only(client: TestClient) -> None:
    train = {"game": "nim:1,2", "learner": "q", "episodes": "", "alpha": "", "gamma": "",
             "epsilon": "", "epsilon_end": "", "schedule": "", "opponent": "self"}  # fmt: skip
    for field, value in (
        ("episodes", "३"),  # Devanagari three: int() reads it
        ("episodes", "١٠٠"),
        ("episodes", "1e3"),
        ("episodes", "-5"),
        ("alpha", "०.५"),
        ("alpha", "nan"),
        ("gamma", "inf"),
        ("epsilon", "1_0"),
    ):
        r = client.post("/train", data={**train, field: value})
        assert r.status_code == 422, (field, value)
        assert 'id="error"' in r.text and ("0-9" in r.text or "such as 0.5" in r.text)
    assert len(client.app.state.web.jobs._jobs) == 0  # type: ignore[attr-defined]
    r = client.post(
        "/train", data={**train, "episodes": " 200 ", "alpha": "0.5"}, follow_redirects=False
    )
    assert r.status_code == 303

    form = {"kind": "nim", "piles": "1,2", "heap": "5", "take": "2", "rows": "3", "cols": "3",
            "k": "3", "rule": "misere", "first": "human"}  # fmt: skip
    for field, value, kind in (
        ("piles", "३,५", "nim"),
        ("piles", "1,٢", "nim"),
        ("heap", "١٢", "subtraction"),
        ("take", "٣", "subtraction"),
        ("rows", "३", "tictactoe"),
        ("k", "३", "tictactoe"),
    ):
        r = client.post("/play", data={**form, "kind": kind, field: value})
        assert r.status_code == 422 and "0-9" in r.text, (field, value)

    for spec in ("nim:३,५", "subtraction:١٢:٣"):
        r = client.post("/api/games", json={"game": spec})
        assert r.status_code == 422 and "ASCII" in r.json()["detail"], spec
    r = client.post("/api/train", json={"game": "nim:1,2", "episodes": "३"})
    assert r.status_code == 422
    state = new_game(client, "nim:3,5,7")
    r = client.post(f"/api/games/{state['id']}/moves", json={"move": "३:१"})
    assert r.status_code == 422 and "ASCII" in r.json()["detail"]
    assert client.get(f"/api/games/{state['id']}").json() == state
    r = client.get(f"/policies/{state['policy']}/inspect", params={"position": "३ ५ ७"})
    assert r.status_code == 422 and "ASCII" in r.text


def test_a_policy_whose_file_vanished_is_not_found(tmp_path: Path) -> None:
    """Another process (a second server, a person) removed a stored policy's file: its
    download is a 404, not a server error, and its row goes."""
    with TestClient(create_app(tmp_path), raise_server_exceptions=False) as c:
        policy = wait_job(c, c.post("/api/train", json={"game": "nim:1,2"}).json()["job"])["policy"]
        whole = c.get(f"/policies/{policy}/download")
        assert whole.status_code == 200 and whole.content[:2] == b"PK"
        assert whole.headers["content-length"] == str(len(whole.content))
        assert f'filename="nim-1-2-q-{policy}.npz"' in whole.headers["content-disposition"]
        (tmp_path / "policies" / f"{policy}.npz").unlink()
        r = c.get(f"/policies/{policy}/download")
        assert r.status_code == 404 and policy in r.json()["detail"]
        assert c.get(f"/api/policies/{policy}").status_code == 404


def test_405_names_every_method_the_path_answers(client: TestClient) -> None:
    """The router named only the first route matching a path: PUT on a policy said ``Allow:
    GET``, though DELETE works there too."""
    r = client.put("/api/policies/0123456789ab")
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, GET, HEAD"
    assert client.put("/api/train/abc").headers["allow"] == "DELETE, GET, HEAD"
    assert client.get("/api/games/abc/moves").headers["allow"] == "POST"


def test_a_broken_form_is_said_to_be_a_broken_form(client: TestClient) -> None:
    r = client.post(
        "/play",
        content=b"\xff\xfe--x--",
        headers={"content-type": "multipart/form-data; boundary=x", "accept": "application/json"},
    )
    assert r.status_code == 400
    assert (
        r.json()["detail"] == "the request body could not be read as a form (multipart/form-data)"
    )


def test_stopping_a_run_that_has_ended_is_a_conflict(client: TestClient) -> None:
    job = client.post("/api/train", json={"game": "nim:1,2", "episodes": 100}).json()["job"]
    assert wait_job(client, job)["state"] == "done"
    r = client.delete(f"/api/train/{job}")
    assert r.status_code == 409 and "already ended (done)" in r.json()["detail"]
    # The page's stop button on an ended run just shows the run.
    page = client.post(f"/train/{job}/stop", follow_redirects=False)
    assert page.status_code == 303


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/api/games", b"application/json"), ("/policies/upload", b"multipart/form-data; boundary=x")],
)
def test_a_body_that_stops_arriving_is_let_go(
    tmp_path: Path, path: str, content_type: bytes
) -> None:
    """A client that promises a body and stops sending was held open for ever (1,000 such
    uploads held 1,252 descriptors, and one held up SIGTERM): answered 408 once no part of the
    body has come for the idle limit."""
    import anyio

    app = create_app(tmp_path, body_idle_seconds=0.3)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", content_type),
            (b"content-length", b"1000"),
        ],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[dict[str, Any]] = []
    first = True

    async def receive() -> dict[str, Any]:
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": b"--x\r\n", "more_body": True}
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def call() -> None:
        with anyio.fail_after(10):
            await app(scope, receive, send)

    # Its own thread: the browser tests' Playwright keeps an event loop in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, call).result()
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 408
