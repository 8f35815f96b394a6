"""Exploring starts: self-play episodes that begin at positions drawn from every reachable one
the learner plays on. The learner still never reads the solver's values while it learns; the
solver only judges the result."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qarena.cli.app import run
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.judging.tables import learner_optimality
from qarena.learn.learners import TABLE_LEARNERS as LEARNERS
from qarena.learn.learners import make_learner
from qarena.learn.tables.base import LearnConfig
from tests.conftest import RunScript

SCRIPT = """
import hashlib, sys
from qarena.games import parse_spec
from qarena.learn.tables.base import LearnConfig
from qarena.learn.learners import make_learner
kind, spec, order = sys.argv[1:4]
config = LearnConfig(seed=5, starts=0.5, start_order=order, epsilon_end=0.2)
learner = make_learner(kind, parse_spec(spec), config)
steps = learner.train(1500)
digest = hashlib.sha256(b"".join(a.tobytes() for a in learner.arrays().values())).hexdigest()
print(digest, steps)
"""


@pytest.mark.parametrize("kind", sorted(LEARNERS))
# The sweep order runs with the slow checks (make test stays under 8 minutes; CI runs both).
@pytest.mark.parametrize("order", ["uniform", pytest.param("sweep", marks=pytest.mark.slow)])
def test_pure_python_matches_compiled_with_exploring_starts(
    kind: str, order: str, run_script: RunScript
) -> None:
    """On tic-tac-toe, so the afterstate learner's per-seat tables must find whose turn it is
    at a position drawn mid-game."""
    outputs = [
        run_script(SCRIPT, kind, "tictactoe", order, jit=jit).split() for jit in (True, False)
    ]
    assert outputs[0] == outputs[1]


def test_no_share_changes_nothing() -> None:
    """A share of 0 draws no random number and reads no start: either order of starts gives
    the same tables."""
    game = parse_spec("nim:2,6,7,8")
    a = make_learner("q", game, LearnConfig(seed=3, starts=0.0, start_order="uniform"))
    b = make_learner("q", game, LearnConfig(seed=3, starts=0.0, start_order="sweep"))
    assert a.train(5000) == b.train(5000)
    assert (a.q == b.q).all()


@pytest.mark.parametrize(
    "spec",
    ["nim", "nim:2,6,7,8", "subtraction:30:4", "tictactoe", "tictactoe:3x4:3", "connect4:4x4"],
)
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_one_sweep_teaches_q_learning_perfect_play(spec: str, alpha: float) -> None:
    """Each (position, move) once, every position after those it leads to, each start's move
    played first: every Q update then backs up a next position whose moves were all learned,
    so one sweep is backward induction and the greedy play keeps every value."""
    learner = make_learner("q", parse_spec(spec), LearnConfig(seed=4, alpha=alpha))
    learner.train(learner._starts.size)
    assert learner_optimality(learner).share == 1.0


@pytest.mark.parametrize("spec", ["nim:1,3,5", "tictactoe", "connect4:3x4:3"])
def test_a_sweep_takes_every_pair_once_after_what_it_leads_to(spec: str) -> None:
    learner = make_learner("q", parse_spec(spec), LearnConfig())
    t, moves = learner.tables, learner.game.num_moves
    pairs = learner._starts
    rows, played = pairs // moves, pairs % moves
    assert sorted(zip(rows.tolist(), played.tolist(), strict=True)) == sorted(
        (int(r), int(m)) for r, m in zip(*np.nonzero(t.legal & t.live[:, None]), strict=True)
    )
    place = {int(r): i for i, r in enumerate(t.order)}
    for r in t.order:
        for m in t.moves[r, : t.nmoves[r]]:
            after = int(t.nxt[r, m])
            assert after not in place or place[after] < place[int(r)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exploring_starts_reach_the_wide_piles(seed: int) -> None:
    """nim:10,60 has 61 moves in its wide positions, which play from the opening rarely reaches:
    200,000 episodes from the opening leave the agent short of perfect play, while the same
    budget with every episode starting anywhere gets there (judged by the solver)."""
    game = parse_spec("nim:10,60")
    shares = {}
    for share in (0.0, 1.0):
        learner = make_learner("q", game, LearnConfig(seed=seed, starts=share))
        learner.train(200_000)
        shares[share] = learner_optimality(learner).share
    assert shares[1.0] == 1.0
    assert shares[0.0] < 1.0


def test_the_share_is_checked() -> None:
    with pytest.raises(QarenaError, match=r"starts must be a share in \[0, 1\]"):
        LearnConfig(starts=1.5)


def test_starts_are_for_self_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["train", "nim", "--starts", "0.5", "--opponent", "random", "-o", "x.npz"]
    assert run(argv) == 2
    assert "--starts applies to self-play" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
