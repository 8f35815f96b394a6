"""Optimality: the share of decision positions in which an agent's greedy move keeps the value.

A decision position is reachable from the start, not terminal, and has legal moves of more than
one game value. Ties in the agent's values count as optimal only if every tied move is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.solve.solver import solve
from qarena.transitions.build import GameTables


@dataclass(frozen=True)
class Optimality:
    decisions: int
    optimal: int

    @property
    def share(self) -> float:
        return self.optimal / self.decisions if self.decisions else 1.0


def move_values(tables: GameTables) -> np.ndarray:
    """value of each (position, legal move) for the mover, from the solver; NaN where illegal."""
    value = solve(tables.game).value
    mv = np.full(tables.nxt.shape, np.nan)
    legal = tables.legal
    mv[legal] = -value[tables.nxt[legal]].astype(np.float64)
    return mv


def optimality_of_values(tables: GameTables, values: np.ndarray) -> Optimality:
    """Optimality of the agent that plays the highest of ``values[code, move]`` (legal moves)."""
    rows = np.flatnonzero(tables.reachable & (tables.result == NOT_TERMINAL))
    mv = move_values(tables)[rows]
    best, worst = np.nanmax(mv, axis=1), np.nanmin(mv, axis=1)
    decide = best != worst
    rows, mv, best = rows[decide], mv[decide], best[decide]
    v = np.where(tables.legal[rows], values[rows], -np.inf)
    tied = v == v.max(axis=1, keepdims=True)
    ok = np.all(~tied | (mv == best[:, None]), axis=1)
    return Optimality(int(rows.size), int(ok.sum()))
