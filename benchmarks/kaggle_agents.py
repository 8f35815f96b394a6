"""Kaggle's own ConnectX agents judged on qarena's judging sets of classic Connect Four.

Each agent is a one-line file as a Kaggle user writes one around Kaggle's built-in agent
(``from kaggle_environments.envs.connectx.connectx import negamax_agent``), made a player by
``connectx:FILE`` (seeded, so that its ties repeat) and judged on the shipped main line and
varied openings (``qarena.judging.sets``): the share of the set's positions where its move keeps
the value, with a 95% interval, and the seconds it took. ``qarena eval connectx:FILE`` gives the
other figure, over sampled decision positions (BENCHMARKS.md, *Kaggle's ConnectX*).

Run: .venv/bin/python benchmarks/kaggle_agents.py [negamax] [random] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import qarena
from qarena.games import parse_spec
from qarena.judging.sets import judge_set, shipped_set


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="*", default=["negamax", "random"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = parse_spec("connect4")
    with tempfile.TemporaryDirectory() as folder:
        for agent in args.agents:
            path = Path(folder) / f"{agent}.py"
            path.write_text(
                f"from kaggle_environments.envs.connectx.connectx import {agent}_agent\n",
                encoding="utf-8",
            )
            for which in ("main", "varied"):
                who = qarena.player(f"connectx:{path}", game, seed=args.seed)
                start = time.perf_counter()
                found = judge_set(who, shipped_set(game, which)).to_json()
                took = time.perf_counter() - start
                print(
                    f"| {agent} | {which} | {found['kept']:,} of {found['total']:,} | "
                    f"{found['share']:.4f} | {found['low']:.4f} to {found['high']:.4f} | "
                    f"{took:.0f} s ({took / found['total'] * 1000:.0f} ms a position) |",
                    flush=True,
                )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MB")


if __name__ == "__main__":
    main()
