"""The match core shared by ``qarena play`` and the web app: turns, undo, the AI's replies, the
result, and training on the spot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qarena.agents.greedy import GreedyAgent
from qarena.cli import run
from qarena.errors import IllegalMoveError, MoveError
from qarena.games import parse_spec
from qarena.judging.tables import learner_optimality
from qarena.learn.learners import load_learner, make_learner
from qarena.match import spot as match
from qarena.match.session import Conflict, Match
from qarena.match.spot import train_on_the_spot
from qarena.training.run import Progress, train_run


@pytest.fixture(scope="module")
def agent() -> GreedyAgent:
    """A perfect agent for misère nim 1-2."""
    training = train_on_the_spot(parse_spec("nim:1,2"))
    assert training.perfect
    return GreedyAgent(training.learner)


def test_a_move_then_the_reply_then_undo_back_to_the_start(agent: GreedyAgent) -> None:
    m = Match(agent, 0, np.random.default_rng(1))
    assert m.to_move == "human" and m.first == "human" and m.reply() is None
    with pytest.raises(Conflict, match="Nothing to undo"):
        m.undo()
    mine = m.move("2:1")
    assert not m.humans_turn() and m.last_reply is None
    with pytest.raises(Conflict, match="AI's turn"):
        m.move("1:1")
    reply = m.reply()
    assert reply is not None and m.last_reply == reply
    # The values the AI saw are those of the position it chose in.
    assert reply.values == m.values(m.positions[-2])
    assert set(reply.values) == set(agent.game.legal_moves(m.positions[-2]))
    assert m.history() == [("You", "2:1"), ("AI", agent.game.format_move(reply.move))]
    assert m.undo() == (mine, reply.move)
    assert m.positions == [agent.game.start()] and m.moves == []


def test_the_ais_opening_cannot_be_taken_back(agent: GreedyAgent) -> None:
    m = Match(agent, 1, np.random.default_rng(2))
    assert m.first == "ai" and m.to_move == "ai"
    opening = m.reply()
    assert opening is not None and m.humans_turn()
    with pytest.raises(Conflict, match="Nothing to undo"):
        m.undo()
    assert m.moves == [opening.move]


def test_undo_after_the_persons_move_ended_the_game(agent: GreedyAgent) -> None:
    m = Match(agent, 0, np.random.default_rng(3))
    m.move("2:2")
    reply = m.reply()  # its only move, the last match: it loses in misère play
    assert reply is not None and m.over and m.to_move is None
    assert m.result() == "human"
    assert m.result_text() == "The AI took the last match. You win!"
    with pytest.raises(Conflict, match="over"):
        m.move("1:1")
    assert m.undo() == (agent.game.parse_move("2:2"), reply.move)
    assert not m.over and m.result() is None and m.result_text() is None

    m.move("2:1")
    m.reply()
    m.move(agent.game.format_move(agent.game.legal_moves(m.position)[0]))
    # The person took the last match: over before the AI could reply.
    assert m.over and m.result() == "ai" and m.reply() is None
    assert m.result_text() == "You took the last match. The AI wins."
    _, none = m.undo()
    assert none is None and m.humans_turn() and not m.over
    assert m.last_reply is not None and len(m.moves) == 2


def test_moves_are_read_and_checked_in_words(agent: GreedyAgent) -> None:
    m = Match(agent, 0, np.random.default_rng(4))
    with pytest.raises(MoveError, match="PILE:COUNT"):
        m.move("hello")
    m.move("2:2")
    m.reply()
    assert m.over
    m.undo()
    m.move("2:1")
    m.reply()
    with pytest.raises(IllegalMoveError, match=r"is empty|has only"):
        m.move("2:2")


def test_training_on_the_spot_reports_progress_and_stops_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Progress] = []
    training = train_on_the_spot(parse_spec("nim:2,3"), on_progress=seen.append)
    assert training.learner.kind == match.SPOT_LEARNER
    assert seen and seen[-1].episodes == training.result.episodes
    assert training.perfect and training.seconds >= 0

    monkeypatch.setattr(match, "TRAIN_SECONDS", -1.0)
    late = train_on_the_spot(parse_spec("nim:2,3"))
    assert late.result.stopped and late.result.episodes == 0
    stopped = train_on_the_spot(parse_spec("nim:2,3"), seconds=60, should_stop=lambda: True)
    assert stopped.result.stopped and stopped.learner.episodes == 0


def test_on_the_spot_trains_the_agent_qarena_train_trains(tmp_path: Path) -> None:
    """``qarena play SPEC`` and the web app train the agent ``qarena train SPEC`` does, with
    the learner's defaults, exploring starts and episode count: the same tables, so the same
    optimality by the solver."""
    spec = "tictactoe:3x4:3"
    policy = tmp_path / "trained.npz"
    assert run(["train", spec, "--out", str(policy)]) == 0
    trained = load_learner(policy)
    spot = train_on_the_spot(parse_spec(spec), seconds=600)  # time is no limit here
    assert not spot.result.stopped
    assert spot.learner.episodes == trained.episodes
    assert spot.learner.config == trained.config
    assert spot.result.optimality == learner_optimality(trained)
    assert spot.perfect == (learner_optimality(trained).share == 1.0)
    for name, array in trained.state().items():
        np.testing.assert_array_equal(spot.learner.state()[name], array, err_msg=name)


def test_all_moves_values_agree_with_each_moves_value_under_symmetry() -> None:
    """Tic-tac-toe's tables keep one row per symmetry class, so a move's value is read through
    the position's frame: the values of all moves at once must be those read one by one, and
    the moves it picks among those of the best value (greedy on its own values)."""
    learner = make_learner("q", parse_spec("tictactoe"))
    train_run(learner, 20_000)
    agent = GreedyAgent(learner)
    game, rng = agent.game, np.random.default_rng(5)
    position, seen = game.start(), 0
    while not game.is_terminal(position):
        values = agent.move_values(position)
        assert list(values) == game.legal_moves(position)
        assert values == {m: agent.value(position, m) for m in values}
        best = max(values.values())
        assert agent.best_at(position) == tuple(m for m, v in values.items() if v == best)
        assert all(agent.would_play(position, m) for m in agent.best_at(position))
        position = game.apply(position, agent.pick(position, rng))
        seen += 1
    assert seen >= 5
