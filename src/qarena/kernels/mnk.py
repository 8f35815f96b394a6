"""Tic-tac-toe (m,n,k-games) by search, for boards too big to enumerate: bitboards, negamax
alpha-beta with a transposition table of bounds, forced moves, and a null-window driver.

A position is two 64-bit words, ``me`` (the stones of the player to move) and ``them``, a
cell's bit its row-major index. The board's lines of ``k`` cells are masks (``lines``), so a
win, a threat (a line one stone short with the rest empty) and a line still open are a few
ANDs per line. The search uses three facts of these games:

- a player with a threat wins at once; facing two threats, the mover loses next move; facing
  one, it must block there;
- a player with no open line can win no more: its best is a draw, which bounds the score;
- the table folds the board's symmetries: a position is kept under the smallest of its images'
  keys. A key is the board in base 3 (a cell 0 empty, 1 the mover's, 2 the other's), unique on
  boards of up to 40 cells, so a match is never a false one.

Scores are those of Connect Four's solvers (``kernels/search``): 0 a draw; a win is
``(cells + 1 - stones before the winning move) // 2``, positive when the player to move wins,
so a score says who wins and how soon.

Every value is a ``np.uint64`` or a plain int, so the pure-Python fallback (NUMBA_DISABLE_JIT=1)
gives the same scores.
"""

from __future__ import annotations

import numpy as np

from qarena.kernels.jit import njit

#: Boards of at most this many cells have exact keys (3**40 < 2**64).
MAX_CELLS = 40
#: Bytes a table entry takes: its key (8) and its bound (2).
ENTRY_BYTES = 10
#: A table entry's kinds of bound.
EXACT, LOWER, UPPER = 0, 1, 2
#: A slot holds a key plus one, so a table of zeros (pages the system hands out lazily) is
#: empty: 0 is no key's.
_ONE = np.uint64(1)
#: The length of a search's ``counters``: the nodes searched, the stop flag.
COUNTERS = 2
#: A score no position has: "stopped before an answer".
STOPPED = -1000


@njit
def popcount(x: np.uint64) -> int:
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit
def threats(me: np.uint64, them: np.uint64, lines: np.ndarray, k: int) -> np.uint64:
    """The empty cells where ``me`` completes a line."""
    out = np.uint64(0)
    for w in lines:
        if not (w & them) and popcount(w & me) == k - 1:
            out |= w & ~me
    return out


@njit
def has_open_line(me: np.uint64, them: np.uint64, lines: np.ndarray) -> bool:
    """Whether some line holds none of ``them``: ``me`` may still win."""
    for w in lines:  # noqa: SIM110 - numba compiles no generators
        if not (w & them):
            return True
    return False


@njit
def key_of(me: np.uint64, them: np.uint64, images: np.ndarray, powers: np.ndarray) -> np.uint64:
    """The smallest key among the position's images: ``images[s, cell]`` is where symmetry
    ``s`` takes ``cell``, ``powers[cell]`` that cell's power of 3."""
    best = np.uint64(0xFFFFFFFFFFFFFFFF)
    for s in range(images.shape[0]):
        key = np.uint64(0)
        bits = me
        while bits:
            low = bits & (~bits + np.uint64(1))
            key += powers[images[s, popcount(low - np.uint64(1))]]
            bits ^= low
        bits = them
        while bits:
            low = bits & (~bits + np.uint64(1))
            key += np.uint64(2) * powers[images[s, popcount(low - np.uint64(1))]]
            bits ^= low
        best = min(best, key)
    return best


@njit
def _promise(cell: np.uint64, me: np.uint64, them: np.uint64, lines: np.ndarray) -> int:
    """How much a cell matters to both players: its open lines, more for stones on them."""
    s = 0
    for w in lines:
        if w & cell:
            if not (w & them):
                s += 1 + 4 * popcount(w & me)
            if not (w & me):
                s += 1 + 4 * popcount(w & them)
    return s


