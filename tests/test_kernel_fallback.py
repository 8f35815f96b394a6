"""The pure-Python path (NUMBA_DISABLE_JIT=1) gives the same tables as the compiled one."""

from __future__ import annotations

import hashlib

import pytest

from qarena.exact import solve
from qarena.games import parse_spec
from tests.conftest import RunScript

SCRIPT = """
import hashlib, sys
from qarena.games import parse_spec
from qarena.exact import solve
s = solve(parse_spec(sys.argv[1]))
t = s.tables
arrays = (t.codes, t.nxt, t.moves, t.nmoves, t.result, t.mover, t.orbit, t.value, t.depth)
print(hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest(), s.positions)
"""


@pytest.mark.parametrize("spec", ["tictactoe", "nim:2,6,7", "subtraction:12:3:normal"])
def test_pure_python_solver_matches(spec: str, run_script: RunScript) -> None:
    plain = run_script(SCRIPT, spec, jit=False)
    s = solve(parse_spec(spec))
    t = s.tables
    arrays = (t.codes, t.nxt, t.moves, t.nmoves, t.result, t.mover, t.orbit, t.value, t.depth)
    digest = hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest()
    assert plain.split() == [digest, str(s.positions)]


MATCH_SCRIPT = """
import sys
from qarena.games import parse_spec
from qarena.exact.space import game_tables
from qarena.judging.evaluation import strategy_mask
from qarena.show.matches import play_series_lengths
t = game_tables(parse_spec(sys.argv[1]))
r, n = play_series_lengths(t, strategy_mask(t, "random"), strategy_mask(t, "random"), 700, 5)
print(r.win, r.draw, r.loss, *n.counts)
"""


@pytest.mark.parametrize(
    "spec",
    [pytest.param("tictactoe", marks=pytest.mark.slow), "nim:2,6,7", "subtraction:12:3:normal"],
)
def test_pure_python_match_lengths_match(spec: str, run_script: RunScript) -> None:
    """The match kernel's records and game lengths are the same compiled and as plain Python."""
    outs = [run_script(MATCH_SCRIPT, spec, jit=jit).split() for jit in (True, False)]
    assert outs[0] == outs[1]
    numbers = [int(x) for x in outs[0]]
    assert sum(numbers[:3]) == sum(numbers[3:]) == 700
