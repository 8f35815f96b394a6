"""The matchbox learner's kernel (MENACE, the classic Nim learner; elimination and
chain-elimination): the moves still allowed in each position's box, a losing move taken out
after a lost game and, with propagation, the move that led to an emptied box along with it.
"""

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.episodes import (
    Run,
    Versus,
    Walk,
    epsilon_at,
    first_position,
    learner_moves_first,
    masked_move,
    random_move,
)
from qarena.kernels.jit import njit
from qarena.kernels.rng import below, uniform


@njit
def matchbox_score(
    allowed: np.ndarray,
    alive: np.ndarray,
    walk: np.ndarray,
    result: np.ndarray,
    row: int,
    move: int,
    known_wins: bool,
) -> int:
    """2 for a known win (it wins at once, or leaves the opponent only removed moves) when
    ``known_wins``, 1 for a still-allowed move, 0 for a removed one."""
    if known_wins:
        after = walk[row, move]
        if result[after] != NOT_TERMINAL:
            if result[after] < 0:
                return 2
        elif alive[after] == 0:
            return 2
    return 1 if allowed[row, move] else 0


@njit
def matchbox_move(
    allowed: np.ndarray,
    alive: np.ndarray,
    walk: np.ndarray,
    moves: np.ndarray,
    nmoves: np.ndarray,
    result: np.ndarray,
    row: int,
    rng: np.ndarray,
    known_wins: bool,
) -> int:
    """Uniformly among the moves of the highest score (all legal moves if all are removed)."""
    best = -1
    best_score = -1
    ties = 0
    for j in range(nmoves[row]):
        m = moves[row, j]
        x = matchbox_score(allowed, alive, walk, result, row, m, known_wins)
        if x > best_score:
            best, best_score, ties = m, x, 1
        elif x == best_score:
            ties += 1
            if below(rng, ties) == 0:
                best = m
    return best


@njit
def _remove_losing(
    allowed: np.ndarray,
    alive: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    n: int,
    propagate: bool,
) -> None:
    """Remove the last of a loser's ``n`` moves; while that leaves a position with no allowed
    move, that position is lost, so (with ``propagate``) the loser's move before it is removed
    too."""
    for k in range(n - 1, -1, -1):
        r, c = rows[k], cols[k]
        if allowed[r, c]:
            allowed[r, c] = False
            alive[r] -= 1
        if alive[r] > 0 or not propagate:
            return


@njit
def matchbox_learning(
    allowed: np.ndarray,
    alive: np.ndarray,
    w: Walk,
    versus: Versus,
    run: Run,
    rng: np.ndarray,
    propagate: bool,
    known_wins: bool,
) -> int:
    """The matchbox learner (MENACE, the classic Nim learner); returns the moves played.

    ``allowed[row, move]`` holds the moves still in a position's box and ``alive[row]`` how
    many there are. After a lost game the loser's last move is removed (it lost at once, or let
    the opponent win at once), and a box left empty takes the move that led to it along. Both
    rules stay sound when a move was exploratory, so while learning the learner tries any legal
    move with probability epsilon: without that, self-play never visits the positions that only
    removed moves lead to, and never learns to punish them.
    """
    walk, moves, nmoves, result, start, max_plies, starts, _ = w
    opponent, self_play, seat = versus
    episodes, first_episode, total_episodes, schedule, eps, eps_end, _, _, _, _ = run
    steps = 0
    rows = np.empty((2, max_plies + 1), dtype=np.int64)
    cols = np.empty((2, max_plies + 1), dtype=np.int64)
    n = np.zeros(2, dtype=np.int64)
    for i in range(episodes):
        t = first_episode + i
        n[0] = 0
        n[1] = 0
        e = epsilon_at(schedule, eps, eps_end, t, total_episodes)
        me = 0 if self_play or learner_moves_first(seat, t) else 1
        s, forced = (
            first_position(start, starts, run, i, walk.shape[1], rng) if self_play else (start, -1)
        )
        p = 0
        while True:
            if not self_play and p != me:
                a = masked_move(opponent, s, rng)
            else:
                if forced >= 0:
                    a = forced
                    forced = -1
                elif uniform(rng) < e:
                    a = random_move(moves, nmoves, s, rng)
                else:
                    a = matchbox_move(
                        allowed, alive, walk, moves, nmoves, result, s, rng, known_wins
                    )
                rows[p, n[p]] = s
                cols[p, n[p]] = a
                n[p] += 1
            s = walk[s, a]
            steps += 1
            if result[s] != NOT_TERMINAL:
                # result is for the player now to move, 1 - p: -1 means p won, 1 means p lost.
                loser = 1 - p if result[s] < 0 else (p if result[s] > 0 else -1)
                if loser >= 0 and (self_play or loser == me):
                    _remove_losing(allowed, alive, rows[loser], cols[loser], n[loser], propagate)
                break
            p = 1 - p
    return steps
