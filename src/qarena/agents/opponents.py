"""Fixed opponents for training, as tables of the moves each picks among in every position."""

from __future__ import annotations

import os

import numpy as np

from qarena.agents.strategies import STRATEGIES, make_agent
from qarena.errors import QarenaError
from qarena.kernels.constants import NOT_TERMINAL
from qarena.learn.base import Opponent
from qarena.learn.learners import load_learner
from qarena.transitions.build import GameTables
from qarena.transitions.judge import move_values

OPPONENTS = ("self", *STRATEGIES)


def opponent(tables: GameTables, name: str) -> Opponent:
    """``self`` for self-play, a strategy agent by name, or a saved policy's file name, as the
    moves it picks among (a policy picks uniformly among its best moves)."""
    game = tables.game
    named = (*OPPONENTS, *game.rule_players)
    if name not in named and (os.path.exists(name) or name.endswith(".npz")):
        return Opponent(os.path.basename(name), load_learner(name, tables.game).best_moves())
    if name == "self":
        return Opponent("self")
    legal = tables.legal
    if name == "random":
        return Opponent(name, legal.copy())
    if name == "perfect":
        mv = move_values(tables)
        with np.errstate(invalid="ignore"):
            best = np.nanmax(np.where(legal, mv, -np.inf), axis=1, keepdims=True)
        return Opponent(name, legal & (mv == best))
    if name not in named:
        raise QarenaError(
            f"unknown opponent {name!r}; expected one of {', '.join(OPPONENTS)}, or a policy file"
        )
    # Closed-form strategies pick one move per position: ask the agent once for each.
    agent = make_agent(name, game)
    mask = np.zeros_like(legal)
    for code in np.flatnonzero(tables.reachable & (tables.result == NOT_TERMINAL)):
        mask[code, agent.act(game.decode(int(code)))] = True
    return Opponent(name, mask)
