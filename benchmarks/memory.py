"""Memory estimates against measured peak RSS, for qarena solve, train and eval.

The memory guard (qarena.budget) refuses a command before it allocates when its estimate does
not fit; this checks that the estimate is honest: within 25% of the peak resident size that a
real run of the command reaches (its whole process, interpreter included).

    .venv/bin/python benchmarks/memory.py [--games nim:2,6,7,8 ...] [--learners q,afterstate]

Each command runs in a fresh process; its peak RSS is the kernel's ru_maxrss for it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from qarena.budget import BASE_BYTES, footprint, format_bytes
from qarena.exact import game_tables
from qarena.games import parse_spec
from qarena.learn.learners import learner_class
from qarena.show.matches import evaluation_opponents

GAMES = (
    "nim:2,6,7,8",
    "tictactoe:3x4:3",
    "nim:1,2,3,4,5,6,7",
    "tictactoe:4x4:4",
    "connect4:5x4",
    "connect4:4x5",
    "nim:40,400",
)
LEARNERS = ("q", "afterstate", "matchbox")
TOLERANCE = 0.25

_MEASURE = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "if r.returncode:\n"
    "    sys.exit(r.stderr.decode()[-500:])\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
)


def peak_rss(argv: list[str]) -> tuple[int, float]:
    """Peak RSS in bytes of one run of ``argv`` in a fresh process, and its wall time."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip()), time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--learners", default=",".join(LEARNERS))
    args = parser.parse_args()
    qarena = str(Path(sys.executable).with_name("qarena"))
    rows = []
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "policy.npz")
        for spec in args.games:
            game = parse_spec(spec)
            # The guard's estimate once the search has counted the positions (before, it
            # holds the game's bound to the budget: an upper bound, loose for Connect Four).
            n = game_tables(game).rows
            game_tables.cache_clear()
            runs: list[tuple[str, list[str], int]] = [
                ("solve", ["solve", spec], footprint(game, "solve", positions=n).total)
            ]
            opponents = len(evaluation_opponents(game))
            for kind in args.learners.split(","):
                cls = learner_class(kind)
                runs.append(
                    (
                        f"train -l {kind}",
                        ["train", spec, "-l", kind, "-o", out],
                        footprint(game, "learn", cls, positions=n).total,
                    )
                )
                runs.append(
                    (
                        f"eval ({kind})",
                        ["eval", out],
                        footprint(game, "learn", cls, opponents, positions=n).total,
                    )
                )
            for name, argv, data in runs:
                measured, seconds = peak_rss([qarena, *argv])
                estimate = BASE_BYTES + data
                error = estimate / measured - 1
                worst = max(worst, abs(error))
                rows.append(
                    f"| {spec} | {name} | {format_bytes(data)} | {format_bytes(estimate)} | "
                    f"{format_bytes(measured)} | {error:+.1%} | {seconds:.1f} s |"
                )
                print(rows[-1], flush=True)
    print()
    print(f"`{' '.join(['.venv/bin/python', 'benchmarks/memory.py', *sys.argv[1:]])}`")
    print()
    print("| game | command | tables (estimate) | estimate with base | peak RSS | error | wall |")
    print("|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print()
    print(f"largest error {worst:.1%} (allowed {TOLERANCE:.0%})")
    if worst > TOLERANCE:
        sys.exit(1)


if __name__ == "__main__":
    main()
