"""Seconds from Ctrl-C (a real SIGINT) to exit, for the long commands.

    .venv/bin/python benchmarks/interrupt.py [--repeat 5]
    .venv/bin/python benchmarks/interrupt.py --search [--repeat 16]

Each command is started in a fresh process on work that would take minutes, interrupted after
a few seconds, and timed from the signal to its exit. Prints a markdown table. With --search:
commands are interrupted during the search of a game's positions (one compiled call), at
moments 0.05 s apart from the start of the search, and the ends are counted.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QARENA = [sys.executable, "-m", "qarena"]


def _once(argv: list[str], cwd: str, wait: float) -> tuple[float, int, str]:
    proc = subprocess.Popen(
        [*QARENA, *argv], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    time.sleep(wait)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, stderr = proc.communicate(timeout=60)
    return time.monotonic() - t0, proc.returncode, stderr.strip().splitlines()[-1]


def _during_search(argv: list[str], cwd: str, delay: float) -> tuple[int, str]:
    """Interrupt ``argv`` ``delay`` seconds after it says it is searching: (exit code, stderr)."""
    proc = subprocess.Popen(
        [*QARENA, *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    return proc.returncode, first + stderr


def search(repeat: int) -> None:
    commands = {
        "solve tictactoe:4x4:4": ["solve", "tictactoe:4x4:4"],
        "train tictactoe:4x4:4": ["train", "tictactoe:4x4:4", "-o", "t.npz"],
    }
    print(f"`.venv/bin/python benchmarks/interrupt.py {' '.join(sys.argv[1:])}`".strip())
    print()
    print("| command | signals | stopped (130, `stopped.`) | done before the signal | tracebacks |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in commands.items():
            ends = [_during_search(argv, tmp, 0.05 * (i % 16)) for i in range(repeat)]
            stopped = sum(c == 130 and e.strip().endswith("stopped.") for c, e in ends)
            done = sum(c == 0 for c, _e in ends)
            tracebacks = sum("Traceback" in e for _c, e in ends)
            print(f"| {name} | {repeat} | {stopped} | {done} | {tracebacks} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--wait", type=float, default=8.0, help="seconds before the signal")
    parser.add_argument(
        "--search", action="store_true", help="interrupt during the search of a game"
    )
    args = parser.parse_args()
    if args.search:
        search(args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        policy = str(Path(tmp) / "nim.npz")
        subprocess.run([*QARENA, "train", "nim:2,6,7,8", "-o", policy], check=True)
        commands = {
            "train nim:1,2,3,4,5,6,7 --episodes 10^9": [
                "train", "nim:1,2,3,4,5,6,7", "--episodes", "1000000000", "-o", "t.npz"
            ],
            "eval --games 10^8": ["eval", policy, "--games", "100000000"],
            "compete --games 10^8": ["compete", policy, policy, "--games", "100000000"],
            "matrix nim:1,2,3,4,5,6,7 --episodes 10^9": [
                "matrix", "nim:1,2,3,4,5,6,7", "--episodes", "1000000000"
            ],
            # At the signal its first curve point is being judged by search (about a minute).
            "train connect4 --learner ntuple --curve --tuples 4 --tuple-length 4": [
                "train", "connect4", "--learner", "ntuple", "--episodes", "200000", "--curve",
                "--tuples", "4", "--tuple-length", "4", "-o", "t.npz"
            ],
            # 10,000 of its games (a chunk) take about 36 s.
            "train tictactoe:12x12:5 --learner ntuple --tuples 10 --tuple-length 4": [
                "train", "tictactoe:12x12:5", "--learner", "ntuple", "--episodes", "1000000",
                "--tuples", "10", "--tuple-length", "4", "-o", "t.npz"
            ],
        }  # fmt: skip
        print(f"`.venv/bin/python benchmarks/interrupt.py {' '.join(sys.argv[1:])}`".strip())
        print()
        print("| command | runs | median s | max s | exit codes | last line |")
        print("|---|---:|---:|---:|---|---|")
        for name, argv in commands.items():
            runs = [_once(argv, tmp, args.wait) for _ in range(args.repeat)]
            for f in Path(tmp).glob("t.npz"):
                os.unlink(f)
            seconds = [r[0] for r in runs]
            codes = sorted({r[1] for r in runs})
            print(
                f"| {name} | {len(runs)} | {statistics.median(seconds):.2f} | "
                f"{max(seconds):.2f} | {', '.join(map(str, codes))} | {runs[-1][2][:60]} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
