"""A newcomer's first `make run`, end to end: a fresh clone of this repository, README's first
command, and how long until the first page answers, the first game starts and the background
warm-up is done. The install (venv, pip, the package and its dependencies) is included.

    .venv/bin/python benchmarks/fresh_run.py [--port 8000]

The clone lives in a temporary folder and its `make run` is stopped at the end. pip's own cache
is used as it is on the machine (a newcomer's first install downloads the wheels; a second one
does not), and it is said which. Wall-clock times: run on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def answers(url: str, body: dict[str, str] | None = None) -> bool:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--limit", type=float, default=600.0)
    args = parser.parse_args()
    if args.port != 8000:
        raise SystemExit("make run serves on port 8000; --port is for a later Makefile")
    base = f"http://127.0.0.1:{args.port}"
    if answers(base + "/"):
        raise SystemExit(f"something already answers on {base}; stop it first")
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "qarena"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
        env.pop("NUMBA_CACHE_DIR", None)
        log = (Path(tmp) / "make-run.log").open("w")
        t0 = time.perf_counter()
        run = subprocess.Popen(
            ["make", "run"],
            cwd=clone,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        marks: dict[str, float] = {}
        try:
            while time.perf_counter() - t0 < args.limit:
                now = time.perf_counter() - t0
                if "installed" not in marks and (clone / ".venv" / ".package").exists():
                    marks["installed"] = now
                if "first page" not in marks and answers(base + "/"):
                    marks["first page"] = time.perf_counter() - t0
                    answers(base + "/api/games", {"game": "tictactoe"})
                    marks["first game started"] = time.perf_counter() - t0
                if "warm-up done" not in marks and (clone / ".venv" / ".installed").exists():
                    marks["warm-up done"] = time.perf_counter() - t0
                if len(marks) == 4:
                    break
                if run.poll() is not None:
                    raise SystemExit(f"make run ended early; see {log.name}")
                time.sleep(0.25)
        finally:
            os.killpg(run.pid, signal.SIGTERM)
            run.wait(timeout=30)
            log.close()
    for what, seconds in marks.items():
        print(f"{what:>20}: {seconds:6.1f} s after `make run`")
    served = marks.get("first page", float("inf")) - marks.get("installed", 0.0)
    print(f"{'page after install':>20}: {served:6.1f} s")


if __name__ == "__main__":
    main()
