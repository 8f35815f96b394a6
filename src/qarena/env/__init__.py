"""Environments for the RL ecosystem: every qarena game as a PettingZoo AEC environment and as
a Gymnasium environment against a fixed opponent, and exact judging of a policy from outside.

Needs the extra: ``pip install 'qarena[env]'`` (PettingZoo and Gymnasium). Both libraries are
imported only when an environment is made, so ``judge_policy`` and the encoding work without.

The observation, for every game (:mod:`qarena.env.encoding`): a vector of ``int64``, the
position's components as qarena holds them (pile sizes; board cells 0 empty, 1 x, 2 o, row by
row from the top-left) followed by the mark of the player to move (1 first, 2 second).
``position_of(obs)`` is the qarena position. Actions are move ids ``0 .. num_moves - 1``.

- :func:`aec_env`: two agents, ``player_0`` and ``player_1``; observations are
  ``{"observation", "action_mask"}`` dicts, as in PettingZoo's classic games
  (:mod:`qarena.env.aec`).
- :func:`gym_env`: one agent against ``random``, ``perfect``, a rule player or a policy
  file, in the first, second or a random seat; the action mask is in ``info["action_mask"]``
  (:mod:`qarena.env.gym`).
- :func:`judge_policy`: qarena's optimality of any policy of positions (:mod:`qarena.env.observed`).
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from qarena.env.encoding import (
    action_mask,
    check_view,
    observation,
    observation_bounds,
    position_of,
)
from qarena.env.observed import judge_policy
from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.i18n import _
from qarena.judging.tables import Optimality

if TYPE_CHECKING:
    import gymnasium
    import numpy as np

    from qarena.env.gym import Action, Seat


class MissingExtraError(QarenaError, ImportError):
    """PettingZoo or Gymnasium is not installed."""


def _need(module: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError as e:
        raise MissingExtraError(
            _(
                "qarena.env needs {module}, which does not import ({problem}); install it with: "
                "pip install 'qarena[env]'"
            ).format(module=module, problem=e)
        ) from None


def aec_env(spec: str | Game, render_mode: str | None = None, view: str = "absolute") -> Any:
    """The game ``spec`` (``nim:3,5,7``, ``tictactoe``…) as a PettingZoo AEC environment, in
    PettingZoo's order-enforcing wrapper; ``render_mode="ansi"`` renders the text form,
    ``"rgb_array"`` the picture. ``view="mover"``: each agent observes from its own side, as
    in PettingZoo's classic games (its marks 1, the other's 2; the last entry 1 at its turn)."""
    check_view(view)
    _need("pettingzoo")
    from qarena.env.aec import make_aec_env

    return make_aec_env(spec, render_mode, view)


def gym_env(
    spec: str | Game,
    opponent: str | os.PathLike[str] = "random",
    seat: Seat = "first",
    render_mode: str | None = None,
) -> gymnasium.Env[np.ndarray, Action]:
    """The game ``spec`` as a Gymnasium environment (``gymnasium.make("qarena/Game-v0", …)``)
    where the agent plays against ``opponent``: ``random``, ``perfect``, a rule player of the
    game (``bouton``, ``poles``, ``poles-strict``, ``subtraction``) or a policy file; ``seat``
    is ``first``, ``second`` or ``random`` (drawn each episode). Only ``perfect`` and a policy
    file build the game's tables, after checking them against the memory budget."""
    _need("gymnasium")
    from qarena.env.gym import make_gym_env

    return make_gym_env(spec, opponent, seat, render_mode)


__all__ = [
    "MissingExtraError",
    "Optimality",
    "action_mask",
    "aec_env",
    "gym_env",
    "judge_policy",
    "observation",
    "observation_bounds",
    "position_of",
]
