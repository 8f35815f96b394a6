"""What every training kernel shares: the positions a learner plays on (:class:`Walk`), whom it
plays (:class:`Versus`), the run (:class:`Run`) and its rates (:class:`Rates`), as NamedTuples of
arrays and scalars; where an episode begins, exploration at each episode, the reward of an
outcome, and moves drawn at random. The kernels themselves are in ``qlearning.py``,
``afterstate.py`` and ``matchbox.py``; ``learn.py`` names them all.
"""

from typing import NamedTuple

import numpy as np

from qarena.kernels.constants import (
    SCHEDULE_CONSTANT,
    SCHEDULE_LINEAR,
    SEAT_BOTH,
    SEAT_FIRST,
    START_SWEEP,
)
from qarena.kernels.jit import njit
from qarena.kernels.rng import below, uniform


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
