"""The big boards' targets: each command as a user runs it, in a fresh process, with its wall
time, peak RSS and result, against the target it must meet.

    .venv/bin/python benchmarks/big_boards.py [--with-5x5]

Run on an idle machine: the times are wall-clock. ``--with-5x5`` adds Connect Four 5×5 (about
two and a half minutes and 5 GB here). Exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_MEASURE = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
    "if r.returncode:\n"
    "    sys.exit(r.stderr.decode()[-500:])\n"
    "sys.stdout.write(r.stdout.decode())\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
)

#: Builds a game's tables in a fresh process and prints the seconds they took.
_TABLES = (
    "import sys, time\n"
    "from qarena.games import parse_spec\n"
    "from qarena.learn.learners import make_learner\n"
    "game = parse_spec(sys.argv[1])\n"
    "make_learner('q', parse_spec('nim:1,1')).warm_up()  # compiled kernels loaded\n"
    "from qarena.exact import game_tables\n"
    "t0 = time.perf_counter()\n"
    "game_tables(game)\n"
    "print(time.perf_counter() - t0)\n"
)


@dataclass
class Result:
    what: str
    command: str
    wall: float
    rss: int
    output: str


def run(what: str, argv: list[str]) -> Result:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - t0
    *lines, rss = done.stdout.strip().splitlines()
    shown = " ".join(a if "/" not in a else Path(a).name for a in argv[1:])
    return Result(what, f"qarena {shown}", wall, int(rss), "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-5x5", action="store_true")
    args = parser.parse_args()
    qarena = str(Path(sys.executable).with_name("qarena"))
    rows: list[str] = []
    missed: list[str] = []

    def check(ok: bool, text: str) -> str:
        if not ok:
            missed.append(text)
        return "yes" if ok else "**no**"

    def trained(r: Result) -> dict[str, object]:
        record: dict[str, object] = json.loads(r.output.splitlines()[-1])
        return record

    with tempfile.TemporaryDirectory() as tmp:
        ttt = os.path.join(tmp, "ttt44.npz")
        runs = [
            ("tictactoe:4x4:4", ttt, 120, 1e9),
            ("connect4:4x5", os.path.join(tmp, "c45.npz"), 90, None),
            ("connect4:5x4", os.path.join(tmp, "c54.npz"), 30, None),
        ]
        if args.with_5x5:
            runs.append(("connect4:5x5", os.path.join(tmp, "c55.npz"), 900, 6e9))
        for spec, out, seconds, memory in runs:
            r = run(f"train {spec}", [qarena, "train", spec, "--json", "-o", out])
            record = trained(r)
            ok = record["optimality"] == 1.0 and r.wall < seconds
            target = f"optimality 1.0 in < {seconds} s wall"
            if memory is not None:
                ok = ok and r.rss < memory
                target += f", < {memory / 1e9:g} GB"
            rows.append(
                f"| `{r.command}` | {target} | optimality {record['optimality']}, "
                f"{record['episodes']:,} episodes, {record['train_seconds']:.1f} s of training | "
                f"{r.wall:.1f} s | {r.rss / 1e9:.2f} GB | {check(ok, r.command)} |"
            )
            print(rows[-1], flush=True)
        r = run("eval", [qarena, "eval", ttt, "--json"])
        record = json.loads(r.output.splitlines()[-1])
        rows.append(
            f"| `qarena eval ttt44.npz --json` | < 30 s | optimality {record['optimality']} | "
            f"{r.wall:.1f} s | {r.rss / 1e9:.2f} GB | {check(r.wall < 30, 'eval 4x4')} |"
        )
        print(rows[-1], flush=True)
        # Targets on training time alone (tables and checks excluded).
        for spec, limit in (("nim:40,400", 60.0), ("nim:2,6,7,8", 0.3)):
            out = os.path.join(tmp, "n.npz")
            r = run(spec, [qarena, "train", spec, "--json", "-o", out])
            record = trained(r)
            train_s = float(record["train_seconds"])  # type: ignore[arg-type]
            ok = record["optimality"] == 1.0 and train_s < limit
            rows.append(
                f"| `{r.command}` | optimality 1.0 in < {limit:g} s of training | optimality "
                f"{record['optimality']}, {train_s:.4f} s of training | {r.wall:.1f} s | "
                f"{r.rss / 1e9:.2f} GB | {check(ok, r.command)} |"
            )
            print(rows[-1], flush=True)
    for spec, limit in (("tictactoe:4x4:4", 10.0), ("nim:99,999", 5.0)):
        done = subprocess.run(
            [sys.executable, "-c", _TABLES, spec], capture_output=True, text=True, check=True
        )
        seconds = float(done.stdout)
        rows.append(
            f"| tables of {spec} (`game_tables`, kernels loaded) | < {limit:g} s | | "
            f"{seconds:.2f} s | | {check(seconds < limit, spec + ' tables')} |"
        )
        print(rows[-1], flush=True)
    print()
    print(f"`{' '.join(['.venv/bin/python', 'benchmarks/big_boards.py', *sys.argv[1:]])}`")
    print()
    print("| command | target | result | wall | peak RSS | met |")
    print("|---|---|---|---:|---:|---|")
    print("\n".join(rows))
    if missed:
        print("\nmissed: " + "; ".join(missed))
        sys.exit(1)


if __name__ == "__main__":
    main()
