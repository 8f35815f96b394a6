"""The reachable positions of a game as a dense index, built by compiled search.

A space lists the positions reachable from the start, in code order ("rows"); with symmetry on,
only the canonical representative of each class, and every move leads to the representative
of the position it produces. Nothing here is sized by the encoding: a hash set of reached codes
grows with what the search finds, so sparse encodings (Connect Four) cost what they reach.
"""

import numpy as np
from numba import prange

from qarena.games.base import GameArrays
from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.jit import njit, njit_inline, njit_parallel
from qarena.kernels.rules import decode_into, mover_mark, terminal_result

#: Rows :func:`index_space` hands a core at a time.
INDEX_BLOCK = 4096
#: An empty slot of the hash set.
EMPTY = -1
_MIX = 0x5851F42D4C957F2D


@njit_inline
def _slot(code: int, mask: int) -> int:
    h = code * _MIX
    h ^= h >> 29
    return int(h & mask)


@njit_inline
def _insert(keys: np.ndarray, code: int) -> bool:
    """Add ``code`` to the set; False if it was there already."""
    mask = keys.shape[0] - 1
    i = _slot(code, mask)
    while keys[i] != EMPTY:
        if keys[i] == code:
            return False
        i = (i + 1) & mask
    keys[i] = code
    return True


