"""Seconds from Ctrl-C (a real SIGINT) to exit, for the long commands.

    .venv/bin/python benchmarks/interrupt.py [--repeat 5]

Each command is started in a fresh process on work that would take minutes, interrupted after
a few seconds, and timed from the signal to its exit. Prints a markdown table.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--wait", type=float, default=8.0, help="seconds before the signal")
    args = parser.parse_args()
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
