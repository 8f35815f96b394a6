"""Exact values of every reachable position, by retrograde analysis over the dense encoding."""

from qarena.budget import format_bytes
from qarena.solve.solver import Solution, check_fits, solve, solver_bytes

__all__ = ["Solution", "check_fits", "format_bytes", "solve", "solver_bytes"]
