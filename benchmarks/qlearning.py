"""Q-learning speed: environment steps per second, and episodes and training seconds to perfect
play (optimality 1.0, checked every CHECK episodes; checking time is not counted).

Run: .venv/bin/python benchmarks/qlearning.py
"""

from __future__ import annotations

import platform
import time

from qarena.evaluate.optimality import optimality_of_values
from qarena.games import parse_spec
from qarena.learn.base import LearnConfig
from qarena.learn.qlearning import QLearner

SPECS = ["nim", "nim:2,6,7,8", "subtraction", "tictactoe"]
CHECK = 5_000
LIMIT = 2_000_000


def steps_per_second(spec: str) -> float:
    learner = QLearner(parse_spec(spec), LearnConfig(schedule="constant", epsilon=0.1))
    learner.train(100)  # compile or load the cached kernel
    t0 = time.perf_counter()
    steps = learner.train(500_000)
    return steps / (time.perf_counter() - t0)


def to_perfect(spec: str, seed: int) -> tuple[int, float, float]:
    learner = QLearner(parse_spec(spec), LearnConfig(seed=seed))
    seconds, share = 0.0, 0.0
    while learner.episodes < LIMIT:
        t0 = time.perf_counter()
        learner.train(CHECK, total_episodes=LIMIT)
        seconds += time.perf_counter() - t0
        share = optimality_of_values(learner.tables, learner.values()).share
        if share == 1.0:
            break
    return learner.episodes, seconds, share


def main() -> None:
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    print()
    print("| game | steps/s (ε = 0.1) | episodes to perfect (median of 5 seeds) | seconds |")
    print("|---|---:|---:|---:|")
    for spec in SPECS:
        runs = sorted(to_perfect(spec, seed) for seed in range(5))
        episodes, seconds, share = runs[2]
        note = "" if share == 1.0 else f" (optimality {share:.4f})"
        rate = steps_per_second(spec) / 1e6
        print(f"| {spec} | {rate:.1f} M | {episodes:,}{note} | {seconds:.3f} |")


if __name__ == "__main__":
    main()
