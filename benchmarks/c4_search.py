"""Classic Connect Four solved by search: qarena's search solver against BitBully (no opening
book), side by side in one process, on the same positions: every legal move of each position
scored, as BitBully's ``score_all_moves`` does.

Positions are drawn as Pons' test sets are: random games (here of ``--low`` to ``--high``
plies, seeded) in which nobody has won and nobody could have won on the move before. Every
score is compared; a disagreement fails the run. Reported: positions, mean and maximum seconds
per position for each solver, their ratio, qarena's nodes, and the process's peak RSS.

Run: .venv/bin/python benchmarks/c4_search.py [--positions N] [--low L] [--high H] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time

import bitbully

from qarena.games import parse_spec
from qarena.games.connect4 import ConnectFour
from qarena.solve.search import Searcher


def positions(game: ConnectFour, count: int, low: int, high: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    found: list[list[int]] = []
    while len(found) < count:
        position, moves = game.start(), []
        for _ in range(rng.randrange(low, high + 1)):
            safe = [
                m
                for m in game.legal_moves(position)
                if not game.is_terminal(game.apply(position, m))
            ]
            if not safe:
                break
            moves.append(rng.choice(safe))
            position = game.apply(position, moves[-1])
        else:
            found.append(moves)
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--low", type=int, default=14)
    parser.add_argument("--high", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = parse_spec("connect4:6x7")
    assert isinstance(game, ConnectFour)
    searcher = Searcher(game)
    engine = bitbully.BitBully(opening_book=None)
    small = parse_spec("connect4:4x4")
    assert isinstance(small, ConnectFour)
    Searcher(small, entries=10_007).move_scores(small.start())  # compile the kernels first
    ours: list[float] = []
    theirs: list[float] = []
    for moves in positions(game, args.positions, args.low, args.high, args.seed):
        position = game.start()
        for m in moves:
            position = game.apply(position, m)
        t0 = time.perf_counter()
        mine = searcher.move_scores(position)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        other = dict(engine.score_all_moves(bitbully.Board("".join(map(str, moves)))))
        theirs.append(time.perf_counter() - t0)
        if mine != other:
            print("disagree at", "".join(map(str, moves)), mine, other)
            return 1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{len(ours)} positions of {args.low}-{args.high} plies (seed {args.seed}), "
        "all scores equal"
    )
    print(
        f"qarena:   mean {statistics.mean(ours):.4f} s, max {max(ours):.3f} s, "
        f"{int(searcher.counters[0]):,} nodes"
    )
    print(
        f"BitBully: mean {statistics.mean(theirs):.4f} s, max {max(theirs):.3f} s, "
        f"{engine.get_node_counter():,} nodes"
    )
    print(f"ratio (qarena / BitBully, mean): {statistics.mean(ours) / statistics.mean(theirs):.2f}")
    print(f"peak RSS {rss:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
