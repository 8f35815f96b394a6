"""The opening of classic Connect Four solved from scratch (no opening book): the score of the
start position, of the first centre move (``4``) and of the two centre moves (``44``), each
with a fresh table, by qarena's search (both cores unless told, its default table) and, side by
side in the same run, by BitBully's MTD(f) (one thread, its own table, no book).

Positions are written as Pons' column sequences (columns from 1). Reported per position: the
score, seconds and nodes for each solver and their ratio; and the process's peak RSS. Scores
must agree; the start must score +1 (a first-player win with the 41st stone, Allis and Tromp).

Run: .venv/bin/python benchmarks/c4_start.py [--peer START,4,44] [--workers W]
"""

from __future__ import annotations

import argparse
import resource
import time

import bitbully

from qarena.exact.search import Searcher
from qarena.games import parse_spec
from qarena.games.connect4 import ConnectFour


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", default="START,4,44")
    parser.add_argument("--peer", default="44", help="positions BitBully also solves")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    game = parse_spec("connect4:6x7")
    assert isinstance(game, ConnectFour)
    small = parse_spec("connect4:4x4")
    assert isinstance(small, ConnectFour)
    Searcher(small, entries=10_007).score(small.start())  # compile the kernels first
    peer = set(args.peer.split(",")) if args.peer else set()
    for name in args.positions.split(","):
        moves = "" if name == "START" else name
        position = game.parse_position(moves or "0")
        searcher = Searcher(game) if args.workers is None else Searcher(game, workers=args.workers)
        t0 = time.perf_counter()
        ours = searcher.score(position)
        took = time.perf_counter() - t0
        line = (
            f"{name:>5}: qarena score {ours:+d} in {took:.1f} s ({searcher.nodes:,} nodes, "
            f"{searcher.workers} threads, {searcher.table.size:,} entries)"
        )
        if name in peer:
            engine = bitbully.BitBully(opening_book=None)
            board = bitbully.Board("".join(str(int(c) - 1) for c in moves))
            t0 = time.perf_counter()
            theirs = engine.mtdf(board, 0)
            peer_took = time.perf_counter() - t0
            if theirs != ours:
                print(line, f"BitBully says {theirs}: disagree")
                return 1
            line += (
                f"; BitBully {peer_took:.1f} s ({engine.get_node_counter():,} nodes); "
                f"ratio {took / peer_took:.2f}"
            )
        print(line, flush=True)
        if name == "START" and ours != 1:
            print("the start must score +1")
            return 1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
