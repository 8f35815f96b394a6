"""How training settings change what an n-tuple network learns on classic Connect Four
(issue 23, issue 40): each variant is trained from scratch through the Python API, on every
core, and judged every ``--chunk`` games on both shipped judging sets
(``qarena.judging.sets``): the main line (the 3,323 decision positions ``qarena eval FILE
--along-perfect 500`` judges) and varied openings (decisions of both sides after random
openings of 2-12 plies). The sets store every move's value, so judging a snapshot takes
seconds and no solver runs.

Reported per variant: at each point the share kept on each set (main / varied), the mean and
range of the last ``--last`` points on each, seconds of training, and the peak RSS of the
whole run. The threads share the tables, so reruns differ a little; the spread of the last
points shows how much.

With ``--network FILE`` (no ``--variant``), trains nothing: judges each network file on both
sets and counts its misses by how many moves keep the position's value.

Run: .venv/bin/python benchmarks/ntuple_settings.py [--games 2000000] [--chunk 100000]
     [--last 5] [--tuples 70]
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

from qarena.games import parse_spec
from qarena.games.base import Move, Position
from qarena.judging.sets import KINDS, shipped_set
from qarena.learn.ntuple.config import NetworkConfig
from qarena.learn.ntuple.files import load_network
from qarena.learn.ntuple.network import NTupleNetwork

WORKERS = len(os.sched_getaffinity(0))
#: Settings tried by default, each on top of NetworkConfig's defaults (ε is constant where
#: epsilon and epsilon_end agree).
VARIANTS: dict[str, dict[str, Any]] = {
    "ε 0.1 → 0 (the first defaults)": {"epsilon": 0.1, "epsilon_end": 0.0},
    "ε 0.1 throughout": {"epsilon": 0.1, "epsilon_end": 0.1},
    "ε 0.2 throughout": {"epsilon": 0.2, "epsilon_end": 0.2},
    "ε 0.3 throughout": {"epsilon": 0.3, "epsilon_end": 0.3},
}


def decision_positions(which: str) -> list[tuple[Position, frozenset[Move]]]:
    """The positions of the shipped judging set ``which`` (main or varied), each with the
    moves that keep its value."""
    jset = shipped_set(parse_spec("connect4"), which)
    if jset is None:
        raise SystemExit(f"the {which} judging set is not shipped")
    return [
        (p, frozenset(m for m, v in values.items() if v == max(values.values())))
        for p, values in zip(jset.positions, jset.values, strict=True)
    ]


def kept_on(net: NTupleNetwork, positions: list[tuple[Position, frozenset[Move]]]) -> int:
    return sum(net.act(p) in best for p, best in positions)


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
    sets = {which: decision_positions(which) for which in KINDS}
    print(
        "judged on "
        + " and ".join(f"{which} ({len(found):,} positions)" for which, found in sets.items())
        + f", read in {time.perf_counter() - began:.1f} s",
        flush=True,
    )
    for path in args.network:
        net = load_network(path, game)
        for which, found in sets.items():
            misses_by(net, f"{path} on {which}", found)
    for name, settings in variants.items():
        config = NetworkConfig(tuples=args.tuples, **settings)
        net = NTupleNetwork.from_config(game, config)
        net.warm_up()
        points: list[tuple[int, dict[str, float]]] = []
        seconds = judging = 0.0
        while net.games < args.games:
            began = time.perf_counter()
            net.train(min(args.chunk, args.games - net.games), args.games, workers=WORKERS)
            seconds += time.perf_counter() - began
            began = time.perf_counter()
            points.append(
                (net.games, {w: kept_on(net, found) / len(found) for w, found in sets.items()})
            )
            judging += time.perf_counter() - began
        about = (
            f"{json.dumps(settings)}, {args.tuples} tuples, {seconds:.0f} s of training, "
            f"{judging:.0f} s of judging"
        )
        print(f"\n{name}: {about}")
        print("  games: " + " / ".join(KINDS))
        for games, shares in points:
            print(f"  {games:,}: " + " / ".join(f"{shares[w]:.4f}" for w in KINDS))
        for which, found in sets.items():
            last = [shares[which] for _games, shares in points[-args.last :]]
            print(
                f"  {which}, last {len(last)} points: mean {np.mean(last):.4f}, "
                f"from {min(last):.4f} to {max(last):.4f} (of {len(found):,})",
                flush=True,
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak:,.0f} MB")


if __name__ == "__main__":
    main()
