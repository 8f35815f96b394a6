"""Transition tables for learners: the code after every (position, move), and terminal results,
so a training step is a table lookup."""

import numpy as np

from qarena.games.base import GameArrays
from qarena.kernels.constants import NOT_TERMINAL, UNREACHED
from qarena.kernels.jit import njit
from qarena.kernels.rules import decode_into, mover_mark, successor, terminal_result


@njit
def fill_tables(ga: GameArrays, value: np.ndarray, nxt: np.ndarray, result: np.ndarray) -> None:
    """For every reachable code (``value`` from the solver): ``nxt[code, m]`` is the next code or
    -1 when illegal; ``result[code]`` is the terminal result or NOT_TERMINAL."""
    digits = np.zeros(ga.radix.shape[0], dtype=np.int64)
    nxt[:] = -1
    for code in range(ga.num_positions):
        if value[code] == UNREACHED:
            result[code] = 0
            continue
        decode_into(ga, code, digits)
        r = terminal_result(ga, digits)
        result[code] = r
        if r != NOT_TERMINAL:
            continue
        mark = mover_mark(ga, digits)
        for m in range(ga.num_moves):
            nxt[code, m] = successor(ga, code, digits, mark, m)


@njit
def fill_move_lists(nxt: np.ndarray, moves: np.ndarray, nmoves: np.ndarray) -> None:
    """``moves[code, :nmoves[code]]``: the legal move ids of every code in ascending order, the
    rest -1, so kernels pick and scan them without testing every move id."""
    for code in range(nxt.shape[0]):
        n = 0
        for m in range(nxt.shape[1]):
            if nxt[code, m] >= 0:
                moves[code, n] = m
                n += 1
        nmoves[code] = n
        for j in range(n, nxt.shape[1]):
            moves[code, j] = -1
