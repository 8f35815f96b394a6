"""Perfect play by search on a real server (127.0.0.1): boards it could not answer in time are
refused in a line, a move's search ends at its time limit with the game put back, requests
beyond the search line are 503 with Retry-After while the pages stay quick, a client that
leaves stops its search, and a stop during searches is prompt and quiet (issue 35)."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qarena.web.searches import Kept, offered_boards
from tests.test_web_serve import free_port, serve

pytestmark = pytest.mark.slow

#: A server with small limits, as ``qarena serve`` runs it (uvicorn, the stop flag).
LAUNCH = """
import sys
from pathlib import Path
import uvicorn
from qarena.web import create_app
app = create_app(Path(sys.argv[1]), move_seconds=float(sys.argv[3]), search_slots=1,
                 max_waiting=1)
server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[2]),
                                       log_level="warning", timeout_graceful_shutdown=10))
app.state.web.stopping = lambda: bool(server.should_exit)
server.run()
"""


class Server:
    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc, self.port = proc, port
        self.data: Path | None = None

    def call(
        self, method: str, path: str, body: Any = None, timeout: float = 60, **headers: str
    ) -> tuple[int, dict[str, str], Any]:
        """(status, headers, body: JSON when it is, else text) on a connection of its own."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = body if isinstance(body, bytes) else None
            if body is not None and data is None:
                data = json.dumps(body).encode()
                headers.setdefault("Content-Type", "application/json")
            conn.request(method, path, data, headers)
            r = conn.getresponse()
            raw = r.read().decode()
            kind = r.getheader("content-type", "")
            got = json.loads(raw) if kind.startswith("application/json") else raw
            return r.status, {k.lower(): v for k, v in r.getheaders()}, got
        finally:
            conn.close()

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")


