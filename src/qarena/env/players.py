"""The fixed opponents of the Gymnasium environment, as choosers of a move.

Every chooser draws its randomness from the generator it is handed (the environment's own
``np_random``), so an episode is a function of the seed given to ``reset``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from qarena.agents.players import PlayerLike, is_policy_path, player
from qarena.agents.strategies import is_builtin, players_of
from qarena.agents.thinking import kind_of
from qarena.errors import QarenaError
from qarena.games.base import Game, Move, Position
from qarena.i18n import _

#: Picks the opponent's move in a position where play goes on.
Chooser = Callable[[Position, np.random.Generator], Move]


def _uniform(moves: list[Move], rng: np.random.Generator) -> Move:
    return moves[int(rng.integers(len(moves)))]


def opponent_chooser(game: Game, opponent: PlayerLike) -> tuple[str, Chooser]:
    """The opponent as a chooser: any player :func:`~qarena.agents.players.player` takes — a
    built-in's name (``random``, ``perfect``, the game's rule players), a policy file (its
    greedy moves), a learner, a function or a player object. A player that picks among
    several moves (random, perfect: the moves that keep the value, a trained agent's ties)
    picks with the environment's generator; a search player whose kind draws from a generator
    of its own (``SearchKind.afresh``: Monte-Carlo tree search) searches each move afresh,
    seeded from it. Returns its name and its chooser. Only
    ``perfect`` and a policy file need the game's tables; both check them against the memory
    budget before building anything."""
    if isinstance(opponent, str | os.PathLike):
        name = os.fspath(opponent)
        if not is_builtin(name) and not is_policy_path(name):
            choices = ", ".join(players_of(game))
            raise QarenaError(
                _(
                    "unknown opponent {name!r} for {spec}; expected {choices}, or a policy file"
                ).format(name=name, spec=game.spec, choices=choices)
            )
    # Named as the one resolution names it: a file by its file's name, of either kind.
    found = player(opponent, game)
    kind = kind_of(found)
    if kind is not None and kind.afresh:
        # Its search keeps a tree and a generator of its own from move to move: each move is
        # searched afresh, seeded from the environment's generator, so that the same seed
        # and actions give the same game (Gymnasium's determinism check).
        return found.name, lambda position, rng: found.seeded(
            int(rng.integers(2**63)), found.name
        ).act(position)
    choose = getattr(found, "choices", None)
    if callable(choose):
        return found.name, lambda position, rng: _uniform(list(choose(position)), rng)
    return found.name, lambda position, rng: found.act(position)


def opening_can_end(game: Game) -> bool:
    """Can the first move end the game? Then an agent in the second seat might never move."""
    start = game.start()
    return any(game.is_terminal(game.apply(start, m)) for m in game.legal_moves(start))


__all__ = ["Chooser", "opening_can_end", "opponent_chooser"]
