"""Time the exact solver on games of growing size; prints a Markdown table for BENCHMARKS.md.

Run: .venv/bin/python benchmarks/solver.py

Each game is solved in a fresh process (the search caches its tables per process), with the
compiled kernels already loaded, so the seconds are the search, the index and the values alone.
"""

from __future__ import annotations

import platform
import subprocess
import sys

SPECS = [
    "nim",
    "nim:2,6,7,8",
    "subtraction:1000:7",
    "tictactoe",
    "tictactoe:3x4:3",
    "tictactoe:4x4:4",
    "connect4:5x4",
    "connect4:4x5",
    "nim:99,999",
    "connect4:5x5",
]

_ONE = """
import resource, sys, time
from qarena.budget import format_bytes
from qarena.games import parse_spec
from qarena.exact import game_tables, solve
solve(parse_spec("nim:1,2"))
game = parse_spec(sys.argv[1])
t0 = time.perf_counter()
s = solve(game)
seconds = time.perf_counter() - t0
t = s.tables
held = sum(a.nbytes for a in (t.codes, t.nxt, t.moves, t.nmoves, t.result, t.mover, t.orbit,
                              t.value, t.depth, t.order))
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(f"| {sys.argv[1]} | {game.num_positions:,} | {s.positions:,} | {t.rows:,} | "
      f"{format_bytes(held)} | {format_bytes(rss)} | {seconds:.2f} |")
"""


def main() -> None:
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, 2 cores")
    print()
    print("| game | encoded positions | reachable | classes (rows) | tables | peak RSS | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec in sys.argv[1:] or SPECS:
        done = subprocess.run(
            [sys.executable, "-c", _ONE, spec], capture_output=True, text=True, check=True
        )
        print(done.stdout.strip(), flush=True)


if __name__ == "__main__":
    main()
