"""The best reply against OpenSpiel's: one policy of tic-tac-toe given to both, the same outcome
in both seats.

A Q-table after 2,000 episodes (the issue's agent) is made one move per position: where its
greedy moves tie, the agent's own ``act`` picks one, once per symmetry class. qarena is given
that table of moves at every position; OpenSpiel its own ``tic_tac_toe`` game (its C++ rules,
every history of it walked here) with the same move at every history of the agent's, and its C++
``TabularBestResponse`` finds the responder's value at the root. A deterministic policy makes
OpenSpiel's expectation exact, so it must be the negation of what qarena says the agent
secures. OpenSpiel is a test-only dependency (``benchmarks/best_reply.py`` times its Python
``BestResponsePolicy`` too)."""

from __future__ import annotations

from typing import Any

import pytest

import qarena
from qarena.games.base import Position
from qarena.games.tictactoe import EMPTY, O, X
from qarena.judging.best_reply import best_reply
from qarena.learn.tables.base import Learner

pyspiel = pytest.importorskip("pyspiel")

pytestmark = pytest.mark.slow  # walking 550,000 histories and two C++ best responses: 10-20 s


def test_openspiel_finds_the_same_best_reply_in_both_seats() -> None:
    agent = qarena.train("tictactoe", episodes=2000, seed=7)
    assert isinstance(agent, Learner)  # a table learner: its tables are the game's
    greedy = qarena.player(agent, seed=0)
    tables, rules = agent.tables, agent.game
    chosen: dict[int, int] = {}  # a class's one move, in its representative's frame
    moves: dict[Position, int] = {}  # the same move at each position, in the position's frame
    # The agent's move at each history where it moves, by the seat it plays (0 first, 1 second).
    policy: tuple[dict[str, Any], dict[str, Any]] = ({}, {})

    def move_at(position: Position, legal: list[int]) -> int:
        if position not in moves:
            # OpenSpiel's actions are the cells row by row, as qarena's moves: the same game.
            assert legal == sorted(rules.legal_moves(position))
            row, frame = tables.frame(position)
            if row not in chosen:
                chosen[row] = greedy.act(tables.position(row))
            moves[position] = next(m for m, f in frame.items() if f == chosen[row])
        return moves[position]

    cells = list(rules.start())

    def walk(state: Any) -> None:
        if state.is_terminal():
            assert rules.is_terminal(tuple(cells))
            return
        legal = state.legal_actions()
        mover = state.current_player()
        move = move_at(tuple(cells), legal)
        policy[mover][state.information_state_string()] = [(a, float(a == move)) for a in legal]
        for action in legal:
            state.apply_action(action)
            cells[action] = X if mover == 0 else O
            walk(state)
            cells[action] = EMPTY
            state.undo_action(mover, action)

    game = pyspiel.load_game("tic_tac_toe")
    walk(game.new_initial_state())
    assert len(policy[0]) + len(policy[1]) == 294_778  # every history where a player moves
    # The same move at every position (a table of moves is asked at each position it meets).
    one = qarena.player(moves, "tictactoe")
    found = best_reply(one)
    for seat, agent_id in (("first", 0), ("second", 1)):
        responder = 1 - agent_id
        theirs = pyspiel.TabularBestResponse(game, responder, policy[agent_id])
        value = theirs.value_from_state(game.new_initial_state())
        assert value == -found.seats[seat].secured, seat
    # Not a trivial agreement: this table loses from the start in at least one seat.
    assert not found.unbeaten
