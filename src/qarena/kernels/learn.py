"""Training kernels. Only arrays, scalars and a generator state come in; tables change in place.

Positions are rows of the game's tables (``exact.space.GameTables``): ``succ[row, move]`` is
the next row (-1 illegal) and ``result[row]`` the terminal result for the player to move there
(NOT_TERMINAL otherwise). With canonical positions on, rows are symmetry classes and ``succ``
leads from class to class only, so games are played among representatives and the tables are
indexed directly by ``[row, move]`` (a representative's moves are already in its own frame).
"""

from typing import NamedTuple

import numpy as np

from qarena.kernels.constants import (
    NOT_TERMINAL,
    SCHEDULE_CONSTANT,
    SCHEDULE_EXP,
    SCHEDULE_LINEAR,
    SEAT_BOTH,
    SEAT_FIRST,
    SEAT_SECOND,
    START_SWEEP,
)
from qarena.kernels.jit import njit
from qarena.kernels.rng import below, uniform

__all__ = [
    "NOT_TERMINAL",
    "SCHEDULE_CONSTANT",
    "SCHEDULE_EXP",
    "SCHEDULE_LINEAR",
    "SEAT_BOTH",
    "SEAT_FIRST",
    "SEAT_SECOND",
    "Rates",
    "Run",
    "Versus",
    "Walk",
    "afterstate_learning",
    "game_backup_learning",
    "masked_move",
    "matchbox_learning",
    "q_learning",
    "seat_q_learning",
    "sweep_pairs",
]


class Walk(NamedTuple):
    """The positions a learner plays on: ``succ[row, move]`` the next row (-1 illegal),
    ``moves[row, :nmoves[row]]`` the legal moves, ``result[row]`` the terminal result for
    the player to move (NOT_TERMINAL otherwise), the start row, the longest game,
    ``starts``: where an exploring start may begin (positions that are reachable and not
    over, or with START_SWEEP (position, move) pairs as ``position * moves + move``), and
    ``mover[row]``: the seat to move where the position tells (-1 in impartial games)."""

    succ: np.ndarray
    moves: np.ndarray
    nmoves: np.ndarray
    result: np.ndarray
    start: int
    max_plies: int
    starts: np.ndarray
    mover: np.ndarray


class Versus(NamedTuple):
    """Whom the learner plays: itself, or a fixed opponent picking uniformly among
    ``mask[row]``, with the learner in ``seat`` (SEAT_FIRST, SEAT_SECOND or SEAT_BOTH)."""

    mask: np.ndarray
    self_play: bool
    seat: int


class Run(NamedTuple):
    """``episodes`` more episodes, ``first_episode`` of the run's ``total_episodes`` behind;
    exploration goes from ``eps`` to ``eps_end`` by ``schedule``; in self-play a share
    ``start_share`` of the episodes begin at an exploring start from ``Walk.starts``: drawn
    uniformly (``start_order`` START_UNIFORM), or in turn (START_SWEEP), episode ``offset + i``
    of the learner's whole life taking pair ``(offset + i) % starts.size`` and playing its
    move first, so sweeps go on across calls and resumed runs. ``eps_second`` is where the
    second player's exploration starts (the learners with a view per seat; others ignore it)."""

    episodes: int
    first_episode: int
    total_episodes: int
    schedule: int
    eps: float
    eps_end: float
    start_share: float
    start_order: int
    offset: int
    eps_second: float


@njit
def first_position(
    start: int, starts: np.ndarray, run: Run, i: int, num_moves: int, rng: np.ndarray
) -> tuple[int, int]:
    """Where episode ``i`` of the call begins, and the move it must play first (-1: its own
    choice): the start, or with probability ``start_share`` an exploring start. No random
    number is drawn when the share is 0, so runs without them are as before."""
    if run.start_share > 0.0 and uniform(rng) < run.start_share:
        if run.start_order == START_SWEEP:
            pair = starts[(run.offset + i) % starts.size]
            return int(pair // num_moves), int(pair % num_moves)
        return int(starts[below(rng, starts.size)]), -1
    return start, -1


@njit
def sweep_pairs(order: np.ndarray, moves: np.ndarray, nmoves: np.ndarray) -> np.ndarray:
    """Every (row, legal move) of the rows in ``order``, in that order, as
    ``row * moves.shape[1] + move``: the exploring starts of a sweep."""
    total = 0
    for row in order:
        total += nmoves[row]
    pairs = np.empty(total, dtype=np.int64)
    k = 0
    for row in order:
        for j in range(nmoves[row]):
            pairs[k] = row * moves.shape[1] + moves[row, j]
            k += 1
    return pairs


class Rates(NamedTuple):
    """Learning rate, discount, the rewards for win, draw and loss, and whether Q-learning's
    self-play target flips the sign of the next position's value (``negamax``; without, the
    baseline that adds the opponent's best value as if it were its own), the second
    player's learning rate (the learners with a view per seat; others ignore it), and how a
    greedy step breaks ties (``tie_first``: the first highest in ``Walk.moves[row]``'s order,
    drawing no random number; else uniformly at random). The matchbox learner ignores both."""

    alpha: float
    gamma: float
    rewards: np.ndarray
    negamax: bool
    alpha_second: float
    tie_first: bool


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
def learner_moves_first(seat: int, episode: int) -> bool:
    """Against a fixed opponent: does the learner take the first seat in this episode?"""
    return seat == SEAT_FIRST or (seat == SEAT_BOTH and episode % 2 == 0)


@njit
def _reward(value: int, rewards: np.ndarray) -> float:
    """Reward for an outcome seen from the learner: rewards = (win, draw, loss)."""
    if value > 0:
        return float(rewards[0])
    if value == 0:
        return float(rewards[1])
    return float(rewards[2])


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
def masked_move(mask: np.ndarray, row: int, rng: np.ndarray) -> int:
    """Uniformly among the moves ``mask[row]`` allows (legal moves, or an opponent's choices)."""
    count = 0
    for m in range(mask.shape[1]):
        if mask[row, m]:
            count += 1
    pick = below(rng, count)
    for m in range(mask.shape[1]):
        if mask[row, m]:
            if pick == 0:
                return m
            pick -= 1
    return -1


@njit
def random_move(moves: np.ndarray, nmoves: np.ndarray, row: int, rng: np.ndarray) -> int:
    """A legal move, uniformly."""
    return int(moves[row, below(rng, nmoves[row])])


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
