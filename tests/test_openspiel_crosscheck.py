"""Solver values against OpenSpiel's minimax (alpha-beta) on sampled positions of nim and
tic_tac_toe, reached by playing the same random moves in both implementations."""

from __future__ import annotations

import random
import re

import pytest

from qarena.exact import solve
from qarena.games import Game, parse_spec

pyspiel = pytest.importorskip("pyspiel")
minimax = pytest.importorskip("open_spiel.python.algorithms.minimax")

SAMPLES = 25


def _their_action(game: Game, state: object, move: int) -> int:
    """OpenSpiel's action for our move: by its text for nim, by cell for tic_tac_toe."""
    if game.impartial:
        pile, take = (int(x) for x in game.format_move(move).split(":"))
        for action in state.legal_actions():  # type: ignore[attr-defined]
            text = state.action_to_string(action)  # type: ignore[attr-defined]
            m = re.search(r"pile:(\d+), take:(\d+)", text)
            assert m is not None, text
            if (int(m.group(1)), int(m.group(2))) == (pile, take):
                return int(action)
        raise AssertionError(f"no OpenSpiel action for {game.format_move(move)}")
    return move


@pytest.mark.parametrize(
    ("spec", "name", "params", "min_plies"),
    [
        ("nim:1,3,5,7", "nim", {"pile_sizes": "1;3;5;7", "is_misere": True}, 2),
        ("nim:3,5,7:normal", "nim", {"pile_sizes": "3;5;7", "is_misere": False}, 2),
        ("nim:2,6,7", "nim", {"pile_sizes": "2;6;7", "is_misere": True}, 2),
        ("tictactoe", "tic_tac_toe", {}, 1),
    ],
)
def test_values_match_openspiel(
    spec: str, name: str, params: dict[str, object], min_plies: int
) -> None:
    game = parse_spec(spec)
    theirs = pyspiel.load_game(name, params)
    solution = solve(game)
    rng = random.Random(spec)
    checked = 0
    for _ in range(SAMPLES):
        position, state = game.start(), theirs.new_initial_state()
        plies = rng.randint(min_plies, max(min_plies, game.max_plies // 2))
        for _ in range(plies):
            if game.is_terminal(position):
                break
            move = rng.choice(game.legal_moves(position))
            state.apply_action(_their_action(game, state, move))
            position = game.apply(position, move)
        assert game.is_terminal(position) == state.is_terminal()
        if state.is_terminal():
            continue
        value, _ = minimax.alpha_beta_search(
            theirs, state=state, maximizing_player_id=state.current_player()
        )
        assert solution.value_of(position) == int(value), game.format_position(position)
        checked += 1
    assert checked >= SAMPLES // 2
