"""Per-game transition tables for learners and evaluation, built once and cached."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from qarena.games.base import Game
from qarena.kernels.solve import UNREACHED
from qarena.kernels.tables import fill_tables
from qarena.solve.solver import check_fits, solve

#: Bytes per (position, move) entry of the tables: next code (int32) and canonical move (int32).
BYTES_PER_ENTRY = 8


@dataclass(frozen=True, eq=False)
class GameTables:
    """``nxt[code, move]``: next code or -1; ``result[code]``: terminal result or 2;
    ``canon[code]`` / ``cmove[code, move]``: the canonical code and move (for shared learning);
    ``reachable[code]``: reachable from the start; ``legal``: ``nxt >= 0``."""

    game: Game
    nxt: np.ndarray
    result: np.ndarray
    canon: np.ndarray
    cmove: np.ndarray
    reachable: np.ndarray
    start: int
    legal: np.ndarray


def tables_bytes(game: Game) -> int:
    return game.num_positions * (game.num_moves * BYTES_PER_ENTRY + 2)


@lru_cache(maxsize=4)
def game_tables(game: Game) -> GameTables:
    """Transition and symmetry tables of every reachable position."""
    check_fits(game, tables_bytes(game), "learning tables")
    solution = solve(game)
    n, moves = game.num_positions, game.num_moves
    nxt = np.empty((n, moves), dtype=np.int32)
    result = np.empty(n, dtype=np.int8)
    fill_tables(game.arrays(), solution.value, nxt, result)
    reachable = solution.value != UNREACHED
    canon = np.arange(n, dtype=np.int32)
    cmove = np.tile(np.arange(moves, dtype=np.int32), (n, 1))
    for code in np.flatnonzero(reachable & (result == 2)):
        position = game.decode(int(code))
        canonical = game.canonical(position)
        canon[code] = game.encode(canonical)
        for m, cm in game.canonical_moves(position).items():
            cmove[code, m] = cm
    legal = nxt >= 0
    for arr in (nxt, result, canon, cmove, reachable, legal):
        arr.flags.writeable = False
    return GameTables(game, nxt, result, canon, cmove, reachable, game.encode(game.start()), legal)
