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
