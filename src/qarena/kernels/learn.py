"""Training kernels. Only arrays, scalars and a generator state come in; tables change in place.

Positions are codes; ``nxt[code, move]`` is the next code (-1 illegal) and ``result[code]`` the
terminal result for the player to move there (NOT_TERMINAL otherwise), from kernels.tables.
With canonical positions on, the learner's table is read and written at ``canon[code]`` and
move ``cmove[code, move]``; otherwise both are the identity.
"""

import numpy as np

from qarena.kernels.jit import njit
from qarena.kernels.rng import below, uniform

NOT_TERMINAL = 2

SCHEDULE_CONSTANT = 0
SCHEDULE_LINEAR = 1
SCHEDULE_EXP = 2

SEAT_FIRST = 0
SEAT_SECOND = 1
SEAT_BOTH = 2


@njit
def epsilon_at(schedule: int, eps: float, eps_end: float, t: int, total: int) -> float:
    """Exploration rate for episode ``t`` of ``total``."""
    if schedule == SCHEDULE_CONSTANT or total <= 1:
        return eps
    frac = min(t / (total - 1), 1.0)
    if schedule == SCHEDULE_LINEAR:
        return eps + (eps_end - eps) * frac
    return float(eps * (eps_end / eps) ** frac)


@njit
def _reward(value: int, rewards: np.ndarray) -> float:
    """Reward for an outcome seen from the learner: rewards = (win, draw, loss)."""
    if value > 0:
        return float(rewards[0])
    if value == 0:
        return float(rewards[1])
    return float(rewards[2])


@njit
def _qrow(code: int, canon: np.ndarray, use_canon: bool) -> int:
    return int(canon[code]) if use_canon else code


@njit
def _qcol(code: int, move: int, cmove: np.ndarray, use_canon: bool) -> int:
    return int(cmove[code, move]) if use_canon else move


@njit
def greedy(
    q: np.ndarray,
    nxt: np.ndarray,
    code: int,
    canon: np.ndarray,
    cmove: np.ndarray,
    use_canon: bool,
    rng: np.ndarray,
) -> int:
    """The legal move with the highest value; ties broken uniformly at random."""
    row = _qrow(code, canon, use_canon)
    best = -1
    best_q = 0.0
    ties = 0
    for m in range(nxt.shape[1]):
        if nxt[code, m] < 0:
            continue
        v = q[row, _qcol(code, m, cmove, use_canon)]
        if best < 0 or v > best_q:
            best, best_q, ties = m, v, 1
        elif v == best_q:
            ties += 1
            if below(rng, ties) == 0:
                best = m
    return best


@njit
def masked_move(mask: np.ndarray, code: int, rng: np.ndarray) -> int:
    """Uniformly among the moves ``mask[code]`` allows (legal moves, or an opponent's choices)."""
    count = 0
    for m in range(mask.shape[1]):
        if mask[code, m]:
            count += 1
    pick = below(rng, count)
    for m in range(mask.shape[1]):
        if mask[code, m]:
            if pick == 0:
                return m
            pick -= 1
    return -1


@njit
def _max_q(
    q: np.ndarray, nxt: np.ndarray, code: int, canon: np.ndarray, cmove: np.ndarray, use_canon: bool
) -> float:
    row = _qrow(code, canon, use_canon)
    best = -np.inf
    for m in range(nxt.shape[1]):
        if nxt[code, m] >= 0:
            v = q[row, _qcol(code, m, cmove, use_canon)]
            best = max(best, v)
    return float(best)


@njit
def q_learning(
    q: np.ndarray,
    nxt: np.ndarray,
    legal: np.ndarray,
    result: np.ndarray,
    start: int,
    canon: np.ndarray,
    cmove: np.ndarray,
    use_canon: bool,
    opponent: np.ndarray,
    self_play: bool,
    seat: int,
    episodes: int,
    first_episode: int,
    total_episodes: int,
    alpha: float,
    gamma: float,
    schedule: int,
    eps: float,
    eps_end: float,
    rewards: np.ndarray,
    rng: np.ndarray,
) -> int:
    """Tabular Q-learning; returns the number of moves played.

    Self-play uses the negamax form: one table serves both seats, and the target of a move that
    does not end the game is ``gamma * -max Q(next position)``, the next position being the
    opponent's. Against a fixed opponent (``opponent[code]`` masks the moves it picks among),
    the learner's target looks past the opponent's reply to its own next position.
    """
    steps = 0
    for i in range(episodes):
        t = first_episode + i
        e = epsilon_at(schedule, eps, eps_end, t, total_episodes)
        s = start
        if not self_play:
            learner_first = seat == SEAT_FIRST or (seat == SEAT_BOTH and t % 2 == 0)
            if not learner_first:
                s = nxt[s, masked_move(opponent, s, rng)]
                steps += 1
        while True:
            a = (
                masked_move(legal, s, rng)
                if uniform(rng) < e
                else greedy(q, nxt, s, canon, cmove, use_canon, rng)
            )
            row = _qrow(s, canon, use_canon)
            col = _qcol(s, a, cmove, use_canon)
            s2 = nxt[s, a]
            steps += 1
            done = result[s2] != NOT_TERMINAL
            if done:
                target = _reward(-result[s2], rewards)
            elif self_play:
                target = -gamma * _max_q(q, nxt, s2, canon, cmove, use_canon)
            else:
                s3 = nxt[s2, masked_move(opponent, s2, rng)]
                steps += 1
                done = result[s3] != NOT_TERMINAL
                if done:
                    target = _reward(result[s3], rewards)
                else:
                    target = gamma * _max_q(q, nxt, s3, canon, cmove, use_canon)
                s2 = s3
            q[row, col] += alpha * (target - q[row, col])
            if done:
                break
            s = s2
    return steps
