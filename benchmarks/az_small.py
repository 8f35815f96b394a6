"""The AlphaZero learner's loop (``qarena.learn.alphazero``) on a board small enough to judge
exactly (issue 41): self-play through batched PUCT in Python over the PyTorch network on one
thread, learning after every chunk; at each checkpoint the greedy policy (the move of the
highest prior) is judged over *every* decision position against the solver's tables.

Prints one line per checkpoint (games, seconds of training, games/s, positions learned from,
exact optimality) and the peak RSS; ``--json`` prints them as JSON lines.

The learner's own settings (``--learner alphazero``: channels, blocks, simulations, alpha,
opening, seed, workers) and the loop's fixed ones (chunk, temperature moves, reuse, buffer)
can be set, to measure what the defaults should be; ``--out FILE`` saves the network as the
learner's file, for ``qarena eval FILE`` and ``mcts:N:FILE``.

Run: .venv/bin/python benchmarks/az_small.py [--game connect4:4x5] [--minutes 10]
     [--checkpoints 5] [--channels 32] [--blocks 3] [--simulations 32] [--chunk 32]
     [--temperature-moves 4] [--reuse 4] [--buffer 50000] [--alpha 0.001] [--opening 0]
     [--workers 1] [--seed 0] [--out FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import numpy as np

from qarena.exact.space import GameTables, game_tables
from qarena.games import parse_spec
from qarena.judging.tables import Optimality, optimality_of_values
from qarena.learn.alphazero.learner import (
    AlphaZeroConfig,
    AlphaZeroLearner,
    LearningSettings,
    SelfPlayLearning,
)
from qarena.learn.alphazero.net import PolicyValueNet, table_priors
from qarena.learn.alphazero.search import SearchSettings
from qarena.learn.alphazero.workers import SelfPlayPool


def greedy_optimality(net: PolicyValueNet, tables: GameTables) -> Optimality:
    """The exact optimality of the network's greedy policy over every decision position."""
    live = np.flatnonzero(tables.live)
    priors = np.zeros((tables.rows, tables.game.num_moves), dtype=np.float32)
    movers = np.maximum(tables.mover[live], 0).astype(np.int8)
    priors[live] = table_priors(net, tables.codes[live], movers, tables.game.radix)
    return optimality_of_values(tables, priors)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="connect4:4x5")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--checkpoints", type=int, default=5)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--chunk", type=int, default=32)
    parser.add_argument("--temperature-moves", type=int, default=4)
    parser.add_argument("--reuse", type=float, default=4.0)
    parser.add_argument("--buffer", type=int, default=50_000)
    parser.add_argument("--alpha", type=float, default=1e-3)
    parser.add_argument("--opening", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    game = parse_spec(args.game)
    grid = game.grid
    assert grid is not None, "a board game"
    tables = game_tables(game)  # canonical: one row per symmetry class, weighted by its orbit
    net = PolicyValueNet.new(grid, args.channels, args.blocks, seed=args.seed)
    run = SelfPlayLearning(
        game,
        net,
        SearchSettings(
            simulations=args.simulations,
            temperature_moves=args.temperature_moves,
            opening=args.opening,
        ),
        LearningSettings(alpha=args.alpha, reuse=args.reuse, buffer=args.buffer, seed=args.seed),
    )
    pool = SelfPlayPool(args.workers) if args.workers > 1 else None

    def report(trained: float, positions: int, judge_s: float, found: Optimality) -> None:
        row = {
            "game": game.spec, "games": run.games, "train_seconds": round(trained, 1),
            "games_per_second": round(run.games / trained, 2) if trained else 0.0,
            "positions": positions, "optimality": round(found.share, 4),
            "decisions": found.decisions, "judge_seconds": round(judge_s, 1),
        }  # fmt: skip
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{row['games']:>7,} games  {trained:7.0f} s  {row['games_per_second']:6.2f} "
                f"games/s  {positions:>9,} positions  optimality {found.share:.4f} "
                f"({found.optimal:,} of {found.decisions:,}; judged in {judge_s:.0f} s)",
                flush=True,
            )

    t = time.perf_counter()
    found = greedy_optimality(net, tables)
    report(0.0, 0, time.perf_counter() - t, found)
    budget = args.minutes * 60
    trained = 0.0
    positions = 0
    for point in range(1, args.checkpoints + 1):
        until = budget * point / args.checkpoints
        while trained < until:
            t = time.perf_counter()
            done = run.play_and_learn(args.chunk, pool)
            trained += time.perf_counter() - t
            positions += done.positions
        t = time.perf_counter()
        found = greedy_optimality(net, tables)
        report(trained, positions, time.perf_counter() - t, found)
    if pool is not None:
        pool.close()
    if args.out:
        config = AlphaZeroConfig(
            channels=args.channels, blocks=args.blocks, simulations=args.simulations,
            alpha=args.alpha, opening=args.opening, seed=args.seed,
        )  # fmt: skip
        learner = AlphaZeroLearner(game, net, config, games=run.games, seconds=trained)
        learner.save(args.out)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"peak_rss_mb": round(peak)}) if args.json else f"peak RSS {peak:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
