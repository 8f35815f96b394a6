"""What both environments share: reading the game, the render mode and an action."""

from __future__ import annotations

import numpy as np

from qarena.errors import QarenaError
from qarena.games.base import Game, Move
from qarena.games.spec import parse_spec

#: The one render mode: the position's text form.
RENDER_MODES = ("ansi",)


def game_of(spec: str | Game) -> Game:
    """The game a spec names (a Game is taken as it is)."""
    return parse_spec(spec) if isinstance(spec, str) else spec


def render_mode_of(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise QarenaError(f"render_mode is 'ansi' or None, not {mode!r}")
    return mode


def move_id(action: object, game: Game) -> Move:
    """An action as a move id; anything else is refused with one line."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(-1)[0]
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        move = int(action)
        if 0 <= move < game.num_moves:
            return move
    raise QarenaError(
        f"action {action!r} is not a move of {game.spec}: actions are move ids "
        f"0..{game.num_moves - 1}"
    )


__all__ = ["RENDER_MODES", "game_of", "move_id", "render_mode_of"]
