"""Exact values of every reachable position: a compiled search of the reachable positions (the
tables every other part shares), then retrograde analysis over them."""

from qarena.budget import format_bytes
from qarena.solve.solver import Solution, solve
from qarena.solve.space import GameTables, check_fits, game_tables

__all__ = ["GameTables", "Solution", "check_fits", "format_bytes", "game_tables", "solve"]
