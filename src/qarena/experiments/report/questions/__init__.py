"""The report's experiments: each section states a question of the write-ups and answers it
with fixed sweeps (their folders under the report's runs folder, so a second report reuses
them), a figure, numbers and the ``qarena`` commands that reproduce them. A module per
question or pair of questions: ``hyperparameters.py`` (discounting; α and ε),
``opponents.py`` (whom to learn from), ``games_needed.py`` (how many games tic-tac-toe needs),
``poles.py`` (the pole-position strategy) and ``learners.py`` (learners compared; AlphaZero,
judged)."""

from qarena.experiments.report.questions.games_needed import tictactoe
from qarena.experiments.report.questions.hyperparameters import alpha_epsilon, discounting
from qarena.experiments.report.questions.learners import (
    SIDE_BY_SIDE,
    alphazero_judged,
    learners_compared,
)
from qarena.experiments.report.questions.opponents import whom_to_learn_from
from qarena.experiments.report.questions.poles import pole_positions

__all__ = [
    "SIDE_BY_SIDE",
    "alpha_epsilon",
    "alphazero_judged",
    "discounting",
    "learners_compared",
    "pole_positions",
    "tictactoe",
    "whom_to_learn_from",
]
