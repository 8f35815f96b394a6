"""Learner speed: environment steps per second, and episodes and training seconds to perfect
play (optimality 1.0) with each learner's defaults, as `qarena train SPEC --until-perfect`.

Optimality is checked every CHECK episodes; checking time is not counted. Median of 5 seeds.

Run: .venv/bin/python benchmarks/qlearning.py [LEARNER ...]  (only those learners' rows)
"""

from __future__ import annotations

import platform
import statistics
import sys
import time

from qarena.games import parse_spec
from qarena.learn.learners import learner_class, make_learner
from qarena.training.run import default_episodes, train_run

RUNS = [
    ("q", "nim"),
    ("q", "nim:2,6,7,8"),
    ("q", "subtraction"),
    ("q", "tictactoe"),
    ("afterstate", "nim"),
    ("afterstate", "nim:2,6,7,8"),
    ("afterstate", "tictactoe"),
    ("matchbox", "nim"),
    ("matchbox", "nim:2,6,7,8"),
    ("matchbox", "tictactoe"),
    ("game-backup", "nim"),
    ("game-backup", "nim:2,6,7,8"),
    ("game-backup", "tictactoe"),
]
CHECK = 1_000
SEEDS = range(5)


def steps_per_second(kind: str, spec: str) -> float:
    """Self-play with constant ε = 0.1, after the kernel is compiled (or loaded from cache)."""
    config = learner_class(kind).default_config(schedule="constant", epsilon=0.1)
    learner = make_learner(kind, parse_spec(spec), config)
    learner.train(100)
    t0 = time.perf_counter()
    steps = learner.train(500_000)
    return steps / (time.perf_counter() - t0)


def to_perfect(kind: str, spec: str, seed: int) -> tuple[int | None, float, float]:
    config = learner_class(kind).default_config(seed=seed)
    learner = make_learner(kind, parse_spec(spec), config)
    result = train_run(learner, default_episodes(learner), until_perfect=True, check_every=CHECK)
    return result.perfect_at, result.seconds, result.optimality.share


def main() -> None:
    with open("/proc/cpuinfo") as f:
        names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
    cpu = names[0] if names else platform.processor()
    print(f"machine: {platform.machine()}, {cpu}, Python {platform.python_version()}")
    print()
    print("| learner | game | steps/s (ε = 0.1) | default episodes | to perfect play | seconds |")
    print("|---|---|---:|---:|---:|---:|")
    only = set(sys.argv[1:])
    for kind, spec in RUNS:
        if only and kind not in only:
            continue
        learner = make_learner(kind, parse_spec(spec))
        budget = default_episodes(learner)
        runs = [to_perfect(kind, spec, seed) for seed in SEEDS]
        reached = [r for r in runs if r[0] is not None]
        if len(reached) == len(runs):
            episodes = f"{statistics.median(r[0] or 0 for r in runs):,.0f}"
            seconds = f"{statistics.median(r[1] for r in runs):.3f}"
        else:
            worst = min(r[2] for r in runs)
            episodes = f"{len(reached)} of {len(runs)} seeds (lowest optimality {worst:.4f})"
            seconds = f"{statistics.median(r[1] for r in runs):.3f} (whole run)"
        rate = steps_per_second(kind, spec) / 1e6
        print(f"| {kind} | {spec} | {rate:.1f} M | {budget:,} | {episodes} | {seconds} |")


if __name__ == "__main__":
    main()