@njit
def negamax(
    me: np.uint64,
    them: np.uint64,
    stones: int,
    alpha: int,
    beta: int,
    cells: int,
    board: np.uint64,
    lines: np.ndarray,
    k: int,
    images: np.ndarray,
    powers: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    counters: np.ndarray,
) -> int:
    """The score of a position where play goes on, within (``alpha``, ``beta``): exact
    inside, else a bound on the side it fell (at most ``alpha``, at least ``beta``).
    :data:`STOPPED` once ``counters[1]`` is set.

    An explicit stack, not recursion: numba's on-disk cache does not keep recursive kernels
    safely, and the stack's arrays are made once per search, not once per node."""
    depth = cells - stones + 2
    mes = np.zeros(depth, dtype=np.uint64)
    thems = np.zeros(depth, dtype=np.uint64)
    alphas = np.zeros(depth, dtype=np.int64)
    betas = np.zeros(depth, dtype=np.int64)
    starts = np.zeros(depth, dtype=np.int64)
    bests = np.zeros(depth, dtype=np.int64)
    slots = np.zeros(depth, dtype=np.int64)
    tags = np.zeros(depth, dtype=np.uint64)
    counts = np.zeros(depth, dtype=np.int64)
    nexts = np.zeros(depth, dtype=np.int64)
    moves = np.zeros((depth, cells), dtype=np.uint64)
    ranks = np.zeros(cells, dtype=np.int64)
    size = np.uint64(keys.size)
    d = 0
    mes[0], thems[0], alphas[0], betas[0] = me, them, alpha, beta
    answer = 0
    descend = True
    while True:
        if descend:
            counters[0] += 1
            if counters[1]:
                return STOPPED
            me, them = mes[d], thems[d]
            alpha, beta = alphas[d], betas[d]
            placed = stones + d
            empty = board & ~(me | them)
            done = True
            forced = np.uint64(0)
            if not empty:
                answer = 0
            elif threats(me, them, lines, k) & empty:
                answer = (cells + 1 - placed) // 2
            else:
                forced = threats(them, me, lines, k) & empty
                if popcount(forced) >= 2:
                    answer = -((cells - placed) // 2)
                else:
                    # The best and worst the mover can get: a win two moves on, a loss at
                    # the next move; a draw at best (worst) when the mover (the other) has no
                    # open line left.
                    hi = (cells - 1 - placed) // 2 if has_open_line(me, them, lines) else 0
                    lo = -((cells - placed) // 2) if has_open_line(them, me, lines) else 0
                    if hi <= alpha or lo == hi:
                        answer = hi
                    elif lo >= beta:
                        answer = lo
                    else:
                        alpha = max(alpha, lo)
                        beta = min(beta, hi)
                        tag = key_of(me, them, images, powers) + _ONE
                        slot = int(tag % size)
                        done = False
                        if keys[slot] == tag:
                            entry = int(values[slot])
                            kind, found = entry & 3, (entry >> 2) - 64
                            if kind == EXACT:
                                answer, done = found, True
                            elif kind == LOWER:
                                if found >= beta:
                                    answer, done = found, True
                                alpha = max(alpha, found)
                            elif found <= alpha:
                                answer, done = found, True
                            else:
                                beta = min(beta, found)
                        if not done:
                            alphas[d], betas[d], starts[d] = alpha, beta, alpha
                            bests[d], slots[d], tags[d] = -1000, slot, tag
                            if forced:
                                moves[d, 0] = forced
                                counts[d] = 1
                            else:
                                n = 0
                                bits = empty
                                while bits:
                                    low = bits & (~bits + np.uint64(1))
                                    # Insertion by promise; ties keep the lower cell first.
                                    rank = -_promise(low, me, them, lines)
                                    j = n
                                    while j > 0 and ranks[j - 1] > rank:
                                        ranks[j] = ranks[j - 1]
                                        moves[d, j] = moves[d, j - 1]
                                        j -= 1
                                    ranks[j] = rank
                                    moves[d, j] = low
                                    n += 1
                                    bits ^= low
                                counts[d] = n
                            nexts[d] = 1
                            mes[d + 1], thems[d + 1] = them, me | moves[d, 0]
                            alphas[d + 1], betas[d + 1] = -beta, -alpha
                            d += 1
                            continue
        # The node at depth d is done with ``answer``: back to its parent.
        if d == 0:
            return answer
        d -= 1
        bests[d] = max(bests[d], -answer)
        alphas[d] = max(alphas[d], bests[d])
        i = nexts[d]
        if alphas[d] < betas[d] and i < counts[d]:
            nexts[d] = i + 1
            mes[d + 1], thems[d + 1] = thems[d], mes[d] | moves[d, i]
            alphas[d + 1], betas[d + 1] = -betas[d], -alphas[d]
            d += 1
            descend = True
            continue
        best = bests[d]
        kind = UPPER if best <= starts[d] else LOWER if best >= betas[d] else EXACT
        keys[slots[d]] = tags[d]
        values[slots[d]] = np.int16(((best + 64) << 2) | kind)
        answer = best
        descend = False


@njit
def solve_bits(
    me: np.uint64,
    them: np.uint64,
    stones: int,
    weak: bool,
    cells: int,
    board: np.uint64,
    lines: np.ndarray,
    k: int,
    images: np.ndarray,
    powers: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    counters: np.ndarray,
) -> int:
    """The score of a position where play goes on (with ``weak``, its sign only), by
    null-window steps that halve the range of scores still possible, as Pons' solver does;
    :data:`STOPPED` when stopped."""
    if weak:
        found = negamax(
            me, them, stones, -1, 1, cells, board, lines, k, images, powers, keys, values,
            counters,
        )  # fmt: skip
        return STOPPED if found == STOPPED else (found > 0) - (found < 0)
    low, high = -((cells - stones) // 2), (cells + 1 - stones) // 2
    while low < high:
        middle = low + (high - low) // 2
        if middle <= 0 and low // 2 < middle:
            middle = low // 2
        elif middle >= 0 and high // 2 > middle:
            middle = high // 2
        found = negamax(
            me, them, stones, middle, middle + 1, cells, board, lines, k, images, powers,
            keys, values, counters,
        )  # fmt: skip
        if found == STOPPED:
            return STOPPED
        if found <= middle:
            high = found
        else:
            low = found
    return low
