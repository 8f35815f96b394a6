"""MCTS (UCT with random rollouts) compiled, for every game in GameArrays form: the same
search as :mod:`qarena.agents.mcts`'s pure Python one, over a tree held in flat arrays.

A node ``i`` has its visits ``n[i]``, the total value ``w[i]`` for whoever moved into it,
the move that led to it ``mv[i]``, its children ``first[i] .. first[i] + count[i]`` (-1:
not expanded) and, once a simulation ended there, the game's result for whoever moved into
it ``outcome[i]`` (:data:`NO_OUTCOME` before). Positions are not stored: a simulation
replays its moves from the root's components.
"""

import math

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.jit import njit, njit_inline
from qarena.kernels.rng import below
from qarena.kernels.rules import mover_mark, terminal_result
from qarena.kernels.search import has_four, popcount

NO_OUTCOME = 2


@njit_inline
def _legal_into(
    board: bool, move_comp: np.ndarray, move_take: np.ndarray, digits: np.ndarray, buf: np.ndarray
) -> int:
    """The legal moves of a position where play goes on, into ``buf``; their count. A
    column's top cell is its row-0 cell, so a board move is legal where its cell is empty."""
    k = 0
    for m in range(move_comp.shape[0]):
        comp = move_comp[m]
        if (digits[comp] == 0) if board else (digits[comp] >= move_take[m]):
            buf[k] = m
            k += 1
    return k


@njit_inline
def _play(
    board: bool,
    gravity: bool,
    cols: int,
    move_comp: np.ndarray,
    move_take: np.ndarray,
    digits: np.ndarray,
    mark: int,
    m: int,
) -> None:
    """Make legal move ``m`` in place (no copy: a rollout throws its position away)."""
    comp = move_comp[m]
    if board:
        if gravity:
            r = digits.shape[0] // cols - 1
            while digits[r * cols + comp] != 0:
                r -= 1
            digits[r * cols + comp] = mark
        else:
            digits[comp] = mark
    else:
        digits[comp] -= move_take[m]


@njit
def simulate(
    board: bool,
    misere: bool,
    gravity: bool,
    cols: int,
    move_comp: np.ndarray,
    move_take: np.ndarray,
    lines: np.ndarray,
    root_digits: np.ndarray,
    root: int,
    sims: int,
    c: float,
    n: np.ndarray,
    w: np.ndarray,
    mv: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    outcome: np.ndarray,
    used: int,
    rng: np.ndarray,
    path: np.ndarray,
) -> int:
    """Run ``sims`` simulations from node ``root`` (whose position is ``root_digits``; its
    ``n`` at least 1, so that the first simulation expands it); the nodes in use after.
    A node is not expanded when the arrays have no room for its children: the simulation
    rolls out from it instead."""
    num_moves = move_comp.shape[0]
    cap = n.shape[0]
    digits = np.empty_like(root_digits)
    buf = np.empty(num_moves, dtype=np.int64)
    mark0 = mover_mark(board, root_digits)
    for _ in range(sims):
        for i in range(digits.shape[0]):
            digits[i] = root_digits[i]
        node = root
        depth = 0
        path[0] = root
        mark = mark0
        res = terminal_result(board, misere, lines, digits)
        while res == NOT_TERMINAL and n[node] > 0:
            if first[node] < 0:
                if used + num_moves > cap:
                    break  # no room: roll out from here
                k = _legal_into(board, move_comp, move_take, digits, buf)
                for i in range(k - 1, 0, -1):  # shuffled once, so ties fall at random
                    j = below(rng, i + 1)
                    buf[i], buf[j] = buf[j], buf[i]
                first[node] = used
                count[node] = k
                for i in range(k):
                    ch = used + i
                    mv[ch] = buf[i]
                    n[ch] = 0
                    w[ch] = 0.0
                    first[ch] = -1
                    count[ch] = 0
                    outcome[ch] = NO_OUTCOME
                used += k
            f = first[node]
            best = f
            best_score = -math.inf
            log_n = math.log(n[node])
            for ch in range(f, f + count[node]):
                if outcome[ch] != NO_OUTCOME:
                    score = float(outcome[ch])
                elif n[ch] == 0:
                    best = ch
                    break
                else:
                    score = w[ch] / n[ch] + c * math.sqrt(log_n / n[ch])
                if score > best_score:
                    best = ch
                    best_score = score
            node = best
            _play(board, gravity, cols, move_comp, move_take, digits, mark, mv[node])
            mark = 3 - mark
            depth += 1
            path[depth] = node
            res = terminal_result(board, misere, lines, digits)
        if res != NOT_TERMINAL:
            value = float(res)
            if depth > 0:
                outcome[node] = -res
        else:
            sign = 1.0
            while True:
                k = _legal_into(board, move_comp, move_take, digits, buf)
                _play(board, gravity, cols, move_comp, move_take, digits, mark, buf[below(rng, k)])
                mark = 3 - mark
                sign = -sign
                r = terminal_result(board, misere, lines, digits)
                if r != NOT_TERMINAL:
                    value = sign * r
                    break
        for d in range(depth, -1, -1):
            at = path[d]
            n[at] += 1
            w[at] -= value
            value = -value
    return used


