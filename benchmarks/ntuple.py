"""n-tuple networks learning classic Connect Four by self-play (``qarena.learn.ntuple``): games
per second on one thread and on every core, then a training run judged as it goes by games
against perfect play (which picks at random among the moves that keep the value), the network
moving first.

Reported: games/s and moves/s per thread count; per chunk of training, the games learned, the
seconds of training so far, and wins/draws/losses against perfect play; the tables' memory and
the process's peak RSS.

Run: .venv/bin/python benchmarks/ntuple.py [--games 3e6] [--chunk 5e5] [--judge 100]
     [--tuples 70] [--length 8] [--workers W] [--speed-only]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from qarena.agents.players import player
from qarena.games import DRAW, parse_spec
from qarena.games.tictactoe import TicTacToe
from qarena.learn.ntuple.network import NTupleNetwork


def against_perfect(net: NTupleNetwork, games: int) -> tuple[int, int, int]:
    """The network's wins, draws and losses moving first against perfect play."""
    game = net.game
    wins = draws = losses = 0
    for i in range(games):
        perfect = player("perfect", game, seed=i)
        position, ply = game.start(), 0
        while not game.is_terminal(position):
            mover = net if ply % 2 == 0 else perfect
            position = game.apply(position, mover.act(position))
            ply += 1
        if game.result(position) == DRAW:
            draws += 1
        elif (ply - 1) % 2 == 0:  # the last move wins, and it was the network's
            wins += 1
        else:
            losses += 1
    return wins, draws, losses


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=float, default=3e6)
    parser.add_argument("--chunk", type=float, default=5e5)
    parser.add_argument("--judge", type=int, default=100)
    parser.add_argument("--tuples", type=int, default=70)
    parser.add_argument("--length", type=int, default=8)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--speed-only", action="store_true")
    args = parser.parse_args()
    game = parse_spec("connect4:6x7")
    assert isinstance(game, TicTacToe)
    NTupleNetwork.new(game, 4, 4).learn(10)  # compile the kernels first
    for workers in sorted({1, args.workers}):
        net = NTupleNetwork.new(game, args.tuples, args.length, seed=1)
        t0 = time.perf_counter()
        moves = net.learn(20_000, workers=workers)
        took = time.perf_counter() - t0
        print(
            f"{workers} thread(s): {20_000 / took:,.0f} games/s, {moves / took:,.0f} moves/s "
            f"({args.tuples} tuples of {args.length} cells)"
        )
    if args.speed_only:
        return 0
    total, chunk = int(args.games), int(args.chunk)
    net = NTupleNetwork.new(game, args.tuples, args.length, seed=1)
    print(f"tables: {net.weights.nbytes / 2**20:,.0f} MiB")
    trained = 0.0
    while net.games < total:
        t0 = time.perf_counter()
        net.learn(min(chunk, total - net.games), seed=net.games, workers=args.workers, total=total)
        trained += time.perf_counter() - t0
        w, d, lost = against_perfect(net, args.judge)
        print(
            f"{net.games:>11,} games, {trained:7.1f} s of training: against perfect play, "
            f"moving first, {w} wins, {d} draws, {lost} losses of {args.judge}",
            flush=True,
        )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
