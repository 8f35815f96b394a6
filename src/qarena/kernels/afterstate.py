"""Kernels over the values of positions a move leads to: afterstate TD(0) (Sutton and Barto's
tic-tac-toe learner, :func:`afterstate_learning`) and the tic-tac-toe blog's end-of-game backup
of every position of a game (:func:`game_backup_learning`), both greedy on those values
(:func:`afterstate_greedy`). Tables are ``v[seat, row]``, changed in place.
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
def _afterstate_value(
    v: np.ndarray,
    seat: int,
    after: int,
    result: np.ndarray,
    rewards: np.ndarray,
) -> float:
    """The value to ``seat`` of the position its move produced: the reward if the game ended."""
    if result[after] != NOT_TERMINAL:
        return _reward(-result[after], rewards)  # result is for the opponent, now to move
    return float(v[seat, after])


@njit
def afterstate_greedy(
    v: np.ndarray,
    seat: int,
    walk: np.ndarray,
    moves: np.ndarray,
    nmoves: np.ndarray,
    row: int,
    result: np.ndarray,
    rewards: np.ndarray,
    rng: np.ndarray,
    first: bool,
) -> int:
    """The legal move whose resulting position ``seat`` values most; ties broken at random
    (with ``first``: the first in the row's order of ``moves``, no random number drawn)."""
    best = -1
    best_v = 0.0
    ties = 0
    for j in range(nmoves[row]):
        m = moves[row, j]
        after = walk[row, m]
        x = _afterstate_value(v, seat, after, result, rewards)
        if best < 0 or x > best_v:
            best, best_v, ties = m, x, 1
        elif x == best_v:
            ties += 1
            if not first and below(rng, ties) == 0:
                best = m
    return best


@njit
def afterstate_learning(
    v: np.ndarray, w: Walk, versus: Versus, run: Run, rates: Rates, rng: np.ndarray
) -> int:
    """TD(0) on afterstates (Sutton & Barto's tic-tac-toe learner); returns the moves played.

    ``v[seat, row]`` is the value to that seat of the position its own move produced. After
    each greedy move, the seat's previous afterstate moves toward ``gamma`` times the value of
    the new one; exploratory moves teach nothing. When the game ends, each learning seat's last
    afterstate moves toward its outcome. In self-play both seats learn, each in its own table,
    unless ``v`` has one row: in impartial games a position is the same game whichever seat
    reaches it, so both seats learn the one table. Each seat learns and explores at its own
    rates (``Rates.alpha_second``, ``Run.eps_second``): two agents learning against each other.
    """
    walk, moves, nmoves, result, start, _, starts, mover = w
    opponent, self_play, seat = versus
    episodes, first_episode, total_episodes, schedule, eps, eps_end, share, _, _, eps2 = run
    alpha, gamma, rewards, _, alpha2, first = rates
    shared = v.shape[0] == 1
    steps = 0
    last = np.empty(2, dtype=np.int64)
    rate = np.array([alpha, alpha2])  # each seat's own learning rate and exploration
    eps_of = np.empty(2)
    for i in range(episodes):
        t = first_episode + i
        eps_of[0] = epsilon_at(schedule, eps, eps_end, t, total_episodes)
        eps_of[1] = epsilon_at(schedule, eps2, eps_end, t, total_episodes)
        last[0] = -1
        last[1] = -1
        me = 0 if self_play or learner_moves_first(seat, t) else 1
        s = start
        p = 0
        forced = -1
        if self_play and share > 0.0:
            s, forced = first_position(start, starts, run, i, walk.shape[1], rng)
            p = max(int(mover[s]), 0)  # the seat to move there, for the per-seat tables
        while True:
            if not self_play and p != me:
                s = walk[s, masked_move(opponent, s, rng)]
                steps += 1
                if result[s] != NOT_TERMINAL:
                    tm = 0 if shared else me
                    if last[me] >= 0:
                        x = v[tm, last[me]]
                        v[tm, last[me]] = x + rate[me] * (gamma * _reward(result[s], rewards) - x)
                    break
                p = 1 - p
                continue
            tp = 0 if shared else p
            explore = forced >= 0 or uniform(rng) < eps_of[p]
            if forced >= 0:
                a = forced
                forced = -1
            elif explore:
                a = random_move(moves, nmoves, s, rng)
            else:
                a = afterstate_greedy(v, tp, walk, moves, nmoves, s, result, rewards, rng, first)
            s2 = walk[s, a]
            steps += 1
            if not explore and last[p] >= 0:
                target = gamma * _afterstate_value(v, tp, s2, result, rewards)
                v[tp, last[p]] += rate[p] * (target - v[tp, last[p]])
            if result[s2] != NOT_TERMINAL:
                o = 1 - p
                to = 0 if shared else o
                if self_play and last[o] >= 0:
                    x = v[to, last[o]]
                    v[to, last[o]] = x + rate[o] * (gamma * _reward(result[s2], rewards) - x)
                break
            last[p] = s2
            s = s2
            p = 1 - p
    return steps


@njit
def game_backup_learning(
    v: np.ndarray, w: Walk, versus: Versus, run: Run, rates: Rates, rng: np.ndarray
) -> int:
    """Every position of a game backed up at its end (the tic-tac-toe blog's rule, seed 003);
    returns the moves played.

    ``v[t, row]`` is a learning seat's value of ``row``. Where the position tells whose turn it
    is (tic-tac-toe), ``t`` is the seat: each agent its own table, over every position, the
    ones its opponent moves from too. In impartial games a position does not, so the one table
    of both seats keeps a row per view: ``t`` 0 for the player who moved there, 1 for the
    player to move. Moves are ε-greedy on the values of the positions one's own moves produce
    (a finished game's is its reward); the game is played to its end without learning. Then
    each learning seat walks back over every position of the game, from the one before the end
    to where it began, exploratory moves included, and moves each toward ``gamma`` times the
    value of the position after it, the last toward the seat's reward: the target is the value
    just updated, so the outcome reaches the opening in one game. Each seat learns and explores
    at its own rates (``Rates.alpha_second``, ``Run.eps_second``).
    """
    walk, moves, nmoves, result, start, max_plies, starts, mover = w
    opponent, self_play, seat = versus
    episodes, first_episode, total_episodes, schedule, eps, eps_end, share, _, _, eps2 = run
    alpha, gamma, rewards, _, alpha2, first = rates
    shared = mover[start] < 0  # impartial: the position does not say whose turn it is
    steps = 0
    path = np.empty(max_plies + 1, dtype=np.int64)  # the game's positions, from where it began
    turn = np.empty(max_plies + 1, dtype=np.int64)  # the seat to move at each of them
    rate = np.array([alpha, alpha2])  # each seat's own learning rate and exploration
    eps_of = np.empty(2)
    for i in range(episodes):
        t = first_episode + i
        eps_of[0] = epsilon_at(schedule, eps, eps_end, t, total_episodes)
        eps_of[1] = epsilon_at(schedule, eps2, eps_end, t, total_episodes)
        me = 0 if self_play or learner_moves_first(seat, t) else 1
        s = start
        p = 0
        forced = -1
        if self_play and share > 0.0:
            s, forced = first_position(start, starts, run, i, walk.shape[1], rng)
            p = max(int(mover[s]), 0)  # the seat to move there, for the per-seat tables
        n = 0
        while True:
            path[n] = s
            turn[n] = p
            n += 1
            if result[s] != NOT_TERMINAL:
                break
            if not self_play and p != me:
                a = masked_move(opponent, s, rng)
            elif forced >= 0:
                a = forced
                forced = -1
            elif uniform(rng) < eps_of[p]:
                a = random_move(moves, nmoves, s, rng)
            else:
                tp = 0 if shared else p
                a = afterstate_greedy(v, tp, walk, moves, nmoves, s, result, rewards, rng, first)
            s = walk[s, a]
            steps += 1
            p = 1 - p
        # path[n - 1] is the end; result there is for turn[n - 1], the seat to move.
        end = path[n - 1]
        for q in range(2):
            if not (self_play or q == me) or n < 2:
                continue
            outcome = result[end] if turn[n - 1] == q else -result[end]
            after = _reward(outcome, rewards)  # the value of the position after the one updated
            for j in range(n - 2, -1, -1):
                row = path[j]
                tq = (0 if turn[j] != q else 1) if shared else q
                x = v[tq, row] + rate[q] * (gamma * after - v[tq, row])
                v[tq, row] = x
                after = x
    return steps
