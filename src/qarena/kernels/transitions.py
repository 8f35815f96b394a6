"""Transition tables for learners: the code after every (position, move), and terminal results,
so a training step is a table lookup."""

import numpy as np

from qarena.games.base import GameArrays
from qarena.kernels.constants import UNREACHED
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
        if r != 2:
            continue
        mark = mover_mark(ga, digits)
        for m in range(ga.num_moves):
            nxt[code, m] = successor(ga, code, digits, mark, m)
