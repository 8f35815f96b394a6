"""Kernels of the search solver's opening books (``exact/book.py``): a position's canonical
key (the smaller of its own and its mirror image's), the positions one stone later, the scores
that need no search, and the scores backed up from the positions one stone later.
"""

from __future__ import annotations

import numpy as np

from qarena.kernels.bitboard import (
    GEO_BOARD,
    GEO_BOTTOM,
    GEO_COLUMNS,
    geometry,
    mirrored,
    playable,
    winning_cells,
)
from qarena.kernels.jit import njit

#: What :func:`move_score` gives for a full column: below every score.
FULL = -1000
#: What :func:`back_up` gives for a position whose successor it was not given.
MISSING = -1001


@njit
def canonical(key: np.uint64, rows: int, cols: int, geo: np.ndarray) -> np.uint64:
    """The smaller of a key and its mirror image's: one key for both (an opening book's)."""
    other = mirrored(key, rows, cols, geo)
    return other if other < key else key


@njit
def expand(
    mine: np.ndarray, mask: np.ndarray, stones: int, rows: int, cols: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every position one stone after the given ones (all with ``stones`` stones) in which
    nobody has four: the new mover's stones, all stones, and the canonical key of each, in
    the order of the given positions and then of the columns (not yet deduplicated)."""
    geo = geometry(rows, cols)
    bottom, board = geo[GEO_BOTTOM], geo[GEO_BOARD]
    n = mine.size
    out_mine = np.empty(n * cols, dtype=np.uint64)
    out_mask = np.empty(n * cols, dtype=np.uint64)
    out_key = np.empty(n * cols, dtype=np.uint64)
    found = 0
    if stones >= rows * cols:
        return out_mine[:0], out_mask[:0], out_key[:0]
    for i in range(n):
        free = playable(mask[i], bottom, board)
        wins = winning_cells(mine[i], mask[i], rows, board)
        for c in range(cols):
            move = free & geo[GEO_COLUMNS + c]
            if move and not (wins & move):
                out_mine[found] = mine[i] ^ mask[i]
                out_mask[found] = mask[i] | move
                out_key[found] = canonical(out_mine[found] + out_mask[found], rows, cols, geo)
                found += 1
    return out_mine[:found], out_mask[:found], out_key[:found]


@njit
def immediate_scores(
    mine: np.ndarray, mask: np.ndarray, stones: int, rows: int, cols: int
) -> np.ndarray:
    """The score of each position that needs no search: a win at once for the player to move
    (the score of that win), or ``FULL`` for the others."""
    geo = geometry(rows, cols)
    bottom, board = geo[GEO_BOTTOM], geo[GEO_BOARD]
    cells = rows * cols
    out = np.full(mine.size, FULL, dtype=np.int64)
    for i in range(mine.size):
        if winning_cells(mine[i], mask[i], rows, board) & playable(mask[i], bottom, board):
            out[i] = (cells + 1 - stones) // 2
    return out


@njit
def back_up(
    mine: np.ndarray,
    mask: np.ndarray,
    stones: int,
    rows: int,
    cols: int,
    child_keys: np.ndarray,
    child_scores: np.ndarray,
) -> np.ndarray:
    """The score of each position (all with ``stones`` stones) from those one stone later:
    the best of a win at once, the board's last cell (a draw) and the negated score of each
    position a move leads to, found among ``child_keys`` (sorted canonical keys)."""
    geo = geometry(rows, cols)
    bottom, board = geo[GEO_BOTTOM], geo[GEO_BOARD]
    cells = rows * cols
    out = np.empty(mine.size, dtype=np.int64)
    for i in range(mine.size):
        free = playable(mask[i], bottom, board)
        wins = winning_cells(mine[i], mask[i], rows, board)
        if wins & free:
            out[i] = (cells + 1 - stones) // 2
            continue
        best = FULL
        for c in range(cols):
            move = free & geo[GEO_COLUMNS + c]
            if not move:
                continue
            if stones + 1 == cells:
                score = 0
            else:
                key = canonical((mine[i] ^ mask[i]) + (mask[i] | move), rows, cols, geo)
                j = np.searchsorted(child_keys, key)
                if j == child_keys.size or child_keys[j] != key:
                    out[i] = MISSING
                    break
                score = -child_scores[j]
            best = max(best, score)
        else:
            out[i] = best
    return out
