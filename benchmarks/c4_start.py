"""The opening of classic Connect Four solved from scratch (no opening book): the score of the
start position, of the first centre move (``4``) and of the two centre moves (``44``), each
with a fresh table, by qarena's search (both cores unless told, its default table) and, side by
side in the same run, by BitBully's MTD(f) (one thread, its own table, no book).

With ``--c4 PATH``, also by Steininger's c4 (github.com/ChristopheSteininger/c4), one process
a position, side by side: PATH is a program that takes a Pons column sequence as its argument
and prints one JSON line with its ``score``, ``nodes`` (c4's own count: the nodes its negamax
enters, both threads and every window summed; children its static pass settles are not
counted), ``seconds`` and ``peak_rss_kb`` (its VmHWM: a forked child's own rusage would count
this process's memory too) — a dozen lines of C++ linked with c4's solver library, built with
its ``NUM_THREADS`` set to 2 and its default 1 GiB table (see the notes of issue 39). Skipped,
with a line saying so, when PATH is not an executable file.

Positions are written as Pons' column sequences (columns from 1). Reported per position: the
score, seconds and nodes for each solver and their ratio (qarena's nodes also split as c4
counts them: ``interior`` is the comparable count); and the peak RSS of this process and of
c4's. Scores must agree; the start must score +1 (a first-player win with the 41st stone,
Allis and Tromp).

Run: .venv/bin/python benchmarks/c4_start.py [--peer START,4,44] [--workers W] [--c4 PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
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
    parser.add_argument("--c4", default=None, help="Steininger's c4 driver (see above)")
    args = parser.parse_args()
    c4 = args.c4
    c4_rss = 0
    if c4 is not None and not (os.path.isfile(c4) and os.access(c4, os.X_OK)):
        print(f"c4: skipped (no executable at {c4})")
        c4 = None
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
            f"{searcher.counts['interior']:,} interior, "
            f"{searcher.workers} threads, {searcher.table.size:,} entries)"
        )
        if c4 is not None:
            done = subprocess.run([c4, moves], capture_output=True, text=True, check=True)
            theirs = json.loads(done.stdout.strip().splitlines()[-1])
            c4_rss = max(c4_rss, int(theirs.get("peak_rss_kb", 0)))
            if theirs["score"] != ours:
                print(line, f"c4 says {theirs['score']}: disagree")
                return 1
            line += (
                f"; c4 {theirs['seconds']:.1f} s ({theirs['nodes']:,} nodes); "
                f"ratio {took / theirs['seconds']:.2f}"
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
    if c4 is not None:
        print(f"c4's peak RSS {c4_rss / 1024:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
