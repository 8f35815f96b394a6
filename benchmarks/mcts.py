"""MCTS: qarena's ``mcts:N`` beside OpenSpiel's ``MCTSBot`` (random rollouts, ``uct_c`` √2,
``solve`` off, one rollout a leaf), at the same simulations a move.

Speed: simulations per second of a search from the start, qarena's compiled search against
OpenSpiel's bot on OpenSpiel's own C++ games (its fastest form). Strength: optimality judged
exactly by qarena at every decision position of tic-tac-toe, OpenSpiel's bot playing the same
game through qarena's OpenSpiel bridge (``qarena.env.openspiel``), asked each position afresh
as qarena's player is.

Against simulations (``--sweep SPEC``): optimality on one fixed set of decision positions of
SPEC (``--count`` of them: a random game stopped at a uniformly random ply, kept where some
move gives the value away, each position once; seed ``--seed``), each judged exactly by
qarena's solution, at each of ``--sims``; with ``--openspiel`` (tic-tac-toe's square boards,
Connect Four's) OpenSpiel's bot beside it on the same positions, reached by the same moves in
OpenSpiel's own C++ game, and each side's simulations per second over those positions.

With an evaluator (``--network FILE``): ``mcts:N:network`` on classic Connect Four, on the
positions in FILE (one a line, as ``qarena eval --positions`` reads them), each solved once
by the search solver and kept where some move gives the value away: for the network alone
and for each of ``--sims``, the share of those decisions where the move keeps the value (as
``qarena eval mcts:N:network --game connect4 --positions FILE --games 0`` judges each N),
the median and worst seconds a move and the simulations per second; and the same search in
Python (the evaluator asked through its ``values``) at the counts of ``--python-sims``.

Run: PYTHONPATH=src python benchmarks/mcts.py [--quick]
     PYTHONPATH=src python benchmarks/mcts.py --sweep tictactoe:4x4:4 --count 1000
     PYTHONPATH=src python benchmarks/mcts.py --sweep connect4:4x5 --count 200 --openspiel
     PYTHONPATH=src python benchmarks/mcts.py --network FILE --sims 100,1000,10000
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from qarena.agents.mcts import MCTSPlayer
from qarena.agents.players import FunctionPlayer
from qarena.agents.thinking import Budget
from qarena.exact.oracles import Oracle
from qarena.games import Game, Move, Position, parse_spec
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


def openspiel_name(game: Game) -> str | None:
    """OpenSpiel's C++ game of a qarena board: the same cells and moves (a tic-tac-toe move
    is its cell row by row, a Connect Four move its column, in both)."""
    if game.spec == "tictactoe:3x3:3":
        return "tic_tac_toe"
    grid = game.grid
    if game.spec.startswith("tictactoe:") and grid is not None and grid.rows == grid.cols:
        return f"mnk(m={grid.cols},n={grid.rows},k={grid.k})"  # square: no question of sides
    if game.spec.startswith("connect4:") and grid is not None and grid.k == 4:
        return f"connect_four(rows={grid.rows},columns={grid.cols})"
    return None


def decision_positions(game: Game, count: int, seed: int) -> list[tuple[Position, list[Move]]]:
    """``count`` distinct decision positions (some move gives the value away) with the moves
    that reach them: random games, each stopped at a uniformly random ply."""
    exact = Oracle.of(game).exact()
    rng = random.Random(seed)
    found: list[tuple[Position, list[Move]]] = []
    seen: set[Position] = set()
    tries = 0
    while len(found) < count and tries < 1000 * count:
        tries += 1
        position, moves = game.start(), []
        stop = rng.randrange(game.max_plies)
        while len(moves) < stop and not game.is_terminal(position):
            moves.append(rng.choice(game.legal_moves(position)))
            position = game.apply(position, moves[-1])
        if game.is_terminal(position) or position in seen:
            continue
        values = exact.move_values(position)
        if min(values.values()) == max(values.values()):
            continue
        seen.add(position)
        found.append((position, moves))
    return found


def sweep(spec: str, count: int, sims: list[int], seed: int, openspiel: bool) -> None:
    """Optimality against simulations on one set of decision positions (module docstring)."""
    game = parse_spec(spec)
    exact = Oracle.of(game).exact()
    began = time.perf_counter()
    chosen = decision_positions(game, count, seed)
    print(f"{game.spec}: {len(chosen)} decision positions (seed {seed}), "
          f"chosen in {time.perf_counter() - began:.1f} s")  # fmt: skip
    best = [exact.move_values(p) for p, _m in chosen]
    keeps = [{m for m, v in b.items() if v == max(b.values())} for b in best]
    name = openspiel_name(game) if openspiel else None
    if openspiel and name is None:
        raise SystemExit(f"no OpenSpiel game for {game.spec}")
    MCTSPlayer(game, Budget(count=100), seed=0).act(game.start())  # compiled before timing
    head = "| simulations | qarena mcts optimality | qarena sims/s |"
    rule = "|---:|---:|---:|"
    if name is not None:
        head += " OpenSpiel MCTSBot optimality | OpenSpiel sims/s | ratio |"
        rule += "---:|---:|---:|"
    print(head)
    print(rule, flush=True)
    for n in sims:
        p = MCTSPlayer(game, Budget(count=n), seed=0)
        began = time.perf_counter()
        kept = sum(p.act(pos) in k for (pos, _m), k in zip(chosen, keeps, strict=True))
        ours = p.simulations / (time.perf_counter() - began)
        row = f"| {n:,} | {kept / len(chosen):.4f} ({kept} of {len(chosen)}) | {ours:,.0f} |"
        if name is not None:
            import pyspiel

            spiel = pyspiel.load_game(name)
            bot = openspiel_bot(spiel, n, seed=0)
            theirs, spent = 0, 0.0
            for (pos, moves), k in zip(chosen, keeps, strict=True):
                state = spiel.new_initial_state()
                for m in moves:
                    state.apply_action(m)
                assert sorted(game.legal_moves(pos)) == state.legal_actions()
                t = time.perf_counter()
                theirs += int(bot.step(state)) in k  # type: ignore[attr-defined]
                spent += time.perf_counter() - t
            speed = n * len(chosen) / spent
            row += (f" {theirs / len(chosen):.4f} ({theirs} of {len(chosen)}) | {speed:,.0f} |"
                    f" {ours / speed:.0f}× |")  # fmt: skip
        print(row, flush=True)


def network_sweep(file: str, sims: list[int], python_sims: list[int]) -> None:
    """``mcts:N:network`` on classic Connect Four's positions in ``file`` (module docstring)."""
    import statistics

    from qarena.agents.players import player

    game = parse_spec("connect4")
    with open(file, encoding="utf-8") as f:
        given = [game.position_of(line.strip()) for line in f if line.strip()]
    exact = Oracle.of(game).exact()
    began = time.perf_counter()
    chosen, keeps = [], []
    for position in given:
        values = exact.move_values(position)
        if min(values.values()) < max(values.values()):
            chosen.append(position)
            keeps.append({m for m, v in values.items() if v == max(values.values())})
    print(f"{file}: {len(given)} positions, {len(chosen)} decisions, solved in "
          f"{time.perf_counter() - began:.0f} s")  # fmt: skip
    net = player("network", game)
    print("| player | optimality | median s/move | worst s/move | sims/s |")
    print("|---|---:|---:|---:|---:|", flush=True)
    runs: list[tuple[str, object]] = [("network", net)]
    runs += [(f"mcts:{n:,}:network", MCTSPlayer(game, Budget(count=n), net, seed=0)) for n in sims]
    runs += [
        (f"mcts:{n:,}:network in Python", MCTSPlayer(game, Budget(count=n), net, 0, compiled=False))
        for n in python_sims
    ]
    MCTSPlayer(game, Budget(count=10), net, seed=0).act(game.start())  # compiled before timing
    for label, who in runs:
        kept, spent = 0, []
        for position, k in zip(chosen, keeps, strict=True):
            t = time.perf_counter()
            kept += who.act(position) in k  # type: ignore[attr-defined]
            spent.append(time.perf_counter() - t)
        speed = f"{who.simulations / sum(spent):,.0f}" if isinstance(who, MCTSPlayer) else "–"
        share = f"{kept / len(chosen):.4f} ({kept} of {len(chosen)})"
        print(f"| {label} | {share} | {statistics.median(spent):.3f} | {max(spent):.3f} | "
              f"{speed} |", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer simulations, one seed")
    parser.add_argument("--sweep", metavar="SPEC", help="optimality against simulations")
    parser.add_argument("--count", type=int, default=500, help="decision positions (--sweep)")
    parser.add_argument("--sims", default="10,100,1000,10000", help="simulations (--sweep)")
    parser.add_argument("--seed", type=int, default=0, help="the positions' seed (--sweep)")
    parser.add_argument("--openspiel", action="store_true", help="MCTSBot beside (--sweep)")
    parser.add_argument("--network", metavar="FILE", help="mcts:N:network on these positions")
    parser.add_argument("--python-sims", default="", help="the same in Python (--network)")
    args = parser.parse_args()
    if args.network:
        counts = [int(x) for x in args.sims.split(",")]
        slow = [int(x) for x in args.python_sims.split(",") if x]
        network_sweep(args.network, counts, slow)
        return
    if args.sweep:
        counts = [int(x) for x in args.sims.split(",")]
        sweep(args.sweep, args.count, counts, args.seed, args.openspiel)
        return
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
