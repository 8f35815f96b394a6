"""Web load: 200 people play whole games at once against a real `qarena serve`.

Starts `qarena serve` on 127.0.0.1 (a free port, a fresh temp data folder), then 50 worker
threads play 200 games: half nim:3,5,7, half tictactoe, alternating who opens; each game is
POST /api/games then random legal moves (POST /api/games/{id}/moves) until the end. Two rounds:
in the first ("cold") the first requests train both agents on the spot (and the server compiles
its kernels); the second ("warm") plays against the stored agents. Reports errors, request
latency (p50, p99) and the server's resident memory (VmRSS, and its peak VmHWM) before and
after each round.

Run: .venv/bin/python benchmarks/web_load.py
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"  # loopback only
SPECS = ("nim:3,5,7", "tictactoe")
#: More moves than any game here lasts (nim:3,5,7: 15 matches; tictactoe: 9 cells).
MAX_MOVES = 20


def qarena_command() -> list[str]:
    script = Path(sys.executable).parent / "qarena"
    return [str(script)] if script.exists() else [sys.executable, "-m", "qarena"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in kB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found


class Client:
    """One keep-alive connection per worker thread."""

    local = threading.local()

    def __init__(self, port: int) -> None:
        self.port = port

    def call(self, method: str, path: str, body: Any) -> tuple[int, Any, float]:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection(HOST, self.port, timeout=120)
        data = json.dumps(body).encode()
        t0 = time.perf_counter()
        try:
            conn.request(method, path, data, {"Content-Type": "application/json"})
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            conn.close()
            self.local.conn = None
            raise
        seconds = time.perf_counter() - t0
        return response.status, json.loads(payload) if payload else None, seconds


def play(client: Client, index: int, timings: dict[str, list[float]], errors: list[str]) -> None:
    """One whole game; every request's latency goes to ``timings``."""
    rng = random.Random(index)
    spec = SPECS[index % 2]
    first = "human" if index % 4 < 2 else "ai"
    try:
        status, state, seconds = client.call("POST", "/api/games", {"game": spec, "first": first})
        timings["new game"].append(seconds)
        if status != 200:
            errors.append(f"new game {spec}: {status} {state}")
            return
        for _ in range(MAX_MOVES):
            if state["result"] is not None:
                return
            move = rng.choice(state["legal_moves"])
            path = f"/api/games/{state['id']}/moves"
            status, state, seconds = client.call("POST", path, {"move": move})
            timings["move"].append(seconds)
            if status != 200:
                errors.append(f"move {move} in {spec}: {status} {state}")
                return
        errors.append(f"{spec} did not end within {MAX_MOVES} moves")
    except Exception as e:  # counted, not raised: one failure must not hide the rest
        errors.append(f"{spec}: {type(e).__name__}: {e}")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=50)
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="qarena-load-"))
    port = free_port()
    server = subprocess.Popen(
        [*qarena_command(), "serve", "--host", HOST, "--port", str(port), "--data-dir", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        client = Client(port)
        deadline = time.monotonic() + 60
        while True:
            try:
                client.call("GET", "/api/policies", None)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"qarena serve did not start: {server.stderr}") from None
                time.sleep(0.2)
        rounds = []
        for name in ("cold", "warm"):
            before = memory(server.pid)
            timings: dict[str, list[float]] = {"new game": [], "move": []}
            errors: list[str] = []
            t0 = time.perf_counter()
            with ThreadPoolExecutor(args.workers) as pool:
                for i in range(args.games):
                    pool.submit(play, client, i, timings, errors)
            wall = time.perf_counter() - t0
            rounds.append((name, timings, errors, wall, before, memory(server.pid)))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(data, ignore_errors=True)

    print(f"command: .venv/bin/python benchmarks/web_load.py --games {args.games} "
          f"--workers {args.workers}")  # fmt: skip
    print(f"{args.games} games a round ({', '.join(SPECS)}), {args.workers} threads; "
          "cold: a fresh data folder, the first requests train the agents\n")  # fmt: skip
    print("| round | requests | count | errors | p50 ms | p99 ms | max ms | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, timings, errors, wall, _, _ in rounds:
        every = timings["new game"] + timings["move"]
        for kind, values in (*timings.items(), ("all", every)):
            if not values:
                continue
            failed = len(errors) if kind == "all" else sum(e.startswith(kind) for e in errors)
            print(
                f"| {name} | {kind} | {len(values)} | {failed} | "
                f"{1000 * statistics.median(values):.1f} | "
                f"{1000 * percentile(values, 0.99):.1f} | {1000 * max(values):.1f} | "
                f"{wall:.1f} |"
            )
    print()
    print("| round | VmRSS before | VmRSS after | VmHWM (peak) after |")
    print("|---|---:|---:|---:|")
    for name, _, _, _, before, after in rounds:
        print(
            f"| {name} | {before['VmRSS'] / 1024:.0f} MB | {after['VmRSS'] / 1024:.0f} MB | "
            f"{after['VmHWM'] / 1024:.0f} MB |"
        )
    print(f"\nserver exit status after SIGTERM: {server.returncode}")
    for _, _, errors, _, _, _ in rounds:
        for line in errors[:10]:
            print(f"error: {line}")


if __name__ == "__main__":
    main()