@njit_inline
def _row(codes: np.ndarray, first: np.ndarray, shift: int, code: int) -> int:
    """The row of ``code`` in the sorted ``codes``, searching its bucket of the directory."""
    b = code >> shift
    lo, hi = first[b], first[b + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    return int(lo)


@njit_inline
def _sorted_code(
    digits: np.ndarray, comp: int, take: int, weight: np.ndarray, rank: np.ndarray, work: np.ndarray
) -> int:
    """The code of the pile sizes (``take`` fewer in pile ``comp``, if one is given) sorted into
    the piles ranked by starting size: a heap game's class representative."""
    n = digits.shape[0]
    for i in range(n):  # insertion sort: a few piles
        v = digits[i] - take if i == comp else digits[i]
        j = i
        while j > 0 and work[j - 1] > v:
            work[j] = work[j - 1]
            j -= 1
        work[j] = v
    code = 0
    for j in range(n):
        code += work[j] * weight[rank[j]]
    return code


@njit_inline
def canonical_code(
    weight: np.ndarray,
    syms: np.ndarray,
    rank: np.ndarray,
    digits: np.ndarray,
    work: np.ndarray,
    canonical: bool,
) -> int:
    """The code of the position's class representative: the least code over the board's
    symmetries, or the pile sizes sorted into the piles ranked by starting size. It matches
    :meth:`Game.canonical`, so positions from outside find their row."""
    n = digits.shape[0]
    if not canonical or (syms.shape[0] <= 1 and rank.shape[0] <= 1):
        code = 0
        for i in range(n):
            code += digits[i] * weight[i]
        return code
    if rank.shape[0] > 1:
        return _sorted_code(digits, -1, 0, weight, rank, work)
    best = -1
    for s in range(syms.shape[0]):
        code = 0
        for i in range(n):
            code += digits[syms[s, i]] * weight[i]
        if best < 0 or code < best:
            best = code
    return best


@njit_inline
def orbit_size(
    weight: np.ndarray,
    radix: np.ndarray,
    syms: np.ndarray,
    rank: np.ndarray,
    digits: np.ndarray,
    work: np.ndarray,
    canonical: bool,
) -> int:
    """How many positions share the class of a representative: its distinct images under the
    board's symmetries, or the orderings of its pile sizes that fit the piles. Every one is
    reachable when the representative is (the rules do not tell them apart)."""
    n = digits.shape[0]
    if not canonical or (syms.shape[0] <= 1 and rank.shape[0] <= 1):
        return 1
    if rank.shape[0] > 1:
        # Place sizes from the largest down; each fits any pile at least as large that no
        # larger size took. Equal sizes are alike, so divide out their orderings.
        for i in range(n):
            work[i] = digits[i]
        work[:n].sort()
        ways = 1.0
        for i in range(n):
            s = work[n - 1 - i]
            fits = 0
            for j in range(n):
                if radix[j] - 1 >= s:
                    fits += 1
            ways *= fits - i
        run = 1
        for i in range(1, n + 1):
            if i < n and work[i] == work[i - 1]:
                run += 1
            else:
                for r in range(2, run + 1):
                    ways /= r
                run = 1
        return int(ways + 0.5)
    count = 0
    for s in range(syms.shape[0]):
        code = 0
        for i in range(n):
            code += digits[syms[s, i]] * weight[i]
        seen = False
        for t in range(s):
            other = 0
            for i in range(n):
                other += digits[syms[t, i]] * weight[i]
            if other == code:
                seen = True
                break
        if not seen:
            count += 1
    return count


@njit
def inverse_syms(syms: np.ndarray) -> np.ndarray:
    """``inv[s, cell]``: where symmetry ``s`` puts ``cell`` (``syms[s, inv[s, cell]] == cell``)."""
    inv = np.empty_like(syms)
    for s in range(syms.shape[0]):
        for i in range(syms.shape[1]):
            inv[s, syms[s, i]] = i
    return inv


@njit
def expand(
    ga: GameArrays,
    inv: np.ndarray,
    canonical: bool,
    digits: np.ndarray,
    mark: int,
    out: np.ndarray,
    other: np.ndarray,
    work: np.ndarray,
    base: np.ndarray,
) -> None:
    """``out[m]``: the code of the class representative after each move of a position where
    play goes on (``digits``, ``mark`` to move), -1 where the move is illegal. One call per
    position: a board's symmetric codes are summed once, and each move adds its one cell."""
    move_comp, weight, syms, rank = ga.move_comp, ga.weight, ga.syms, ga.rank
    n = digits.shape[0]
    symmetric = canonical and (syms.shape[0] > 1 or rank.shape[0] > 1)
    if ga.board:
        images = syms.shape[0] if symmetric else 1
        for s in range(images):
            code = 0
            for i in range(n):
                code += digits[syms[s, i] if symmetric else i] * weight[i]
            base[s] = code
        for m in range(move_comp.shape[0]):
            out[m] = -1
            cell = move_comp[m]
            if ga.gravity:  # the lowest empty cell of the column
                cell = -1
                for r in range(n // ga.cols - 1, -1, -1):
                    if digits[r * ga.cols + move_comp[m]] == 0:
                        cell = r * ga.cols + move_comp[m]
                        break
                if cell < 0:
                    continue
            elif digits[cell] != 0:
                continue
            best = -1
            for s in range(images):
                code = base[s] + mark * weight[inv[s, cell] if symmetric else cell]
                if best < 0 or code < best:
                    best = code
            out[m] = best
        return
    code = 0
    for i in range(n):
        code += digits[i] * weight[i]
    for m in range(move_comp.shape[0]):
        comp, take = move_comp[m], ga.move_take[m]
        if digits[comp] < take:
            out[m] = -1
        elif not symmetric:
            out[m] = code - take * weight[comp]
        else:
            out[m] = _sorted_code(digits, comp, take, weight, rank, work)


@njit
def explore(ga: GameArrays, canonical: bool, limit: int, bitmap: bool) -> tuple[np.ndarray, bool]:
    """The codes of every position reachable from the start (representatives, with
    ``canonical``), unsorted; and False if there are more than ``limit`` (the search stops).
    With ``bitmap``, what was reached is kept as a bit per code (for dense encodings: far
    faster than the hash set, and smaller)."""
    board, misere = ga.board, ga.misere
    radix, weight, lines, syms, rank = ga.radix, ga.weight, ga.lines, ga.syms, ga.rank
    n_comp = radix.shape[0]
    digits = np.zeros(n_comp, dtype=np.int64)
    other = np.zeros(n_comp, dtype=np.int64)
    work = np.zeros(n_comp, dtype=np.int64)
    inv = inverse_syms(syms)
    after = np.empty(ga.num_moves, dtype=np.int64)
    base = np.empty(max(1, syms.shape[0]), dtype=np.int64)
    codes = np.empty(1024, dtype=np.int64)
    keys = np.full(4096, EMPTY, dtype=np.int64)
    bits = np.zeros((ga.num_positions + 63) // 64 if bitmap else 1, dtype=np.uint64)
    decode_into(weight, radix, ga.start, digits)
    codes[0] = canonical_code(weight, syms, rank, digits, work, canonical)
    if bitmap:
        bits[codes[0] >> 6] |= np.uint64(1) << np.uint64(codes[0] & 63)
    else:
        _insert(keys, codes[0])
    count = 1
    head = 0
    while head < count:
        decode_into(weight, radix, codes[head], digits)
        head += 1
        if terminal_result(board, misere, lines, digits) != NOT_TERMINAL:
            continue
        expand(ga, inv, canonical, digits, mover_mark(board, digits), after, other, work, base)
        for m in range(after.shape[0]):
            c = after[m]
            if c < 0:
                continue
            if bitmap:
                bit = np.uint64(1) << np.uint64(c & 63)
                if bits[c >> 6] & bit:
                    continue
                bits[c >> 6] |= bit
            elif not _insert(keys, c):
                continue
            if count == limit:
                return codes[:count], False
            if count == codes.shape[0]:
                grown = np.empty(2 * count, dtype=np.int64)
                grown[:count] = codes
                codes = grown
            codes[count] = c
            count += 1
            if not bitmap and 10 * count > 7 * keys.shape[0]:
                bigger = np.full(2 * keys.shape[0], EMPTY, dtype=np.int64)
                for i in range(keys.shape[0]):
                    if keys[i] != EMPTY:
                        _insert(bigger, keys[i])
                keys = bigger
    return codes[:count], True


@njit_parallel
def index_space(
    ga: GameArrays,
    canonical: bool,
    codes: np.ndarray,
    succ: np.ndarray,
    moves: np.ndarray,
    nmoves: np.ndarray,
    result: np.ndarray,
    mover: np.ndarray,
    orbit: np.ndarray,
) -> None:
    """For the sorted ``codes``: ``succ[row, m]`` the row a move leads to (-1 illegal),
    ``moves[row, :nmoves[row]]`` the legal moves in order (the rest -1), the terminal
    ``result`` (NOT_TERMINAL if the game goes on), the seat to move (-1 where the position
    does not tell) and the class size."""
    board, misere = ga.board, ga.misere
    radix, weight, lines, syms, rank = ga.radix, ga.weight, ga.lines, ga.syms, ga.rank
    n = codes.shape[0]
    # The row of a code: a directory of where each bucket of codes (by their high bits)
    # starts in the sorted codes, then a binary search within the bucket; about one code a
    # bucket, at most 8 bytes a position (a hash set would take 12 to 24).
    shift = 0
    while (codes[n - 1] >> shift) >= 2 * n:
        shift += 1
    first = np.zeros((codes[n - 1] >> shift) + 2, dtype=np.int32)
    for row in range(n):
        first[(codes[row] >> shift) + 1] += 1
    for b in range(1, first.shape[0]):
        first[b] += first[b - 1]
    n_comp = radix.shape[0]
    n_moves = ga.num_moves
    inv = inverse_syms(syms)
    blocks = (n + INDEX_BLOCK - 1) // INDEX_BLOCK
    for b in prange(blocks):  # rows are independent: every core takes blocks of them
        digits = np.zeros(n_comp, dtype=np.int64)
        other = np.zeros(n_comp, dtype=np.int64)
        work = np.zeros(n_comp, dtype=np.int64)
        after = np.empty(n_moves, dtype=np.int64)
        base = np.empty(max(1, syms.shape[0]), dtype=np.int64)
        for row in range(b * INDEX_BLOCK, min(n, (b + 1) * INDEX_BLOCK)):
            decode_into(weight, radix, codes[row], digits)
            r = terminal_result(board, misere, lines, digits)
            result[row] = r
            orbit[row] = orbit_size(weight, radix, syms, rank, digits, work, canonical)
            mark = mover_mark(board, digits)
            mover[row] = mark - 1 if board else -1
            if r == NOT_TERMINAL:
                expand(ga, inv, canonical, digits, mark, after, other, work, base)
            k = 0
            for m in range(n_moves):
                succ[row, m] = -1
                moves[row, m] = -1
                if r != NOT_TERMINAL or after[m] < 0:
                    continue
                succ[row, m] = _row(codes, first, shift, after[m])
                moves[row, k] = m
                k += 1
            nmoves[row] = k


@njit
def retrograde(
    succ: np.ndarray,
    result: np.ndarray,
    start: int,
    max_plies: int,
    value: np.ndarray,
    depth: np.ndarray,
    order: np.ndarray,
) -> int:
    """Game values from the mover's side (``value``: 1, 0, -1) and ``depth``, the plies to the
    end when the winner hurries and the loser holds out, by a depth-first search from the
    start that values each row once all its successors are valued. ``order`` receives the rows
    where play goes on in the order they were valued, every row after all rows it leads to;
    returns how many there are."""
    n = succ.shape[0]
    done = np.zeros(n, dtype=np.bool_)
    stack = np.empty(max_plies + 2, dtype=np.int64)
    next_move = np.empty(max_plies + 2, dtype=np.int64)
    for row in range(n):
        if result[row] != NOT_TERMINAL:
            value[row] = result[row]
            depth[row] = 0
            done[row] = True
    if done[start]:
        return 0
    finished = 0
    top = 0
    stack[0] = start
    next_move[0] = 0
    while top >= 0:
        row = stack[top]
        m = next_move[top]
        pushed = False
        while m < succ.shape[1]:
            child = succ[row, m]
            m += 1
            if child >= 0 and not done[child]:
                next_move[top] = m
                top += 1
                stack[top] = child
                next_move[top] = 0
                pushed = True
                break
        if pushed:
            continue
        best = -2
        best_depth = 0
        for mv in range(succ.shape[1]):
            child = succ[row, mv]
            if child < 0:
                continue
            v = -value[child]
            d = depth[child] + 1
            # Prefer the higher value; among wins the quickest, among losses and draws the longest.
            if v > best or (
                v == best and ((v > 0 and d < best_depth) or (v <= 0 and d > best_depth))
            ):
                best = v
                best_depth = d
        value[row] = best
        depth[row] = best_depth
        done[row] = True
        order[finished] = row
        finished += 1
        top -= 1
    return finished
