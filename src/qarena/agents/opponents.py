"""Fixed opponents for training, as tables of the moves each picks among in every position."""

from __future__ import annotations

import os

import numpy as np

from qarena.agents.strategies import STRATEGIES, is_builtin, make_agent
from qarena.errors import QarenaError
from qarena.i18n import _
from qarena.learn.base import Opponent
from qarena.learn.learners import load_learner
from qarena.solve.space import GameTables

OPPONENTS = ("self", *STRATEGIES)


def opponent(tables: GameTables, name: str) -> Opponent:
    """``self`` for self-play, a strategy agent by name, or a saved policy's file name, as the
    moves it picks among (a policy picks uniformly among its best moves)."""
    game = tables.game
    named = (*OPPONENTS, *game.rule_players)
    if name != "self" and not is_builtin(name) and (os.path.exists(name) or name.endswith(".npz")):
        return Opponent(os.path.basename(name), load_learner(name, tables.game).best_moves())
    if name == "self":
        return Opponent("self")
    legal = tables.legal
    if name == "random":
        return Opponent(name, legal.copy())
    if name == "perfect":
        # Each move's value for the mover, -2 where illegal (int8: a byte per entry).
        mv = np.where(legal, -tables.value[np.maximum(tables.nxt, 0)], np.int8(-2))
        return Opponent(name, legal & (mv == mv.max(axis=1, keepdims=True)))
    if name not in named:
        raise QarenaError(
            _("unknown opponent {name!r}; expected one of {names}, or a policy file").format(
                name=name, names=", ".join(OPPONENTS)
            )
        )
    # Closed-form strategies pick one move per position: ask the agent once for each row, in
    # the row's own frame (its representative's).
    agent = make_agent(name, game)
    mask = np.zeros_like(legal)
    for row in np.flatnonzero(tables.live):
        mask[row, agent.act(tables.position(int(row)))] = True
    return Opponent(name, mask)
