"""Evaluation speed: match games per second in the compiled match kernel (a perfect agent
against random play, both seats), and the wall time of a whole `qarena eval` (optimality plus
1,000 games in each seat against every opponent), after the kernels are compiled.

Run: .venv/bin/python benchmarks/evaluation.py
"""

from __future__ import annotations

import platform
import time

from qarena.exact.space import game_tables
from qarena.games import parse_spec
from qarena.judging.evaluation import evaluate, strategy_mask
from qarena.learn.learners import make_learner
from qarena.show.matches import both_seats
from qarena.training.run import default_episodes, train_run

GAMES = 200_000
SPECS = ["nim", "nim:2,6,7,8", "subtraction", "tictactoe", "tictactoe:3x4:3"]


def main() -> None:
    print(f"python {platform.python_version()}, {platform.machine()}")
    print("| game | match games/s | `qarena eval` seconds |")
    print("|---|---:|---:|")
    for spec in SPECS:
        game = parse_spec(spec)
        tables = game_tables(game)
        perfect, rand = strategy_mask(tables, "perfect"), strategy_mask(tables, "random")
        both_seats(tables, perfect, rand, 10, 0)  # compile or load the cached kernel
        t0 = time.perf_counter()
        both_seats(tables, perfect, rand, GAMES // 2, 0)
        rate = GAMES / (time.perf_counter() - t0)
        learner = make_learner("q", game)
        train_run(learner, default_episodes(learner), until_perfect=True)
        t0 = time.perf_counter()
        evaluate(learner, 1000, 0)
        seconds = time.perf_counter() - t0
        print(f"| {spec} | {rate / 1e6:.2f} M | {seconds:.3f} |")


if __name__ == "__main__":
    main()
