"""The fixed opponents of the Gymnasium environment, as choosers of a move.

Every chooser draws its randomness from the generator it is handed (the environment's own
``np_random``), so an episode is a function of the seed given to ``reset``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from qarena.agents.greedy import GreedyAgent
from qarena.agents.strategies import STRATEGIES, make_agent, players_of
from qarena.errors import QarenaError
from qarena.games.base import Game, Move, Position
from qarena.i18n import _
from qarena.learn.learners import load_learner
from qarena.solve.solver import solve

#: Picks the opponent's move in a position where play goes on.
Chooser = Callable[[Position, np.random.Generator], Move]


def _uniform(moves: list[Move], rng: np.random.Generator) -> Move:
    return moves[int(rng.integers(len(moves)))]


def opponent_chooser(game: Game, opponent: str | os.PathLike[str]) -> tuple[str, Chooser]:
    """The opponent by name: ``random``, ``perfect`` (uniform among the solver's moves that
    keep the value), one of the game's rule players (``bouton``, ``poles``, ``poles-strict``,
    ``subtraction``),
    or a policy file, which plays its greedy moves (ties at random). Returns its name and its
    chooser. Only ``perfect`` and a policy file need the game's tables; both check them
    against the memory budget before building anything."""
    name = os.fspath(opponent)
    if name == "random":
        return name, lambda position, rng: _uniform(game.legal_moves(position), rng)
    if name == "perfect":
        solution = solve(game)
        return name, lambda position, rng: _uniform(solution.optimal_moves(position), rng)
    if name in game.rule_players or name in STRATEGIES:
        rule = make_agent(name, game)  # another game's rule player is refused, saying whose
        return name, lambda position, rng: rule.act(position)
    if os.path.exists(name) or name.endswith(".npz"):
        agent = GreedyAgent(load_learner(name, game))
        return os.path.basename(name), agent.pick
    choices = ", ".join(players_of(game))
    raise QarenaError(
        _("unknown opponent {name!r} for {spec}; expected {choices}, or a policy file").format(
            name=name, spec=game.spec, choices=choices
        )
    )


def opening_can_end(game: Game) -> bool:
    """Can the first move end the game? Then an agent in the second seat might never move."""
    start = game.start()
    return any(game.is_terminal(game.apply(start, m)) for m in game.legal_moves(start))


__all__ = ["Chooser", "opening_can_end", "opponent_chooser"]
