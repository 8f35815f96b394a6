"""Best-reply kernel: what the strongest opponent can force against an agent given as the moves
it picks among, over a game's tables, every reachable position once.

A state is a row and who is to move there: the agent (``a``) or its opponent (``o``); in an
impartial game the same row can be met with either to move. Outcomes are the agent's: +1 a
win, 0 a draw, -1 a loss. The agent may play any move of its mask (ties, a random player), so
its worst one counts; the opponent plays the move worst for the agent.
"""

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.jit import njit

#: An outcome not yet known (every outcome is -1, 0 or +1).
UNKNOWN = 2


@njit
def reach(
    nxt: np.ndarray,
    result: np.ndarray,
    agent: np.ndarray,
    asked: np.ndarray,
    frontier_a: np.ndarray,
    frontier_o: np.ndarray,
    seen_a: np.ndarray,
    seen_o: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """One step of the search forward: the states the frontiers' moves lead to that were not
    seen, marked seen, as the next frontiers (agent to move, opponent to move). The agent's
    rows move only by its mask (``agent[row]`` where ``asked[row]``)."""
    moves = nxt.shape[1]
    next_a = np.empty(frontier_o.size * moves, np.int64)
    next_o = np.empty(frontier_a.size * moves, np.int64)
    na = no = 0
    for i in range(frontier_a.size):
        row = frontier_a[i]
        if result[row] != NOT_TERMINAL:
            continue
        for m in range(moves):
            child = nxt[row, m]
            if child >= 0 and asked[row] and agent[row, m] and not seen_o[child]:
                seen_o[child] = True
                next_o[no] = child
                no += 1
    for i in range(frontier_o.size):
        row = frontier_o[i]
        if result[row] != NOT_TERMINAL:
            continue
        for m in range(moves):
            child = nxt[row, m]
            if child >= 0 and not seen_a[child]:
                seen_a[child] = True
                next_a[na] = child
                na += 1
    return next_a[:na], next_o[:no]


@njit
def secure(
    nxt: np.ndarray,
    result: np.ndarray,
    order: np.ndarray,
    agent: np.ndarray,
    seen_a: np.ndarray,
    seen_o: np.ndarray,
    out_a: np.ndarray,
    out_o: np.ndarray,
    plies_a: np.ndarray,
    plies_o: np.ndarray,
    agent_best: bool = False,
) -> None:
    """``out_a[row]`` / ``out_o[row]``: the outcome the opponent can force from each seen state
    (agent / opponent to move), children before parents (``order``), terminal rows from their
    result (for the mover there); ``plies_a`` / ``plies_o``: the fewest plies to the end in
    which it is forced (so that a refutation is shown by its shortest line). With
    ``agent_best``, the agent's best move of its mask counts instead of its worst: what the
    opponent forces whichever of them it picks."""
    moves = nxt.shape[1]
    for row in range(result.size):
        if result[row] != NOT_TERMINAL:
            out_a[row] = result[row]
            out_o[row] = -result[row]
            plies_a[row] = plies_o[row] = 0
    for i in range(order.size):
        row = order[i]
        if seen_a[row]:
            worst, plies = UNKNOWN, 0
            for m in range(moves):
                child = nxt[row, m]
                if child >= 0 and agent[row, m]:
                    v, p = out_o[child], plies_o[child] + 1
                    if agent_best and worst != UNKNOWN:
                        if v > worst or (v == worst and p < plies):
                            worst, plies = v, p
                    elif v < worst or (v == worst and p < plies):
                        worst, plies = v, p
            out_a[row], plies_a[row] = worst, plies
        if seen_o[row]:
            worst, plies = UNKNOWN, 0
            for m in range(moves):
                child = nxt[row, m]
                if child >= 0:
                    v, p = out_a[child], plies_a[child] + 1
                    if v < worst or (v == worst and p < plies):
                        worst, plies = v, p
            out_o[row], plies_o[row] = worst, plies
