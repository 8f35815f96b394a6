"""Counts known from outside the code: tic-tac-toe's 5,478 positions, 255,168 games and 958
terminal positions; nim's product of (pile + 1); 4x4 tic-tac-toe's 9,722,011 positions."""

from __future__ import annotations

import math
from functools import cache

import pytest

from qarena.exact import solve
from qarena.games import DRAW, Game, parse_spec


def _reachable(game: Game) -> set[tuple[int, ...]]:
    """Breadth-first over the Game interface alone, independent of the solver."""
    frontier = [game.start()]
    seen = set(frontier)
    while frontier:
        nxt = []
        for p in frontier:
            for m in game.legal_moves(p):
                q = game.apply(p, m)
                if q not in seen:
                    seen.add(q)
                    nxt.append(q)
        frontier = nxt
    return seen


def test_tictactoe_3x3_counts() -> None:
    game = parse_spec("tictactoe")
    positions = _reachable(game)
    assert len(positions) == 5478
    assert sum(1 for p in positions if game.is_terminal(p)) == 958

    @cache
    def games_from(p: tuple[int, ...]) -> int:
        if game.is_terminal(p):
            return 1
        return sum(games_from(game.apply(p, m)) for m in game.legal_moves(p))

    assert games_from(game.start()) == 255168


def test_tictactoe_3x3_solution() -> None:
    solution = solve(parse_spec("tictactoe"))
    assert solution.positions == 5478
    assert solution.terminal_positions == 958
    assert solution.start_value == DRAW


@pytest.mark.parametrize("spec", ["nim", "nim:1,3,5,7", "nim:2,6,7,8:normal", "nim:4"])
def test_nim_reaches_every_pile_combination(spec: str) -> None:
    game = parse_spec(spec)
    expected = math.prod(p + 1 for p in game.start())
    assert solve(game).positions == expected == len(_reachable(game))


def test_subtraction_reaches_every_heap() -> None:
    assert solve(parse_spec("subtraction")).positions == 13


@pytest.mark.slow
def test_tictactoe_4x4_4_counts() -> None:
    solution = solve(parse_spec("tictactoe:4x4:4"))
    assert solution.positions == 9_722_011
    assert solution.start_value == DRAW
