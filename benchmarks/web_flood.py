"""Web flood: many people's moves against perfect play at once, and the pages meanwhile.

Starts `qarena serve` on 127.0.0.1 (a free port, a fresh temp data folder). N clients (default
45) each start a classic Connect Four game against perfect play and play two moves of their
own (each client its own opening; every position so far is in the opening book); then all send
their next move at once, which perfect play answers by search (the first moves beyond the
book: seconds to tens of seconds each). Meanwhile another thread times, again and again, GET /,
GET /api/policies, a static file and a new nim game. Reports the p50/p99/max of those, how many
moves were answered, refused 503 (busy, or stopped at the time limit) or timed out at the
client, the server's VmRSS and VmHWM before and after, and its exit status after SIGTERM and
how long the stop took. Bounded: a move's client gives up after --timeout seconds, the probes
end when the moves have, and the server is killed if it has not stopped 60 s after SIGTERM.

``--big-boards`` first sends the issue's other attack: perfect play opening on connect4:7x8,
6x8, 8x7 and 5x9 (``first: ai``), each with a 10 s client timeout, and reports the answers and
the memory after them. ``--boards`` only measures, in this process, a search from the start
(weak, then exact) of the boards the web might offer, with the web's table size (at most
--board-seconds each, default 30): what ``qarena.web.searches.QUICK_BOARDS`` was chosen by.

Run: .venv/bin/python benchmarks/web_flood.py [--clients 45] [--timeout 60] [--big-boards]
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

# The server is started and measured as the load benchmark does (run from this folder).
from web_load import free_port, memory, qarena_command

HOST = "127.0.0.1"  # loopback only
COLUMNS = "abcdefg"
BIG_BOARDS = ("connect4:7x8", "connect4:6x8", "connect4:8x7", "connect4:5x9")
CANDIDATES = (
    "connect4:5x6",
    "connect4:4x7",
    "connect4:5x7",
    "connect4:6x6",
    "connect4:4x8",
    "connect4:7x7",
    "tictactoe:4x5:4",
    "tictactoe:5x5:4",
    "tictactoe:4x6:4",
)


def call(
    port: int, method: str, path: str, body: Any = None, timeout: float = 30
) -> tuple[int, Any, float]:
    """(status, JSON body or None, seconds) on a connection of its own; status 0: timed out."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    t0 = time.perf_counter()
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, data, {"Content-Type": "application/json"})
        r = conn.getresponse()
        raw = r.read()
        kind = r.getheader("content-type", "")
        got = json.loads(raw) if kind.startswith("application/json") and raw else None
        return r.status, got, time.perf_counter() - t0
    except TimeoutError:
        return 0, None, time.perf_counter() - t0
    finally:
        conn.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def start_games(port: int, clients: int) -> list[dict[str, Any]]:
    """Each client's classic game at ply 4 (its two moves and perfect play's two replies)."""
    games = []
    for i in range(clients):
        body = {"game": "connect4:6x7", "opponent": "perfect", "first": "human"}
        status, state, _ = call(port, "POST", "/api/games", body, timeout=120)
        if status != 200:
            raise SystemExit(f"could not start game {i}: {status} {state}")
        for column in (COLUMNS[i % 7], COLUMNS[(i // 7) % 7]):
            path = f"/api/games/{state['id']}/moves"
            status, state, _ = call(port, "POST", path, {"move": column}, timeout=120)
            if status != 200:
                raise SystemExit(f"could not play game {i}: {status} {state}")
        games.append(state)
    return games


def flood(
    port: int, games: list[dict[str, Any]], timeout: float
) -> tuple[Counter[str], dict[str, Any]]:
    """Every client's next move at once, the pages timed meanwhile."""
    outcomes: Counter[str] = Counter()
    move_seconds: list[float] = []
    probes: dict[str, list[float]] = {"GET /": [], "GET /api/policies": [], "static file": []}
    probes["new nim game"] = []
    probe_failures: Counter[str] = Counter()
    lock = threading.Lock()
    go = threading.Event()

    def move(i: int, state: dict[str, Any]) -> None:
        column = COLUMNS[(3 * i + 1) % 7]
        legal = state["legal_moves"]
        column = column if column in legal else legal[0]
        go.wait()
        status, _body, seconds = call(
            port, "POST", f"/api/games/{state['id']}/moves", {"move": column}, timeout
        )
        kind = {200: "answered", 503: "503", 0: "timed out"}.get(status, f"status {status}")
        with lock:
            outcomes[kind] += 1
            if status == 200:
                move_seconds.append(seconds)

    senders = [threading.Thread(target=move, args=(i, g)) for i, g in enumerate(games)]
    for t in senders:
        t.start()
    done = threading.Event()

    def probe() -> None:
        requests = (
            ("GET /", "GET", "/", None),
            ("GET /api/policies", "GET", "/api/policies", None),
            ("static file", "GET", "/static/qarena.css", None),
            ("new nim game", "POST", "/api/games", {"game": "nim:3,5,7", "opponent": "perfect"}),
        )
        while not done.is_set():
            for name, method, path, body in requests:
                status, _b, seconds = call(port, method, path, body, timeout=30)
                probes[name].append(seconds)
                if status != 200:
                    probe_failures[name] += 1
            time.sleep(0.2)

    prober = threading.Thread(target=probe)
    t0 = time.perf_counter()
    go.set()
    prober.start()
    for t in senders:
        t.join()
    wall = time.perf_counter() - t0
    done.set()
    prober.join()
    return outcomes, {
        "probes": probes,
        "failures": probe_failures,
        "moves": move_seconds,
        "wall": wall,
    }


def big_boards(port: int) -> list[tuple[str, int, str, float]]:
    rows = []
    for spec in BIG_BOARDS:
        body = {"game": spec, "opponent": "perfect", "first": "ai"}
        status, got, seconds = call(port, "POST", "/api/games", body, timeout=10)
        detail = got.get("detail", "") if isinstance(got, dict) else ""
        rows.append((spec, status, str(detail)[:80], seconds))
    return rows


def measure_boards(seconds: float) -> None:
    """A search from each candidate's start, with the web's table size."""
    from qarena import threads
    from qarena.games import parse_spec
    from qarena.web.searches import TABLE_BYTES, web_solution

    print(f"search from the start, table {TABLE_BYTES >> 20} MiB, at most {seconds:g} s each\n")
    print("| board | weak s | weak + exact s |")
    print("|---|---:|---:|")
    for spec in CANDIDATES:
        game = parse_spec(spec)
        solution = web_solution(game)
        t0 = time.perf_counter()
        try:
            with threads.limit(seconds=seconds):
                solution.move_values(game.start())
                weak = time.perf_counter() - t0
                solution.move_outcomes(game.start())
            print(f"| {spec} | {weak:.1f} | {time.perf_counter() - t0:.1f} |")
        except threads.Stopped:
            print(f"| {spec} | not within {seconds:g} s | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=45)
    parser.add_argument("--timeout", type=float, default=60.0, help="a move's client timeout")
    parser.add_argument("--big-boards", action="store_true")
    parser.add_argument("--boards", action="store_true")
    parser.add_argument("--board-seconds", type=float, default=30.0)
    args = parser.parse_args()
    if args.boards:
        measure_boards(args.board_seconds)
        return
    data = Path(tempfile.mkdtemp(prefix="qarena-flood-"))
    port = free_port()
    server = subprocess.Popen(
        [*qarena_command(), "serve", "--host", HOST, "--port", str(port), "--data-dir", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    big: list[tuple[str, int, str, float]] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                call(port, "GET", "/api/policies", timeout=5)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("qarena serve did not start") from None
                time.sleep(0.2)
        start = memory(server.pid)
        if args.big_boards:
            big = big_boards(port)
        after_big = memory(server.pid)
        games = start_games(port, args.clients)
        before = memory(server.pid)
        outcomes, seen = flood(port, games, args.timeout)
        after = memory(server.pid)
    finally:
        t0 = time.monotonic()
        server.send_signal(signal.SIGTERM)
        try:
            _out, err = server.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            _out, err = server.communicate()
        stop_seconds = time.monotonic() - t0
        shutil.rmtree(data, ignore_errors=True)
    report(args, big, (start, after_big, before, after), outcomes, seen)
    tracebacks = err.count("Traceback")
    print(
        f"\nserver exit status after SIGTERM: {server.returncode}, after {stop_seconds:.1f} s; "
        f"tracebacks in its log: {tracebacks}"
    )


def report(
    args: argparse.Namespace,
    big: list[tuple[str, int, str, float]],
    memories: tuple[dict[str, int], ...],
    outcomes: Counter[str],
    seen: dict[str, Any],
) -> None:
    start, after_big, before, after = memories
    print(
        f"command: .venv/bin/python benchmarks/web_flood.py --clients {args.clients} "
        f"--timeout {args.timeout:g}" + (" --big-boards" if args.big_boards else "")
    )
    if big:
        print("\n| perfect play opening on | status | answer | seconds |")
        print("|---|---:|---|---:|")
        for spec, status, detail, seconds in big:
            shown = "client timed out (10 s)" if status == 0 else detail
            print(f"| {spec} | {status or '-'} | {shown} | {seconds:.1f} |")
        print(
            f"\nafter them: VmRSS {after_big['VmRSS'] / 1024:.0f} MB (at start "
            f"{start['VmRSS'] / 1024:.0f} MB), VmHWM {after_big['VmHWM'] / 1024:.0f} MB"
        )
    print(f"\n{args.clients} moves sent at once (classic Connect Four at ply 4, against perfect")
    print(f"play), in {seen['wall']:.1f} s until the last was answered or its client gave up:\n")
    print("| moves | answered | 503 | timed out | other | slowest answered s |")
    print("|---:|---:|---:|---:|---:|---:|")
    other = sum(n for k, n in outcomes.items() if k not in ("answered", "503", "timed out"))
    slowest = f"{max(seen['moves']):.1f}" if seen["moves"] else "-"
    print(
        f"| {args.clients} | {outcomes['answered']} | {outcomes['503']} | "
        f"{outcomes['timed out']} | {other} | {slowest} |"
    )
    print("\nmeanwhile, the pages:\n")
    print("| request | count | failed | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, values in seen["probes"].items():
        if not values:
            continue
        print(
            f"| {name} | {len(values)} | {seen['failures'][name]} | "
            f"{1000 * statistics.median(values):.1f} | {1000 * percentile(values, 0.99):.1f} | "
            f"{1000 * max(values):.1f} |"
        )
    print("\n| VmRSS before | VmRSS after | VmHWM (peak) after |")
    print("|---:|---:|---:|")
    print(
        f"| {before['VmRSS'] / 1024:.0f} MB | {after['VmRSS'] / 1024:.0f} MB | "
        f"{after['VmHWM'] / 1024:.0f} MB |"
    )


if __name__ == "__main__":
    main()
