"""How fast the perfect player answers on classic Connect Four: every move it makes in games
against random play and against itself (each seat, seeded), timed from the position to its
move, with the opening book shipped in the package and one table for the whole run (as a
process that plays many games has).

Reported: decisions, median, 95th percentile and maximum seconds per move (and the ply of the
maximum), the count over 10 s, 1 s and 0.1 s, the most CPU seconds a move took (all threads;
on a shared machine less noisy than the clock), the slowest moves by ply, and the process's peak
RSS; ``--json`` prints the same as one JSON object. Issue 39's target: every answer within 1 s.
Also the games' digest (of every game's moves): two runs with the same digest played the same
games, so a change to how the player finds its moves that keeps the digest keeps its choices.
``--slow S`` lists the positions (as column strings) of the moves that took over S seconds,
``--lines`` every game's moves (with ``--json``).
``--openings 4,44`` starts the games from the positions after these moves as well as from the
empty board (an empty item is the empty board).

With ``--exact``, each of its decisions is timed as ``play`` and the web app show it: every
legal move's exact outcome first (value and distance: an exact score per move), then the move.

With ``--player strongest``, the player timed is the strongest (the fastest win, the slowest
loss), whose every decision needs each move's exact score.

Run: .venv/bin/python benchmarks/c4_player.py [--games N] [--seed S] [--exact]
[--player perfect|strongest] [--openings MOVES,...] [--json] [--slow S] [--lines]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import statistics
import time
from collections import defaultdict

from qarena.agents.players import player
from qarena.exact import oracle
from qarena.exact.search import Searcher
from qarena.games import parse_spec


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--exact", action="store_true", help="time every move's outcome too")
    parser.add_argument("--player", choices=("perfect", "strongest"), default="perfect")
    parser.add_argument("--openings", default="", help="comma-separated moves to start from")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--lines", action="store_true", help="list every game's moves (JSON)")
    parser.add_argument(
        "--slow", type=float, default=None, help="list the positions of moves over this many s"
    )
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    openings = list(dict.fromkeys(["", *args.openings.split(",")]))
    game = parse_spec("connect4:6x7")
    solution = oracle(game)
    small = parse_spec("connect4:4x4")
    player("perfect", small, seed=0).act(small.start())  # compile the kernels first
    # ... and the search's (4×4 is solved by enumeration): each move's time is its search's
    # alone, as in a process that has played before (the first search of a process also
    # loads the compiled search, see the notes of issue 39).
    warm = Searcher(small, entries=10_007)
    warm.best_moves(small.start(), weak=True)
    warm.move_scores(small.start(), weak=True)
    # A process's first search of this board costs about a CPU second more than the same
    # search later (measured, cause not found; a small table's search takes it away): paid
    # here, once, as the compiling is.
    Searcher(game, entries=1_000_003).score(game.parse_position("4444443333"))
    times: list[float] = []
    cpu: list[float] = []  # the process's CPU seconds (all threads): less hurt by a busy machine
    by_ply: dict[int, list[float]] = defaultdict(list)
    played = 0
    slow_moves: list[dict[str, object]] = []
    lines = hashlib.sha256()  # the games played: the same digest, the same choices
    played_lines: list[str] = []
    for n, opponent, seat, opening in (
        (n, o, s, m)
        for n in range(args.games)
        for m in openings
        for o in ("random", "perfect")
        for s in (0, 1)
    ):
        played += 1
        me = player(args.player, game, seed=args.seed * 1000 + n)
        other = player(opponent, game, seed=args.seed * 1000 + n + 500)
        ply = len(opening)
        sides = (me, other) if (seat - ply) % 2 == 0 else (other, me)
        position = game.parse_position(opening) if opening else game.start()
        line = opening
        while not game.is_terminal(position):
            mover = sides[ply % 2]
            t0, c0 = time.perf_counter(), time.process_time()
            if args.exact and mover is me:
                solution.move_outcomes(position)
            move = mover.act(position)
            if mover is me:
                took = time.perf_counter() - t0
                times.append(took)
                cpu.append(time.process_time() - c0)
                by_ply[ply].append(took)
                if args.slow is not None and took > args.slow:
                    slow_moves.append(
                        {"moves": line, "ply": ply, "s": round(took, 3), "cpu_s": round(cpu[-1], 3)}
                    )
            position = game.apply(position, move)
            line += str(move + 1)  # columns from 1, as Pons' sequences
            ply += 1
        lines.update(f"{line};".encode())
        played_lines.append(line)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    slow = sorted(by_ply.items(), key=lambda kv: -max(kv[1]))[:6]
    p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
    if args.json:
        report = {
            "player": args.player,
            "exact": args.exact,
            "games": played,
            "openings": openings,
            "decisions": len(times),
            "median_s": round(statistics.median(times), 4),
            "p95_s": round(p95, 4),
            "max_s": round(max(times), 3),
            "max_cpu_s": round(max(cpu), 3),
            "total_cpu_s": round(sum(cpu), 1),
            "p95_cpu_s": round(statistics.quantiles(cpu, n=20)[-1] if len(cpu) > 1 else cpu[0], 4),
            "max_ply": slow[0][0],
            "over_10s": sum(t > 10 for t in times),
            "over_1s": sum(t > 1 for t in times),
            "over_0.1s": sum(t > 0.1 for t in times),
            "slowest_plies": {p: round(max(ts), 3) for p, ts in slow},
            "peak_rss_mb": round(rss),
            "games_digest": lines.hexdigest()[:16],
        }
        if args.slow is not None:
            report["slow"] = slow_moves
        if args.lines:
            report["lines"] = played_lines
        print(json.dumps(report))
        return 0
    what = "decisions with every move's outcome" if args.exact else "decisions"
    print(f"{len(times)} {what} by {args.player} in {played} games ({solution!r})")
    print(
        f"median {statistics.median(times):.4f} s, p95 {p95:.3f} s, max {max(times):.2f} s "
        f"(ply {slow[0][0]}); over 10 s: {sum(t > 10 for t in times)}, "
        f"over 1 s: {sum(t > 1 for t in times)}, over 0.1 s: {sum(t > 0.1 for t in times)}"
    )
    print(f"CPU seconds a move (all threads): max {max(cpu):.2f} s")
    print("slowest plies: " + ", ".join(f"{p}: {max(ts):.2f} s" for p, ts in slow))
    print(f"peak RSS {rss:,.0f} MB; games' digest {lines.hexdigest()[:16]}")
    for found in slow_moves:
        print(f"slow: {found['moves'] or '(start)'} (ply {found['ply']}): {found['s']:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
