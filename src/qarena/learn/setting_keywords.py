"""The training settings as typed keywords, derived from their one declaration
(:mod:`qarena.learn.settings`): ``qarena.train(spec, ..., alpha=0.5)`` takes
:class:`LearnerSettings`'s fields, ``qarena.train_network`` :class:`NetworkSettings`'s. A
setting given None (or not given) takes the learner's default.

Written by tools/settings_keywords.py; tests/test_api_settings.py fails when it differs from
what the tool writes. Do not edit it by hand: edit the declaration and run the tool.
"""

from __future__ import annotations

from typing import Literal, TypedDict


class LearnerSettings(TypedDict, total=False):
    """Every learner kind's training settings, in the declaration's order."""

    alpha: float | None
    """Learning rate in (0, 1]. The command line's ``--alpha``."""

    gamma: float | None
    """Discount in [0, 1]. The command line's ``--gamma``."""

    epsilon: float | None
    """Exploration rate at the start, in [0, 1]. The command line's ``--epsilon``."""

    epsilon_end: float | None
    """Exploration rate at the end of the run. Bounds: ``[0, 1]``. The command line's
    ``--epsilon-end``.
    """

    schedule: Literal["linear", "exp", "constant"] | None
    """constant, linear or exp. The command line's ``--epsilon-schedule``."""

    rewards: tuple[float, float, float] | None
    """Rewards for win, draw, loss, e.g. 1,0,-1 or 100,0,-100. The command line's ``--rewards``."""

    initial: float | None
    """Initial value of every table entry (default 0). The command line's ``--initial``."""

    seed: int | None
    """Random seed. Bounds: ``whole numbers 0 to 2**63 - 1``. The command line's ``--seed``."""

    starts: float | None
    """Exploring starts: the share of self-play episodes that begin at a position the learner plays
    on rather than at the start (default: the learner's). Bounds: ``[0, 1]``. The command line's
    ``--starts``.
    """

    start_order: Literal["sweep", "uniform"] | None
    """sweep: exploring starts take every (position, move) in turn, each position after those it
    leads to; uniform: a position drawn at random, its move by epsilon-greedy play (default: the
    learner's). The command line's ``--start-order``.
    """

    alpha_second: float | None
    """In self-play, the second player's learning rate (default: --alpha's): two agents learning
    against each other, each at its own rates (afterstate, seat-q, game-backup). Bounds:
    ``(0, 1]``. The command line's ``--alpha-second``.
    """

    epsilon_second: float | None
    """In self-play, the second player's exploration at the start (default: --epsilon's); it ends
    at --epsilon-end as the first player's does. Bounds: ``[0, 1]``. The command line's
    ``--epsilon-second``.
    """

    tuples: int | None
    """n-tuple network: how many tuples (random walks over the board). Bounds:
    ``whole numbers 1 to 1000``. The command line's ``--tuples``.
    """

    tuple_length: int | None
    """n-tuple network: cells per tuple (a table of 4^L entries each). Bounds:
    ``whole numbers 1 to 10``. The command line's ``--tuple-length``.
    """

    alpha_end: float | None
    """n-tuple network: the learning rate at the end of the run; it decays exponentially from
    --alpha. Bounds: ``(0, 1]``. The command line's ``--alpha-end``.
    """

    lam: float | None
    """n-tuple network: λ of TD(λ), how far back each move's error reaches. Bounds: ``[0, 1]``. The
    command line's ``--lambda``.
    """

    opening: int | None
    """n-tuple network and AlphaZero: each game of self-play opens with 0 to this many random moves
    (uniformly many) it does not learn from, so it learns across the board. Bounds:
    ``whole numbers 0 to 100``. The command line's ``--opening``.
    """

    channels: int | None
    """AlphaZero: channels of each convolution of its residual network. Bounds:
    ``whole numbers 1 to 256``. The command line's ``--channels``.
    """

    blocks: int | None
    """AlphaZero: residual blocks of its network. Bounds: ``whole numbers 0 to 20``. The command
    line's ``--blocks``.
    """

    simulations: int | None
    """AlphaZero: search simulations for each move of self-play. Bounds:
    ``whole numbers 1 to 10000``. The command line's ``--simulations``.
    """


class NetworkSettings(TypedDict, total=False):
    """The settings an n-tuple network reads."""

    alpha: float | None
    """Learning rate in (0, 1]. The command line's ``--alpha``."""

    epsilon: float | None
    """Exploration rate at the start, in [0, 1]. The command line's ``--epsilon``."""

    epsilon_end: float | None
    """Exploration rate at the end of the run. Bounds: ``[0, 1]``. The command line's
    ``--epsilon-end``.
    """

    seed: int | None
    """Random seed. Bounds: ``whole numbers 0 to 2**63 - 1``. The command line's ``--seed``."""

    tuples: int | None
    """n-tuple network: how many tuples (random walks over the board). Bounds:
    ``whole numbers 1 to 1000``. The command line's ``--tuples``.
    """

    tuple_length: int | None
    """n-tuple network: cells per tuple (a table of 4^L entries each). Bounds:
    ``whole numbers 1 to 10``. The command line's ``--tuple-length``.
    """

    alpha_end: float | None
    """n-tuple network: the learning rate at the end of the run; it decays exponentially from
    --alpha. Bounds: ``(0, 1]``. The command line's ``--alpha-end``.
    """

    lam: float | None
    """n-tuple network: λ of TD(λ), how far back each move's error reaches. Bounds: ``[0, 1]``. The
    command line's ``--lambda``.
    """

    opening: int | None
    """n-tuple network and AlphaZero: each game of self-play opens with 0 to this many random moves
    (uniformly many) it does not learn from, so it learns across the board. Bounds:
    ``whole numbers 0 to 100``. The command line's ``--opening``.
    """


__all__ = ["LearnerSettings", "NetworkSettings"]
