"""Tic-tac-toe (m,n,k-games) solved by search (qarena.exact.search.LineSearcher): its scores
agree with the enumerating solver's value and distance on boards small enough to enumerate,
it finds the m,n,k-game results the literature reports, and the pure-Python path gives the
same scores."""

from __future__ import annotations

import json
import random

import pytest

from qarena.cli import run
from qarena.errors import QarenaError
from qarena.exact import SEARCHED, Oracle, oracle, solve
from qarena.exact.search import LineSearcher, SearchSolution, plies_to_end, searchable
from qarena.games import parse_spec
from qarena.games.base import DRAW, WIN, Position
from qarena.games.tictactoe import TicTacToe
from tests.conftest import RunScript


def _game(spec: str) -> TicTacToe:
    game = parse_spec(spec)
    assert isinstance(game, TicTacToe)
    return game


def _random_positions(game: TicTacToe, count: int, seed: int) -> list[Position]:
    """Positions of random games where play goes on, of every length."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = game.start()
        for _ in range(rng.randrange(game.cells)):
            position = game.apply(position, rng.choice(game.legal_moves(position)))
            if game.is_terminal(position):
                break
        else:
            found.append(position)
    return found


@pytest.mark.parametrize(
    "spec",
    ["tictactoe:3x3:3", "tictactoe:3x4:3", "tictactoe:4x3:3", "tictactoe:4x4:3",
     "tictactoe:4x4:4", "tictactoe:3x5:3", "tictactoe:2x5:2"],
)  # fmt: skip
def test_scores_agree_with_the_enumerating_solver(spec: str) -> None:
    # Two algorithms: retrograde analysis over every reachable position, and alpha-beta search.
    # A score is the value times the winner's stones still to place, plus one.
    game = _game(spec)
    solution = solve(game)
    searcher = LineSearcher(game, entries=100_003)
    for position in _random_positions(game, 60, seed=7):
        value, plies = solution.value_of(position), solution.depth_of(position)
        stones = sum(1 for v in position if v)
        expected = value * ((game.cells + 2 - stones - plies) // 2)
        assert searcher.score(position) == expected, game.format_position(position)
        assert searcher.score(position, weak=True) == value
        assert plies_to_end(expected, stones, game.cells) == plies
    # Every move's value and distance, as the rest of qarena reads them.
    searched = SearchSolution(game, searcher)
    for position in _random_positions(game, 10, seed=8):
        assert searched.move_outcomes(position) == solution.move_outcomes(position)
        assert searched.optimal_moves(position) == solution.optimal_moves(position)


def test_known_results() -> None:
    # The m,n,k-game literature (e.g. Uiterwijk and van den Herik 2000): 3,3,3 and 4,4,4 are
    # draws, 4,4,3 a first-player win, and with four in a row 5×4 and 5×5 are draws.
    for spec, value in (("3x3:3", DRAW), ("4x4:4", DRAW), ("4x4:3", WIN), ("5x4:4", DRAW),
                        ("5x5:4", DRAW)):  # fmt: skip
        game = _game(f"tictactoe:{spec}")
        assert LineSearcher(game, entries=4_000_037).score(game.start(), weak=True) == value


def test_five_by_five_is_searched_and_every_opening_draws(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = _game("tictactoe:5x5:4")
    assert searchable(game) and Oracle.of(game).family == SEARCHED
    solution = oracle(game)
    assert isinstance(solution, SearchSolution)
    assert solution.value_of(game.start()) == DRAW
    assert solution.depth_of(game.start()) == 25  # a draw fills the board
    # The whole answer, through the command line: no first move gives the draw away.
    assert run(["solve", "tictactoe:5x5:4", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["method"] == "search" and record["value"] == "draw"
    assert record["plies"] == 25 and len(record["optimal_moves"]) == 25


SCRIPT = """
from qarena.games import parse_spec
from qarena.exact.search import LineSearcher
game = parse_spec("tictactoe:4x4:3")
searcher = LineSearcher(game, entries=10_007)
position = game.start()
scores = []
for move in (5, 0, 6, 10):
    position = game.apply(position, move)
    scores.append(searcher.score(position))
print(scores)
"""


def test_the_pure_python_path_gives_the_same_scores(run_script: RunScript) -> None:
    plain = run_script(SCRIPT, jit=False)
    game = _game("tictactoe:4x4:3")
    searcher = LineSearcher(game, entries=10_007)
    position, scores = game.start(), []
    for move in (5, 0, 6, 10):
        position = game.apply(position, move)
        scores.append(searcher.score(position))
    assert plain.strip() == str(scores)


def test_what_cannot_be_searched_is_refused_in_a_line() -> None:
    assert not searchable(_game("tictactoe:7x7:5"))
    with pytest.raises(QarenaError, match="cannot be searched") as e:
        LineSearcher(_game("tictactoe:7x7:5"))
    assert "\n" not in str(e.value)
