"""The game and its solution from Python: a game by its spec, a position drawn, the exact
solution, a learner's file read and written; and what every call of the API shares (a game
given as a spec or as a :class:`~qarena.games.Game`, its errors worded for Python)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from qarena.agents.players import PlayerLike, load_file
from qarena.agents.players import player as _player
from qarena.errors import QarenaError
from qarena.exact import Exact, SearchSolution, Solution, oracle
from qarena.games import Game, Position, parse_spec, value_word
from qarena.i18n import _, python_caller
from qarena.learn.family import Trainable
from qarena.learn.learners import save_learner
from qarena.show.display import Board

GameLike = str | Game

_P = ParamSpec("_P")
_R = TypeVar("_R")


def python_call(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """The call's errors name settings as Python does (``seat``, ``curve=True``), not as the
    command line does (``--seat``, ``--curve``): the same texts, worded for their reader
    (:func:`qarena.i18n.option`)."""

    @functools.wraps(function)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with python_caller():
            return function(*args, **kwargs)

    return call


@python_call
def board(
    spec: GameLike,
    position: Position | str | None = None,
    values: PlayerLike | Solution | SearchSolution | None = None,
) -> Board:
    """A position drawn (in a notebook; ``print`` draws it as ``qarena play`` does): the
    start, a position (a tuple or list of its components, checked as its text would be) or
    its text (``"3 5 5"``, ``"x.o/.x./..o"``). With ``values``, each legal move's value is
    written on it: a solution's (win, draw, loss) or a player's own (a learner's table)."""
    g = game(spec)
    where = g.start() if position is None else g.position_of(position)
    if values is None:
        return Board(g, where)
    if isinstance(values, Solution | SearchSolution):
        solved = {m: float(v) for m, v in values.move_values(where).items()}
        return Board(g, where, solved, lambda v: value_word(int(v)))
    found = _player(values, g)
    own = found.values(where)
    if own is None:
        raise QarenaError(_("{player} has no values to show").format(player=found.name))
    return Board(g, where, own, found.format_value)


@python_call
def game(spec: GameLike) -> Game:
    """The game a spec names (``"nim:3,5,7"``, ``"tictactoe"``, ``"connect4:4x5"``)."""
    return spec if isinstance(spec, Game) else parse_spec(spec)


@python_call
def solve(spec: GameLike) -> Exact:
    """The exact solution, as ``qarena solve`` gives it: every reachable position's value and
    best moves (cached); for boards too big to enumerate, a
    :class:`~qarena.exact.SearchSolution`, which answers the same questions by search, one
    position at a time. Ask it with ``.value_of(position)`` and ``.optimal_moves(position)``."""
    return oracle(game(spec))


@python_call
def solution(spec: GameLike) -> Exact:
    """The same as :func:`solve` (its older name, kept)."""
    return solve(spec)


@python_call
def load(path: str | os.PathLike[str], spec: GameLike | None = None) -> Trainable:
    """A learner of any kind saved in its file, a table learner's policy or an n-tuple
    network (checked to be of ``spec``'s game when given)."""
    # The file's own kind decides, as for every player's file; ``network`` is the shipped one
    # (a file so named: ./network).
    return load_file(path, None if spec is None else game(spec))


@python_call
def save(learner: Trainable, path: str | os.PathLike[str]) -> Path:
    """Save a learner of any kind to its file (written atomically); returns its path."""
    save_learner(path, learner)
    return Path(path)
