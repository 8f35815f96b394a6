"""Time the exact solver on games of growing size; prints a Markdown table for BENCHMARKS.md.

Run: .venv/bin/python benchmarks/solver.py
"""

from __future__ import annotations

import platform
import time

import numpy as np

from qarena.games import parse_spec
from qarena.kernels.solve import solve_tables
from qarena.solve import format_bytes, solve, solver_bytes

SPECS = [
    "nim",
    "nim:2,6,7,8",
    "subtraction:1000:7",
    "tictactoe",
    "tictactoe:3x4:3",
    "tictactoe:4x4:4",
]


def main() -> None:
    solve(parse_spec("nim:1,2"))  # compile (or load the cached kernel) outside the timings
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    print()
    print("| game | encoded positions | reachable | tables | solve seconds |")
    print("|---|---:|---:|---:|---:|")
    for spec in SPECS:
        game = parse_spec(spec)
        value = np.empty(game.num_positions, dtype=np.int8)
        depth = np.empty(game.num_positions, dtype=np.uint16)
        ga = game.arrays()
        t0 = time.perf_counter()
        reachable, _ = solve_tables(ga, value, depth)
        seconds = time.perf_counter() - t0
        print(
            f"| {spec} | {game.num_positions:,} | {reachable:,} | "
            f"{format_bytes(solver_bytes(game))} | {seconds:.3f} |"
        )


if __name__ == "__main__":
    main()
