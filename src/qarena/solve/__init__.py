"""Exact values of every reachable position: a compiled search of the reachable positions (the
tables every other part shares), then retrograde analysis over them."""

from qarena.budget import format_bytes
from qarena.errors import TooLargeError
from qarena.games.base import Game
from qarena.solve.search import SearchSolution, search_solution
from qarena.solve.solver import Exact, Solution, solve
from qarena.solve.space import GameTables, check_fits, game_tables


def oracle(game: Game) -> Exact:
    """The exact answers for ``game``: its enumerated :class:`Solution` where that fits in
    memory, else a :class:`SearchSolution` where the search solver plays the game; anything
    else is refused as enumeration refuses it (TooLargeError, before allocating)."""
    if game.searchable:
        try:
            check_fits(game)
        except TooLargeError:
            return search_solution(game)
    return solve(game)


__all__ = [
    "Exact",
    "GameTables",
    "SearchSolution",
    "Solution",
    "check_fits",
    "format_bytes",
    "game_tables",
    "oracle",
    "solve",
]
