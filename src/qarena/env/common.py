"""What both environments share: reading the game, the render mode and an action."""

from __future__ import annotations

import numpy as np

from qarena.errors import QarenaError
from qarena.games.base import Game, Move, Position
from qarena.games.spec import parse_spec
from qarena.i18n import _

#: The render modes: the position's text form, or its picture as an RGB array.
RENDER_MODES = ("ansi", "rgb_array")


def game_of(spec: str | Game) -> Game:
    """The game a spec names (a Game is taken as it is)."""
    return parse_spec(spec) if isinstance(spec, str) else spec


def render_mode_of(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise QarenaError(
            _("render_mode is 'ansi', 'rgb_array' or None, not {mode!r}").format(mode=mode)
        )
    return mode


def render(game: Game, position: Position, mode: str | None) -> str | np.ndarray | None:
    """What ``render()`` gives in both environments: the position's text form, its picture
    (``rgb_array``), or a warning and None without a render mode (as Gymnasium's own
    environments do)."""
    if mode is None:
        import gymnasium  # loaded already by whichever environment asks

        gymnasium.logger.warn(
            "render() was called without a render_mode; make the environment with "
            "render_mode='ansi' to get the position's text form"
        )
        return None
    if mode == "rgb_array":
        return picture(game, position)
    return game.format_position(position)


_CELL = 48
_BACKGROUND, _LINE = (250, 249, 246), (190, 190, 190)
_MARKS = {1: (200, 60, 40), 2: (40, 90, 200)}  # x (first player), o (second)
_MATCH = (160, 110, 50)


def picture(game: Game, position: Position) -> np.ndarray:
    """The position drawn as an ``(height, width, 3)`` array of ``uint8``: a board's cells with
    their marks (x a cross, o a ring), or each pile's matches in a row of its own."""
    if game.layout == "grid":
        rows, cols = game.grid_size()
        image = np.full((rows * _CELL + 1, cols * _CELL + 1, 3), _BACKGROUND, np.uint8)
        image[::_CELL, :] = _LINE
        image[:, ::_CELL] = _LINE
        yy, xx = np.mgrid[0:_CELL, 0:_CELL] - (_CELL - 1) / 2
        cross = (np.abs(np.abs(yy) - np.abs(xx)) < 3) & (np.abs(yy) < _CELL * 0.35)
        ring = np.abs(np.hypot(yy, xx) - _CELL * 0.32) < 2.5
        for i, cell in enumerate(position):
            if cell in _MARKS:
                r, c = divmod(i, cols)
                block = image[r * _CELL : (r + 1) * _CELL, c * _CELL : (c + 1) * _CELL]
                block[(cross if cell == 1 else ring)[: block.shape[0], : block.shape[1]]] = _MARKS[
                    cell
                ]
        return image
    # Piles, a heap, or any other game: a row of matches per component.
    most = max(max(game.radix) - 1, 1)
    height, step = 40, 12
    image = np.full((len(position) * height + 8, most * step + 16, 3), _BACKGROUND, np.uint8)
    for i, count in enumerate(position):
        top = i * height + 8
        for k in range(int(count)):
            image[top : top + height - 12, 8 + k * step : 8 + k * step + 6] = _MATCH
    return image


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
