"""Training kernels. Only arrays, scalars and a generator state come in; tables change in place.

Positions are rows of the game's tables (``exact.space.GameTables``): ``succ[row, move]`` is
the next row (-1 illegal) and ``result[row]`` the terminal result for the player to move there
(NOT_TERMINAL otherwise). With canonical positions on, rows are symmetry classes and ``succ``
leads from class to class only, so games are played among representatives and the tables are
indexed directly by ``[row, move]`` (a representative's moves are already in its own frame).

This module names every training kernel and what they take, for the learners to call as
``k.q_learning``, ``k.Walk``…: what they share is in ``episodes.py``, the kernels by family in
``qlearning.py`` (Q-learning, qarena's and the write-ups'), ``afterstate.py`` (afterstate TD(0)
and the end-of-game backup) and ``matchbox.py`` (the matchbox learners).
"""

from qarena.kernels.afterstate import afterstate_learning, game_backup_learning
from qarena.kernels.constants import (
    NOT_TERMINAL,
    SCHEDULE_CONSTANT,
    SCHEDULE_EXP,
    SCHEDULE_LINEAR,
    SEAT_BOTH,
    SEAT_FIRST,
    SEAT_SECOND,
)
from qarena.kernels.episodes import Rates, Run, Versus, Walk, masked_move, sweep_pairs
from qarena.kernels.matchbox import matchbox_learning
from qarena.kernels.qlearning import q_learning, seat_q_learning

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
