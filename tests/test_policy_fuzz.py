"""The policy loader under random damage: bit flips and truncations of a real policy file.

Every damaged file is either refused with the project's one-line error (a QarenaError whose
text is one non-empty line) or loaded with tables byte-identical to the original's (same
names, dtypes, shapes and bytes; same game, learner, counters, settings and curve). Loading
different data, or any other exception, fails.

``mutate``, ``make_source`` and ``judge`` are shared with ``benchmarks/reliability.py``.
"""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qarena.errors import QarenaError

#: The game of the fuzzed policy: small, so headers and metadata are a good share of the file.
SOURCE_SPEC = "nim:2,6,7,8"


@dataclass(frozen=True)
class Mutation:
    """Bit flips (byte offset, bit) applied first, then a cut to ``keep`` bytes (None: none)."""

    flips: tuple[tuple[int, int], ...] = ()
    keep: int | None = None

    def apply(self, data: bytes) -> bytes:
        out = bytearray(data)
        for offset, bit in self.flips:
            out[offset] ^= 1 << bit
        return bytes(out if self.keep is None else out[: self.keep])

    def __str__(self) -> str:
        parts = [f"flip byte {o} bit {b}" for o, b in self.flips]
        if self.keep is not None:
            parts.append(f"truncate to {self.keep} bytes")
        return ", ".join(parts) or "unchanged"


def random_mutation(rng: random.Random, size: int) -> Mutation:
    """One of: 1-8 bit flips at random offsets, a truncation to a random length, or both."""
    kind = rng.choice(("flip", "truncate", "both"))
    flips: tuple[tuple[int, int], ...] = ()
    keep = None
    if kind != "truncate":
        flips = tuple((rng.randrange(size), rng.randrange(8)) for _ in range(rng.randint(1, 8)))
    if kind != "flip":
        keep = rng.randrange(size)
    return Mutation(flips, keep)


@st.composite
def mutations(draw: st.DrawFn, size: int) -> Mutation:
    kind = draw(st.sampled_from(("flip", "truncate", "both")))
    flips: tuple[tuple[int, int], ...] = ()
    keep = None
    if kind != "truncate":
        flips = tuple(
            draw(
                st.lists(
                    st.tuples(st.integers(0, size - 1), st.integers(0, 7)),
                    min_size=1,
                    max_size=8,
                )
            )
        )
    if kind != "flip":
        keep = draw(st.integers(0, size - 1))
    return Mutation(flips, keep)


def make_source(folder: Path) -> Path:
    """A real policy file: Q-learning on SOURCE_SPEC with a learning curve in its metadata."""
    from qarena.cli.app import run

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "source.npz"
    argv = ["train", SOURCE_SPEC, "--episodes", "400", "--seed", "3", "--curve", "-o", str(path)]
    code = run(argv)
    if code != 0:
        raise RuntimeError(f"qarena {' '.join(argv)} failed with exit {code}")
    return path


def fingerprint(learner: Any) -> dict[str, Any]:
    """Everything a loaded learner holds: each array's dtype, shape and bytes, and the rest."""
    arrays = {
        name: (a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes())
        for name, a in learner.arrays().items()
    }
    return {
        "arrays": arrays,
        "game": learner.game.spec,
        "kind": learner.kind,
        "episodes": learner.episodes,
        "steps": learner.steps,
        "config": learner.config,
        "curve": None if learner.curve is None else learner.curve.to_json(),
    }


#: What loading one damaged file came to.
REFUSED, IDENTICAL, WRONG = "refused", "loaded-identical", "wrong"


def judge(path: Path, original: dict[str, Any]) -> tuple[str, str]:
    """(verdict, detail): refused with one line, loaded identical, or wrong."""
    from qarena.learn.learners import load_learner

    try:
        learner = load_learner(path)
    except QarenaError as e:
        text = str(e)
        if not text.strip() or "\n" in text or "\r" in text:
            return WRONG, f"QarenaError that is not one line: {text!r}"
        return REFUSED, text
    except Exception as e:
        return WRONG, f"{type(e).__name__}: {e}"
    got = fingerprint(learner)
    if got != original:
        differ = sorted(k for k in original if got.get(k) != original[k])
        if "arrays" in differ:
            differ += [
                f"array {n!r}"
                for n in sorted(set(got["arrays"]) | set(original["arrays"]))
                if got["arrays"].get(n) != original["arrays"].get(n)
            ]
        return WRONG, "loaded different data: " + ", ".join(differ)
    return IDENTICAL, ""


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fuzzed:
    source: Path
    data: bytes
    original: dict[str, Any]
    work: Path


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Fuzzed:
    from qarena.learn.learners import load_learner

    folder = tmp_path_factory.mktemp("policy-fuzz")
    source = make_source(folder)
    return Fuzzed(source, source.read_bytes(), fingerprint(load_learner(source)), folder)


def test_the_source_loads_identical(fuzzed: Fuzzed) -> None:
    assert judge(fuzzed.source, fuzzed.original) == (IDENTICAL, "")


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_damaged_policy_is_refused_or_identical(fuzzed: Fuzzed, data: st.DataObject) -> None:
    mutation = data.draw(mutations(len(fuzzed.data)), label="mutation")
    path = fuzzed.work / "damaged.npz"
    path.write_bytes(mutation.apply(fuzzed.data))
    verdict, detail = judge(path, fuzzed.original)
    assert verdict != WRONG, f"{mutation}: {detail}"


def _damaged_files(fuzzed: Fuzzed, n: int) -> list[tuple[Path, Mutation]]:
    rng = random.Random(20240611)
    out = []
    for i in range(n):
        mutation = random_mutation(rng, len(fuzzed.data))
        path = fuzzed.work / f"cli-{i}.npz"
        path.write_bytes(mutation.apply(fuzzed.data))
        out.append((path, mutation))
    return out


def _check_cli(mutation: Mutation, code: int, out: str, err: str) -> None:
    assert code in (0, 2), f"{mutation}: exit {code}\n{err}"
    assert "Traceback" not in out + err, f"{mutation}:\n{err}"
    if code == 2:
        text = err.removesuffix("\n")
        assert text.strip(), f"{mutation}: exit 2 with nothing on stderr"
        assert "\n" not in text, f"{mutation}: more than one line on stderr:\n{err}"
    else:
        assert "position" in out, f"{mutation}: exit 0 without a table:\n{out}"


def test_damaged_policies_through_the_cli(
    fuzzed: Fuzzed, capsys: pytest.CaptureFixture[str]
) -> None:
    """`qarena table FILE` on damaged files: exit 0 (an identical load) or 2 with one line."""
    from qarena.cli.app import run

    for path, mutation in _damaged_files(fuzzed, 40):
        capsys.readouterr()
        code = run(["table", str(path)])
        captured = capsys.readouterr()
        _check_cli(mutation, code, captured.out, captured.err)


def test_damaged_policy_through_the_real_command(fuzzed: Fuzzed) -> None:
    """Once as a user runs it: a new process, damaged in the middle and cut short."""
    size = len(fuzzed.data)
    mutation = Mutation(flips=((size // 3, 2),), keep=size - 7)
    path = fuzzed.work / "real.npz"
    path.write_bytes(mutation.apply(fuzzed.data))
    done = subprocess.run(
        [sys.executable, "-m", "qarena", "table", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    _check_cli(mutation, done.returncode, done.stdout, done.stderr)
