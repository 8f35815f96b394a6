"""Every registered game, at its default spec and at the specs the suite shares, passes the
conformance checks (``tests/conformance.py``); and the rules' results, game by game."""

from __future__ import annotations

import random

import pytest

from qarena.games import DRAW, LOSS, WIN, parse_spec
from qarena.games.registry import names
from tests.conformance import check_game, playouts
from tests.conftest import SPECS

#: Beyond every game's default spec and the shared ones: Connect Four boards, small and large.
MORE = ["connect4:4x4", "connect4:5x4:3", "tictactoe:4x4:3"]


def test_every_registered_game_is_checked() -> None:
    # A game registered later is covered by its default spec without editing this file.
    assert {parse_spec(n).spec.split(":")[0] for n in names()} <= {
        s.split(":")[0] for s in [*names(), *SPECS, *MORE]
    }


@pytest.mark.parametrize("spec", list(dict.fromkeys([*names(), *SPECS, *MORE])))
def test_every_game_passes_the_conformance_checks(spec: str) -> None:
    check_game(parse_spec(spec), count=60 if spec != "connect4" else 20)


@pytest.mark.parametrize("spec", ["nim", "nim:1,3,5,7", "subtraction", "subtraction:2:3"])
def test_misere_heaps_are_lost_by_taking_the_last(spec: str) -> None:
    game = parse_spec(spec)
    assert game.misere
    for trail in playouts(game, 30, random.Random(spec)):
        # The player to move at the end faces no objects: the other took the last and lost.
        assert game.result(trail[-1]) == WIN


@pytest.mark.parametrize("spec", ["nim:3,5,7:normal", "subtraction:7:2:normal"])
def test_normal_heaps_are_won_by_taking_the_last(spec: str) -> None:
    game = parse_spec(spec)
    assert not game.misere
    for trail in playouts(game, 30, random.Random(spec)):
        assert game.result(trail[-1]) == LOSS


@pytest.mark.parametrize("spec", ["tictactoe", "tictactoe:3x4:3", "connect4:4x4", "connect4"])
def test_on_boards_only_the_last_mover_can_have_a_line(spec: str) -> None:
    game = parse_spec(spec)
    for trail in playouts(game, 30, random.Random(spec)):
        final = trail[-1]
        winner = game.winner(final)  # type: ignore[attr-defined]
        assert winner in (0, (len(trail) - 2) % 2 + 1)
        assert game.result(final) == (LOSS if winner else DRAW)
        assert winner or 0 not in final  # a draw fills the board
