"""The pure-Python path (NUMBA_DISABLE_JIT=1) gives the same tables as the compiled one."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from qarena.games import parse_spec
from qarena.solve import solve

SCRIPT = """
import hashlib, sys
from qarena.games import parse_spec
from qarena.solve import solve
s = solve(parse_spec(sys.argv[1]))
t = s.tables
arrays = (t.codes, t.nxt, t.moves, t.nmoves, t.result, t.mover, t.orbit, t.value, t.depth)
print(hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest(), s.positions)
"""


@pytest.mark.parametrize("spec", ["tictactoe", "nim:2,6,7", "subtraction:12:3:normal"])
def test_pure_python_solver_matches(spec: str) -> None:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, spec], capture_output=True, text=True, env=env, check=True
    )
    s = solve(parse_spec(spec))
    t = s.tables
    arrays = (t.codes, t.nxt, t.moves, t.nmoves, t.result, t.mover, t.orbit, t.value, t.depth)
    digest = hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest()
    assert proc.stdout.split() == [digest, str(s.positions)]
