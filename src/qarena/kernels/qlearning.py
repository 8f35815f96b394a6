"""Q-learning kernels: qarena's negamax Q-learning, each episode backed up last move first
(:func:`q_learning`), and the write-ups' Q-learning with a view per seat, updated move by move
during the game (:func:`seat_q_learning`). Tables are ``q[row, move]``, changed in place.
"""

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.episodes import (
    Rates,
    Run,
    Versus,
    Walk,
    _reward,
    epsilon_at,
    first_position,
    learner_moves_first,
    masked_move,
    random_move,
)
from qarena.kernels.jit import njit
from qarena.kernels.rng import below, uniform


@njit
def _greedy_rest(
    q: np.ndarray, moves: np.ndarray, nmoves: np.ndarray, row: int, rng: np.ndarray, first: bool
) -> tuple[int, float]:
    """The legal move with the highest value (ties broken uniformly at random, or with
    ``first`` the first in the row's order of ``moves``), and the highest value among the
    position's other moves (-inf if none), found in the same scan: the backward pass needs
    that maximum again once the chosen move's value has changed, and this spares a second
    scan of the row."""
    best = -1
    best_q = 0.0
    ties = 0
    second = -np.inf
    for j in range(nmoves[row]):
        m = moves[row, j]
        v = q[row, m]
        if best < 0 or v > best_q:
            if best >= 0:
                second = best_q
            best, best_q, ties = m, v, 1
        elif v == best_q:
            ties += 1
            second = v
            if not first and below(rng, ties) == 0:
                best = m
        elif v > second:
            second = v
    return best, second


@njit
def _max_except(q: np.ndarray, moves: np.ndarray, nmoves: np.ndarray, row: int, a: int) -> float:
    best = -np.inf
    for j in range(nmoves[row]):
        m = moves[row, j]
        if m != a:
            best = max(best, q[row, m])
    return float(best)


@njit
def q_learning(
    q: np.ndarray, w: Walk, versus: Versus, run: Run, rates: Rates, rng: np.ndarray
) -> int:
    """Tabular Q-learning; returns the number of moves played.

    Self-play uses the negamax form: one table serves both seats, and the target of a move that
    does not end the game is ``gamma * -max Q(next position)``, the next position being the
    opponent's. Against a fixed opponent (``opponent[row]`` masks the moves it picks among),
    the learner's target looks past the opponent's reply to its own next position.

    Each episode is played ε-greedily first, then its moves are updated last to first: the
    update rule is unchanged, but the outcome reaches the opening in one episode instead of
    creeping back one move per episode, which on long games (a subtraction heap of thousands)
    is the difference between seconds and hours.
    """
    # Fields to locals: the loops below read them as plain arrays and scalars.
    walk, moves, nmoves, result, start, max_plies, starts, _ = w
    opponent, self_play, seat = versus
    episodes, first_episode, total_episodes, schedule, eps, eps_end, _, _, _, _ = run
    alpha, gamma, rewards, negamax, _, first = rates
    steps = 0
    path = np.empty(max_plies + 1, dtype=np.int64)  # learner's positions, then the one after
    played = np.empty(max_plies + 1, dtype=np.int64)
    rest = np.empty(max_plies + 1)  # max Q of the other moves of path[j], seen going forward
    # In self-play the next position is the opponent's: its value is the mover's, negated.
    sign = -1.0 if self_play and negamax else 1.0
    for i in range(episodes):
        t = first_episode + i
        e = epsilon_at(schedule, eps, eps_end, t, total_episodes)
        s, forced = (
            first_position(start, starts, run, i, walk.shape[1], rng) if self_play else (start, -1)
        )
        if not self_play and not learner_moves_first(seat, t):
            s = walk[s, masked_move(opponent, s, rng)]
            steps += 1
            if result[s] != NOT_TERMINAL:
                continue
        n = 0
        while True:
            if forced >= 0:
                a = forced
                forced = -1
                rest[n] = _max_except(q, moves, nmoves, s, a)
            elif uniform(rng) < e:
                a = random_move(moves, nmoves, s, rng)
                rest[n] = _max_except(q, moves, nmoves, s, a)
            else:
                a, rest[n] = _greedy_rest(q, moves, nmoves, s, rng, first)
            path[n] = s
            played[n] = a
            n += 1
            s = walk[s, a]
            steps += 1
            if result[s] != NOT_TERMINAL:
                final = _reward(-result[s], rewards)  # the mover's outcome
                break
            if not self_play:
                s = walk[s, masked_move(opponent, s, rng)]
                steps += 1
                if result[s] != NOT_TERMINAL:
                    final = _reward(result[s], rewards)  # the learner is to move, and lost
                    break
        after = final  # the value backed up into the move before
        for j in range(n - 1, -1, -1):
            row = path[j]
            a = played[j]
            q[row, a] += alpha * (after - q[row, a])
            # Max Q of this position now: its other moves are as the forward pass found them
            # (a position occurs once per game), and the played one was just updated.
            after = sign * gamma * max(rest[j], q[row, a])
    return steps


