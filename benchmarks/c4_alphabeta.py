"""Seconds a move of ``alphabeta:D:network`` on classic Connect Four, D = 1 to 4 (or as told),
and the cost of the evaluator (the shipped n-tuple network's ``values``) per call.

Positions: random games of ``--low`` to ``--high`` plies in which nobody has won
(``c4_positions.random_games``, seeded), or the positions of a file (``--set FILE``, as
``qarena eval --positions`` reads it: the issue's set of decisions from varied openings is
written by ``benchmarks/c4_positions.py``). Each position is answered once per depth (``act``);
reported: the median and worst seconds a move, the mean positions visited (nodes), and the
network's seconds per ``values`` call measured alone on the same positions.

With ``--judge``: also the share of the positions that are decisions where the network alone
and ``alphabeta:D:network`` keep the value, each position judged exactly by the search solver
(``judging.sampled.judge_positions``, as ``qarena eval --positions`` judges), beside the
seconds a move of the same answers, and the plies of the positions missed: the alpha-beta
alone (``solve=False``) at ``--depths``, and as the spec makes it (the search solver asked
first, for at most ``SOLVE_NODES`` positions, or ``--solve-seconds``; its table kept from
position to position, which come in the order of their games) at ``--solved``. ``--players``
judges other player specs too (``alphabeta:0.1s:network``).

With ``--solver-times CAP``: instead, the seconds the search solver takes to prove every
move's value of each position (a weak search, a fresh table of the player's size), at most CAP
each, by the stones on the board: where the solver first pays.

Run: .venv/bin/python benchmarks/c4_alphabeta.py [--positions N] [--depths 1,2,3,4]
     [--low L] [--high H] [--seed S] [--set FILE] [--judge] [--players SPEC,...]
     [--solved 1,2,3] [--solve-seconds S] [--solver-times CAP]
Measured in BENCHMARKS.md: --depths 1,2,3,4,5 (timing, 20 positions of 2-16 plies, seed 0);
--judge --positions 500 --low 8 --high 24 --seed 2 --depths 1,2,3,4,5; the issue's set:
--set /tmp/c4_varied.txt --judge --depths 1,2,3,4,5,6 --solved 1,2,3.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from qarena.agents.alphabeta import AlphaBeta, make_alphabeta
from qarena.agents.base import Player
from qarena.agents.players import player
from qarena.games import parse_spec
from qarena.games.base import Game, Position

sys.path.insert(0, str(Path(__file__).parent))
from c4_positions import random_positions, read_positions


def positions(game: Game, count: int, low: int, high: int, seed: int) -> list[Position]:
    """Random games of ``low`` to ``high`` plies, no move ending them (c4_search.py's)."""
    return random_positions(game, count, low, high, seed)


def judge(game: Game, name: str, who: Player, found: list[Position]) -> str:
    """One row of the judged table: kept / decisions, seconds a move, plies of the misses."""
    from qarena.exact import oracle

    solution = oracle(game)
    kept = decisions = 0
    times: list[float] = []
    missed: list[int] = []
    for position in found:
        values = solution.move_values(position)
        best = max(values.values())
        if min(values.values()) == best:
            continue
        start = time.perf_counter()
        move = who.act(position)
        times.append(time.perf_counter() - start)
        decisions += 1
        if values[move] == best:
            kept += 1
        else:
            missed.append(sum(1 for v in position if v))
    return (
        f"| {name} | {kept} of {decisions} ({kept / decisions:.2%}) | "
        f"{statistics.median(times):.4f} | {max(times):.3f} | {statistics.mean(times):.4f} | "
        f"{','.join(map(str, sorted(missed)))} |"
    )


def solver_times(game: Game, found: list[Position], cap: float) -> int:
    """Seconds the search solver takes to prove every move's value (a weak search, a fresh
    table of the player's size and the shipped book for each position), at most ``cap``
    each, by the stones on the board."""
    from collections import defaultdict

    from qarena import threads
    from qarena.agents.alphabeta import SOLVE_ENTRIES
    from qarena.exact.book import shipped_book
    from qarena.exact.search import Searcher

    book = shipped_book(game)
    small = parse_spec("connect4:4x4")
    Searcher(small, entries=10_007).move_scores(small.start())  # compiled first
    by: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for position in found:
        searcher = Searcher(game, entries=SOLVE_ENTRIES, book=book)
        start = time.perf_counter()
        try:
            with threads.limit(seconds=cap):
                searcher.move_scores(position, weak=True)
            proved = True
        except threads.Stopped:
            proved = False
        by[sum(1 for v in position if v)].append((time.perf_counter() - start, proved))
    print(f"| stones | positions | median s | worst s | not proved in {cap:g} s |")
    print("|---:|---:|---:|---:|---:|")
    for stones in sorted(by):
        times = [t for t, _ in by[stones]]
        failed = sum(not ok for _, ok in by[stones])
        print(
            f"| {stones} | {len(times)} | {statistics.median(times):.3f} | {max(times):.3f} | "
            f"{failed} |"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--depths", default="1,2,3,4")
    parser.add_argument("--low", type=int, default=2)
    parser.add_argument("--high", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", type=Path, default=None)
    parser.add_argument("--judge", action="store_true")
    parser.add_argument("--players", default="")
    parser.add_argument("--solved", default="", help="depths to judge with the solver first")
    parser.add_argument("--solve-seconds", type=float, default=None, help="the solver's time")
    parser.add_argument(
        "--solver-times", type=float, default=None, help="seconds: time the solver by stones"
    )
    args = parser.parse_args()
    game = parse_spec("connect4")
    net = player("network", game)
    if args.set is not None:
        found = read_positions(game, args.set)
    else:
        found = positions(game, args.positions, args.low, args.high, args.seed)
    depths = [int(d) for d in args.depths.split(",") if d]
    if args.solver_times is not None:
        return solver_times(game, found, args.solver_times)
    if args.judge:
        from qarena.exact import oracle

        solution = oracle(game)
        start = time.perf_counter()
        for position in found:  # solved once, before any player is timed
            solution.move_values(position)
        print(f"{len(found)} positions solved in {time.perf_counter() - start:.0f} s")
        net.values(found[0])  # compiled once, not timed
        judged: list[tuple[str, Player]] = [("network", net)]
        judged += [
            (
                f"alphabeta:{d}:network, alpha-beta alone",
                make_alphabeta(game, d, None, net, 0, False),
            )
            for d in depths
        ]
        for d in (int(d) for d in args.solved.split(",") if d):
            who = make_alphabeta(game, d, None, net, 0)
            assert isinstance(who, AlphaBeta)
            if args.solve_seconds is not None:
                who.solve_seconds = args.solve_seconds
            limit = (
                f"{who.solve_seconds:g} s" if who.solve_seconds else f"{who.solve_nodes:,} nodes"
            )
            judged.append((f"alphabeta:{d}:network (solver {limit} first)", who))
        judged += [(spec, player(spec, game, 0)) for spec in args.players.split(",") if spec]
        print("| player | kept the value | median s a move | worst | mean | plies missed |")
        print("|---|---:|---:|---:|---:|---|")
        for name, who in judged:
            print(judge(game, name, who, found), flush=True)
        return 0
    net.values(found[0])  # compiled once, not timed
    start = time.perf_counter()
    for position in found:
        net.values(position)
    per_call = (time.perf_counter() - start) / len(found)
    print(f"network values: {per_call * 1e3:.2f} ms a call ({len(found)} positions)")
    for depth in depths:
        times, nodes = [], []
        for position in found:
            who = make_alphabeta(game, depth, None, net, 0, solve=False)
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
