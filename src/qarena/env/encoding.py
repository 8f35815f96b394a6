"""The observation and action mask every qarena environment gives, the same for every game.

An observation is a vector of ``int64`` with one entry per component of the position and one
more (``Box`` of shape ``(len(game.radix) + 1,)``):

- entries ``0 .. n-1`` are the position exactly as qarena holds it: for nim and the
  subtraction game the size of each pile (0 up to its starting size); for tic-tac-toe and
  Connect Four each cell, row by row from the top-left, 0 empty, 1 x (the first player's
  mark), 2 o;
- entry ``n`` is the mark of the player to move: 1 for the first player, 2 for the second.
  A board says it too (count the marks); in nim and the subtraction game it is only the
  parity of the plies played, since the position alone decides those games.

In the mover's view (``view="mover"``, as PettingZoo's classic games observe), everything is
seen by one agent: on boards its own marks are 1 and the other agent's 2, and the last entry is
1 when it is to move, 2 when not; piles are the same in both views. The absolute view is the
default.

So in the absolute view ``position_of(obs)`` (``tuple(obs[:-1])``) is the qarena position,
the key a table learner wants and what :func:`qarena.env.judge_policy` asks a policy about,
and ``obs[-1] - 1`` is the seat to move. The bounds are exact per entry: low ``[0, …, 0,
1]``, high ``[radix - 1 …, 2]``. Actions are qarena's move ids ``0 .. game.num_moves - 1``
(``game.format_move`` writes one as people type it); the action mask is an ``int8`` vector
over them, 1 where legal.
"""

from __future__ import annotations

import numpy as np

from qarena.errors import PositionError
from qarena.games.base import Game, Position
from qarena.i18n import _

#: The last entry: the mark of the player to move, by seat (0 first, 1 second).
FIRST_MARK, SECOND_MARK = 1, 2


def observation_bounds(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of each entry of ``game``'s observations."""
    n = len(game.radix)
    low = np.zeros(n + 1, dtype=np.int64)
    high = np.empty(n + 1, dtype=np.int64)
    high[:n] = np.asarray(game.radix, dtype=np.int64) - 1
    low[n], high[n] = FIRST_MARK, SECOND_MARK
    return low, high


def observation(game: Game, position: Position, seat: int) -> np.ndarray:
    """The observation of ``position`` with seat ``seat`` (0 first, 1 second) to move."""
    if seat not in (0, 1):
        raise PositionError(
            _("the seat to move is 0 (first) or 1 (second), not {seat!r}").format(seat=seat)
        )
    game._check_position(position)
    out = np.empty(len(position) + 1, dtype=np.int64)
    out[:-1] = position
    out[-1] = FIRST_MARK + seat
    return out


#: How an observation sees the game: as qarena holds it, or from one agent's side.
VIEWS = ("absolute", "mover")


def check_view(view: str) -> str:
    if view not in VIEWS:
        raise PositionError(_("view is 'absolute' or 'mover', not {view!r}").format(view=view))
    return view


def seen_by(game: Game, position: Position, seat: int, viewer: int) -> np.ndarray:
    """The observation of ``position`` (seat ``seat`` to move) from ``viewer``'s side: on a
    board its own marks 1 and the other's 2; the last entry 1 when ``viewer`` is to move."""
    out = observation(game, position, seat)
    if viewer == 1 and game.to_move(position) is not None:
        cells = out[:-1]
        out[:-1] = np.where(cells == 1, 2, np.where(cells == 2, 1, cells))
    out[-1] = FIRST_MARK if viewer == seat else SECOND_MARK
    return out


def position_of(obs: np.ndarray, game: Game | None = None, view: str = "absolute") -> Position:
    """The qarena position an observation shows: all entries but the last in the absolute
    view; in the mover's view (``game`` needed) a board's marks are turned back from the
    viewer's side (its own marks 1) to x 1 and o 2."""
    flat = np.asarray(obs).reshape(-1)
    raw = tuple(int(v) for v in flat[:-1])
    if check_view(view) == "absolute":
        return raw
    if game is None:
        raise PositionError(
            _("an observation in the mover's view is read with its game: {call}").format(
                call="position_of(obs, game, view='mover')"
            )
        )
    if game.to_move(raw) is None:  # piles look the same from either side
        return raw
    ones, twos = raw.count(1), raw.count(2)
    # x moves when the marks are level. The viewer is o (its marks shown as 1) when it is to
    # move with fewer marks than the other, or waits while the marks are level.
    viewer_second = twos > ones if int(flat[-1]) == FIRST_MARK else ones == twos
    if not viewer_second:
        return raw
    return tuple(2 if v == 1 else 1 if v == 2 else v for v in raw)


def action_mask(game: Game, position: Position) -> np.ndarray:
    """``int8`` over every move id, 1 where the move is legal in ``position``."""
    mask = np.zeros(game.num_moves, dtype=np.int8)
    mask[game.legal_moves(position)] = 1
    return mask


__all__ = ["action_mask", "observation", "observation_bounds", "position_of"]
