"""Optimality, the measure every judging here reports: the share of decision positions in which
an agent's greedy move, over a table of values, keeps the value.

A decision position is reachable from the start, not terminal, and has legal moves of more than
one game value. Ties in the agent's values count as optimal only if every tied move is. A row
of canonical tables counts for every position of its class, so the share is over positions
whether or not the agent shares values across symmetries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from qarena.errors import TooLargeError
from qarena.exact.space import GameTables, game_tables
from qarena.learn.tables.base import Learner

if TYPE_CHECKING:
    from qarena.agents.base import Player


@dataclass(frozen=True)
class Optimality:
    decisions: int
    optimal: int

    @property
    def share(self) -> float:
        return self.optimal / self.decisions if self.decisions else 1.0

    def __repr__(self) -> str:
        # The share first: it is what a notebook reader looks for.
        return f"Optimality({self.share:.4f}: {self.optimal} of {self.decisions} decisions)"


#: (row, move) entries judged at once, so judging holds a few megabytes however large the
#: tables.
JUDGE_CHUNK = 1 << 20


def move_values(tables: GameTables, rows: slice | np.ndarray = slice(None)) -> np.ndarray:
    """value of each (row, legal move) for the mover, from the solver; NaN where illegal."""
    nxt, legal = tables.nxt[rows], tables.legal[rows]
    mv = np.full(nxt.shape, np.nan)
    mv[legal] = -tables.value[nxt[legal]].astype(np.float64)
    return mv


def optimality_of_values(tables: GameTables, values: np.ndarray) -> Optimality:
    """Optimality of the agent that plays the highest of ``values[row, move]`` (legal moves)."""
    decisions = optimal = 0
    live = np.flatnonzero(tables.live)
    step = max(1, JUDGE_CHUNK // tables.game.num_moves)
    for first in range(0, live.size, step):
        rows = live[first : first + step]
        mv = move_values(tables, rows)
        best, worst = np.nanmax(mv, axis=1), np.nanmin(mv, axis=1)
        decide = best != worst
        rows, mv, best = rows[decide], mv[decide], best[decide]
        v = np.where(tables.legal[rows], values[rows], -np.inf)
        tied = v == v.max(axis=1, keepdims=True)
        ok = np.all(~tied | (mv == best[:, None]), axis=1)
        weight = tables.orbit[rows]
        decisions += int(weight.sum())
        optimal += int(weight[ok].sum())
    return Optimality(decisions, optimal)


#: Decision positions a network's learning curve judges at each point on a board whose tables
#: fit: drawn uniformly from all of them, so that its share estimates the exact one (every
#: decision position, as a table learner's curve counts them) to within about ±0.3%.
UNIFORM_SAMPLE = 20_000


def uniform_decisions(tables: GameTables, count: int, seed: int) -> np.ndarray:
    """``count`` rows of ``tables`` drawn with replacement so that every decision position
    of the game is as likely as any other (a row weighs as many positions as its class
    holds), sorted; the same ``seed`` draws the same rows."""
    live = np.flatnonzero(tables.live)
    step = max(1, JUDGE_CHUNK // tables.game.num_moves)
    found: list[np.ndarray] = []
    for first in range(0, live.size, step):
        rows = live[first : first + step]
        mv = move_values(tables, rows)
        found.append(rows[np.nanmax(mv, axis=1) != np.nanmin(mv, axis=1)])
    rows = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    if rows.size == 0:
        return rows
    weight = np.cumsum(tables.orbit[rows].astype(np.int64))
    draws = np.random.default_rng([seed, 0x5A]).integers(int(weight[-1]), size=count)
    return np.sort(rows[np.searchsorted(weight, draws, side="right")])


def optimality_at(
    tables: GameTables, rows: np.ndarray, chosen: np.ndarray, counts: np.ndarray | None = None
) -> Optimality:
    """Optimality over the decision rows ``rows`` (each counted once, or ``counts[i]``
    times: as often as it was drawn), where the player picks among ``chosen[i]``'s moves in
    ``rows[i]``: optimal only if all of them keep the value."""
    mv = move_values(tables, rows)
    best = np.nanmax(mv, axis=1) if rows.size else np.zeros(0)
    ok = np.all(~chosen | (mv == best[:, None]), axis=1)
    weight = np.ones(rows.size, dtype=np.int64) if counts is None else counts
    return Optimality(int(weight.sum()), int(weight[ok].sum()))


def learner_optimality(learner: Learner) -> Optimality:
    """A table learner's optimality: its greedy play over its own values, at every decision
    position (what ``qarena eval`` reports for it, and a table learner's curve points)."""
    return optimality_of_values(learner.tables, learner.values())


def tables_for(who: Player) -> tuple[GameTables, bool]:
    """The game's tables ``who`` is judged over, and whether they merge positions it may play
    differently: one row per symmetry class where it plays every image of a class alike
    (``symmetric``) or the game has no symmetry, else one row per position, so that it is
    asked at every position it may meet; where those do not fit here, the classes' (True:
    the caller says so, as it is then judged as if it played each class alike)."""
    tables = game_tables(who.game)
    if who.symmetric or int(tables.orbit.max(initial=1)) <= 1:
        return tables, False
    try:
        return game_tables(who.game, canonical=False), False
    except TooLargeError:
        return tables, True


__all__ = [
    "JUDGE_CHUNK",
    "UNIFORM_SAMPLE",
    "Optimality",
    "learner_optimality",
    "move_values",
    "optimality_at",
    "optimality_of_values",
    "tables_for",
    "uniform_decisions",
]
