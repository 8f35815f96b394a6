"""The first game after an install: how long `POST /api/games` waits, in a fresh process, with
no compiled kernels on disk and after `qarena warm-up` (what `make install` runs).

    .venv/bin/python benchmarks/first_game.py

Each case starts from its own empty numba cache (NUMBA_CACHE_DIR), so the project's own cache
is neither used nor touched: the first game with nothing compiled; and `qarena warm-up` on an
empty cache, then the first game. Wall-clock times: run on an idle machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

QARENA = [sys.executable, "-m", "qarena"]
FIRST_GAME = r"""
import sys, tempfile, time
from fastapi.testclient import TestClient
from qarena.web import create_app
client = TestClient(create_app(tempfile.mkdtemp(), allowed_hosts=["testserver"]))
t0 = time.perf_counter()
r = client.post("/api/games", json={"game": sys.argv[1]})
assert r.status_code == 200, r.text
print(f"{time.perf_counter() - t0:.2f}")
"""


def first_game(spec: str, env: dict[str, str]) -> float:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_GAME, spec],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip())


def main() -> None:
    rows = []
    for spec in ("nim:3,5,7", "tictactoe"):
        with tempfile.TemporaryDirectory() as cache:
            cold = first_game(spec, {**os.environ, "NUMBA_CACHE_DIR": cache})
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            t0 = time.perf_counter()
            subprocess.run([*QARENA, "warm-up"], env=env, capture_output=True, check=True)
            warm_up = time.perf_counter() - t0
            warm = first_game(spec, env)
        rows.append((spec, cold, warm_up, warm))
    print("`.venv/bin/python benchmarks/first_game.py`\n")
    print("| game | first game, no compiled kernels | `qarena warm-up` | first game after it |")
    print("|---|---:|---:|---:|")
    for spec, cold, warm_up, warm in rows:
        print(f"| `{spec}` | {cold:.1f} s | {warm_up:.1f} s | {warm:.2f} s |")


if __name__ == "__main__":
    main()
