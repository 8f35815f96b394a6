"""Retrograde analysis over the dense encoding.

Every move changes the code in one direction (boards add a mark, heaps lose objects), so one
sweep in that direction marks what is reachable from the start, and one sweep back assigns values
with every successor already known.
"""

import numpy as np

from qarena.games.base import GameArrays
from qarena.kernels.constants import NOT_TERMINAL, UNREACHED
from qarena.kernels.jit import njit
from qarena.kernels.rules import (
    decode_into,
    mover_mark,
    step_digits,
    successor,
    terminal_result,
)

PENDING = 2


@njit
def solve_tables(ga: GameArrays, value: np.ndarray, depth: np.ndarray) -> tuple[int, int]:
    """Fill ``value`` (int8, from the mover's side; UNREACHED elsewhere) and ``depth`` (plies to
    the end when the winner hurries and the loser delays). Returns (reachable, terminal) counts."""
    n = ga.num_positions
    digits = np.zeros(ga.radix.shape[0], dtype=np.int64)
    value[:] = UNREACHED
    depth[:] = 0
    value[ga.start] = PENDING
    reachable = 0
    terminal = 0
    # Forward: boards count up from the empty board, heaps down from the full piles.
    decode_into(ga, 0 if ga.board else n - 1, digits)
    for i in range(n):
        code = i if ga.board else n - 1 - i
        if i > 0:
            step_digits(ga, digits, ga.board)
        if value[code] == UNREACHED:
            continue
        reachable += 1
        r = terminal_result(ga, digits)
        if r != NOT_TERMINAL:
            value[code] = r
            terminal += 1
            continue
        mark = mover_mark(ga, digits)
        for m in range(ga.num_moves):
            nxt = successor(ga, code, digits, mark, m)
            if nxt >= 0 and value[nxt] == UNREACHED:
                value[nxt] = PENDING
    decode_into(ga, n - 1 if ga.board else 0, digits)
    for i in range(n):
        code = n - 1 - i if ga.board else i
        if i > 0:
            step_digits(ga, digits, not ga.board)
        if value[code] != PENDING:
            continue
        mark = mover_mark(ga, digits)
        best = -2
        best_depth = 0
        for m in range(ga.num_moves):
            nxt = successor(ga, code, digits, mark, m)
            if nxt < 0:
                continue
            v = -value[nxt]
            d = depth[nxt] + 1
            # Prefer the higher value; among wins the quickest, among losses and draws the longest.
            if v > best or (
                v == best and ((v > 0 and d < best_depth) or (v <= 0 and d > best_depth))
            ):
                best = v
                best_depth = d
        value[code] = best
        depth[code] = best_depth
    return reachable, terminal
