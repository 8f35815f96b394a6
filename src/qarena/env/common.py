"""What both environments share: reading the game, the render mode and an action."""

from __future__ import annotations

import numpy as np

from qarena.errors import QarenaError
from qarena.games.base import Game, Move, Position
from qarena.games.spec import parse_spec
from qarena.i18n import _

#: The one render mode: the position's text form.
RENDER_MODES = ("ansi",)


def game_of(spec: str | Game) -> Game:
    """The game a spec names (a Game is taken as it is)."""
    return parse_spec(spec) if isinstance(spec, str) else spec


def render_mode_of(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise QarenaError(_("render_mode is 'ansi' or None, not {mode!r}").format(mode=mode))
    return mode


def render(game: Game, position: Position, mode: str | None) -> str | None:
    """What ``render()`` gives in both environments: the position's text form, or a warning
    and None without a render mode (as Gymnasium's own environments do)."""
    if mode is None:
        import gymnasium  # loaded already by whichever environment asks

        gymnasium.logger.warn(
            "render() was called without a render_mode; make the environment with "
            "render_mode='ansi' to get the position's text form"
        )
        return None
    return game.format_position(position)


def move_id(action: object, game: Game) -> Move:
    """An action as a move id; anything else is refused with one line."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(-1)[0]
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        move = int(action)
        if 0 <= move < game.num_moves:
            return move
    raise QarenaError(
        _("action {action!r} is not a move of {spec}: actions are move ids 0..{last}").format(
            action=action, spec=game.spec, last=game.num_moves - 1
        )
    )


__all__ = ["RENDER_MODES", "game_of", "move_id", "render_mode_of"]
