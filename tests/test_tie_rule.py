"""The tie rule of training's greedy steps: at random by default (the tables and random draws
as before the rule existed), or the first highest in a given order of each row's moves
(``Learner.break_ties_first``, the term paper's and the course solution's own rule), the same
compiled and as plain Python, and the same rule the report judges their tables by."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from qarena.errors import QarenaError
from qarena.experiments.report.claims.nim import WRITEUP_TIES, first_highest, writeup_moves
from qarena.experiments.sweep import tie_order
from qarena.games import parse_spec
from qarena.learn.learners import LEARNERS
from qarena.learn.tables.qlearning import SeatQLearner
from tests.conftest import RunScript

#: Tables and generator state after 3,000 episodes from seed 7 on one entry per position,
#: computed on the code before the tie rule existed (the same compiled and as plain Python).
BEFORE = {
    ("seat-q", "nim:3,5,7"): ("38d3527aee4ccf1d", 26146),
    ("q", "nim:3,5,7"): ("3386f26f56b7132a", 14413),
    ("seat-q", "tictactoe"): ("e13c31e462ce981d", 23970),
    ("q", "nim:2,6,7"): ("8d5a3be26568b67d", 13695),
    ("afterstate", "nim:2,6,7"): ("259d333b6e78adfd", 13596),
    ("game-backup", "nim:2,6,7"): ("6b5d8cc0173d99fc", 13465),
}


def _digest(kind: str, spec: str) -> tuple[str, int]:
    cls = LEARNERS[kind]
    learner = cls(parse_spec(spec), cls.default_config(seed=7, canonical=False))
    learner.train(3000)
    arrays = [*learner.state().values(), learner.rng]  # type: ignore[attr-defined]
    return hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest()[:16], learner.steps  # type: ignore[attr-defined]


@pytest.mark.parametrize(("kind", "spec"), list(BEFORE))
def test_ties_at_random_train_as_before(kind: str, spec: str) -> None:
    assert _digest(kind, spec) == BEFORE[kind, spec]


def _first_greedy_move(kind: str, seed: int, first: bool) -> str:
    """The move a fresh learner's first greedy step plays at 1-1 nim's start, where both
    moves tie at 0: the one entry an episode of pure exploitation moves there."""
    game = parse_spec("nim:1,1")
    cls = LEARNERS[kind]
    learner = cls(game, cls.default_config(seed=seed, canonical=False, epsilon=0.0, starts=0.0))
    if first:
        both = (game.parse_move("2:1"), game.parse_move("1:1"))
        learner.break_ties_first(lambda g, p: [m for m in both if m in g.legal_moves(p)])
    learner.train(1, total_episodes=1)
    row = learner.tables.start
    moved = np.flatnonzero(learner.q[row] != 0)  # type: ignore[attr-defined]
    assert moved.size == 1
    return game.format_move(int(moved[0]))


@pytest.mark.parametrize("kind", ["q", "seat-q"])
def test_first_plays_the_first_tie_in_the_given_order_and_random_plays_both(kind: str) -> None:
    firsts = {_first_greedy_move(kind, seed, True) for seed in range(12)}
    randoms = {_first_greedy_move(kind, seed, False) for seed in range(12)}
    assert firsts == {"2:1"}  # the order's first, not the game's (1:1)
    assert randoms == {"1:1", "2:1"}


FIRST_SCRIPT = """
import hashlib, sys
from qarena.games import parse_spec
from qarena.learn.learners import LEARNERS
kind, spec, canonical = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
cls = LEARNERS[kind]
learner = cls(parse_spec(spec), cls.default_config(seed=3, canonical=canonical, epsilon=0.3))
learner.break_ties_first(lambda game, position: game.legal_moves(position)[::-1])
learner.train(2000)
arrays = [*learner.state().values(), learner.rng]
print(hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest(), learner.steps)
"""


@pytest.mark.parametrize(
    ("kind", "spec", "canonical"),
    [
        ("seat-q", "nim:3,5,7", "0"),
        ("q", "nim:3,5,7", "0"),
        ("seat-q", "tictactoe", "1"),
        ("afterstate", "nim:2,6,7", "0"),
        ("game-backup", "tictactoe", "1"),
    ],
)
def test_first_is_the_same_compiled_and_as_plain_python(
    kind: str, spec: str, canonical: str, run_script: RunScript
) -> None:
    outs = [run_script(FIRST_SCRIPT, kind, spec, canonical, jit=jit) for jit in (True, False)]
    assert outs[0] == outs[1]


def _replayed(spec: str, alpha: float, gamma: float, win: float, episodes: int) -> np.ndarray:
    """The seat Q-learning of the write-ups with no exploration, written out here as their
    code does it, move by move, each greedy step the report's ``first_highest``: a player's
    move moves toward γ times the best value it then faces, the game's last move toward the
    mover's reward and the other's last move toward the other's (misère: who takes the last
    object loses)."""
    game = parse_spec(spec)
    judge = SeatQLearner(game, SeatQLearner.default_config(canonical=False))
    tables = judge.tables
    q = judge.q  # first_highest reads the values through this learner
    for _ in range(episodes):
        # A position occurs once in a game, so the choices made before the game hold in it.
        choice = first_highest(judge).argmax(axis=1)
        last: dict[int, tuple[int, int]] = {}
        position, p = game.start(), 0
        while True:
            row = tables.row_of(position)
            move = int(choice[row])
            after = game.apply(position, move)
            o = 1 - p
            if not any(after):
                q[row, move] += alpha * (-win - q[row, move])
                if o in last:
                    r, m = last[o]
                    q[r, m] += alpha * (win - q[r, m])
                break
            if o in last:
                r, m = last[o]
                nxt = tables.row_of(after)
                best = max(q[nxt, x] for x in game.legal_moves(after))
                q[r, m] += alpha * (gamma * best - q[r, m])
            last[p] = (row, move)
            position, p = after, o
    return q


@pytest.mark.parametrize(
    ("spec", "alpha", "gamma", "win"),
    [("nim:1,3,5,7", 0.5, 1.0, 1.0), ("nim:3,5,7", 0.1, 0.8, 100.0)],
)
def test_training_with_the_write_ups_order_is_the_rule_the_report_judges_by(
    spec: str, alpha: float, gamma: float, win: float
) -> None:
    """Every greedy step of training with the write-ups' order is the move ``first_highest``
    picks: pure exploitation trained by the kernel equals the same games replayed here."""
    game = parse_spec(spec)
    config = SeatQLearner.default_config(
        canonical=False, alpha=alpha, gamma=gamma, rewards=(win, 0.0, -win), epsilon=0.0
    )
    learner = SeatQLearner(game, config)
    learner.break_ties_first(tie_order(WRITEUP_TIES))
    learner.train(60)
    assert np.any(learner.q != 0)
    np.testing.assert_allclose(learner.q, _replayed(spec, alpha, gamma, win, 60), atol=1e-12)
    # At random, the same games are not all played: ties at the start go other ways.
    other = SeatQLearner(game, config)
    other.train(60)
    assert not np.allclose(other.q, learner.q)


def test_a_tie_order_must_list_each_legal_move_once() -> None:
    learner = SeatQLearner(parse_spec("nim:1,2"))
    with pytest.raises(QarenaError, match="every legal move") as e:
        learner.break_ties_first(lambda game, position: game.legal_moves(position)[:1])
    assert "\n" not in str(e.value)
    assert learner.tie_order is None
    learner.break_ties_first(writeup_moves)
    assert learner.tie_order is not None


@pytest.mark.parametrize("name", ["os:system", "qarena.games:nothing", "qarena.nowhere:f", "x"])
def test_a_sweep_s_tie_order_names_a_function_of_qarena(name: str) -> None:
    with pytest.raises(QarenaError, match="names no order of moves"):
        tie_order(name)
