"""Game rules over components, for kernels. One code path serves every game in GameArrays form.

Heap games (nim, subtraction) read components as pile sizes and moves as (pile, count); boards
read them as cells (0 empty, 1 x, 2 o) and moves as cells, or with gravity as columns.

The functions take the GameArrays fields they need as plain arrays and scalars, not the tuple:
a kernel unpacks the tuple once, since reading an array out of it inside a loop costs a
reference count update each time, about a hundred times the rule itself.
"""

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.jit import njit_inline


@njit_inline
def decode_into(weight: np.ndarray, radix: np.ndarray, code: int, digits: np.ndarray) -> None:
    """Write the position's components into ``digits``."""
    for i in range(digits.shape[0]):
        digits[i] = (code // weight[i]) % radix[i]


@njit_inline
def terminal_result(board: bool, misere: bool, lines: np.ndarray, digits: np.ndarray) -> int:
    """WIN (1), DRAW (0) or LOSS (-1) for the player to move, or NOT_TERMINAL."""
    if not board:
        for i in range(digits.shape[0]):
            if digits[i] != 0:
                return NOT_TERMINAL
        # The opponent took the last object: in misère play that loses, in normal play it wins.
        return 1 if misere else -1
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


@njit_inline
def mover_mark(board: bool, digits: np.ndarray) -> int:
    """On boards, the mark (1 = x, 2 = o) of the player to move; 0 for heap games."""
    if not board:
        return 0
    filled = 0
    for i in range(digits.shape[0]):
        if digits[i] != 0:
            filled += 1
    return 1 + (filled & 1)


@njit_inline
def _copy(src: np.ndarray, dst: np.ndarray) -> None:
    for i in range(src.shape[0]):  # a loop: a slice assignment builds views each time
        dst[i] = src[i]


@njit_inline
def apply_move(
    board: bool,
    gravity: bool,
    cols: int,
    move_comp: np.ndarray,
    move_take: np.ndarray,
    digits: np.ndarray,
    mark: int,
    move: int,
    out: np.ndarray,
) -> bool:
    """Write the components after ``move`` (in a position where play goes on) into ``out``;
    False, with ``out`` untouched, if the move is illegal."""
    comp = move_comp[move]
    if board:
        if gravity:  # the lowest empty cell of column comp
            for r in range(digits.shape[0] // cols - 1, -1, -1):
                cell = r * cols + comp
                if digits[cell] == 0:
                    _copy(digits, out)
                    out[cell] = mark
                    return True
            return False
        if digits[comp] != 0:
            return False
        _copy(digits, out)
        out[comp] = mark
        return True
    take = move_take[move]
    if digits[comp] < take:
        return False
    _copy(digits, out)
    out[comp] -= take
    return True
