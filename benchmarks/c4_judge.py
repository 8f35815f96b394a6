"""Players of classic Connect Four judged on the shipped judging sets (``qarena.judging.sets``):
the main line (the decision positions ``qarena eval --along-perfect 500`` judges) and varied
openings (random openings of 2-12 plies, then perfect play, both sides' decisions). Every
move's value is stored in the set, so no solver runs: a network is judged in seconds.

Per player and set: the share of positions where its move keeps the value, with a Wilson 95%
interval, and a table by kind: rows side to move x value for that side, columns the phase by
stones on the board (opening 0-12, middle 13-24, end 25+), each cell kept/total.

Run: .venv/bin/python benchmarks/c4_judge.py network [alphabeta:3:network FILE perfect ...]
     [--set main|varied|FILE ...] [--seed 0] [--jobs N] [--json]

--jobs N judges every N-th position in each of N processes (a slow player, such as an
AlphaZero file's search, on every core) and adds up their counts: the same positions, the
same verdicts for a player that does not draw at random.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
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
    Tally,
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


def _part(spec: str, which: str, seed: int, part: int, parts: int) -> SetReport:
    """The report of every ``parts``-th position of the set from ``part`` on (in a process of
    its own)."""
    jset = load(which)
    share = replace(
        jset,
        positions=jset.positions[part::parts],
        values=jset.values[part::parts],
        texts=jset.texts[part::parts],
    )
    return judge_set(make_player(spec, parse_spec("connect4"), seed=seed), share)


def _merged(reports: list[SetReport]) -> SetReport:
    """The parts' reports as one: their counts added, in all and by kind."""
    kinds: dict[tuple[str, str, str], Tally] = {}
    for r in reports:
        for kind, t in r.kinds.items():
            old = kinds.get(kind, Tally(0, 0))
            kinds[kind] = Tally(old.kept + t.kept, old.total + t.total)
    order = {k: i for i, k in enumerate(k for r in reports for k in r.kinds)}
    total = Tally(sum(r.total.kept for r in reports), sum(r.total.total for r in reports))
    first = reports[0]
    return SetReport(
        first.title, first.player, total, dict(sorted(kinds.items(), key=lambda kv: order[kv[0]]))
    )


def judged(spec: str, which: str, seed: int, jobs: int) -> SetReport:
    """``spec`` judged on the set ``which``, in ``jobs`` processes when more than one."""
    if jobs == 1:
        # A fresh player for each set: a random one's draws do not depend on the order.
        return judge_set(make_player(spec, parse_spec("connect4"), seed=seed), load(which))
    context = multiprocessing.get_context("spawn")  # PyTorch and threads: no fork
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = [pool.submit(_part, spec, which, seed, i, jobs) for i in range(jobs)]
        return _merged([f.result() for f in futures])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", nargs="+", help="as qarena eval takes them")
    parser.add_argument("--set", action="append", dest="sets", help="main, varied or a FILE")
    parser.add_argument("--seed", type=int, default=0, help="for players that draw at random")
    parser.add_argument("--jobs", type=int, default=1, help="processes sharing each set")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sets = args.sets or list(KINDS)
    chosen = [load(w) for w in sets]  # every set read and checked before any work
    out = []
    for spec in args.players:
        for which, jset in zip(sets, chosen, strict=True):
            start = time.perf_counter()
            report = judged(spec, which, args.seed, max(1, args.jobs))
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
