"""Judging a table of move values against the solver (optimality). Above the solver, below
agents and learners."""

from qarena.transitions.judge import Optimality, move_values, optimality_of_values

__all__ = ["Optimality", "move_values", "optimality_of_values"]
