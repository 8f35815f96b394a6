"""Connect Four by search, for boards too big to enumerate: bitboards, negamax alpha-beta with
a transposition table of bounds, threat-ordered moves, and a null-window driver.

A position is two 64-bit words: ``mine`` (the stones of the player to move) and ``mask`` (all
stones). Each column holds ``rows + 1`` bits, bottom first, the top one always empty, so that
a shift by ``rows + 1`` moves one column across and never wraps a line into the next column;
``cols * (rows + 1)`` must be at most 64. ``mine + mask`` is a position's unique key, and a
column's part of it depends on that column alone, so the mirror image's key is the key with
its columns reversed; the table keeps a position and its mirror image under the smaller key.

Scores are those of Pons' solver and BitBully: 0 for a draw; for a win, the number of stones
the winner has left to place, plus one (``(cells + 1 - stones at the win) // 2``), positive
when the player to move wins, negative when it loses. A score says who wins and how soon.

The table is one array of 64-bit entries, so an entry is written and read whole and threads
can share the table without locks. An entry holds, from the top: the key's low 40 bits, a slot
bit, the work spent on the position (the binary log of its subtree's nodes, 5 bits), the column
of the move that proved its lower bound (4 bits), and both bounds (7 bits each, 0 for none).
A key's home is the key modulo ``size`` (an odd prime, the array holding one more entry); it is
kept at its home or the entry after (a two-way bucket: a new key takes the place of the one
that cost less work, so big subtrees stay), the slot bit saying which. Why a match is never a
false one: an entry's place and slot bit give its key modulo ``size``, its key bits give the
key modulo 2^40, and so (Chinese remainders, ``size`` odd) the key modulo ``size`` · 2^40,
which is the key itself when ``size`` ≥ 2^(key bits − 40) (:func:`least_entries`). Without
the slot bit the place alone would leave two candidate homes, and the argument would fail.

Every value is a ``np.uint64`` or a plain int in the kernels, so the pure-Python fallback
(NUMBA_DISABLE_JIT=1) wraps at 64 bits as numba does and gives the same scores.
"""

from __future__ import annotations

import numpy as np

from qarena.kernels.jit import njit

#: Bits of the key an entry keeps.
KEY_BITS = 40
_KEY_LOW = np.uint64((1 << KEY_BITS) - 1)
_KEY_SHIFT = np.uint64(64 - KEY_BITS)
_SLOT = np.uint64(1 << (63 - KEY_BITS))  # set when an entry sits one past its key's home
_ID = ~np.uint64((1 << (63 - KEY_BITS)) - 1)  # the key bits and the slot bit
_WORK_SHIFT = np.uint64(18)
_WORK_MOST = 31
_INFO = np.uint64((1 << 18) - 1)  # the move (4 bits) above the upper and the lower bound
#: Positions with at most this many empty cells are not mirrored for the table: symmetric
#: twins are rare that late, and reversing the columns would cost more than it finds.
MIRROR_UNTIL = 20
#: Positions with at most this many empty cells are searched without the table: their trees
#: are small, and a probe far away in memory costs more than it saves.
TABLE_FROM = 8
#: Positions with an odd count of empty cells are kept in the table only with more than this:
#: nearer the end a probe costs more than it saves.
ODD_FROM = 14
#: Positions with more empty cells than this look their moves up in the table first.
ETC_FROM = 10
#: A search's ``counters``: the nodes searched, the stop flag, then the nodes searched split
#: the way Steininger's c4 counts (it counts only the interior ones): settled at entry with no
#: move tried (no safe move, the last two cells, two stacked threats), with exactly one safe
#: move, with several cut at entry by bounds or the table, and interior (moves sorted and tried).
C_NODES, C_STOP, C_LEAVES, C_FORCED, C_CUTS, C_INTERIOR = 0, 1, 2, 3, 4, 5
COUNTERS = 6
#: Not a score: the marker that a node goes on to its next move.
_DESCEND = -1000
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
def table_key(mine: np.uint64, mask: np.uint64, empty: int, rows: int, cols: int,
              geo: np.ndarray) -> tuple[np.uint64, bool]:  # fmt: skip
    """The key the table keeps a position under, and whether it is the mirror image's."""
    key = mine + mask
    if empty > MIRROR_UNTIL:
        other = mirrored(key, rows, cols, geo)
        if other < key:
            return other, True
    return key, False


