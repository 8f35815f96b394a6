"""How fast the perfect player answers on classic Connect Four: every move it makes in games
against random play and against itself (each seat, seeded), timed from the position to its
move, with the opening book shipped in the package and one table for the whole run (as a
process that plays many games has).

Reported: decisions, median and maximum seconds per move, the share over 10 s and over 0.1 s,
the slowest moves by ply, and the process's peak RSS. The issue's target: every answer within
10 s on this machine, the median within 0.1 s.

With ``--exact``, each of its decisions is timed as ``play`` and the web app show it: every
legal move's exact outcome first (value and distance: an exact score per move), then the move.

With ``--player strongest``, the player timed is the strongest (the fastest win, the slowest
loss), whose every decision needs each move's exact score.

Run: .venv/bin/python benchmarks/c4_player.py [--games N] [--seed S] [--exact]
[--player perfect|strongest]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections import defaultdict

from qarena.agents.players import player
from qarena.exact import oracle
from qarena.games import parse_spec


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--exact", action="store_true", help="time every move's outcome too")
    parser.add_argument("--player", choices=("perfect", "strongest"), default="perfect")
    args = parser.parse_args()
    game = parse_spec("connect4:6x7")
    solution = oracle(game)
    small = parse_spec("connect4:4x4")
    player("perfect", small, seed=0).act(small.start())  # compile the kernels first
    times: list[float] = []
    by_ply: dict[int, list[float]] = defaultdict(list)
    for n in range(args.games):
        for opponent in ("random", "perfect"):
            for seat in (0, 1):
                me = player(args.player, game, seed=args.seed * 1000 + n)
                other = player(opponent, game, seed=args.seed * 1000 + n + 500)
                sides = (me, other) if seat == 0 else (other, me)
                position, ply = game.start(), 0
                while not game.is_terminal(position):
                    mover = sides[ply % 2]
                    t0 = time.perf_counter()
                    if args.exact and mover is me:
                        solution.move_outcomes(position)
                    move = mover.act(position)
                    if mover is me:
                        took = time.perf_counter() - t0
                        times.append(took)
                        by_ply[ply].append(took)
                    position = game.apply(position, move)
                    ply += 1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    what = "decisions with every move's outcome" if args.exact else "decisions"
    print(f"{len(times)} {what} by {args.player} in {4 * args.games} games ({solution!r})")
    print(
        f"median {statistics.median(times):.4f} s, max {max(times):.2f} s; "
        f"over 10 s: {sum(t > 10 for t in times)}, over 0.1 s: {sum(t > 0.1 for t in times)}"
    )
    slow = sorted(by_ply.items(), key=lambda kv: -max(kv[1]))[:6]
    print("slowest plies: " + ", ".join(f"{p}: {max(ts):.2f} s" for p, ts in slow))
    print(f"peak RSS {rss:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
