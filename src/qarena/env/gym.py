"""A Gymnasium environment: one agent plays a qarena game against a fixed opponent.

Registered as ``qarena/Game-v0`` when this module is imported, so
``gymnasium.make("qarena.env.gym:qarena/Game-v0", spec="nim:3,5,7", opponent="perfect")``
works with no import of qarena first (Gymnasium imports the module named before the colon),
as well as :func:`qarena.env.gym_env`. ``render_mode="rgb_array"`` draws the position.

- Observation: the vector of :mod:`qarena.env.encoding` (a ``Box`` of ``int64``); at the
  agent's turn its last entry is the agent's own mark (1 first, 2 second).
- Action: a move id, ``Discrete(game.num_moves)``. The legal moves are in
  ``info["action_mask"]`` (``int8``, 1 where legal, as ``Discrete.sample(mask=...)`` takes
  it), from ``reset`` and every ``step``, and ``env.unwrapped.action_masks()`` gives them as
  booleans (the method maskable learners such as sb3-contrib's ``MaskablePPO`` call).
- Reward: 0 until the game ends, then +1 win, 0 draw, -1 loss, from the agent's side.
- An illegal move (a move id in range that the position does not allow) ends the episode at
  once as a loss: reward -1, ``terminated``, ``info["illegal_move"]`` True, the position
  unchanged. An action outside ``0 .. num_moves - 1`` is not a move at all and raises
  :class:`~qarena.errors.QarenaError`.
- ``truncated`` is always False: every game ends within ``game.max_plies`` moves.
- Seat: ``first``, ``second`` or ``random`` (drawn each episode). In the second seat the
  opponent's opening move is made inside ``reset``.
"""

from __future__ import annotations

import os
from typing import Any, Literal, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from qarena.agents.players import PlayerLike
from qarena.env.common import RENDER_MODES, game_of, move_id, render, render_mode_of
from qarena.env.encoding import action_mask, observation, observation_bounds
from qarena.env.players import opening_can_end, opponent_chooser
from qarena.errors import QarenaError
from qarena.games.base import Game, Move, Position
from qarena.i18n import _

ENV_ID = "qarena/Game-v0"
SEATS = ("first", "second", "random")
#: The agent's seat: always first, always second, or drawn for each episode.
Seat = Literal["first", "second", "random"]
#: An action: a move id, as a Python or a numpy integer (``Discrete.sample`` gives the latter).
Action = int | np.integer[Any]
#: Reward for an illegal move: the game is lost.
ILLEGAL_REWARD = -1.0


class GameEnv(gymnasium.Env[np.ndarray, Action]):
    """One agent against a fixed opponent in a qarena game (see the module's docstring)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        spec: str | Game = "nim:3,5,7",
        opponent: PlayerLike = "random",
        seat: Seat = "first",
        render_mode: str | None = None,
    ) -> None:
        self.game = game_of(spec)
        if seat not in SEATS:
            raise QarenaError(
                _("unknown seat {seat!r}; expected {seats}").format(
                    seat=seat, seats=", ".join(SEATS)
                )
            )
        if seat != "first" and opening_can_end(self.game):
            raise QarenaError(
                _(
                    "the first move can end {spec}, so the agent may not get a move in the "
                    "second seat; use seat='first'"
                ).format(spec=self.game.spec)
            )
        self.seat_option = seat
        self.render_mode = render_mode_of(render_mode)
        self.opponent_name, self._choose = opponent_chooser(self.game, opponent)
        low, high = observation_bounds(self.game)
        self.observation_space = spaces.Box(low, high, dtype=np.int64)
        self.action_space = spaces.Discrete(self.game.num_moves)
        self.seat = 0  # the agent's seat this episode: 0 first, 1 second
        self.position: Position = self.game.start()
        self.plies = 0
        self.over = True  # until reset starts an episode

    # --- what the agent sees ------------------------------------------------------------
    def _observation(self) -> np.ndarray:
        return observation(self.game, self.position, self.plies % 2)

    def action_masks(self) -> np.ndarray:
        """The legal moves as booleans (all False once the episode is over)."""
        if self.over:
            return np.zeros(self.game.num_moves, dtype=np.bool_)
        return action_mask(self.game, self.position).astype(np.bool_)

    def _info(self, opponent_move: Move | None) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks().astype(np.int8),
            "seat": ("first", "second")[self.seat],
            "opponent_move": opponent_move,
        }

    # --- the game ---------------------------------------------------------------------
    def _apply(self, move: Move) -> None:
        self.position = self.game.apply(self.position, move)
        self.plies += 1

    def _reply(self) -> Move:
        move = self._choose(self.position, self.np_random)
        self._apply(move)
        return move

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if self.seat_option == "random":
            self.seat = int(self.np_random.integers(2))
        else:
            self.seat = SEATS.index(self.seat_option)
        self.position, self.plies, self.over = self.game.start(), 0, False
        # opening_can_end rules out an opening that ends the game here.
        opening = self._reply() if self.seat == 1 else None
        return self._observation(), self._info(opening)

    def step(self, action: Action) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.over:
            raise QarenaError(_("the episode is over: call reset() to start another"))
        move = move_id(action, self.game)
        if move not in self.game.legal_moves(self.position):
            self.over = True
            info = {**self._info(None), "illegal_move": True}
            return self._observation(), ILLEGAL_REWARD, True, False, info
        self._apply(move)
        reply = None
        reward = 0.0
        if self.game.is_terminal(self.position):
            # result() is for the player to move: the opponent, after the agent's move.
            reward = float(-self.game.result(self.position))
        else:
            reply = self._reply()
            if self.game.is_terminal(self.position):
                reward = float(self.game.result(self.position))
        self.over = self.game.is_terminal(self.position)
        info = {**self._info(reply), "illegal_move": False}
        return self._observation(), reward, self.over, False, info

    def render(self) -> str | np.ndarray | None:
        return render(self.game, self.position, self.render_mode)

    def close(self) -> None:
        pass


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="qarena.env.gym:GameEnv")


def make_gym_env(
    spec: str | Game,
    opponent: PlayerLike = "random",
    seat: Seat = "first",
    render_mode: str | None = None,
) -> gymnasium.Env[np.ndarray, Action]:
    """``gymnasium.make`` of ``qarena/Game-v0`` (with Gymnasium's usual wrappers)."""
    game = game_of(spec)
    return gymnasium.make(
        ENV_ID,
        spec=game.spec,
        opponent=os.fspath(opponent) if isinstance(opponent, str | os.PathLike) else opponent,
        seat=seat,
        render_mode=render_mode_of(render_mode),
    )


__all__ = ["ENV_ID", "ILLEGAL_REWARD", "SEATS", "Action", "GameEnv", "Seat", "make_gym_env"]
