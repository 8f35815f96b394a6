"""What the perfect player's slowest decisions cost, position by position, on classic Connect
Four: the moves that keep the value found the way the player finds them now (the position's
value, from the book or a search, then one null-window test a move: ``Searcher.best_moves``)
and every move's weak score (``move_scores(weak=True)``, how it found them before), one
searcher (one table, 2 threads unless told) for the whole list, as a playing process keeps its
table; ``--no-book`` without the shipped book.

With ``--c4 PATH``, side by side in the same run, Steininger's c4 (2 threads, 1 GiB, no book)
the same two ways: PATH is ``c4_decide`` built by ``benchmarks/peers/build_c4.sh`` (its
"weak2" and "weak" modes), one process for the whole list. The moves found must agree.

Positions are Pons' column sequences; the default list is the plies 5–7 decisions that took
over 0.3 s in ``benchmarks/c4_player.py --games 3 --openings 4,44`` (``--slow 0.3``).
Reported: the seconds of each position for each way, and their mean, max and count over 1 s.

Run: .venv/bin/python benchmarks/c4_decisions.py [--positions P,P,...] [--c4 PATH] [--no-book]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time

from qarena.exact.book import shipped_book
from qarena.exact.search import Searcher
from qarena.games import parse_spec

SLOW = (
    "452443,55463,5546326,46653,46564,444554,44564,473744,74744,7474455,44444,44757,44747,"
    "426123,23163,2316333,46222,46221,4622133,444261,44231,4423123"
)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", default=SLOW)
    parser.add_argument("--c4", default=None, help="c4_decide (benchmarks/peers/build_c4.sh)")
    parser.add_argument("--no-book", action="store_true")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    positions = args.positions.split(",")
    game = parse_spec("connect4:6x7")
    small = parse_spec("connect4:4x4")
    warm = Searcher(small, entries=10_007)  # compile the kernels first
    warm.best_moves(small.start(), weak=True)
    warm.move_scores(small.start(), weak=True)
    # ... and a process's first search of this board, which costs about a CPU second more
    # (see benchmarks/c4_player.py): paid here, before the first timed way.
    Searcher(game, entries=1_000_003).score(game.parse_position("4444443333"))
    seconds: dict[str, list[float]] = {}
    found: dict[str, list[list[int]]] = {}
    book = None if args.no_book else shipped_book(game)
    workers = {} if args.workers is None else {"workers": args.workers}
    for way in ("tests", "every move"):
        searcher = Searcher(game, book=book, **workers)
        for moves in positions:
            position = game.parse_position(moves)
            t0 = time.perf_counter()
            if way == "tests":
                best = searcher.best_moves(position, weak=True)
            else:
                scores = searcher.move_scores(position, weak=True)
                top = max((s > 0) - (s < 0) for s in scores.values())
                best = [m for m, s in scores.items() if (s > 0) - (s < 0) == top]
            seconds.setdefault(f"qarena {way}", []).append(time.perf_counter() - t0)
            found.setdefault(f"qarena {way}", []).append([m + 1 for m in best])
    c4 = args.c4
    if c4 is not None and not (os.path.isfile(c4) and os.access(c4, os.X_OK)):
        print(f"c4: skipped (no executable at {c4})")
        c4 = None
    for mode, way in (("weak2", "tests"), ("weak", "every move")):
        if c4 is None:
            break
        done = subprocess.run(
            [c4, mode], input="\n".join(positions) + "\n", capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        for line in done.stdout.splitlines():
            answer = json.loads(line)
            scores = {int(c): s for c, s in answer["scores"].items() if c != "score"}
            if mode == "weak2":
                lost = answer["scores"]["score"] < 0
                best = sorted(scores) if lost else [c for c, s in scores.items() if s != -99]
            else:
                signs = {c: 1 if s == 99 else s for c, s in scores.items()}
                best = [c for c, s in signs.items() if s == max(signs.values())]
            seconds.setdefault(f"c4 {way}", []).append(float(answer["seconds"]))
            found.setdefault(f"c4 {way}", []).append(sorted(best))
    ways = list(seconds)
    print("position  ply  " + "  ".join(f"{w:>16}" for w in ways))
    for i, moves in enumerate(positions):
        agree = len({tuple(found[w][i]) for w in ways}) == 1
        row = "  ".join(f"{seconds[w][i]:>16.2f}" for w in ways)
        print(f"{moves:<9} {len(moves):>3}  {row}" + ("" if agree else "  DISAGREE"))
    for name, f in (("mean", statistics.mean), ("max", max)):
        print(f"{name:<13}  " + "  ".join(f"{f(seconds[w]):>16.2f}" for w in ways))
    print("over 1 s       " + "  ".join(f"{sum(s > 1 for s in seconds[w]):>16}" for w in ways))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
