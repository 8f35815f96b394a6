"""The write-ups' learner: qarena's ``seat-q`` against the same rule in plain Python, as the
course's students write it (a dictionary keyed by (piles, (pile, count)), updated move by move),
side by side in one process on one core.

The plain-Python learner is written here from the rule the write-ups describe — after each
move the other player's previous (position, move) moves toward the best value of the position
that player now faces; a move that ends the game toward its reward, and the other player's last
move toward the other's — with the course's settings (α 0.5, ε 0.1, γ 1, rewards ±1) and the
term paper's (α 0.1, γ 0.8, ±100, 100,000 games). Both are judged by qarena's solver
(optimality over every decision position, a table entry per position as the dictionary keeps
them). Reported: moves played per second of training, seconds, optimality, peak RSS.

Run: .venv/bin/python benchmarks/writeups.py [--quick] [--write]
``--write`` also replaces the section between the write-ups markers in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from qarena.exact.space import game_tables
from qarena.games import Nim, parse_spec
from qarena.judging.tables import learner_optimality, optimality_of_values
from qarena.learn.learners import TABLE_LEARNERS as LEARNERS
from qarena.learn.learners import make_learner

COMMAND = ".venv/bin/python benchmarks/writeups.py"
BENCHMARKS_MD = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
START, END = "<!-- writeups:start -->", "<!-- writeups:end -->"

#: (name, spec, games, settings): the course's solution on 1-3-5-7, the term paper on 3-5-7.
CASES: tuple[tuple[str, str, int, dict[str, Any]], ...] = (
    ("course (004)", "nim:1,3,5,7", 10_000, {}),
    (
        "term paper (000)",
        "nim:3,5,7",
        100_000,
        {"alpha": 0.1, "gamma": 0.8, "rewards": (100.0, 0.0, -100.0)},
    ),
)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class DictLearner:
    """The write-ups' rule over a dictionary, one table for both players."""

    def __init__(self, alpha: float, gamma: float, epsilon: float, win: float, loss: float):
        self.q: dict[tuple[tuple[int, ...], tuple[int, int]], float] = {}
        self.alpha, self.gamma, self.epsilon = alpha, gamma, epsilon
        self.win, self.loss = win, loss

    @staticmethod
    def actions(piles: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(i, j) for i, pile in enumerate(piles) for j in range(1, pile + 1)]

    def best(self, piles: tuple[int, ...]) -> float:
        acts = self.actions(piles)
        return max(self.q.get((piles, a), 0.0) for a in acts) if acts else 0.0

    def choose(self, piles: tuple[int, ...], rng: random.Random) -> tuple[int, int]:
        acts = self.actions(piles)
        if rng.random() < self.epsilon:
            return rng.choice(acts)
        top = max(self.q.get((piles, a), 0.0) for a in acts)
        return rng.choice([a for a in acts if self.q.get((piles, a), 0.0) == top])

    def update(self, s: tuple[int, ...], a: tuple[int, int], s2: tuple[int, ...], r: float) -> None:
        old = self.q.get((s, a), 0.0)
        self.q[(s, a)] = old + self.alpha * (r + self.gamma * self.best(s2) - old)

    def train(self, start: tuple[int, ...], games: int, rng: random.Random) -> int:
        moves = 0
        for _ in range(games):
            piles, player = start, 0
            last: list[tuple[tuple[int, ...], tuple[int, int]] | None] = [None, None]
            while True:
                a = self.choose(piles, rng)
                after = list(piles)
                after[a[0]] -= a[1]
                new = tuple(after)
                moves += 1
                last[player] = (piles, a)
                other = 1 - player
                before = last[other]
                if not any(new):  # misère: who takes the last object loses
                    self.update(piles, a, new, self.loss)
                    if before is not None:
                        self.update(before[0], before[1], new, self.win)
                    break
                if before is not None:
                    self.update(before[0], before[1], new, 0.0)
                piles, player = new, other
        return moves

    def values(self, game: Nim, tables: Any) -> np.ndarray:
        """The table as qarena's rows and move ids, for the solver's judgement."""
        out = np.zeros((tables.rows, game.num_moves))
        for row in range(tables.rows):
            piles = tuple(tables.position(row))
            for i, pile in enumerate(piles):
                for j in range(1, pile + 1):
                    out[row, game.move_for(i, j)] = self.q.get((piles, (i, j)), 0.0)
        return out


