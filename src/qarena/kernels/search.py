"""Connect Four by search, for boards too big to enumerate: bitboards, negamax alpha-beta with
a transposition table of bounds, threat-ordered moves, and a null-window driver.

A position is two 64-bit words (``kernels/bitboard.py``): ``mine`` (the stones of the player to
move) and ``mask`` (all stones); the transposition table is ``kernels/search_table.py``, the
opening books' kernels ``kernels/search_book.py``. Every name of the three is also here, where
the solver's callers have always found them.

Scores are those of Pons' solver and BitBully: 0 for a draw; for a win, the number of stones
the winner has left to place, plus one (``(cells + 1 - stones at the win) // 2``), positive
when the player to move wins, negative when it loses. A score says who wins and how soon.

Every value is a ``np.uint64`` or a plain int in the kernels, so the pure-Python fallback
(NUMBA_DISABLE_JIT=1) wraps at 64 bits as numba does and gives the same scores.
"""

from __future__ import annotations

import numpy as np

from qarena.kernels.bitboard import (
    GEO_BOARD,
    GEO_BOTTOM,
    GEO_COLUMNS,
    GEO_EVEN,
    board_cells,
    bottom_row,
    cannot_win,
    centre_order,
    column_bits,
    geometry,
    has_four,
    mirrored,
    playable,
    popcount,
    safe_given,
    safe_moves,
    winning_cells,
)
from qarena.kernels.jit import njit
from qarena.kernels.search_book import (
    FULL,
    MISSING,
    back_up,
    canonical,
    expand,
    immediate_scores,
)
from qarena.kernels.search_table import (
    ETC_FROM,
    KEY_BITS,
    MIRROR_UNTIL,
    ODD_FROM,
    TABLE_FROM,
    kept,
    least_entries,
    probe,
    store,
    table_key,
    work_of,
)

#: A search's ``counters``: the nodes searched, the stop flag, then the nodes searched split
#: the way Steininger's c4 counts (it counts only the interior ones): settled at entry with no
#: move tried (no safe move, the last two cells, two stacked threats), with exactly one safe
#: move, with several cut at entry by bounds or the table, and interior (moves sorted and tried);
#: last, the most nodes the search may count (0: no limit), past which it stops itself as if
#: told to: a budget that ends a search at the same node on any machine, as seconds do not.
C_NODES, C_STOP, C_LEAVES, C_FORCED, C_CUTS, C_INTERIOR, C_BUDGET = 0, 1, 2, 3, 4, 5, 6
COUNTERS = 7
#: Not a score: the marker that a node goes on to its next move.
_DESCEND = -1000

#: A search frame's fields, one row per depth below the searched position.
F_MINE, F_MASK, F_KEY = 0, 1, 2  # words: the mover's stones, all stones, the table's key
# ... the cells the mover and the opponent win on (handed down by the parent, which found
# them ordering its moves, so no node computes them again), then the opponent's winning
# cells after each move in order
F_OURS, F_THEIRS, F_THREATS = 3, 4, 5
#: The width of a frame's ``words`` row, given the columns.
WORDS = F_THREATS
# numbers: the window, the count of moves in order, the next one, whether the key is mirrored
# and the nodes counted before it
F_ALPHA, F_BETA, F_MOVES, F_NEXT, F_FLIP, F_START = 0, 1, 2, 3, 4, 5


