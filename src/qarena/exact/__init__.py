"""Exact values of every reachable position: a compiled search of the reachable positions (the
tables every other part shares), then retrograde analysis over them; or, for boards too big to
enumerate, the search solver. :class:`Oracle` decides which, once per game (``oracles.py``)."""

from qarena.budget import format_bytes
from qarena.exact.oracles import (
    ENUMERATED,
    SEARCHED,
    Oracle,
    enumeration_refused,
    family_of,
    oracle,
)
from qarena.exact.search import Built, SearchSolution
from qarena.exact.solver import Exact, Outcome, Solution, solve
from qarena.exact.space import GameTables, check_fits, game_tables

__all__ = [
    "ENUMERATED",
    "SEARCHED",
    "Built",
    "Exact",
    "GameTables",
    "Oracle",
    "Outcome",
    "SearchSolution",
    "Solution",
    "check_fits",
    "enumeration_refused",
    "family_of",
    "format_bytes",
    "game_tables",
    "oracle",
    "solve",
]
