"""A PettingZoo AEC environment for any qarena game: two agents, ``player_0`` (moves first)
and ``player_1``, as in PettingZoo's classic board games.

- Observation: ``{"observation": ..., "action_mask": ...}``. The observation is the vector
  of :mod:`qarena.env.encoding`, the same for both agents (the last entry is the mark of the
  player to move); the action mask is ``int8`` over the move ids, 1 where legal for the
  observing agent: all zeros when it is not that agent's turn, or the game is over.
- Action: a move id, ``Discrete(game.num_moves)``.
- Rewards: 0 until the game ends, then +1 to the winner and -1 to the loser (0 each for a
  draw).
- An illegal move (a move id in range that the position does not allow) ends the game as
  PettingZoo's classic games do: -1 to the agent that made it, 0 to the other, everyone
  terminated, ``infos[agent]["illegal_move"]`` True. An action outside the action space is
  refused with :class:`~qarena.errors.QarenaError`.
- ``render_mode="ansi"``: ``render()`` returns the position's text form
  (``game.format_position``), e.g. ``x../.o./..x`` or ``3 5 7``.

Nothing here builds the game's tables: any game that parses plays, however large.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from qarena.env.common import RENDER_MODES, game_of, move_id, render, render_mode_of
from qarena.env.encoding import (
    action_mask,
    check_view,
    observation,
    observation_bounds,
    seen_by,
)
from qarena.games.base import Game

AGENTS = ("player_0", "player_1")
#: Reward for an illegal move: the game is lost (the other agent gets 0, as in PettingZoo's
#: classic games).
ILLEGAL_REWARD = -1.0


class GameAECEnv(AECEnv):  # type: ignore[misc]  # pettingzoo has no type information
    """Two agents alternate in a qarena game (see the module's docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo's form
        "render_modes": list(RENDER_MODES),
        "name": "qarena_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self, spec: str | Game, render_mode: str | None = None, view: str = "absolute"
    ) -> None:
        super().__init__()
        self.game = game_of(spec)
        self.render_mode = render_mode_of(render_mode)
        self.view = check_view(view)
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        low, high = observation_bounds(self.game)
        m = self.game.num_moves
        # One space object per agent, always the same one: seeding a space must stick.
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.int64),
                    "action_mask": spaces.Box(0, 1, shape=(m,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(m) for a in self.possible_agents}
        self._selector = AgentSelector(self.agents)
        self.position = self.game.start()
        self.plies = 0
        self._start()

    def _start(self) -> None:
        self.agents = self.possible_agents[:]
        self.position, self.plies = self.game.start(), 0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._selector.reinit(self.agents)
        self.agent_selection = self._selector.reset()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            # The game has no chance in it; seeding the action spaces makes sample() repeat.
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self._start()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.num_moves, dtype=np.int8)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask = action_mask(self.game, self.position)
        seat = self.plies % 2
        if self.view == "mover":
            seen = seen_by(self.game, self.position, seat, AGENTS.index(agent))
        else:
            seen = observation(self.game, self.position, seat)
        return {"observation": seen, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The whole game as one vector: the observation (both agents see everything)."""
        return observation(self.game, self.position, self.plies % 2)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = move_id(action, self.game)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        other = AGENTS[1 - AGENTS.index(agent)]
        if move not in self.game.legal_moves(self.position):
            self.rewards[agent] = ILLEGAL_REWARD
            self.infos[agent] = {"illegal_move": True}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.position = self.game.apply(self.position, move)
            self.plies += 1
            if self.game.is_terminal(self.position):
                # result() is for the player to move now: the other agent.
                result = float(self.game.result(self.position))
                self.rewards[other], self.rewards[agent] = result, -result
                self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self._selector.next()
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        return render(self.game, self.position, self.render_mode)

    def close(self) -> None:
        pass


def make_aec_env(spec: str | Game, render_mode: str | None = None, view: str = "absolute") -> Any:
    """The environment inside PettingZoo's order-enforcing wrapper, as the classic games come
    (``.unwrapped`` is the :class:`GameAECEnv`)."""
    return OrderEnforcingWrapper(GameAECEnv(spec, render_mode, view))


__all__ = ["AGENTS", "ILLEGAL_REWARD", "GameAECEnv", "make_aec_env"]