@njit
def negamax(
    mine: np.uint64,
    mask: np.uint64,
    stones: int,
    alpha: int,
    beta: int,
    rows: int,
    cols: int,
    geo: np.ndarray,
    table: np.ndarray,
    order: np.ndarray,
    words: np.ndarray,
    numbers: np.ndarray,
    picked: np.ndarray,
    counters: np.ndarray,
) -> int:
    """The score of a position where the player to move cannot win at once, or a bound of it:
    at most ``alpha`` when the score is, at least ``beta`` when the score is, else the score.
    The table keeps both bounds by key (see the module's text).

    The recursion runs on an explicit stack, one row of ``words``, ``numbers`` and ``picked``
    (the moves in the order they are tried) per depth, so no node calls, allocates or counts
    references. ``counters[0]`` counts nodes; when ``counters[1]`` is set by another thread
    (or by the search itself, past ``counters[C_BUDGET]`` nodes when that is not 0) the search
    gives up at once and stores nothing more (its result is then meaningless)."""
    cells = rows * cols
    bottom = geo[GEO_BOTTOM]
    board = geo[GEO_BOARD]
    least = -(cells // 2) - 1  # below every score: what the table adds to keep entries above 0
    one = np.uint64(1)
    two = np.uint64(2)
    d = 0
    words[0, F_MINE] = mine
    words[0, F_MASK] = mask
    numbers[0, F_ALPHA] = alpha
    numbers[0, F_BETA] = beta
    entering = True
    result = 0
    while True:
        if entering:
            counters[0] += 1
            if counters[C_BUDGET] and counters[0] > counters[C_BUDGET]:
                counters[1] = 1
            if counters[1]:
                return 0
            numbers[d, F_START] = counters[0]
            mine = words[d, F_MINE]
            mask = words[d, F_MASK]
            alpha = numbers[d, F_ALPHA]
            beta = numbers[d, F_BETA]
            at = stones + d
            if d:
                ours = words[d, F_OURS]
                theirs = words[d, F_THEIRS]
            else:
                ours = winning_cells(mine, mask, rows, board)
                theirs = winning_cells(mine ^ mask, mask, rows, board)
                words[d, F_THEIRS] = theirs  # for the children, as a parent hands it down
            moves = safe_given(theirs, mask, bottom, board)
            high = (cells - 1 - at) // 2  # the player cannot win on this stone
            low = -((cells - 2 - at) // 2)  # the opponent cannot win on its next stone
            entering = False
            if moves == np.uint64(0):
                counters[C_LEAVES] += 1
                result = -((cells - at) // 2)  # whatever it plays, the opponent wins next
            elif at >= cells - 2:
                counters[C_LEAVES] += 1
                result = 0  # neither can win in the last two stones
            elif moves & (ours >> one) & (ours >> two):
                # A safe move under two of its own cells stacked: only one can be blocked.
                counters[C_LEAVES] += 1
                result = high
            else:
                if moves & (moves - one):
                    several = True
                else:
                    several = False
                    counters[C_FORCED] += 1
                empty = cells - at
                key = np.uint64(0)
                flipped = False
                found = 0
                first = -1  # the column of the move the table says proved a lower bound
                if kept(empty):
                    key, flipped = table_key(mine, mask, empty, rows, cols, geo)
                    found = probe(table, key)
                    first = (found >> 14) - 1
                    if first >= 0 and flipped:
                        first = cols - 1 - first
                alpha = max(alpha, low)
                if beta > 0 and high > 0 and cannot_win(mine, mask, at, rows, geo):
                    high = 0
                if found & 127:
                    alpha = max(alpha, (found & 127) + least)
                if (found >> 7) & 127:
                    high = min(high, ((found >> 7) & 127) + least)
                beta = min(beta, high)
                if alpha < beta and empty > ETC_FROM and kept(empty - 1):
                    # What a move leads to may be in the table: an upper bound there is a
                    # lower bound here (enhanced transposition cutoff).
                    rest = moves
                    while rest:
                        move = rest & (~rest + one)
                        rest ^= move
                        child, _flip = table_key(
                            mine ^ mask, mask | move, empty - 1, rows, cols, geo
                        )
                        seen = probe(table, child)
                        if (seen >> 7) & 127:
                            alpha = max(alpha, -(((seen >> 7) & 127) + least))
                            if alpha >= beta:
                                break
                        if seen & 127 and -((seen & 127) + least) <= alpha:
                            # ... and a lower bound there that the move cannot beat alpha
                            # with drops the move (alpha only grows; none left: a fail low).
                            moves ^= move
                if alpha < beta:
                    # The safe moves, those that make the most new threats first (less one
                    # for a move under the player's own threat, which the opponent would
                    # then block); ties in centre order. Each move's position is looked at
                    # first: if the opponent has no safe move there, the player wins with
                    # its next stone, the best it can (``high``), and nothing is searched.
                    n = 0
                    won = False
                    for i in range(cols):
                        move = moves & geo[GEO_COLUMNS + order[i]]
                        if move:
                            threats = winning_cells(mine | move, mask | move, rows, board)
                            replies = playable(mask | move, bottom, board)
                            blocks = replies & threats
                            if blocks:
                                replies = blocks
                            reply = replies & ~(threats >> one)
                            if blocks & (blocks - one) or reply == np.uint64(0):
                                won = True  # two threats to block, or no safe reply
                            elif reply & (reply - one) == np.uint64(0) and kept(empty - 2):
                                # One safe reply (c4's forced move): the position after it
                                # may be in the table, and its bounds are the move's (any
                                # other reply loses at once).
                                after, _flip = table_key(
                                    mine | move, mask | move | reply, empty - 2, rows, cols, geo
                                )
                                seen = probe(table, after)
                                if seen & 127:
                                    alpha = max(alpha, (seen & 127) + least)
                                    if alpha >= beta:
                                        break
                                if (seen >> 7) & 127 and ((seen >> 7) & 127) + least <= alpha:
                                    continue  # the move cannot beat alpha: not tried
                            rank = popcount(threats)
                            if ours & (move << one):
                                rank -= 1
                            if order[i] == first:
                                rank = cells  # above every count of threats
                            j = n
                            while j > 0 and picked[d, cols + j - 1] < rank:
                                picked[d, j] = picked[d, j - 1]
                                picked[d, cols + j] = picked[d, cols + j - 1]
                                words[d, F_THREATS + j] = words[d, F_THREATS + j - 1]
                                j -= 1
                            picked[d, j] = move
                            words[d, F_THREATS + j] = threats
                            picked[d, cols + j] = rank
                            n += 1
                    if won:
                        alpha = beta = high  # the score, exactly
                    else:
                        # No move leaves the opponent without a safe reply: the player cannot
                        # win with its next stone either.
                        high = (cells - 3 - at) // 2
                        beta = min(beta, high)
                if alpha >= beta:
                    if several:
                        counters[C_CUTS] += 1
                    result = alpha
                else:
                    if several:
                        counters[C_INTERIOR] += 1
                    words[d, F_KEY] = key
                    numbers[d, F_FLIP] = flipped
                    numbers[d, F_ALPHA] = alpha
                    numbers[d, F_BETA] = beta
                    numbers[d, F_MOVES] = n
                    numbers[d, F_NEXT] = 0
                    result = _DESCEND
        else:
            # A child's result: the opponent's score, so the negation is the player's.
            d -= 1
            score = -result
            alpha = numbers[d, F_ALPHA]
            beta = numbers[d, F_BETA]
            if score >= beta:
                empty = cells - stones - d
                if kept(empty):
                    move = np.uint64(picked[d, numbers[d, F_NEXT] - 1])
                    best = popcount(move - one) // (rows + 1)
                    if numbers[d, F_FLIP]:
                        best = cols - 1 - best
                    work = work_of(counters[0] - numbers[d, F_START])
                    store(table, words[d, F_KEY], score - least, 0, best, work)
                result = score
            else:
                if score > alpha:
                    alpha = score
                    numbers[d, F_ALPHA] = alpha
                result = _DESCEND
        if result == _DESCEND:
            i = numbers[d, F_NEXT]
            if i < numbers[d, F_MOVES]:
                # The opponent moves next: its stones are the others, the move joins the mask.
                numbers[d, F_NEXT] = i + 1
                words[d + 1, F_MINE] = words[d, F_MINE] ^ words[d, F_MASK]
                words[d + 1, F_MASK] = words[d, F_MASK] | np.uint64(picked[d, i])
                # The child's winning cells: this player's (its opponent's) after the move,
                # and the opponent's less the cell the move took.
                words[d + 1, F_THEIRS] = words[d, F_THREATS + i]
                words[d + 1, F_OURS] = words[d, F_THEIRS] & ~np.uint64(picked[d, i])
                numbers[d + 1, F_ALPHA] = -numbers[d, F_BETA]
                numbers[d + 1, F_BETA] = -numbers[d, F_ALPHA]
                d += 1
                entering = True
                continue
            empty = cells - stones - d
            if kept(empty):
                work = work_of(counters[0] - numbers[d, F_START])
                store(table, words[d, F_KEY], 0, numbers[d, F_ALPHA] - least, -1, work)
            result = numbers[d, F_ALPHA]
        if d == 0:
            return result


@njit
def solve_bits(
    mine: np.uint64,
    mask: np.uint64,
    stones: int,
    rows: int,
    cols: int,
    table: np.ndarray,
    counters: np.ndarray,
    variant: int = 0,
    weak: bool = False,
) -> int:
    """The exact score of a position (no four on the board yet): null-window searches, the
    first whether the score is above 0, each next one a step past the bound the last one
    found (as MTD(f) steps; scores of early positions are near 0, and every step's search
    leaves the table ready for the next). With
    ``weak``, only who wins: 1, 0 or -1 (a win, a draw, a loss), which is found sooner.

    ``variant`` above 0 breaks ties between moves in another order: threads that search the
    same position in different orders fill the shared table for each other."""
    cells = rows * cols
    high = (cells + 1 - stones) // 2
    board = board_cells(rows, cols)
    if winning_cells(mine, mask, rows, board) & playable(mask, bottom_row(rows, cols), board):
        return high  # a win at once (its score even when ``weak``)
    low = -((cells - stones) // 2)
    if weak:
        low, high = -1, 1
    found = solve_between(mine, mask, stones, rows, cols, table, counters, variant, low, high)
    return max(low, min(high, found))


@njit
def solve_between(
    mine: np.uint64,
    mask: np.uint64,
    stones: int,
    rows: int,
    cols: int,
    table: np.ndarray,
    counters: np.ndarray,
    variant: int,
    low: int,
    high: int,
) -> int:
    """The score of a position (no four on the board yet) as far as the window from ``low``
    to ``high`` (``low < high``) tells it: a found value above ``low`` and below ``high`` is
    the score; one at ``low`` or below is an upper bound of it, one at ``high`` or above a
    lower bound (fail-soft). ``solve_between(..., s, s + 1)`` is one null-window test: is
    the score above ``s``? The steps are those of :func:`solve_bits`."""
    cells = rows * cols
    geo = geometry(rows, cols)
    if winning_cells(mine, mask, rows, geo[GEO_BOARD]) & playable(
        mask, geo[GEO_BOTTOM], geo[GEO_BOARD]
    ):
        return (cells + 1 - stones) // 2
    order = centre_order(cols)
    for v in range(variant):  # each variant swaps another pair of neighbours in the order
        i = (2 * v + 1) % (cols - 1)
        order[i], order[i + 1] = order[i + 1], order[i]
    depth = cells + 1 - stones
    words = np.zeros((depth, WORDS + cols), dtype=np.uint64)
    numbers = np.zeros((depth, 6), dtype=np.int64)
    picked = np.zeros((depth, 2 * cols), dtype=np.int64)
    guess = 0
    found = low
    while low < high:
        mid = max(low, min(high - 1, guess))
        r = negamax(
            mine, mask, stones, mid, mid + 1, rows, cols, geo, table, order, words, numbers,
            picked, counters,
        )  # fmt: skip
        if counters[1]:
            return 0
        found = r
        if r <= mid:
            high = r
            guess = r - 1
        else:
            low = r
            guess = r
    return found


@njit
def move_score(
    mine: np.uint64,
    mask: np.uint64,
    stones: int,
    rows: int,
    cols: int,
    col: int,
    table: np.ndarray,
    counters: np.ndarray,
    weak: bool = False,
) -> int:
    """The score of a stone in column ``col`` for the player making it (``FULL`` when the
    column is): a win at once, the board's last cell, or the negation of the score after.
    With ``weak``, only its sign (see :func:`solve_bits`)."""
    cells = rows * cols
    bottom = bottom_row(rows, cols)
    board = board_cells(rows, cols)
    move = playable(mask, bottom, board) & column_bits(col, rows)
    if not move:
        return FULL
    if winning_cells(mine, mask, rows, board) & move:
        return 1 if weak else (cells + 1 - stones) // 2
    if stones + 1 == cells:
        return 0
    return -solve_bits(mine ^ mask, mask | move, stones + 1, rows, cols, table, counters, 0, weak)


__all__ = [
    "COUNTERS",
    "C_BUDGET",
    "C_CUTS",
    "C_FORCED",
    "C_INTERIOR",
    "C_LEAVES",
    "C_NODES",
    "C_STOP",
    "ETC_FROM",
    "FULL",
    "GEO_BOARD",
    "GEO_BOTTOM",
    "GEO_COLUMNS",
    "GEO_EVEN",
    "KEY_BITS",
    "MIRROR_UNTIL",
    "MISSING",
    "ODD_FROM",
    "TABLE_FROM",
    "back_up",
    "board_cells",
    "bottom_row",
    "cannot_win",
    "canonical",
    "centre_order",
    "column_bits",
    "expand",
    "geometry",
    "has_four",
    "immediate_scores",
    "kept",
    "least_entries",
    "mirrored",
    "move_score",
    "negamax",
    "playable",
    "popcount",
    "probe",
    "safe_given",
    "safe_moves",
    "solve_between",
    "solve_bits",
    "store",
    "table_key",
    "winning_cells",
    "work_of",
]
