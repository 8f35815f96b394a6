"""Classic Connect Four solved by search: qarena's search solver against BitBully (no opening
book), side by side in one process, on the same positions: every legal move of each position
scored, as BitBully's ``score_all_moves`` does.

Positions are drawn as Pons' test sets are, half of each kind (seeded): random games of
``--low`` to ``--high`` plies in which nobody has won and nobody could have won on the move
before; and positions along perfect-play games (BitBully's best moves, ties at random) after a
random opening of 2 to 6 plies, one position per game at a ply drawn from the same range
(the moves are chosen with BitBully's 12-ply book, which only makes drawing them quick; the
timed BitBully has no book).
Every score is compared; a disagreement fails the run. Reported: positions, mean and maximum
seconds per position for each solver, their ratio, nodes, and the process's peak RSS.
qarena uses ``--workers`` threads (both cores unless told) and its default table (sized from
the memory budget, 1 GiB here); BitBully its own (2^22 entries) on one thread.

Run: .venv/bin/python benchmarks/c4_search.py [--positions N] [--low L] [--high H] [--seed S]
     [--workers W]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
from pathlib import Path

import bitbully

from qarena.exact.search import Searcher
from qarena.games import parse_spec
from qarena.games.connect4 import ConnectFour

sys.path.insert(0, str(Path(__file__).parent))
from c4_positions import random_games as positions


def along_perfect_play(
    game: ConnectFour, engine: bitbully.BitBully, count: int, low: int, high: int, seed: int
) -> list[list[int]]:
    """Positions along perfect-play games after random openings (see the module's text)."""
    rng = random.Random(seed + 1)
    found: list[list[int]] = []
    while len(found) < count:
        opening = positions(game, 1, 2, 6, rng.randrange(2**31))[0]
        moves, position = list(opening), game.start()
        for m in moves:
            position = game.apply(position, m)
        stop = rng.randrange(max(low, len(moves)), high + 1)
        while len(moves) < stop and not game.is_terminal(position):
            scores = engine.score_all_moves(bitbully.Board("".join(map(str, moves))))
            best = max(scores.values())
            move = rng.choice(sorted(m for m, v in scores.items() if v == best))
            position = game.apply(position, move)
            moves.append(move)
        if not game.is_terminal(position) and not any(
            game.is_terminal(game.apply(position, m)) and game.result(game.apply(position, m))
            for m in game.legal_moves(position)
        ):
            found.append(moves)
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--low", type=int, default=8)
    parser.add_argument("--high", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    game = parse_spec("connect4:6x7")
    assert isinstance(game, ConnectFour)
    searcher = Searcher(game) if args.workers is None else Searcher(game, workers=args.workers)
    engine = bitbully.BitBully(opening_book=None)
    half = args.positions // 2
    drawn = positions(game, args.positions - half, args.low, args.high, args.seed)
    chooser = bitbully.BitBully(opening_book="12-ply-dist")
    drawn += along_perfect_play(game, chooser, half, args.low, args.high, args.seed)
    small = parse_spec("connect4:4x4")
    assert isinstance(small, ConnectFour)
    Searcher(small, entries=10_007).move_scores(small.start())  # compile the kernels first
    ours: list[float] = []
    theirs: list[float] = []
    for moves in drawn:
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
        f"{len(ours)} positions of {args.low}-{args.high} plies (seed {args.seed}; half from "
        "random games, half along perfect play), all scores equal"
    )
    print(f"qarena: {searcher.workers} threads, a table of {searcher.table.size:,} entries")
    print(
        f"qarena:   mean {statistics.mean(ours):.4f} s, max {max(ours):.3f} s, "
        f"{searcher.nodes:,} nodes"
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
