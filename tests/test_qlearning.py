"""Q-learning reaches perfect play (judged by the solver), and the pure-Python path of the kernel
gives the same table as the compiled one."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from qarena.agents.opponents import opponent
from qarena.errors import QarenaError
from qarena.exact import game_tables, solve
from qarena.games import parse_spec
from qarena.judging.tables import optimality_of_values
from qarena.learn.tables.base import LearnConfig
from qarena.learn.tables.qlearning import QLearner
from tests.conftest import RunScript, at


@pytest.mark.parametrize(
    ("spec", "episodes"),
    [
        ("nim", 40_000),
        ("nim:3,5,7:normal", 40_000),
        ("nim:2,6,7,8", 600_000),
        ("nim:1,2,3,4,5", 60_000),
        ("subtraction", 5_000),
        ("subtraction:21:4:normal", 10_000),
        ("tictactoe", 60_000),
    ],
)
def test_self_play_reaches_perfect_play(spec: str, episodes: int) -> None:
    learner = QLearner(parse_spec(spec), LearnConfig(seed=7))
    learner.train(episodes)
    result = optimality_of_values(learner.tables, learner.values())
    assert result.decisions > 0
    assert result.optimal == result.decisions


def test_without_canonical_positions_too() -> None:
    learner = QLearner(parse_spec("tictactoe"), LearnConfig(seed=3, canonical=False))
    learner.train(200_000)
    result = optimality_of_values(learner.tables, learner.values())
    assert result.optimal == result.decisions


def _independent_optimality(spec: str, values: np.ndarray, canonical: bool) -> tuple[int, int]:
    """Counted position by position through the Game interface and the solver's move values."""
    game = parse_spec(spec)
    solution = solve(game)
    decisions = optimal = 0
    tables = game_tables(game, canonical)
    for code in range(game.num_positions):
        p = game.decode(code)
        if not solution.is_reachable(p) or game.is_terminal(p):
            continue
        mv = solution.move_values(p)
        if len(set(mv.values())) == 1:
            continue
        decisions += 1
        row = at(tables, values, p)
        top = max(row[m] for m in mv)
        tied = [m for m in mv if row[m] == top]
        optimal += all(mv[m] == max(mv.values()) for m in tied)
    return decisions, optimal


@pytest.mark.parametrize(
    ("spec", "episodes"), [("nim", 100), ("tictactoe", 300), ("subtraction:12:3:normal", 3)]
)
@pytest.mark.parametrize("canonical", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_optimality_matches_an_independent_count(spec: str, episodes: int, canonical: bool) -> None:
    game = parse_spec(spec)
    learner = QLearner(game, LearnConfig(seed=1, canonical=canonical))
    learner.train(episodes)  # deliberately under-trained
    for values in (learner.values(), np.zeros_like(learner.q), np.round(learner.values(), 1)):
        result = optimality_of_values(learner.tables, values)
        assert (result.decisions, result.optimal) == _independent_optimality(
            spec, values, canonical
        )
    assert 0 < optimality_of_values(learner.tables, learner.values()).optimal < result.decisions


SCRIPT = """
import hashlib, sys
from qarena.games import parse_spec
from qarena.agents.opponents import opponent
from qarena.learn.tables.base import LearnConfig
from qarena.learn.tables.qlearning import QLearner
spec, opp, canonical = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
learner = QLearner(parse_spec(spec), LearnConfig(seed=11, alpha=0.5, canonical=canonical))
steps = learner.train(1500, opponent(learner.tables, opp))
print(hashlib.sha256(learner.q.tobytes()).hexdigest(), steps)
"""


@pytest.mark.parametrize(
    ("spec", "opp", "canonical"),
    [("tictactoe", "self", "1"), ("nim", "random", "0"), ("nim:2,6,7", "bouton", "1")],
)
def test_pure_python_training_matches_compiled(
    spec: str, opp: str, canonical: str, run_script: RunScript
) -> None:
    compiled = run_script(SCRIPT, spec, opp, canonical).split()
    pure = run_script(SCRIPT, spec, opp, canonical, jit=False).split()
    assert compiled == pure
    learner = QLearner(
        parse_spec(spec), LearnConfig(seed=11, alpha=0.5, canonical=canonical == "1")
    )
    steps = learner.train(1500, opponent(learner.tables, opp))
    assert compiled == [hashlib.sha256(learner.q.tobytes()).hexdigest(), str(steps)]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"alpha": 0.0},
        {"alpha": 1.5},
        {"gamma": -0.1},
        {"gamma": 1.1},
        {"epsilon": 2.0},
        {"schedule": "cosine"},
        {"schedule": "exp", "epsilon_end": 0.0},
    ],
)
def test_bad_hyperparameters_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(QarenaError):
        LearnConfig(**kwargs)  # type: ignore[arg-type]


def test_bad_training_calls_are_refused() -> None:
    learner = QLearner(parse_spec("nim"))
    with pytest.raises(QarenaError):
        learner.train(0)
    with pytest.raises(QarenaError):
        learner.train(10, seat="middle")
    with pytest.raises(QarenaError):
        opponent(learner.tables, "grandmaster")
