"""Judging a table of move values against the solver (optimality). Above the solver, below
agents and learners."""

from qarena.optimality.judge import Optimality, move_values, optimality_of_values

__all__ = ["Optimality", "move_values", "optimality_of_values"]
