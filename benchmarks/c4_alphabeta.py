"""Seconds a move of ``alphabeta:D:network`` on classic Connect Four, D = 1 to 4 (or as told),
and the cost of the evaluator (the shipped n-tuple network's ``values``) per call.

Positions: random games of ``--low`` to ``--high`` plies in which nobody has won (the generator
of ``benchmarks/c4_search.py``, seeded). Each position is answered once per depth (``act``);
reported: the median and worst seconds a move, the mean positions visited (nodes), the depth
reached, and the network's seconds per ``values`` call measured alone on the same positions.

With ``--judge``: instead of timing, the share of the positions that are decisions where the
network alone and ``alphabeta:D:network`` keep the value, each position judged exactly by the
search solver (``judging.player.judge_player`` on given positions, as ``qarena eval
--positions`` judges).

Run: .venv/bin/python benchmarks/c4_alphabeta.py [--positions N] [--depths 1,2,3,4]
     [--low L] [--high H] [--seed S] [--judge]
Measured in BENCHMARKS.md: --depths 1,2,3,4,5 (timing, 20 positions of 2-16 plies, seed 0);
--judge --positions 500 --low 8 --high 24 --seed 2 --depths 1,2,3,4,5.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from qarena.agents.alphabeta import AlphaBeta, make_alphabeta
from qarena.agents.players import player
from qarena.games import parse_spec
from qarena.games.base import Game, Position


def positions(game: Game, count: int, low: int, high: int, seed: int) -> list[Position]:
    """Random games of ``low`` to ``high`` plies, no move ending them (c4_search.py's)."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = game.start()
        for _ in range(rng.randrange(low, high + 1)):
            safe = [
                m
                for m in game.legal_moves(position)
                if not game.is_terminal(game.apply(position, m))
            ]
            if not safe:
                break
            position = game.apply(position, rng.choice(safe))
        else:
            found.append(position)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--depths", default="1,2,3,4")
    parser.add_argument("--low", type=int, default=2)
    parser.add_argument("--high", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judge", action="store_true")
    args = parser.parse_args()
    game = parse_spec("connect4")
    net = player("network", game)
    found = positions(game, args.positions, args.low, args.high, args.seed)
    if args.judge:
        from qarena.judging.player import judge_player

        judged = [("network", net)] + [
            (f"alphabeta:{d}:network", make_alphabeta(game, int(d), None, net, seed=0))
            for d in args.depths.split(",")
        ]
        for name, who in judged:
            start = time.perf_counter()
            share = judge_player(who, games=0, positions=found).optimality
            print(f"{name}: {share} ({time.perf_counter() - start:.0f} s)")
        return 0
    net.values(found[0])  # compiled once, not timed
    start = time.perf_counter()
    for position in found:
        net.values(position)
    per_call = (time.perf_counter() - start) / len(found)
    print(f"network values: {per_call * 1e3:.2f} ms a call ({len(found)} positions)")
    for depth in (int(d) for d in args.depths.split(",")):
        times, nodes = [], []
        for position in found:
            who = make_alphabeta(game, depth, None, net, seed=0)
            assert isinstance(who, AlphaBeta)
            start = time.perf_counter()
            who.act(position)
            times.append(time.perf_counter() - start)
            nodes.append(who.nodes)
        print(
            f"depth {depth}: median {statistics.median(times):.3f} s, worst {max(times):.3f} s, "
            f"mean {statistics.mean(times):.3f} s a move; mean nodes {statistics.mean(nodes):.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