def launch(data: Path, move_seconds: float) -> Server:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, str(data), str(port), str(move_seconds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    server = Server(proc, port)
    server.data = data
    deadline = time.monotonic() + 60
    while True:
        try:
            server.call("GET", "/api/policies", timeout=5)
            return server
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the server did not start: {proc.communicate()}")
            time.sleep(0.2)


def stop(server: Server) -> str:
    server.proc.send_signal(signal.SIGTERM)
    try:
        _out, err = server.proc.communicate(timeout=30)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.communicate()
    return err


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One search slot, one request in line, 1 s a move."""
    server = launch(tmp_path_factory.mktemp("search"), move_seconds=1)
    yield server
    stop(server)


def at_ply_4(server: Server, columns: tuple[str, str], seed: int | None = None) -> dict[str, Any]:
    """A classic game against perfect play, the person's two moves played: every position so
    far is in the opening book (5 plies), so this is quick; the person's next move is not.
    ``seed`` fixes perfect play's choices among its equal moves."""
    body = {"game": "connect4:6x7", "opponent": "perfect", "first": "human", "seed": seed}
    status, _h, state = server.call("POST", "/api/games", body)
    assert status == 200, state
    for column in columns:
        status, _h, state = server.call("POST", f"/api/games/{state['id']}/moves", {"move": column})
        assert status == 200, state
    assert len(state["history"]) == 4
    return state


def test_boards_it_cannot_answer_in_time_are_refused_in_one_line(small: Server) -> None:
    """connect4:7x8 (and 6x8, 8x7, 5x9) against perfect play, the AI first, started searches
    that never ended, a 1 GiB table each: four took the server to 3.9 GB. Now each is refused
    at once, saying which boards are offered, and nothing is built."""
    rss = small.rss_mb()
    for spec in ("connect4:7x8", "connect4:6x8", "connect4:8x7", "connect4:5x9", "tictactoe:6x6:4"):
        t0 = time.monotonic()
        status, _h, body = small.call(
            "POST", "/api/games", {"game": spec, "opponent": "perfect", "first": "ai"}
        )
        assert status == 422, (spec, body)
        assert time.monotonic() - t0 < 5
        detail = body["detail"]
        assert "\n" not in detail and "connect4:6x7:4" in detail and spec in detail
        assert all(board in detail for board in offered_boards())
    # A trained agent there is refused as before, pointing to perfect play on the command line.
    status, _h, body = small.call(
        "POST", "/api/games", {"game": "connect4:7x8", "opponent": "trained"}
    )
    assert status == 422 and "--opponent perfect" in body["detail"], body
    assert "(the solver)" not in body["detail"]
    status, _h, body = small.call(
        "POST", "/api/games", {"game": "connect4:6x7", "opponent": "trained"}
    )
    assert status == 422 and "perfect play (the solver)" in body["detail"], body
    # The home form says the same, on its page.
    form = {"kind": "spec", "spec": "connect4:7x8", "opponent": "perfect", "first": "ai"}
    status, _h, page = small.call(
        "POST",
        "/play",
        "&".join(f"{k}={v}" for k, v in form.items()).encode(),
        **{"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"},
    )
    assert status == 422 and "connect4:5x6:4" in page and 'id="error"' in page
    # A duel there is judged move by move by search: refused the same way.
    form = {"a": "random", "b": "random", "game": "connect4:7x8", "delay": "1.0"}
    status, _h, page = small.call(
        "POST",
        "/watch",
        "&".join(f"{k}={v}" for k, v in form.items()).encode(),
        **{"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"},
    )
    assert status == 422 and "connect4:5x6:4" in page and "connect4:7x8" in page
    assert small.rss_mb() < rss + 50


def test_an_offered_board_without_a_book_plays_from_its_start(small: Server) -> None:
    status, _h, state = small.call(
        "POST", "/api/games", {"game": "connect4:5x6", "opponent": "perfect", "first": "ai"}
    )
    # Its search from the start takes seconds, and may not fit in this server's 3 s.
    assert status in (200, 503), state
    if status == 200:
        assert len(state["history"]) == 1 and state["outcomes"]


#: Perfect play's choices that make the person's next moves, g and b, slow to answer.
SLOW_SEED = 1


def test_a_move_that_searches_too_long_is_stopped_and_the_game_put_back(small: Server) -> None:
    """The AI's first move beyond the opening book takes 10-40 s: past this server's 3 s it is
    stopped, the answer is 503 with Retry-After, and the game is as it was before the move,
    which the person may send again."""
    state = at_ply_4(small, ("a", "a"), seed=SLOW_SEED)
    t0 = time.monotonic()
    status, headers, body = small.call("POST", f"/api/games/{state['id']}/moves", {"move": "g"})
    took = time.monotonic() - t0
    assert status == 503, body
    assert int(headers["retry-after"]) >= 1
    assert "longer than 1 s" in body["detail"] and "\n" not in body["detail"]
    assert took < 10, took
    status, _h, after = small.call("GET", f"/api/games/{state['id']}")
    assert status == 200 and after["history"] == state["history"]
    assert after["to_move"] == "human" and after["position"] == state["position"]
    # The page says so in the game, which shows the position before the move.
    status, headers, page = small.call(
        "POST",
        f"/games/{state['id']}/move",
        b"move=b",
        **{"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"},
    )
    assert status == 503 and "longer than 1 s" in page and "retry-after" in headers
    status, _h, after = small.call("GET", f"/api/games/{state['id']}")
    assert after["history"] == state["history"]


def test_a_duel_step_that_searches_too_long_is_stopped_and_the_duel_unchanged(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A duel on classic Connect Four, every move judged by search, on a server that gives a
    move a quarter of a second: the steps in the opening book are quick; beyond it, from
    random play's opening, the solver's verdict on every move of a position past the book
    takes longer (0.3 s to seconds): that step is stopped at the limit (503, Retry-After,
    said on the panel) and the duel is where it was."""
    server = launch(tmp_path_factory.mktemp("duel"), move_seconds=0.25)
    try:
        form = b"a=random&b=random&game=connect4%3A6x7&delay=1.0"
        kind = {"Content-Type": "application/x-www-form-urlencoded"}
        status, headers, _page = server.call("POST", "/watch", form, **kind)
        assert status == 303, _page
        path = headers["location"]
        htmx = {**kind, "HX-Request": "true"}
        ply, status, panel, headers = 0, 200, "", {}
        # A game of random play may end first (the next starts at ply 0); a step over the
        # limit comes within a game or two.
        for _ in range(80):
            status, headers, panel = server.call(
                "POST", f"{path}/step", f"at={ply}".encode(), **htmx
            )
            at = re.search(r'name="at" value="(\d+)"', panel)
            assert at is not None, panel
            if status != 200:
                break
            ply = int(at.group(1))
        turn = re.search(r'id="turn">([^<]*)<', panel)
        # What matters is that the stopped step leaves the duel where it was.
        assert status == 503, (ply, status, turn and turn.group(1))
        assert "longer than 0.25 s" in panel and int(headers["retry-after"]) >= 1
        assert at.group(1) == str(ply)  # not a move further
    finally:
        stop(server)


def test_inspecting_a_network_searches_its_verdicts_within_the_limit(small: Server) -> None:
    """The Inspect page of a network on a board solved by search shows the solver's verdicts,
    searched through the search gate: the start's are in the opening book; a position whose
    verdicts take seconds (over 5 s here) is answered 503 with Retry-After at the limit."""
    import shutil

    import qarena

    assert small.data is not None
    shipped = Path(qarena.__file__).parent / "data" / "connect4-6x7.ntuple.npz"
    shutil.copy(shipped, small.data / "policies" / "0123456789ab.npz")
    assert small.call("GET", "/policies")[0] == 200  # the folder is looked at again
    pid = next(p["id"] for p in small.call("GET", "/api/policies")[2] if p["learner"] == "ntuple")
    status, _h, page = small.call("GET", f"/policies/{pid}/inspect")
    assert status == 200 and "verdict-" in page
    position = "......./......./......./x....../o.....o/x.....x"  # a a g g a
    t0 = time.monotonic()
    status, headers, page = small.call(
        "GET", f"/policies/{pid}/inspect?position={urllib.parse.quote(position)}"
    )
    assert status == 503, page[-800:]
    assert "longer than 1 s" in page and int(headers["retry-after"]) >= 1
    assert time.monotonic() - t0 < 5


def test_beyond_the_line_moves_are_503_the_pages_stay_quick_and_gone_clients_stop(
    tmp_path: Path,
) -> None:
    """Six moves at once that each search for many seconds (the limit here is 60 s): one
    searches, one waits, the other four are answered 503 with Retry-After at once; meanwhile
    the home page, the policies, a static file and a new nim game answer within a second. The
    clients then leave: their searches stop, and the next move is taken at once."""
    small = launch(tmp_path, move_seconds=60)
    try:
        _flood(small)
    finally:
        err = stop(small)
    assert "Traceback" not in err, err


def _flood(small: Server) -> None:
    games = [at_ply_4(small, (a, b)) for a, b in ("bb", "bc", "cb", "ff", "fe", "ef")]
    answers: list[tuple[int, dict[str, str], Any]] = []
    answered: set[str] = set()  # games whose move was played in time (the search was quick)

    def send(state: dict[str, Any]) -> None:
        try:
            answer = small.call(
                "POST", f"/api/games/{state['id']}/moves", {"move": "a"}, timeout=2.5
            )
        except TimeoutError:
            answer = (0, {}, None)  # the client left
        answers.append(answer)
        if answer[0] == 200:
            answered.add(state["id"])

    senders = [threading.Thread(target=send, args=(g,)) for g in games]
    for t in senders:
        t.start()
    time.sleep(0.5)
    for path, body in (
        ("/", None),
        ("/api/policies", None),
        ("/static/qarena.css", None),
        ("/api/games", {"game": "nim:3,5,7", "opponent": "perfect"}),
    ):
        t0 = time.monotonic()
        status, _h, _b = small.call("POST" if body else "GET", path, body)
        # Before, they timed out after 30 s behind the searches; benchmarks/web_flood.py
        # measures the target (within a second). A loose bound here keeps a loaded CI honest.
        assert status == 200 and time.monotonic() - t0 < 5.0, path
    for t in senders:
        t.join()
    busy = [a for a in answers if a[0] == 503]
    left = [a for a in answers if a[0] == 0]
    assert len(busy) >= 4 and all(int(h["retry-after"]) >= 1 for _s, h, _b in busy), answers
    assert "busy" in busy[0][2]["detail"]
    assert len(left) + len(busy) + sum(a[0] == 200 for a in answers) == 6
    # Once its clients have gone, a move waits for nothing: an opening-book move is quick.
    time.sleep(1.0)
    t0 = time.monotonic()
    status, _h, state = small.call(
        "POST", "/api/games", {"game": "connect4:6x7", "opponent": "perfect", "first": "ai"}
    )
    assert status == 200 and state["history"] == ["d"], state
    assert time.monotonic() - t0 < 10.0  # not behind the gone clients' 60 s searches
    # Games whose clients left or were refused are as they were.
    for g in games:
        if g["id"] in answered:
            continue
        assert small.call("GET", f"/api/games/{g['id']}")[2]["history"] == g["history"]


def test_a_truncated_form_is_refused(small: Server) -> None:
    """``--xx\\r\\nbroken`` as a multipart body to /play started a default game (303)."""
    status, _h, body = small.call(
        "POST",
        "/play",
        b"--xx\r\nbroken",
        **{"Content-Type": "multipart/form-data; boundary=xx", "Accept": "application/json"},
    )
    assert status == 400
    assert body["detail"] == "the request body could not be read as a form (multipart/form-data)"
    # A whole multipart form still plays.
    whole = (
        b'--xx\r\nContent-Disposition: form-data; name="kind"\r\n\r\nnim\r\n'
        b'--xx\r\nContent-Disposition: form-data; name="piles"\r\n\r\n1,2\r\n'
        b'--xx\r\nContent-Disposition: form-data; name="opponent"\r\n\r\nperfect\r\n'
        b"--xx--\r\n"
    )
    status, headers, _b = small.call(
        "POST", "/play", whole, **{"Content-Type": "multipart/form-data; boundary=xx"}
    )
    assert status == 303 and headers["location"].startswith("/games/")


def test_stopping_the_server_during_searches_is_prompt_and_quiet(tmp_path: Path) -> None:
    """Stopping a server with searches running took 37 s and logged a traceback per search."""
    proc, base = serve(tmp_path)
    server = Server(proc, int(base.rsplit(":", 1)[1]))
    try:
        games = [at_ply_4(server, pair) for pair in ("aa", "gg")]
        for g in games:
            threading.Thread(target=lambda g=g: _quietly(server, g["id"]), daemon=True).start()
        time.sleep(1.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert took < 5, took
    assert "Traceback" not in err and "ERROR" not in err, err


def _quietly(server: Server, game_id: str) -> None:
    with contextlib.suppress(OSError):
        server.call("POST", f"/api/games/{game_id}/moves", {"move": "d"}, timeout=30)


def test_kept_solutions_stay_within_their_bytes() -> None:
    """Solutions are kept by memory, not by count: a search table of 64 MiB each, so a bound
    of 150 MiB keeps two boards, the least recently used pushed out."""
    from qarena.games import parse_spec

    kept = Kept(most=150 << 20)
    boards = [parse_spec(s) for s in ("connect4:5x6", "connect4:4x7", "connect4:5x7")]
    first = kept.get(boards[0])
    assert kept.get(boards[0]) is first
    for board in boards[1:]:
        kept.get(board)
    assert len(kept) == 2 and kept.bytes <= 150 << 20
    assert kept.get(boards[0]) is not first  # pushed out, built afresh
