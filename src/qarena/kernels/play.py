"""Match kernel: two fixed agents, each given as the moves it picks among, play many games.

``first[row, move]`` / ``second[row, move]`` are the moves each seat picks uniformly among;
``nxt`` and ``result`` are the plain (not canonical) tables of the game
(``exact.space.GameTables``), a row per position.
``lengths[p]`` counts the games that lasted ``p`` plies.
"""

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.episodes import masked_move
from qarena.kernels.jit import njit


@njit
def play_matches(
    nxt: np.ndarray,
    result: np.ndarray,
    start: int,
    first: np.ndarray,
    second: np.ndarray,
    games: int,
    rng: np.ndarray,
    record: np.ndarray,
    lengths: np.ndarray,
) -> None:
    """Add to ``record`` the first seat's wins, draws and losses over ``games`` games, and to
    ``lengths[p]`` each game that lasted ``p`` plies (sized the game's most plies plus one)."""
    for _ in range(games):
        row = start
        ply = 0
        while result[row] == NOT_TERMINAL:
            m = masked_move(first if ply % 2 == 0 else second, row, rng)
            row = nxt[row, m]
            ply += 1
        # The result is the mover's at the end: the first seat's when an even number was played.
        r = result[row] if ply % 2 == 0 else -result[row]
        record[1 - r] += 1
        # Compiled code has no bounds checks: a game longer than the array is left uncounted
        # (the caller's total then falls short) rather than written past its end.
        if ply < lengths.size:
            lengths[ply] += 1
