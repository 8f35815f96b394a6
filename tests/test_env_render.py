"""The environments' pictures (``render_mode="rgb_array"``) and Gymnasium's module:name ids:
Gymnasium's and PettingZoo's own checks, and pictures that show the position."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from qarena.env import aec_env, gym_env
from qarena.env.common import picture
from qarena.games import parse_spec

RED, BLUE, MATCH = (200, 60, 40), (40, 90, 200), (160, 110, 50)


def _has(block: np.ndarray, colour: tuple[int, int, int]) -> bool:
    return bool((block == colour).all(axis=-1).any())


def test_a_board_shows_each_cell_s_mark() -> None:
    game = parse_spec("tictactoe")
    position = game.parse_position("xo./.x./..o")
    image = picture(game, position)
    assert image.dtype == np.uint8 and image.shape == (145, 145, 3)
    for i, cell in enumerate(position):
        r, c = divmod(i, 3)
        block = image[r * 48 + 1 : (r + 1) * 48, c * 48 + 1 : (c + 1) * 48]
        assert _has(block, RED) == (cell == 1) and _has(block, BLUE) == (cell == 2), i


def test_piles_show_their_matches() -> None:
    game = parse_spec("nim:3,5,7")
    for position in [(3, 5, 7), (0, 2, 7), (1, 0, 0)]:
        image = picture(game, position)
        for i, pile in enumerate(position):
            row = (image[i * 40 + 20] == MATCH).all(axis=-1).astype(int)
            assert int(np.sum(np.diff(row) == 1) + row[0]) == pile


@pytest.mark.parametrize("spec", ["tictactoe", "nim:3,5,7", "connect4:4x5", "subtraction"])
def test_gymnasium_s_checker_passes_with_pictures(spec: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym_env(spec, render_mode="rgb_array")
    check_env(env.unwrapped)
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3


def test_pettingzoo_s_render_test_passes() -> None:
    from pettingzoo.test import render_test

    def make(render_mode: str | None = None) -> object:
        # The test first makes a "human" environment only to read its render modes; qarena
        # has no window to draw in, so that one renders nothing.
        return aec_env("tictactoe", render_mode=None if render_mode == "human" else render_mode)

    render_test(make)


def test_gymnasium_finds_the_environment_by_module_name_without_an_import() -> None:
    """A fresh interpreter that has not imported qarena: the module:name id brings it in."""
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('qarena.env.gym:qarena/Game-v0', spec='tictactoe',"
        " render_mode='rgb_array')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(env.render().shape, obs.tolist())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split("\n")[0] == "(145, 145, 3) [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]"


def test_the_mover_s_view_passes_pettingzoo_s_api_test() -> None:
    from pettingzoo.test import api_test

    for spec in ("tictactoe", "nim:3,5,7", "connect4:4x4"):
        api_test(aec_env(spec, view="mover"), num_cycles=50)


def test_each_agent_sees_its_own_marks_as_1() -> None:
    env = aec_env("tictactoe", view="mover")
    env.reset(seed=0)
    env.step(4)  # x (player_0) takes the centre
    for agent, own, to_move in (("player_0", 1, 2), ("player_1", 2, 1)):
        seen = env.observe(agent)["observation"]
        assert seen[4] == own and seen[-1] == to_move, agent
    nim = aec_env("nim:3,5,7", view="mover")
    nim.reset(seed=0)
    nim.step(0)  # take one from the first pile
    assert nim.observe("player_1")["observation"].tolist() == [2, 5, 7, 1]
    assert nim.observe("player_0")["observation"].tolist() == [2, 5, 7, 2]


def test_a_policy_of_mover_observations_is_judged() -> None:
    """The solver's moves, keyed by what the mover sees: perfect play, asked as an agent of
    ``aec_env(view="mover")`` is asked. On a board the player to move has as many marks as the
    other (x) or one fewer (o), and sees its own as 1."""
    from qarena.env import judge_policy
    from qarena.env.encoding import seen_by
    from qarena.exact import solve

    game = parse_spec("tictactoe")
    solution = solve(game)
    table: dict[tuple[int, ...], dict[int, float]] = {}
    asked: list[np.ndarray] = []
    stack, seen_positions = [game.start()], set()
    while stack:
        position = stack.pop()
        if position in seen_positions or game.is_terminal(position):
            continue
        seen_positions.add(position)
        seat = game.to_move(position)
        assert seat is not None
        key = tuple(int(v) for v in seen_by(game, position, seat, seat))
        table[key] = {m: float(v) for m, v in solution.move_values(position).items()}
        stack += [game.apply(position, m) for m in game.legal_moves(position)]

    def policy(obs: np.ndarray) -> dict[int, float]:
        asked.append(obs)
        return table[tuple(int(v) for v in obs)]

    assert judge_policy(game, policy, view="mover").share == 1.0
    assert judge_policy(game, table, view="mover").share == 1.0
    for obs in asked:
        own, other = int((obs[:-1] == 1).sum()), int((obs[:-1] == 2).sum())
        assert obs[-1] == 1 and other - own in (0, 1)
    with pytest.raises(Exception, match="mover's view"):
        judge_policy(game, policy, view="absolute")
