"""Connect Four by search, for boards too big to enumerate: bitboards, negamax alpha-beta with
a transposition table of bounds, threat-ordered moves, and a null-window driver.

A position is two 64-bit words: ``mine`` (the stones of the player to move) and ``mask`` (all
stones). Each column holds ``rows + 1`` bits, bottom first, the top one always empty, so that
a shift by ``rows + 1`` moves one column across and never wraps a line into the next column;
``cols * (rows + 1)`` must be at most 64. ``mine + mask`` is a position's unique key.

Scores are those of Pons' solver and BitBully: 0 for a draw; for a win, the number of stones
the winner has left to place, plus one (``(cells + 1 - stones at the win) // 2``), positive
when the player to move wins, negative when it loses. A score says who wins and how soon.

Every value is a ``np.uint64`` or a plain int in the kernels, so the pure-Python fallback
(NUMBA_DISABLE_JIT=1) wraps at 64 bits as numba does and gives the same scores.
"""

from __future__ import annotations

import numpy as np

from qarena.kernels.jit import njit

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


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
def popcount(x: np.uint64) -> int:
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


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
    possible = playable(mask, bottom, board)
    theirs = winning_cells(mine ^ mask, mask, rows, board)
    forced = possible & theirs
    if forced:
        if forced & (forced - np.uint64(1)):
            return np.uint64(0)  # two threats: one block is all a move can do
        possible = forced
    return possible & ~(theirs >> np.uint64(1))


@njit
def column_bits(col: int, rows: int) -> np.uint64:
    return ((np.uint64(1) << np.uint64(rows)) - np.uint64(1)) << np.uint64(col * (rows + 1))


@njit
def _probe(keys: np.ndarray, values: np.ndarray, key: np.uint64) -> int:
    i = int(key % np.uint64(keys.size))
    return int(values[i]) if keys[i] == key else 0


@njit
def _store(keys: np.ndarray, values: np.ndarray, key: np.uint64, value: int) -> None:
    i = int(key % np.uint64(keys.size))
    keys[i] = key
    values[i] = value


@njit
def negamax(
    mine: np.uint64,
    mask: np.uint64,
    stones: int,
    alpha: int,
    beta: int,
    rows: int,
    cols: int,
    keys: np.ndarray,
    values: np.ndarray,
    order: np.ndarray,
    nodes: np.ndarray,
) -> int:
    """The score of a position where the player to move cannot win at once, or a bound of it:
    at most ``alpha`` when the score is, at least ``beta`` when the score is, else the score.
    The table keeps bounds by key: a value above ``span`` a lower bound, else an upper one."""
    nodes[0] += 1
    cells = rows * cols
    bottom = bottom_row(rows, cols)
    board = board_cells(rows, cols)
    moves = safe_moves(mine, mask, rows, bottom, board)
    if moves == np.uint64(0):
        return -((cells - stones) // 2)  # whatever it plays, the opponent wins next
    if stones >= cells - 2:
        return 0  # neither can win in the last two stones
    low = -((cells - 2 - stones) // 2)  # the opponent cannot win on its next stone
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (cells - 1 - stones) // 2  # the player cannot win on this stone
    key = mine + mask
    found = _probe(keys, values, key)
    least = -(cells // 2) - 1  # below every score: what the table adds to keep entries above 0
    span = cells + 3
    if found:
        if found > span:
            bound = found - span + least
            if alpha < bound:
                alpha = bound
                if alpha >= beta:
                    return alpha
        else:
            bound = found + least
            high = min(high, bound)
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    # The safe moves, the ones that make the most new threats first; ties in centre order.
    picked = np.zeros(cols, dtype=np.uint64)
    scores = np.zeros(cols, dtype=np.int64)
    n = 0
    for i in range(cols):
        move = moves & column_bits(order[i], rows)
        if move:
            score = popcount(winning_cells(mine | move, mask, rows, board))
            j = n
            while j > 0 and scores[j - 1] < score:
                picked[j] = picked[j - 1]
                scores[j] = scores[j - 1]
                j -= 1
            picked[j] = move
            scores[j] = score
            n += 1
    for i in range(n):
        move = picked[i]
        # The opponent moves next: its stones are the others, the move joins the mask.
        score = -negamax(
            mine ^ mask, mask | move, stones + 1, -beta, -alpha, rows, cols, keys, values, order,
            nodes,
        )  # fmt: skip
        if score >= beta:
            _store(keys, values, key, score - least + span)
            return score
        alpha = max(alpha, score)
    _store(keys, values, key, alpha - least)
    return alpha


@njit
def solve_bits(
    mine: np.uint64,
    mask: np.uint64,
    stones: int,
    rows: int,
    cols: int,
    keys: np.ndarray,
    values: np.ndarray,
    nodes: np.ndarray,
) -> int:
    """The exact score of a position (no four on the board yet): null-window searches that
    halve the interval the score can be in, first near 0, where most scores are."""
    cells = rows * cols
    bottom = bottom_row(rows, cols)
    board = board_cells(rows, cols)
    if winning_cells(mine, mask, rows, board) & playable(mask, bottom, board):
        return (cells + 1 - stones) // 2
    order = np.empty(cols, dtype=np.int64)
    for i in range(cols):  # centre first, then outwards
        order[i] = cols // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2)
    low = -((cells - stones) // 2)
    high = (cells + 1 - stones) // 2
    while low < high:
        mid = low + (high - low) // 2
        if mid <= 0 and low // 2 < mid:
            mid = low // 2
        elif mid >= 0 and high // 2 > mid:
            mid = high // 2
        r = negamax(mine, mask, stones, mid, mid + 1, rows, cols, keys, values, order, nodes)
        if r <= mid:
            high = r
        else:
            low = r
    return low
