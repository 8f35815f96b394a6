"""Tic-tac-toe boards beyond enumeration solved by search (``LineSearcher``): the start's value
(a weak search: who wins), then every first move's exact score (what ``qarena solve`` prints),
each board with a fresh table of the default size; and the process's peak RSS.

The values must be the m,n,k-game literature's: with four in a row, 5×4 and 5×5 are draws.
No peer is measured: no maintained m,n,k solver runs these boards for comparison.

Run: .venv/bin/python benchmarks/mnk_search.py [--specs tictactoe:5x4:4,tictactoe:5x5:4]
"""

from __future__ import annotations

import argparse
import resource
import time

from qarena.exact.search import LineSearcher
from qarena.games import DRAW, parse_spec, value_name
from qarena.games.tictactoe import TicTacToe

#: What the literature reports for these boards (Uiterwijk and van den Herik 2000).
KNOWN = {"tictactoe:5x4:4": DRAW, "tictactoe:4x5:4": DRAW, "tictactoe:5x5:4": DRAW}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--specs", default="tictactoe:5x4:4,tictactoe:5x5:4,tictactoe:5x5:5")
    args = parser.parse_args()
    warm = TicTacToe(3, 3, 3)
    LineSearcher(warm, entries=10_007).move_scores(warm.start())  # compile the kernels first
    for spec in args.specs.split(","):
        game = parse_spec(spec)
        assert isinstance(game, TicTacToe)
        searcher = LineSearcher(game)
        t0 = time.perf_counter()
        value = searcher.score(game.start(), weak=True)
        weak_s, weak_nodes = time.perf_counter() - t0, searcher.nodes
        t0 = time.perf_counter()
        scores = searcher.move_scores(game.start())
        all_s = time.perf_counter() - t0
        known = KNOWN.get(game.spec)
        verdict = "" if known is None else (" (as reported)" if known == value else " DISAGREES")
        print(
            f"{game.spec}: {value_name(value)}{verdict} in {weak_s:.2f} s ({weak_nodes:,} "
            f"nodes); every first move's exact score in {all_s:.2f} s more "
            f"({searcher.nodes - weak_nodes:,} nodes): best {max(scores.values()):+d}"
        )
        if known is not None and known != value:
            return 1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
