"""Players of classic Connect Four judged on the shipped judging sets (``qarena.judging.sets``):
the main line (the decision positions ``qarena eval --along-perfect 500`` judges) and varied
openings (random openings of 2-12 plies, then perfect play, both sides' decisions). Every
move's value is stored in the set, so no solver runs: a network is judged in seconds.

Per player and set: the share of positions where its move keeps the value, with a Wilson 95%
interval, and a table by kind: rows side to move x value for that side, columns the phase by
stones on the board (opening 0-12, middle 13-24, end 25+), each cell kept/total.

Run: .venv/bin/python benchmarks/c4_judge.py network [alphabeta:3:network FILE perfect ...]
     [--set main|varied|FILE ...] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from qarena.agents.players import player as make_player
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.judging.sets import (
    KINDS,
    PHASES,
    SIDES,
    VALUES,
    JudgingSet,
    SetReport,
    judge_set,
    read_set,
    shipped_set,
)


def load(which: str) -> JudgingSet:
    """A shipped set by its kind, or a set file."""
    if which in KINDS:
        found = shipped_set(parse_spec("connect4"), which)
        if found is None:
            raise QarenaError(f"no {which} set is shipped")
        return found
    return read_set(Path(which))


def table(report: SetReport) -> str:
    """The kind table: rows side x value, columns phase, cells kept/total."""
    rows = [f"  {'':<14}" + "".join(f"{p:>15}" for p in PHASES) + f"{'all':>15}"]
    for side in SIDES:
        for value in VALUES:
            cells = [report.kinds.get((side, value, p)) for p in PHASES]
            if not any(cells):
                continue
            kept = sum(c.kept for c in cells if c)
            total = sum(c.total for c in cells if c)
            text = [f"{c.kept:,}/{c.total:,}" if c else "-" for c in cells]
            rows.append(
                f"  {side + ' ' + value:<14}"
                + "".join(f"{t:>15}" for t in text)
                + f"{f'{kept:,}/{total:,}':>15}"
            )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", nargs="+", help="as qarena eval takes them")
    parser.add_argument("--set", action="append", dest="sets", help="main, varied or a FILE")
    parser.add_argument("--seed", type=int, default=0, help="for players that draw at random")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    game = parse_spec("connect4")
    chosen = [load(w) for w in (args.sets or list(KINDS))]
    out = []
    for spec in args.players:
        for jset in chosen:
            # A fresh player for each set: a random one's draws do not depend on the order.
            who = make_player(spec, game, seed=args.seed)
            start = time.perf_counter()
            report = judge_set(who, jset)
            seconds = time.perf_counter() - start
            out.append({"player": spec, "seconds": seconds, **report.to_json()})
            if args.json:
                continue
            low, high = report.total.interval
            print(
                f"{spec} on {jset.title}: {report.total.share:.4f} ({report.total.kept:,} of "
                f"{report.total.total:,}; 95% interval {low:.4f} to {high:.4f}), {seconds:.1f} s"
            )
            print(table(report))
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except QarenaError as e:
        print(e, file=sys.stderr)
        raise SystemExit(2) from None