def least_entries(rows: int, cols: int) -> int:
    """The fewest entries (the table's ``size``) for which a match is never a false one."""
    return 1 << max(0, cols * (rows + 1) - KEY_BITS)


@njit
def kept(empty: int) -> bool:
    """Whether the table keeps positions with this many empty cells."""
    return empty > TABLE_FROM and (empty % 2 == 0 or empty > ODD_FROM)


@njit
def probe(table: np.ndarray, key: np.uint64) -> int:
    """What the table keeps for ``key`` (0 when nothing): the column of the move that proved
    its lower bound plus one (0 for none), times 16,384; plus its upper bound times 128; plus
    its lower bound; each bound the score less the least score, 0 for none."""
    home = np.int64(key % np.uint64(table.size - 1))  # int64: uint64 + 1 would be a float
    tag = (key & _KEY_LOW) << _KEY_SHIFT
    entry = table[home]
    if entry & _ID == tag:
        return int(np.int64(entry & _INFO))  # int64, not uint64: it meets int64 later
    entry = table[home + 1]
    if entry & _ID == tag | _SLOT:
        return int(np.int64(entry & _INFO))
    return 0


@njit
def work_of(nodes: int) -> int:
    """The binary log of a count of nodes, at most what an entry can hold."""
    w = 0
    while nodes > 1 and w < _WORK_MOST:
        nodes >>= 1
        w += 1
    return w


@njit
def store(table: np.ndarray, key: np.uint64, lower: int, upper: int, best: int, work: int) -> None:
    """Keep bounds for ``key`` (each the score less the least score, 0 for none), the column
    of the move that proved the lower one (-1 for none) and the work spent: merged with what
    the table keeps for ``key`` (the tighter of each bound), else in the slot of its bucket
    that cost less work."""
    home = np.int64(key % np.uint64(table.size - 1))  # int64: uint64 + 1 would be a float
    tag = (key & _KEY_LOW) << _KEY_SHIFT
    first = table[home]
    second = table[home + 1]
    old = np.uint64(0)
    if first & _ID == tag:
        slot = home
        old = first
    elif second & _ID == tag | _SLOT:
        slot = home + 1
        old = second
    elif (first >> _WORK_SHIFT) & np.uint64(31) < (second >> _WORK_SHIFT) & np.uint64(31):
        slot = home
    else:
        slot = home + 1
    if old:
        was_lower = int(old & np.uint64(127))
        was_upper = int((old >> np.uint64(7)) & np.uint64(127))
        lower = max(lower, was_lower)
        if was_upper and (upper == 0 or was_upper < upper):
            upper = was_upper
        if best < 0:
            best = int((old >> np.uint64(14)) & np.uint64(15)) - 1
        work = max(work, int((old >> _WORK_SHIFT) & np.uint64(31)))
    if slot != home:
        tag |= _SLOT
    table[slot] = (
        tag
        | (np.uint64(work) << _WORK_SHIFT)
        | (np.uint64(best + 1) << np.uint64(14))
        | (np.uint64(upper) << np.uint64(7))
        | np.uint64(lower)
    )


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
    the search gives up at once and stores nothing more (its result is then meaningless)."""
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
def centre_order(cols: int) -> np.ndarray:
    """Columns from the centre outwards."""
    order = np.empty(cols, dtype=np.int64)
    for i in range(cols):
        order[i] = cols // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2)
    return order


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


#: What :func:`move_score` gives for a full column: below every score.
FULL = -1000
#: What :func:`back_up` gives for a position whose successor it was not given.
MISSING = -1001


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
