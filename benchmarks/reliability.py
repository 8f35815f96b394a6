"""The figures of RELIABILITY.md, printed as markdown with the command that produced them.

(a) Malformed inputs: every case of tests/test_malformed.py, each run as ``python -m qarena
    ARGV`` in a fresh folder (empty stdin, 60 s timeout): tried / refused (exit 2, one line on
    stderr) / tracebacks ("Traceback" on stderr, or an exit code other than 0, 2 and 130) /
    hangs (no answer in time). Cases that were not refused cleanly are listed.
(b) Bit flips and truncations of a real policy file (tests/test_policy_fuzz.py's source and
    mutations): tried / refused (a one-line QarenaError) / loaded identical / wrong (loaded
    different data, or any other exception).
(c) kill -9 during saves: a new process saves a ~4.6 MB policy (nim:1,2,3,4,5,6,7, random
    values) to the same file over and over; it is killed with SIGKILL at a random moment. Then:
    is the file missing, unreadable, or different (corrupt)? How many temp files are left right
    after the kill, and after one further save into the same folder (which must remove them)?

Run: .venv/bin/python benchmarks/reliability.py [--quick] [--only malformed,fuzz,kills]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the case table and mutations live in tests/

from tests.test_malformed import (  # noqa: E402
    CASES,
    TIMEOUT,
    build_workspace,
    device_possible,
    has_traceback,
    make_sources,
    one_line,
    run_subprocess,
)
from tests.test_policy_fuzz import (  # noqa: E402
    IDENTICAL,
    REFUSED,
    WRONG,
    fingerprint,
    judge,
    make_source,
    random_mutation,
)

#: The policy the kill test saves: 40,320 positions x 28 moves of float64.
KILL_SPEC = "nim:1,2,3,4,5,6,7"
#: Temp files qarena writes (and those of qarena 0.1).
TEMP = re.compile(r"\..*\.[0-9a-f]{16}\.(qarena-tmp|tmp)", re.DOTALL)

CHILD = """
import sys
import numpy as np
from qarena.games import parse_spec
from qarena.learn.learners import make_learner, save_learner

learner = make_learner("q", parse_spec(sys.argv[1]))
q = learner.arrays()["q"]
legal = learner.tables.legal
q[legal] = np.random.default_rng(0).uniform(-1, 1, int(legal.sum()))
save_learner(sys.argv[2], learner)
print("saving", flush=True)
while True:
    save_learner(sys.argv[2], learner)
