"""A sweep's speed-up from more workers: the same sweep of 8 runs or more with --workers 1 and
--workers 2 (and on a local Ray instance of 2 CPUs when Ray is installed), each in a fresh
process and a fresh folder, with its wall time and the peak RSS of its largest process.

    .venv/bin/python benchmarks/sweep.py [--seeds 0-7] [--episodes 10000000]

Run on an idle machine with at least 2 cores. Exits 1 if 2 workers are not at least 1.7 times
as fast as 1, or if the tables differ.
"""

from __future__ import annotations

import argparse
import csv
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_MEASURE = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
    "if r.returncode:\n"
    "    sys.exit(r.stderr.decode()[-500:])\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
)
TARGET = 1.7


def sweep(folder: Path, args: list[str]) -> tuple[float, int, list[dict[str, str]]]:
    argv = [sys.executable, "-m", "qarena", "sweep", *args, "--out", str(folder)]
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - t0
    rows = list(csv.DictReader(io.StringIO((folder / "results.csv").read_text())))
    return wall, int(done.stdout.split()[-1]), rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="tictactoe")
    parser.add_argument("--seeds", default="0-3")
    parser.add_argument("--episodes", default="10000000")
    args = parser.parse_args()
    common = [args.spec, "--alpha", "0.2,0.5", "--starts", "0", "--seeds", args.seeds]
    common += ["--episodes", args.episodes]
    print("qarena sweep " + " ".join(common) + " --out DIR --workers W")
    backends = [("--workers 1", ["--workers", "1"]), ("--workers 2", ["--workers", "2"])]
    try:
        import ray  # noqa: F401

        backends.append(("--backend ray --workers 2", ["--backend", "ray", "--workers", "2"]))
    except ImportError:
        print("(Ray is not installed: the Ray row is left out)")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, extra) in enumerate(backends):
            results[label] = sweep(Path(tmp) / str(i), [*common, *extra])
    base = results["--workers 1"][0]
    print("| backend | runs | wall s | speed-up | peak RSS MB |\n|---|---:|---:|---:|---:|")
    for label, (wall, rss, rows) in results.items():
        print(f"| {label} | {len(rows)} | {wall:.1f} | {base / wall:.2f}× | {rss / 1e6:.0f} |")
    ok = True
    tables = [
        [{k: v for k, v in r.items() if k != "train_seconds"} for r in rows]
        for _, _, rows in results.values()
    ]
    if any(t != tables[0] for t in tables):
        print("FAIL: the backends' tables differ")
        ok = False
    speedup = base / results["--workers 2"][0]
    if speedup < TARGET:
        print(f"FAIL: 2 workers are {speedup:.2f}× as fast as 1; the target is {TARGET}×")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
