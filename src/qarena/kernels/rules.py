"""Game rules over dense codes, for kernels. One code path serves every game in GameArrays form.

Heap games (nim, subtraction) read digits as pile sizes and moves as (pile, count); boards read
digits as cells (0 empty, 1 x, 2 o) and moves as cells.
"""

import numpy as np

from qarena.games.base import GameArrays

#: ``terminal_result`` of a position that is not terminal.
from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.jit import njit


@njit
def decode_into(ga: GameArrays, code: int, digits: np.ndarray) -> None:
    """Write the position's components into ``digits``."""
    for i in range(digits.shape[0]):
        digits[i] = (code // ga.weight[i]) % ga.radix[i]


@njit
def step_digits(ga: GameArrays, digits: np.ndarray, up: bool) -> None:
    """Advance ``digits`` to the next code (``up``) or the previous one, like an odometer:
    sweeps over every code pay about one digit update per code instead of a full decode."""
    for i in range(digits.shape[0]):
        if up:
            if digits[i] + 1 < ga.radix[i]:
                digits[i] += 1
                return
            digits[i] = 0
        else:
            if digits[i] > 0:
                digits[i] -= 1
                return
            digits[i] = ga.radix[i] - 1


@njit
def terminal_result(ga: GameArrays, digits: np.ndarray) -> int:
    """WIN (1), DRAW (0) or LOSS (-1) for the player to move, or NOT_TERMINAL."""
    if not ga.board:
        for i in range(digits.shape[0]):
            if digits[i] != 0:
                return NOT_TERMINAL
        # The opponent took the last object: in misère play that loses, in normal play it wins.
        return 1 if ga.misere else -1
    lines = ga.lines
    k = lines.shape[1]
    for li in range(lines.shape[0]):
        first = digits[lines[li, 0]]
        if first == 0:
            continue
        j = 1
        while j < k and digits[lines[li, j]] == first:
            j += 1
        if j == k:
            return -1  # whoever completed the line moved last
    for i in range(digits.shape[0]):
        if digits[i] == 0:
            return NOT_TERMINAL
    return 0


@njit
def mover_mark(ga: GameArrays, digits: np.ndarray) -> int:
    """On boards, the mark (1 = x, 2 = o) of the player to move; 0 for heap games."""
    if not ga.board:
        return 0
    filled = 0
    for i in range(digits.shape[0]):
        if digits[i] != 0:
            filled += 1
    return 1 + (filled & 1)


@njit
def successor(ga: GameArrays, code: int, digits: np.ndarray, mark: int, move: int) -> int:
    """The code after ``move`` in a non-terminal position, or -1 if the move is illegal."""
    comp = ga.move_comp[move]
    if ga.board:
        if ga.gravity:  # the lowest empty cell of column comp
            for r in range(digits.shape[0] // ga.cols - 1, -1, -1):
                cell = r * ga.cols + comp
                if digits[cell] == 0:
                    return int(code + mark * ga.weight[cell])
            return -1
        if digits[comp] != 0:
            return -1
        return int(code + mark * ga.weight[comp])
    take = ga.move_take[move]
    if digits[comp] < take:
        return -1
    return int(code - take * ga.weight[comp])