"""


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Setup runs the CLI in-process; its output is not part of the report."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def command() -> str:
    return " ".join(
        shlex.quote(a) for a in [".venv/bin/python", "benchmarks/reliability.py", *sys.argv[1:]]
    )


def _short(argv: tuple[str, ...]) -> str:
    return " ".join(a if len(a) <= 40 else a[:24] + f"…({len(a):,} chars)" for a in argv)


# --- (a) ---------------------------------------------------------------------------------------


def malformed(work: Path, quick: bool, timeout: float) -> None:
    with quiet():
        sources = make_sources(work / "sources")
    cases = CASES[::3] if quick else CASES
    counts: Counter[str] = Counter()
    bad: list[str] = []
    skipped = 0
    t0 = time.monotonic()
    for i, case in enumerate(cases):
        if case.device and not device_possible():
            skipped += 1
            continue
        ws = work / f"case-{i}"
        build_workspace(ws, sources)
        o = run_subprocess(case, ws, timeout)
        counts["tried"] += 1
        hang = o.code is None
        trace = not hang and (has_traceback(o) or o.code not in (0, 2, 130))
        refused = not hang and not trace and o.code == 2 and one_line(o.stderr)
        counts["hangs"] += hang
        counts["tracebacks"] += trace
        counts["refused"] += refused
        counts["wrote files"] += bool(o.changed)
        if not refused:
            counts["other"] += not (hang or trace)
        if not refused or o.changed:
            last = o.stderr.strip().splitlines()[-1] if o.stderr.strip() else "(empty stderr)"
            what = "hang" if hang else f"exit {o.code}"
            if o.changed:
                what += ", wrote " + "; ".join(o.changed[:3])
            bad.append(f"- `{case.id}` (`qarena {_short(case.argv)}`): {what}: {last[:200]}")
    seconds = time.monotonic() - t0
    print("## Malformed inputs")
    print()
    print(f"`{command()}`")
    print()
    print(
        f"Each case of tests/test_malformed.py{' (every third, --quick)' if quick else ''} as "
        f"`python -m qarena ARGV` in a fresh folder, empty stdin, {timeout:.0f} s timeout "
        f"({seconds:.0f} s in all)."
    )
    print()
    print("| tried | refused (exit 2, one line) | tracebacks | hangs | other | wrote files |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {counts['tried']} | {counts['refused']} | {counts['tracebacks']} | {counts['hangs']} "
        f"| {counts['other']} | {counts['wrote files']} |"
    )
    if skipped:
        print()
        print(f"{skipped} case(s) skipped: a device node needs root.")
    if bad:
        print()
        print("Not refused cleanly:")
        print()
        print("\n".join(bad))
    print()


# --- (b) ---------------------------------------------------------------------------------------


def fuzz(work: Path, n: int) -> None:
    from qarena.learn.learners import load_learner

    with quiet():
        source = make_source(work / "fuzz")
    data = source.read_bytes()
    original = fingerprint(load_learner(source))
    rng = random.Random(12345)
    counts: Counter[str] = Counter()
    wrong: list[str] = []
    path = work / "fuzz" / "damaged.npz"
    t0 = time.monotonic()
    for _ in range(n):
        mutation = random_mutation(rng, len(data))
        path.write_bytes(mutation.apply(data))
        verdict, detail = judge(path, original)
        counts[verdict] += 1
        if verdict == WRONG:
            wrong.append(f"- {mutation}: {detail[:200]}")
    seconds = time.monotonic() - t0
    print("## Bit flips and truncations")
    print()
    print(f"`{command()}`")
    print()
    print(
        f"{n:,} damaged copies of a {len(data):,}-byte policy file (Q-learning on nim:2,6,7,8 "
        "with a learning curve): 1-8 random bit flips, a truncation to a random length, or "
        f"both, each loaded with load_learner ({seconds:.1f} s in all)."
    )
    print()
    print("| tried | refused (one line) | loaded identical | wrong |")
    print("|---:|---:|---:|---:|")
    print(f"| {n:,} | {counts[REFUSED]:,} | {counts[IDENTICAL]:,} | {counts[WRONG]:,} |")
    if wrong:
        print()
        print("\n".join(wrong[:50]))
    print()


# --- (c) ---------------------------------------------------------------------------------------


def _temps(folder: Path) -> int:
    return sum(1 for name in os.listdir(folder) if TEMP.fullmatch(name))


def _expected() -> dict[str, object]:
    from qarena.games import parse_spec
    from qarena.learn.learners import make_learner

    learner = make_learner("q", parse_spec(KILL_SPEC))
    q = learner.arrays()["q"]
    legal = learner.tables.legal
    q[legal] = np.random.default_rng(0).uniform(-1, 1, int(legal.sum()))
    return fingerprint(learner)["arrays"]


def kills(work: Path, n: int) -> None:
    from qarena.errors import QarenaError
    from qarena.games import parse_spec
    from qarena.learn.learners import load_learner, make_learner, save_learner

    expected = _expected()
    small = make_learner("q", parse_spec("nim"))
    rng = random.Random(99)
    counts: Counter[str] = Counter()
    notes: list[str] = []
    t0 = time.monotonic()
    for i in range(n):
        folder = work / f"kill-{i}"
        folder.mkdir()
        target = folder / "target.npz"
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, KILL_SPEC, str(target)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        line = child.stdout.readline()
        if line.strip() != "saving":
            child.kill()
            child.wait()
            raise RuntimeError(f"the saving process failed to start: {child.stderr.read()}")
        time.sleep(rng.uniform(0.0, 0.6))  # a save takes about 0.2 s here
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        child.stderr.close()
        counts["kills"] += 1
        counts["temps after kill"] += _temps(folder)
        counts["kills leaving a temp file"] += _temps(folder) > 0
        if not target.exists():
            counts["corrupt"] += 1
            notes.append(f"- kill {i}: the target is gone")
        else:
            try:
                got = fingerprint(load_learner(target))["arrays"]
            except QarenaError as e:
                counts["corrupt"] += 1
                notes.append(f"- kill {i}: the target does not load: {e}")
            else:
                if got != expected:
                    counts["corrupt"] += 1
                    notes.append(f"- kill {i}: the target loads different data")
        save_learner(target, small)
        counts["temps after next save"] += _temps(folder)
    seconds = time.monotonic() - t0
    print("## kill -9 during saves")
    print()
    print(f"`{command()}`")
    print()
    print(
        f"A new process saves a 4.6 MB policy ({KILL_SPEC}, random values) to the same file "
        "in a loop (about 0.2 s a save); after its first save it is killed with SIGKILL at a "
        f"random moment within 0.6 s; then the folder is checked, and one further save is made "
        f"into it ({seconds:.0f} s in all)."
    )
    print()
    print(
        "| kills | corrupt files (missing, unreadable or different) | temp files left after the "
        "kill (kills leaving one) | temp files left after the next save |"
    )
    print("|---:|---:|---:|---:|")
    print(
        f"| {counts['kills']} | {counts['corrupt']} | {counts['temps after kill']} "
        f"({counts['kills leaving a temp file']}) | {counts['temps after next save']} |"
    )
    if notes:
        print()
        print("\n".join(notes[:50]))
    print()


# -------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="Every third malformed case, 300 damaged files."
    )
    parser.add_argument("--only", default="malformed,fuzz,kills", help="Sections to run.")
    parser.add_argument("--files", type=int, help="Damaged files to load (default 2,000).")
    parser.add_argument("--kills", type=int, default=60, help="kill -9s (default 60).")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="Seconds per case.")
    args = parser.parse_args()
    sections = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = sections - {"malformed", "fuzz", "kills"}
    if unknown:
        parser.error(f"unknown section(s) {', '.join(sorted(unknown))}")
    if args.kills < 1:
        parser.error("--kills must be at least 1")
    files = args.files if args.files is not None else (300 if args.quick else 2_000)

    import qarena

    print("# Reliability figures")
    print()
    print(
        f"qarena {qarena.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, "
        f"{'root' if os.geteuid() == 0 else 'not root'}; "
        f"{time.strftime('%Y-%m-%d %H:%M', time.localtime())}."
    )
    print()
    with tempfile.TemporaryDirectory(prefix="qarena-reliability-") as tmp:
        work = Path(tmp)
        if "malformed" in sections:
            malformed(work / "malformed", args.quick, args.timeout)
        if "fuzz" in sections:
            fuzz(work, files)
        if "kills" in sections:
            (work / "kills").mkdir()
            kills(work / "kills", args.kills)


if __name__ == "__main__":
    main()
