"""n-tuple networks where tables are perfect, side by side with Q-learning (issue 23).

For each board: ``qarena train SPEC --learner q`` with its default run (timed), then an
n-tuple network (the game's default settings, ``default_config``, on every core) trained for
the same seconds of training. Both are judged the same way: exactly over every decision
position where the solution fits (optimality), else along perfect-play games; and both play
perfect play from each seat. Then ``tictactoe:5x5:4``, too big for tables here: the network
alone, judged by samples along perfect-play games and in matches against perfect play from
each seat.

Reported: seconds of training, optimality, the record against perfect play moving first and
second, peak RSS of the whole run.

Run: .venv/bin/python benchmarks/ntuple_small.py [--boards tictactoe,connect4:4x4,connect4:5x5]
     [--along 200] [--games 200] [--skip-5x5-4] [--train-5x5-4 N] [--along-5x5-4 N]
     [--games-5x5-4 N]

tictactoe:5x5:4 is judged by search, whose early positions take long: its own counts of games
(``--along-5x5-4``, ``--games-5x5-4``; 50 each unless told) and of games trained
(``--train-5x5-4``; the default run unless told) keep it within reach. ``--boards ""`` runs it
alone.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import qarena
from qarena.agents.players import player
from qarena.exact import Oracle
from qarena.games import parse_spec
from qarena.games.base import Game
from qarena.judging.along_play import along_perfect_play
from qarena.judging.sampled import play_games
from qarena.learn.ntuple.config import default_config, default_games
from qarena.learn.ntuple.network import NTupleNetwork
from qarena.training.run import NETWORK_CHUNK, plan_run

WORKERS = len(os.sched_getaffinity(0))


def exact_fits(game: Game) -> bool:
    return len(game.start()) <= 16  # tic-tac-toe 3x3 and Connect Four 4x4: every position judged


def judged(who: object, game: Game, along: int, games: int) -> str:
    """Optimality (exact, or along perfect-play games) and the record against perfect play."""
    answers = Oracle.of(game)
    solution = answers.exact()
    if exact_fits(game) and not answers.searched:
        share = qarena.judge(who, game, games=1).optimality.share  # type: ignore[arg-type]
        how = "exact"
    else:
        share = along_perfect_play(who, solution, along, seed=7)[0].share  # type: ignore[arg-type]
        how = f"along {along} perfect-play games"
    first = play_games(game, who, player("perfect", game, seed=1), games)  # type: ignore[arg-type]
    second = play_games(game, player("perfect", game, seed=2), who, games)  # type: ignore[arg-type]
    return (
        f"optimality {share:.4f} ({how}); vs perfect moving first W/D/L "
        f"{first.win}/{first.draw}/{first.loss}, moving second W/D/L "
        f"{second.loss}/{second.draw}/{second.win} of {games}"
    )


def network_for(
    game: Game, seconds: float | None, games: int | None
) -> tuple[NTupleNetwork, float]:
    """A default network trained for ``seconds`` of training (its run's length, over which α
    and ε decay, estimated from the first chunk's speed), or for ``games`` games."""
    net = NTupleNetwork.from_config(game, default_config(game))
    net.warm_up()
    t0 = time.perf_counter()
    first = min(NETWORK_CHUNK, games or NETWORK_CHUNK)
    total = games or first
    net.train(first, total, WORKERS)
    trained = time.perf_counter() - t0
    if games is None and seconds is not None:
        total = max(first, int(seconds / trained * first))
    while net.games < total and (seconds is None or trained < seconds):
        t0 = time.perf_counter()
        net.train(min(NETWORK_CHUNK, total - net.games), total, WORKERS)
        trained += time.perf_counter() - t0
    return net, trained


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--boards", default="tictactoe,connect4:4x4,connect4:5x5")
    parser.add_argument("--along", type=int, default=200)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--skip-5x5-4", action="store_true")
    parser.add_argument("--train-5x5-4", type=int, default=None)
    parser.add_argument("--along-5x5-4", type=int, default=50)
    parser.add_argument("--games-5x5-4", type=int, default=50)
    args = parser.parse_args()
    for spec in [b for b in args.boards.split(",") if b]:
        game = parse_spec(spec)
        plan = plan_run(game, "q", {})
        plan.learner.warm_up()
        t0 = time.perf_counter()
        plan.run()
        q_seconds = time.perf_counter() - t0
        print(
            f"{game.spec}: q, default run ({plan.total:,} episodes), {q_seconds:.1f} s", flush=True
        )
        agent = player(plan.learner, game, seed=0)
        print("  " + judged(agent, game, args.along, args.games), flush=True)
        net, trained = network_for(game, q_seconds, None)
        print(f"  ntuple, {net.games:,} games in {trained:.1f} s on {WORKERS} threads", flush=True)
        print("  " + judged(net, game, args.along, args.games), flush=True)
        net, trained = network_for(game, None, default_games(game))
        print(f"  ntuple, default run: {net.games:,} games in {trained:.1f} s", flush=True)
        print("  " + judged(net, game, args.along, args.games), flush=True)
    if not args.skip_5x5_4:
        game = parse_spec("tictactoe:5x5:4")
        net, trained = network_for(game, None, args.train_5x5_4 or default_games(game))
        print(f"{game.spec}: ntuple, {net.games:,} games in {trained:.1f} s on {WORKERS} threads")
        t0 = time.perf_counter()
        print("  " + judged(net, game, args.along_5x5_4, args.games_5x5_4), flush=True)
        print(f"  judged in {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
