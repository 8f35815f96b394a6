"""Players judged over a uniform sample of all decision positions of a board the solver
enumerates (issue 41): where judging every position would take too long for a network (Connect
Four 5×5 holds 35 million classes; evaluating the AlphaZero network on each is most of an
hour, an n-tuple network's row by row far longer), ``N`` decision positions are drawn so that
each is as likely as any other (a canonical row weighs as many positions as its class holds),
and each is judged exactly from the game's tables, as a network's learning curve judges its
points (``judging.along_play.uniform_optimality``). The share estimates the exact one, with a
95% Wilson interval.

Each FILE (a policy file of any kind: its player is what ``qarena eval FILE`` judges) is judged
on the same positions. Prints one line per file and the peak RSS; ``--json`` prints JSON lines.

Run: .venv/bin/python benchmarks/uniform_judge.py FILE [FILE ...] [--sample 100000]
     [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from qarena.agents.players import load_file, plays_as
from qarena.exact import oracle
from qarena.exact.solver import Solution
from qarena.judging.sampled import wilson
from qarena.judging.tables import uniform_decisions
from qarena.judging.uniform import uniform_optimality


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--sample", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    learners = [load_file(name) for name in args.files]
    games = {le.game.spec for le in learners}
    if len(games) != 1:
        print(f"the files are of different games: {sorted(games)}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    solution = oracle(learners[0].game)
    if not isinstance(solution, Solution):
        print(f"{games.pop()} is solved by search here, not enumerated", file=sys.stderr)
        return 2
    rows = uniform_decisions(solution.tables, args.sample, args.seed)
    tables_s = time.perf_counter() - t0
    if not args.json:
        print(f"{learners[0].game.spec}: tables and {args.sample:,} positions drawn in "
              f"{tables_s:.0f} s")  # fmt: skip
    for name, learner in zip(args.files, learners, strict=True):
        t1 = time.perf_counter()
        found = uniform_optimality(plays_as(learner), rows)
        low, high = wilson(found.optimal, found.decisions)
        seconds = time.perf_counter() - t1
        if args.json:
            record = {
                "file": name, "kind": learner.kind, "episodes": learner.episodes,
                "sample": found.decisions, "optimal": found.optimal,
                "optimality": round(found.share, 5), "low": round(low, 5),
                "high": round(high, 5), "seconds": round(seconds, 1),
            }  # fmt: skip
            print(json.dumps(record))
        else:
            print(f"{name} ({learner.kind}, {learner.episodes:,}): optimality "
                  f"{found.share:.4f} ({found.optimal:,} of {found.decisions:,}; 95% interval "
                  f"{low:.4f}-{high:.4f}), judged in {seconds:.0f} s")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:,.0f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