@njit_inline
def _play_bits(
    cur: np.uint64, mask: np.uint64, col: int, rows: int
) -> tuple[np.uint64, np.uint64, int]:
    """Drop the mover's stone in column ``col`` of a Connect Four bitboard (the mover's
    stones ``cur``, all stones ``mask``; each column ``rows`` cells and a spare bit): the
    next mover's stones, all stones, and LOSS for the next mover when the stone made four
    (else NOT_TERMINAL)."""
    bottom = np.uint64(1) << np.uint64(col * (rows + 1))
    after = mask | (mask + bottom)
    res = NOT_TERMINAL
    if has_four(cur | (after ^ mask), rows):
        res = -1
    return cur ^ mask, after, res


@njit_inline
def _legal_bits(mask: np.uint64, rows: int, cols: int, buf: np.ndarray) -> int:
    k = 0
    for col in range(cols):
        if mask & (np.uint64(1) << np.uint64(rows - 1 + col * (rows + 1))) == 0:
            buf[k] = col
            k += 1
    return k


@njit
def simulate_bits(
    rows: int,
    cols: int,
    root_mine: np.uint64,
    root_mask: np.uint64,
    root: int,
    sims: int,
    c: float,
    n: np.ndarray,
    w: np.ndarray,
    mv: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    outcome: np.ndarray,
    used: int,
    rng: np.ndarray,
    path: np.ndarray,
) -> int:
    """:func:`simulate` on a Connect Four board of four in a row as bitboards (a move is
    its column), from a root where play goes on."""
    cap = n.shape[0]
    full = rows * cols
    buf = np.empty(cols, dtype=np.int64)
    root_stones = popcount(root_mask)
    for _ in range(sims):
        cur = root_mine
        mask = root_mask
        stones = root_stones
        node = root
        depth = 0
        path[0] = root
        res = NOT_TERMINAL
        while res == NOT_TERMINAL and n[node] > 0:
            if first[node] < 0:
                if used + cols > cap:
                    break  # no room: roll out from here
                k = _legal_bits(mask, rows, cols, buf)
                for i in range(k - 1, 0, -1):
                    j = below(rng, i + 1)
                    buf[i], buf[j] = buf[j], buf[i]
                first[node] = used
                count[node] = k
                for i in range(k):
                    ch = used + i
                    mv[ch] = buf[i]
                    n[ch] = 0
                    w[ch] = 0.0
                    first[ch] = -1
                    count[ch] = 0
                    outcome[ch] = NO_OUTCOME
                used += k
            f = first[node]
            best = f
            best_score = -math.inf
            log_n = math.log(n[node])
            for ch in range(f, f + count[node]):
                if outcome[ch] != NO_OUTCOME:
                    score = float(outcome[ch])
                elif n[ch] == 0:
                    best = ch
                    break
                else:
                    score = w[ch] / n[ch] + c * math.sqrt(log_n / n[ch])
                if score > best_score:
                    best = ch
                    best_score = score
            node = best
            cur, mask, res = _play_bits(cur, mask, mv[node], rows)
            stones += 1
            if res == NOT_TERMINAL and stones == full:
                res = 0
            depth += 1
            path[depth] = node
        if res != NOT_TERMINAL:
            value = float(res)
            if depth > 0:
                outcome[node] = -res
        else:
            sign = 1.0
            while True:
                k = _legal_bits(mask, rows, cols, buf)
                cur, mask, r = _play_bits(cur, mask, buf[below(rng, k)], rows)
                stones += 1
                if r == NOT_TERMINAL and stones == full:
                    r = 0
                sign = -sign
                if r != NOT_TERMINAL:
                    value = sign * r
                    break
        for d in range(depth, -1, -1):
            at = path[d]
            n[at] += 1
            w[at] -= value
            value = -value
    return used