@njit
def _greedy(
    q: np.ndarray, moves: np.ndarray, nmoves: np.ndarray, row: int, rng: np.ndarray, first: bool
) -> int:
    """The legal move with the highest value, ties broken uniformly at random (with ``first``:
    the first in the row's order of ``moves``, no random number drawn)."""
    best = -1
    best_q = 0.0
    ties = 0
    for j in range(nmoves[row]):
        m = moves[row, j]
        v = q[row, m]
        if best < 0 or v > best_q:
            best, best_q, ties = m, v, 1
        elif v == best_q:
            ties += 1
            if not first and below(rng, ties) == 0:
                best = m
    return best


@njit
def _best_value(q: np.ndarray, moves: np.ndarray, nmoves: np.ndarray, row: int) -> float:
    best = -np.inf
    for j in range(nmoves[row]):
        best = max(best, q[row, moves[row, j]])
    return float(best)


@njit
def seat_q_learning(
    q: np.ndarray, w: Walk, versus: Versus, run: Run, rates: Rates, rng: np.ndarray
) -> int:
    """The write-ups' Q-learning (the course's Nim assignment, the term paper, the course
    notebook); returns the moves played.

    One table for both players; each value is the mover's. A move is updated when its player
    is next to move, toward ``gamma`` times the best value of the position that player now
    faces: the same player's view, so no sign flip. When a move ends the game, it is updated
    toward the mover's reward, and the other player's last move toward the other player's
    reward. Updates happen during the game, move by move, as the write-ups do them. Against a
    fixed opponent only the learner's own moves are updated, so this is plain Q-learning with
    the opponent's reply as part of the step.
    """
    walk, moves, nmoves, result, start, _, starts, mover = w
    opponent, self_play, seat = versus
    episodes, first_episode, total_episodes, schedule, eps, eps_end, _, _, _, eps2 = run
    alpha, gamma, rewards, _, alpha2, first = rates
    steps = 0
    last_s = np.empty(2, dtype=np.int64)  # each player's last (position, move), -1: none yet
    last_a = np.empty(2, dtype=np.int64)
    rate = np.array([alpha, alpha2])  # each seat's own learning rate and exploration
    explore = np.empty(2)
    for i in range(episodes):
        t = first_episode + i
        explore[0] = epsilon_at(schedule, eps, eps_end, t, total_episodes)
        explore[1] = epsilon_at(schedule, eps2, eps_end, t, total_episodes)
        last_s[0] = -1
        last_s[1] = -1
        me = 0 if self_play or learner_moves_first(seat, t) else 1
        s, forced = (
            first_position(start, starts, run, i, walk.shape[1], rng) if self_play else (start, -1)
        )
        p = max(int(mover[s]), 0) if forced >= 0 else 0  # the seat to move, where it tells
        while True:
            learning = self_play or p == me
            if not learning:
                a = masked_move(opponent, s, rng)
            elif forced >= 0:
                a = forced
                forced = -1
            elif uniform(rng) < explore[p]:
                a = random_move(moves, nmoves, s, rng)
            else:
                a = _greedy(q, moves, nmoves, s, rng, first)
            s2 = walk[s, a]
            steps += 1
            o = 1 - p
            if result[s2] != NOT_TERMINAL:
                # result[s2] is the outcome for o, who would move there.
                if learning:
                    q[s, a] += rate[p] * (_reward(-result[s2], rewards) - q[s, a])
                if last_s[o] >= 0:
                    x = q[last_s[o], last_a[o]]
                    q[last_s[o], last_a[o]] = x + rate[o] * (_reward(result[s2], rewards) - x)
                break
            if last_s[o] >= 0:
                x = q[last_s[o], last_a[o]]
                target = gamma * _best_value(q, moves, nmoves, s2)
                q[last_s[o], last_a[o]] = x + rate[o] * (target - x)
            if learning:
                last_s[p] = s
                last_a[p] = a
            s = s2
            p = o
    return steps
