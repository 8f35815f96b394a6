"""qarena from Python: the few calls a notebook needs, each also what the command line does.

>>> import qarena
>>> agent = qarena.train("nim:3,5,7", until_perfect=True)
>>> qarena.judge(agent).optimality.share
1.0

Every call takes a game as its spec (``"nim:3,5,7"``) or as a :class:`~qarena.games.Game`,
and a player as anything :func:`player` reads: a learner, a built-in's name (``"random"``,
``"perfect"``, ``"bouton"``…), a policy file, a function of the position, or a dict of moves.
Bad input raises :class:`~qarena.errors.QarenaError` with one line saying what is wrong.

The calls live by what they do: ``games.py`` (the game, a board drawn, its solution, a
learner's file), ``playing.py`` (players and one game between them), ``training.py``
(``train`` and ``train_network``, their settings typed keywords), ``judging.py``
(``judge``, ``best_reply``), ``competing.py`` (``compete``), ``learning_curves.py`` and
``sweeping.py`` (``sweep``); this module names them all.
"""

from __future__ import annotations

from qarena.api.competing import Competition, OpeningResult, compete
from qarena.api.games import board, game, load, save, solution, solve
from qarena.api.judging import best_reply, judge
from qarena.api.learning_curves import Curves, curves
from qarena.api.playing import Playout, play, player, players
from qarena.api.sweeping import Sweep, sweep
from qarena.api.training import TrainSettings, train, train_network
from qarena.learn.setting_keywords import LearnerSettings, NetworkSettings
from qarena.show import display
from qarena.show.display import Board
from qarena.training.run import Progress

__all__ = [
    "Board",
    "Competition",
    "Curves",
    "LearnerSettings",
    "NetworkSettings",
    "OpeningResult",
    "Playout",
    "Progress",
    "Sweep",
    "TrainSettings",
    "best_reply",
    "board",
    "compete",
    "curves",
    "game",
    "judge",
    "load",
    "play",
    "player",
    "players",
    "save",
    "solution",
    "solve",
    "sweep",
    "train",
    "train_network",
]

# In a notebook, games, solutions, learners, agents and curves are drawn from now on.
display.register()
