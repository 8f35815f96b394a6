"""Training jobs on a real ``qarena serve`` on 127.0.0.1: a stop ends a run within seconds
however deep it is (a curve point being judged, a long chunk of games on a big board), the
memory of the runs under way and waiting is held against the budget together, and a run that
cannot be judged is told so when it is asked for, not failed later."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_web_serve import serve

pytestmark = pytest.mark.slow


def ask(base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """(status, JSON body) of one request, errors included."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def start(data: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """A server on ``data``, with ``env`` added to its environment, once it answers."""
    return serve(data, env)


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A server on a fresh folder; ``@pytest.mark.parametrize("server", [ENV], indirect=True)``
    adds to its environment."""
    proc, base = start(tmp_path, getattr(request, "param", None))
    try:
        yield base
    finally:
        stop(proc)


def until(base: str, job: str, ok: Any, seconds: float) -> dict[str, Any]:
    """The job's snapshot once ``ok(snapshot)`` holds; fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        status, snap = ask(base, "GET", f"/api/train/{job}")
        assert status == 200, snap
        if ok(snap):
            return dict(snap)
        assert time.monotonic() < deadline, f"not within {seconds} s: {snap}"
        time.sleep(0.1)


def ended(snap: dict[str, Any]) -> bool:
    return snap["state"] not in ("queued", "running")


def test_stopping_a_network_run_while_a_curve_point_is_judged_ends_it(server: str) -> None:
    """Classic Connect Four judges a point by search (about a minute); a stop used to wait for
    it. Now the search ends with the stop, the point is dropped and the games are kept."""
    status, job = ask(
        server,
        "POST",
        "/api/train",
        {"game": "connect4", "learner": "ntuple", "tuples": 4, "tuple_length": 4,
         "episodes": 200_000},
    )  # fmt: skip
    assert status == 202, job
    assert job["note"] is None  # 6×7 has its opening book: the curve is judged
    # At 1,000 games the first point is judged; no point yet means it is under way.
    until(server, job["job"], lambda s: s["episodes"] >= 1_000, 60)
    time.sleep(1.0)
    snap = until(server, job["job"], lambda s: True, 1)
    assert snap["state"] == "running" and snap["points"] == 0 and snap["episodes"] == 1_000
    status, _ = ask(server, "DELETE", f"/api/train/{job['job']}")
    assert status == 202
    t0 = time.monotonic()
    snap = until(server, job["job"], ended, 20)
    assert time.monotonic() - t0 < 20
    assert snap["state"] == "done" and snap["stopped"], snap
    assert snap["episodes"] == 1_000 and snap["policy"] is not None
    status, policy = ask(server, "GET", f"/api/policies/{snap['policy']}")
    assert status == 200 and policy["episodes"] == 1_000


def test_stopping_the_server_while_a_curve_point_is_judged_saves_the_games(
    tmp_path: Path,
) -> None:
    """SIGTERM stops the running jobs and waits for them to save: a job judging a point used
    to hold the server up to its limit and then be lost."""
    proc, base = start(tmp_path)
    try:
        status, job = ask(
            base,
            "POST",
            "/api/train",
            {"game": "connect4", "learner": "ntuple", "tuples": 4, "tuple_length": 4,
             "episodes": 200_000},
        )  # fmt: skip
        assert status == 202, job
        until(base, job["job"], lambda s: s["episodes"] >= 1_000, 60)
        time.sleep(1.0)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert took < 10, f"stopping took {took:.1f} s"
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        rows = db.execute("SELECT game, episodes FROM policies").fetchall()
    assert rows == [("connect4:6x7:4", 1_000)]


def test_runs_without_a_bounded_curve_train_without_one_and_stop_at_once(server: str) -> None:
    """The issue's case: connect4:7x8 (no opening book) and tictactoe:5x8:5 took both slots,
    judging their first point for ever; a DELETE answered 202 and nothing stopped, and a new
    Nim game waited 70 s for a 503. They now train without a curve, say why, and stop."""
    jobs = []
    for spec in ("connect4:7x8", "tictactoe:5x8:5"):
        status, job = ask(
            server,
            "POST",
            "/api/train",
            {"game": spec, "learner": "ntuple", "tuples": 10, "tuple_length": 4,
             "episodes": 2_000_000},
        )  # fmt: skip
        assert status == 202, job
        assert job["state"] == "running"
        assert job["note"].startswith("no learning curve:") and "by search" in job["note"]
        jobs.append(job["job"])
    for job in jobs:
        until(server, job, lambda s: s["episodes"] >= 10_000, 60)
    t0 = time.monotonic()
    for job in jobs:
        status, _ = ask(server, "DELETE", f"/api/train/{job}")
        assert status == 202
    for job in jobs:
        snap = until(server, job, ended, 15)
        assert snap["state"] == "done" and snap["stopped"] and snap["points"] == 0, snap
    assert time.monotonic() - t0 < 15
    # The slots are free: a game whose agent trains on the spot is answered.
    status, game = ask(server, "POST", "/api/games", {"game": "nim:3,5,7"})
    assert status == 200, game


def test_a_board_too_big_to_judge_trains_without_a_curve_and_stops(server: str) -> None:
    """tictactoe:12x12:5 was accepted, then failed at its first curve point (the game cannot
    be solved here). Now it is told at once that it has no curve, trains, and a stop ends it
    within seconds although 10,000 of its games take half a minute."""
    status, job = ask(
        server,
        "POST",
        "/api/train",
        {"game": "tictactoe:12x12:5", "learner": "ntuple", "tuples": 10, "tuple_length": 4,
         "episodes": 1_000_000},
    )  # fmt: skip
    assert status == 202, job
    assert "too large to solve here" in job["note"]
    time.sleep(5)
    assert ask(server, "GET", f"/api/train/{job['job']}")[1]["state"] == "running"
    status, _ = ask(server, "DELETE", f"/api/train/{job['job']}")
    assert status == 202
    snap = until(server, job["job"], ended, 10)
    assert snap["state"] == "done" and snap["stopped"] and 0 < snap["episodes"] < 1_000_000


def test_stopping_alphazero_runs_mid_chunk_ends_them_and_frees_their_slots(server: str) -> None:
    """Issue 54: two AlphaZero runs at 2,000 simulations a move held both slots after DELETE
    (a chunk of 32 games takes minutes and the stop was looked at between chunks), so a new
    Nim game timed out. Each simulation step now looks at the stop."""
    pytest.importorskip("torch")
    jobs = []
    for _ in range(2):
        status, job = ask(
            server,
            "POST",
            "/api/train",
            {"game": "connect4", "learner": "alphazero", "episodes": 1_000_000,
             "simulations": 2000},
        )  # fmt: skip
        assert status == 202, job
        jobs.append(job["job"])
    time.sleep(8)  # PyTorch imported, the games under way
    for job in jobs:
        assert ask(server, "GET", f"/api/train/{job}")[1]["state"] == "running"
    t0 = time.monotonic()
    for job in jobs:
        status, _ = ask(server, "DELETE", f"/api/train/{job}")
        assert status == 202
    for job in jobs:
        snap = until(server, job, ended, 10)
        # Stopped in its first chunk: nothing learned, nothing kept; a stop, not a failure.
        assert snap["state"] == "cancelled" and snap["episodes"] == 0, snap
    assert time.monotonic() - t0 < 10
    status, game = ask(server, "POST", "/api/games", {"game": "nim:3,5,7"})
    assert status == 200, game


#: A budget that holds one network of 10 tuples of 10 cells (84 MB of tables) but not two.
BUDGET = {"QARENA_MEMORY_LIMIT": str(150 * 1024**2)}


@pytest.mark.parametrize("server", [BUDGET], indirect=True)
def test_runs_are_held_to_what_the_others_leave_of_the_budget(server: str) -> None:
    """Each run was checked alone against the whole budget, so two runs needing more than
    it together were both accepted (2 × 8.4 GB on a 13 GB machine). The second now waits for
    nothing: it is refused (503) in one line until the first has ended."""
    body = {"game": "connect4:7x8", "learner": "ntuple", "tuples": 10, "tuple_length": 10,
            "episodes": 2_000_000}  # fmt: skip
    status, first = ask(server, "POST", "/api/train", body)
    assert status == 202, first
    status, second = ask(server, "POST", "/api/train", body)
    assert status == 503, second
    detail = second["detail"]
    assert "the runs under way or waiting hold" in detail and "\n" not in detail
    # Alone, a run that needs more than the budget is bad input, not a wait.
    status, big = ask(server, "POST", "/api/train", {**body, "tuples": 20})
    assert status == 422 and "more than" in big["detail"], big
    status, _ = ask(server, "DELETE", f"/api/train/{first['job']}")
    assert status == 202
    until(server, first["job"], ended, 15)
    status, again = ask(server, "POST", "/api/train", body)
    assert status == 202, again
    ask(server, "DELETE", f"/api/train/{again['job']}")
