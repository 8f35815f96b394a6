"""MCTS: qarena's ``mcts:N`` beside OpenSpiel's ``MCTSBot`` (random rollouts, ``uct_c`` √2,
``solve`` off, one rollout a leaf), at the same simulations a move.

Speed: simulations per second of a search from the start, qarena's compiled search against
OpenSpiel's bot on OpenSpiel's own C++ games (its fastest form). Strength: optimality judged
exactly by qarena at every decision position of tic-tac-toe, OpenSpiel's bot playing the same
game through qarena's OpenSpiel bridge (``qarena.env.openspiel``), asked each position afresh
as qarena's player is.

Run: PYTHONPATH=src python benchmarks/mcts.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from qarena.agents.mcts import MCTSPlayer
from qarena.agents.players import FunctionPlayer
from qarena.agents.thinking import Budget
from qarena.games import Game, Position, parse_spec
from qarena.judging.player import judge_player

#: qarena's spec and OpenSpiel's name of the same game.
SPEED_GAMES = (
    ("tictactoe", "tic_tac_toe"),
    ("connect4:4x5", "connect_four(rows=4,columns=5)"),
    ("connect4", "connect_four"),
)


def qarena_speed(spec: str, sims: int) -> float:
    game = parse_spec(spec)
    MCTSPlayer(game, Budget(count=100), seed=0).act(game.start())  # compiled before timing
    p = MCTSPlayer(game, Budget(count=sims), seed=0)
    began = time.perf_counter()
    p.act(game.start())
    return sims / (time.perf_counter() - began)


def openspiel_bot(game: object, sims: int, seed: int) -> object:
    from open_spiel.python.algorithms import mcts

    rs = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    return mcts.MCTSBot(game, math.sqrt(2), sims, evaluator, random_state=rs, solve=False)


def openspiel_speed(name: str, sims: int) -> float:
    import pyspiel

    game = pyspiel.load_game(name)
    bot = openspiel_bot(game, sims, 0)
    began = time.perf_counter()
    bot.step(game.new_initial_state())  # type: ignore[attr-defined]
    return sims / (time.perf_counter() - began)


def openspiel_player(game: Game, sims: int, seed: int) -> FunctionPlayer:
    from qarena.env.openspiel import openspiel_game

    spiel = openspiel_game(game)
    bot = openspiel_bot(spiel, sims, seed)

    def step(position: Position) -> int:
        return int(bot.step(spiel.new_initial_state(position)))  # type: ignore[attr-defined]

    return FunctionPlayer(step, game, name=f"MCTSBot:{sims}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer simulations, one seed")
    args = parser.parse_args()
    sims = 2_000 if args.quick else 20_000
    print("| game | qarena mcts sims/s | OpenSpiel MCTSBot sims/s | ratio |")
    print("|---|---:|---:|---:|")
    for spec, name in SPEED_GAMES:
        ours = qarena_speed(spec, sims * 10)
        theirs = openspiel_speed(name, sims // 10)
        print(f"| {spec} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.0f}× |")
    game = parse_spec("tictactoe")
    counts = (10, 100) if args.quick else (10, 100, 1000)
    print()
    print("| simulations | qarena mcts optimality | OpenSpiel MCTSBot optimality |")
    print("|---:|---:|---:|")
    for n in counts:
        ours = judge_player(MCTSPlayer(game, Budget(count=n), seed=0), games=1)
        theirs = judge_player(openspiel_player(game, n, 0), games=1)
        print(f"| {n:,} | {ours.optimality.share:.4f} | {theirs.optimality.share:.4f} |")


if __name__ == "__main__":
    main()
