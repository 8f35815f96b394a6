"""Transition tables of a game's reachable positions, and judging a table of move values against
the solver (optimality). Above the solver, below agents and learners."""

from qarena.transitions.build import GameTables, game_tables
from qarena.transitions.judge import Optimality, move_values, optimality_of_values

__all__ = ["GameTables", "Optimality", "game_tables", "move_values", "optimality_of_values"]