@dataclass(frozen=True)
class Row:
    case: str
    learner: str
    moves_per_second: float
    seconds: float
    optimality: list[float]


def run_case(name: str, spec: str, games: int, settings: dict[str, Any], seeds: int) -> list[Row]:
    game = parse_spec(spec)
    assert isinstance(game, Nim)
    cls = LEARNERS["seat-q"]
    rows = []
    q_rates, q_seconds, q_opt = [], [], []
    for seed in range(seeds):
        learner = make_learner(
            "seat-q", game, cls.default_config(seed=seed, canonical=False, **settings)
        )
        learner.warm_up()
        t0 = time.perf_counter()
        moves = learner.train(games)
        seconds = time.perf_counter() - t0
        q_rates.append(moves / seconds)
        q_seconds.append(seconds)
        q_opt.append(learner_optimality(learner).share)
    rows.append(
        Row(name, "qarena seat-q", statistics.median(q_rates), statistics.median(q_seconds), q_opt)
    )
    config = cls.default_config(canonical=False, **settings)
    tables = game_tables(game, canonical=False)
    d_rates, d_seconds, d_opt = [], [], []
    for seed in range(seeds):
        baseline = DictLearner(
            config.alpha, config.gamma, config.epsilon, config.rewards[0], config.rewards[2]
        )
        t0 = time.perf_counter()
        moves = baseline.train(game.start(), games, random.Random(seed))
        seconds = time.perf_counter() - t0
        d_rates.append(moves / seconds)
        d_seconds.append(seconds)
        d_opt.append(optimality_of_values(tables, baseline.values(game, tables)).share)
    rows.append(
        Row(name, "plain Python", statistics.median(d_rates), statistics.median(d_seconds), d_opt)
    )
    return rows


def _rate(x: float) -> str:
    return f"{x / 1e6:.1f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"


def report(rows: list[Row], seeds: int) -> str:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = [
        "## The write-ups' learner: seat-q and the same rule in plain Python",
        "",
        f"command: {COMMAND}",
        "",
        f"machine: {platform.machine()}, Python {platform.python_version()}, one core; "
        f"peak RSS of the whole run {rss:.0f} MB",
        "",
        "| write-up | learner | moves/s | seconds to train | optimality (seeds) | speed-up |",
        "|---|---|---:|---:|---|---:|",
    ]
    by_case: dict[str, dict[str, Row]] = {}
    for r in rows:
        by_case.setdefault(r.case, {})[r.learner] = r
    for case, pair in by_case.items():
        q, d = pair["qarena seat-q"], pair["plain Python"]
        for r in (q, d):
            shares = ", ".join(f"{x:.3f}" for x in r.optimality)
            ratio = f"{q.moves_per_second / d.moves_per_second:,.0f}×" if r is q else ""
            lines.append(
                f"| {case} | {r.learner} | {_rate(r.moves_per_second)} | {r.seconds:.3f} | "
                f"{shares} | {ratio} |"
            )
    lines += [
        "",
        f"Medians over {seeds} seeds. Same rule, same settings, same games; the two learners "
        "draw different random numbers, so their optimality agrees in distribution, not seed by "
        "seed. The plain-Python learner is written for this benchmark from the rule as the "
        "write-ups describe it.",
    ]
    return "\n".join(lines)


def write_section(section: str, path: Path = BENCHMARKS_MD) -> None:
    block = f"{START}\n{section}\n{END}"
    text = path.read_text() if path.exists() else ""
    start, end = text.find(START), text.find(END)
    if start != -1 and end > start:
        text = text[:start] + block + text[end + len(END) :]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    path.write_text(text)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, a tenth of the games")
    parser.add_argument("--write", action="store_true", help="update BENCHMARKS.md too")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    seeds = 1 if args.quick else 5
    rows: list[Row] = []
    for name, spec, games, settings in CASES:
        log(f"{name}: {spec}, {games:,} games ...")
        rows += run_case(name, spec, games // 10 if args.quick else games, settings, seeds)
    section = report(rows, seeds)
    print(section)
    if args.write:
        write_section(section)
        log(f"wrote the section to {BENCHMARKS_MD}")


if __name__ == "__main__":
    main()
