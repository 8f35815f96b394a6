"""Connect Four positions as bitboards, for the search solver (``kernels/search.py``), its
opening books and MCTS's playouts: the board's masks, the cells that win, the safe moves, the
mirror image.

A position is two 64-bit words: ``mine`` (the stones of the player to move) and ``mask`` (all
stones). Each column holds ``rows + 1`` bits, bottom first, the top one always empty, so that
a shift by ``rows + 1`` moves one column across and never wraps a line into the next column;
``cols * (rows + 1)`` must be at most 64. ``mine + mask`` is a position's unique key, and a
column's part of it depends on that column alone, so the mirror image's key is the key with
its columns reversed.

Every value is a ``np.uint64`` or a plain int in the kernels, so the pure-Python fallback
(NUMBA_DISABLE_JIT=1) wraps at 64 bits as numba does.
"""

from __future__ import annotations

import numpy as np

from qarena.kernels.jit import njit

#: Geometry array: [bottom row, playable cells, cells of even rows (counted from 1 at the
#: bottom), column 0's cells, column 1's, ...].
GEO_BOTTOM = 0
GEO_BOARD = 1
GEO_EVEN = 2
GEO_COLUMNS = 3


@njit
def bottom_row(rows: int, cols: int) -> np.uint64:
    """A bit at the bottom of every column."""
    out = np.uint64(0)
    for c in range(cols):
        out |= np.uint64(1) << np.uint64(c * (rows + 1))
    return out


@njit
def board_cells(rows: int, cols: int) -> np.uint64:
    """Every playable cell (not the columns' spare top bits)."""
    return bottom_row(rows, cols) * ((np.uint64(1) << np.uint64(rows)) - np.uint64(1))


@njit
def column_bits(col: int, rows: int) -> np.uint64:
    return ((np.uint64(1) << np.uint64(rows)) - np.uint64(1)) << np.uint64(col * (rows + 1))


@njit
def geometry(rows: int, cols: int) -> np.ndarray:
    """The board's masks, computed once per search instead of once per node."""
    geo = np.zeros(GEO_COLUMNS + cols, dtype=np.uint64)
    geo[GEO_BOTTOM] = bottom_row(rows, cols)
    geo[GEO_BOARD] = board_cells(rows, cols)
    for r in range(1, rows, 2):
        geo[GEO_EVEN] |= geo[GEO_BOTTOM] << np.uint64(r)
    for c in range(cols):
        geo[GEO_COLUMNS + c] = column_bits(c, rows)

    return geo


@njit
def popcount(x: np.uint64) -> int:
    """Set bits, counted in parallel within the word (no loop per bit)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit
def winning_cells(stones: np.uint64, mask: np.uint64, rows: int, board: np.uint64) -> np.uint64:
    """The empty cells where one more stone completes four in a row for ``stones``: three of
    them in a line with the cell (any of the four places in the four)."""
    # Vertically only the cell above three can complete a line.
    found = (stones << np.uint64(1)) & (stones << np.uint64(2)) & (stones << np.uint64(3))
    for step in (rows + 1, rows, rows + 2):  # across, one diagonal, the other
        s = np.uint64(step)
        pair = (stones << s) & (stones << (s + s))  # the two cells before
        found |= pair & (stones << (s + s + s))  # ... and a third before: the cell ends it
        found |= pair & (stones >> s)  # ... and one after
        pair = (stones >> s) & (stones >> (s + s))  # the two cells after
        found |= pair & (stones << s)
        found |= pair & (stones >> (s + s + s))
    return found & (board ^ mask)


@njit
def playable(mask: np.uint64, bottom: np.uint64, board: np.uint64) -> np.uint64:
    """The cell each column's next stone lands on."""
    return (mask + bottom) & board


@njit
def safe_moves(
    mine: np.uint64, mask: np.uint64, rows: int, bottom: np.uint64, board: np.uint64
) -> np.uint64:
    """The moves that do not let the opponent win at once: a move that blocks where it must,
    never one right under a cell the opponent wins on. Zero when every move loses at once."""
    return safe_given(winning_cells(mine ^ mask, mask, rows, board), mask, bottom, board)


@njit
def safe_given(
    theirs: np.uint64, mask: np.uint64, bottom: np.uint64, board: np.uint64
) -> np.uint64:
    """:func:`safe_moves` from the opponent's winning cells, already known."""
    possible = playable(mask, bottom, board)
    forced = possible & theirs
    if forced:
        if forced & (forced - np.uint64(1)):
            return np.uint64(0)  # two threats: one block is all a move can do
        possible = forced
    return possible & ~(theirs >> np.uint64(1))


@njit
def has_four(stones: np.uint64, rows: int) -> bool:
    """Whether ``stones`` (cells of the board only, no spare bits) hold four in a line."""
    for step in (1, rows + 1, rows, rows + 2):  # up, across, one diagonal, the other
        s = np.uint64(step)
        pairs = stones & (stones >> s)
        if pairs & (pairs >> (s + s)):
            return True
    return False


@njit
def cannot_win(mine: np.uint64, mask: np.uint64, at: int, rows: int, geo: np.ndarray) -> bool:
    """Whether the player to move can be kept from winning whatever it plays: its score is
    then at most 0 (a draw at best).

    Always when its stones and every empty cell hold no four. And, on a board of even
    height with an even count of stones (the first player to move), when its stones and the
    empty cells the opponent does not claim hold no four, the opponent claiming every empty
    cell of an even row (from 1 at the bottom) that is not playable now (Allis' claimeven):
    above each column's playable cell the empty cells pair up, an odd-row cell under an
    even-row one, and the columns whose playable cell is on an even row, unpaired, are even
    in number (the empty cells are). The opponent answers a move into a pair's lower cell
    with the cell above it, and a move into an unpaired cell with another unpaired cell;
    so the pairs stay as they were, the player never gets a claimed cell, and it could only
    win with a four of ``mine | (empty & ~claimed)``."""
    board = geo[GEO_BOARD]
    empty = board ^ mask
    if rows % 2 == 0 and at % 2 == 0:
        claimed = empty & geo[GEO_EVEN] & ~playable(mask, geo[GEO_BOTTOM], board)
        return not has_four(mine | (empty & ~claimed), rows)
    return not has_four(mine | empty, rows)


@njit
def mirrored(key: np.uint64, rows: int, cols: int, geo: np.ndarray) -> np.uint64:
    """The key of the mirror image: the same columns in reverse order."""
    height = rows + 1
    out = np.uint64(0)
    full = (geo[GEO_COLUMNS] << np.uint64(1)) | np.uint64(1)  # a column's rows + 1 bits
    for c in range(cols // 2):
        shift = np.uint64((cols - 1 - 2 * c) * height)
        left = key & (full << np.uint64(c * height))
        right = key & (full << np.uint64((cols - 1 - c) * height))
        out |= (left << shift) | (right >> shift)
    if cols % 2:
        out |= key & (full << np.uint64((cols // 2) * height))
    return out


@njit
def centre_order(cols: int) -> np.ndarray:
    """Columns from the centre outwards."""
    order = np.empty(cols, dtype=np.int64)
    for i in range(cols):
        order[i] = cols // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2)
    return order
