"""How training settings change what an n-tuple network learns on classic Connect Four
(issue 23): each variant is trained from scratch through the Python API, on every core, and
judged every ``--chunk`` games on the same decision positions, those of ``--along`` games of
perfect play with seed 0 (the positions ``qarena eval FILE --along-perfect N`` judges, each
side picking at random among the moves that keep the value). The positions and their
value-keeping moves are found once by the search solver, so judging a snapshot takes seconds.

Reported per variant: optimality at each point (optimal of decisions), the mean and range of
the last ``--last`` points, seconds of training, and the peak RSS of the whole run. The
threads share the tables, so reruns differ a little; the spread of the last points shows how
much.

With ``--network FILE`` (no ``--variant``), trains nothing: judges each network file on the
same positions and counts its misses by how many moves keep the position's value.

Run: .venv/bin/python benchmarks/ntuple_settings.py [--games 2000000] [--chunk 100000]
     [--last 5] [--along 500] [--tuples 70]
     [--variant NAME=JSON ...]   (default: the ε variants in VARIANTS)
     [--network FILE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections import Counter
from typing import Any

import numpy as np

from qarena.exact import oracle
from qarena.games import parse_spec
from qarena.games.base import Game, Move, Position
from qarena.learn.ntuple import NTupleNetwork
from qarena.learn.ntuple_config import NetworkConfig
from qarena.learn.ntuple_file import load_network

WORKERS = len(os.sched_getaffinity(0))
#: Settings tried by default, each on top of NetworkConfig's defaults (ε is constant where
#: epsilon and epsilon_end agree).
VARIANTS: dict[str, dict[str, Any]] = {
    "ε 0.1 → 0 (the first defaults)": {"epsilon": 0.1, "epsilon_end": 0.0},
    "ε 0.1 throughout": {"epsilon": 0.1, "epsilon_end": 0.1},
    "ε 0.2 throughout": {"epsilon": 0.2, "epsilon_end": 0.2},
    "ε 0.3 throughout": {"epsilon": 0.3, "epsilon_end": 0.3},
}


def decision_positions(game: Game, games: int) -> list[tuple[Position, frozenset[Move]]]:
    """The decision positions along ``games`` games of perfect play, seeded as
    ``along_perfect_play`` seeds them, each with the moves that keep its value."""
    solution = oracle(game)
    rng = np.random.default_rng([0, 0xA1])
    found = []
    for _game in range(games):
        position = game.start()
        while not game.is_terminal(position):
            values = solution.move_values(position)
            best = max(values.values())
            keep = [m for m, v in values.items() if v == best]
            if min(values.values()) < best:
                found.append((position, frozenset(keep)))
            position = game.apply(position, keep[int(rng.integers(len(keep)))])
    return found


def misses_by(
    net: NTupleNetwork, name: str, positions: list[tuple[Position, frozenset[Move]]]
) -> None:
    """The network's kept decisions, and its misses by how many moves keep the value."""
    seen: Counter[int] = Counter()
    missed: Counter[int] = Counter()
    for position, best in positions:
        seen[len(best)] += 1
        missed[len(best)] += net.act(position) not in best
    kept = sum(seen.values()) - sum(missed.values())
    print(f"\n{name}: {kept:,} of {len(positions):,} kept; missed, by moves keeping the value:")
    for count in sorted(seen):
        print(f"  {count}: {missed[count]:,} of {seen[count]:,}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--last", type=int, default=5)
    parser.add_argument("--along", type=int, default=500)
    parser.add_argument("--tuples", type=int, default=70)
    parser.add_argument("--variant", action="append", default=[], help="NAME=JSON settings")
    parser.add_argument("--network", action="append", default=[], help="a network file")
    args = parser.parse_args()
    variants = (
        {v.split("=", 1)[0]: json.loads(v.split("=", 1)[1]) for v in args.variant}
        if args.variant or args.network
        else VARIANTS
    )
    game = parse_spec("connect4")
    began = time.perf_counter()
    positions = decision_positions(game, args.along)
    print(
        f"{len(positions):,} decision positions along {args.along} perfect-play games, found "
        f"in {time.perf_counter() - began:.0f} s",
        flush=True,
    )
    for path in args.network:
        misses_by(load_network(path, game), path, positions)
    for name, settings in variants.items():
        config = NetworkConfig(tuples=args.tuples, **settings)
        net = NTupleNetwork.from_config(game, config)
        net.warm_up()
        points: list[tuple[int, int]] = []
        seconds = 0.0
        while net.games < args.games:
            began = time.perf_counter()
            net.train(min(args.chunk, args.games - net.games), args.games, workers=WORKERS)
            seconds += time.perf_counter() - began
            kept = sum(net.act(p) in best for p, best in positions)
            points.append((net.games, kept))
        last = [kept / len(positions) for _games, kept in points[-args.last :]]
        about = f"{json.dumps(settings)}, {args.tuples} tuples, {seconds:.0f} s of training"
        print(f"\n{name}: {about}")
        print("  " + ", ".join(f"{g:,}: {k:,}" for g, k in points))
        print(
            f"  last {len(last)} points: mean {np.mean(last):.4f}, "
            f"from {min(last):.4f} to {max(last):.4f} (of {len(positions):,})",
            flush=True,
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak:,.0f} MB")


if __name__ == "__main__":
    main()
