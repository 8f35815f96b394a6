"""Exact values of every reachable position: a compiled search of the reachable positions (the
tables every other part shares), then retrograde analysis over them."""

from qarena.budget import format_bytes
from qarena.errors import TooLargeError
from qarena.exact.search import SearchSolution, search_solution
from qarena.exact.solver import Exact, Outcome, Solution, solve
from qarena.exact.space import GameTables, check_fits, game_tables
from qarena.games.base import Game


def by_search(game: Game) -> bool:
    """Whether ``game`` is solved by search: the search solver plays it and enumerating it
    would not fit in memory. Quick: an estimate, nothing is solved."""
    if not game.searchable:
        return False
    try:
        check_fits(game)
    except TooLargeError:
        return True
    return False


def oracle(game: Game) -> Exact:
    """The exact answers for ``game``: a :class:`SearchSolution` where it is solved by search
    (:func:`by_search`), else its enumerated :class:`Solution`, refused as enumeration refuses
    what does not fit (TooLargeError, before allocating)."""
    if by_search(game):
        return search_solution(game)
    return solve(game)


__all__ = [
    "Exact",
    "GameTables",
    "Outcome",
    "SearchSolution",
    "Solution",
    "by_search",
    "check_fits",
    "format_bytes",
    "game_tables",
    "oracle",
    "solve",
]
