"""The Python API at the top of the package, and the one player protocol, judged by facts
from outside the code: Bouton's theorem, known game values, the solver."""

from __future__ import annotations

import functools
import operator
import subprocess
import sys
from pathlib import Path

import pytest

import qarena
from qarena.agents import FunctionPlayer, Player, TablePlayer
from qarena.errors import QarenaError
from qarena.training.run import Progress


def bouton(position: tuple[int, ...]) -> tuple[int, int]:
    """Normal-play nim by Bouton's theorem, as a person writes it: leave a nim-sum of 0."""
    total = functools.reduce(operator.xor, position)
    for pile, size in enumerate(position):
        if size ^ total < size:
            return pile, size - (size ^ total)
    pile = max(range(len(position)), key=position.__getitem__)
    return pile, 1  # lost anyway: take one


def test_import_qarena_is_quick_and_lazy() -> None:
    code = "import sys, qarena; print('numba' in sys.modules, 'qarena.api' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    assert callable(qarena.train) and "train" in dir(qarena)


def test_a_function_player_of_ten_lines_is_judged_exactly() -> None:
    game = qarena.game("nim:3,5,7:normal")

    def mine(position: tuple[int, ...]) -> str:
        pile, take = bouton(position)
        return f"{pile + 1}:{take}"  # as a person types a move

    # Bouton's theorem: leaving a nim-sum of 0 keeps every won position won.
    assert qarena.judge(mine, game, games=100).optimality.share == 1.0
    first = qarena.judge(lambda p, legal: legal[0], game, games=100)
    assert first.optimality.share < 1.0
    player = qarena.player(mine, game)
    assert isinstance(player, FunctionPlayer) and isinstance(player, Player)


def test_a_table_player_and_its_missing_positions() -> None:
    game = qarena.game("nim:1,2")
    solution = qarena.solution(game)
    start = game.start()
    table = {start: solution.optimal_moves(start)[0]}
    player = qarena.player(table, game)
    assert isinstance(player, TablePlayer)
    assert player.act(start) in solution.optimal_moves(start)
    with pytest.raises(QarenaError, match="has no move for"):
        player.act(game.apply(start, game.legal_moves(start)[0]))


def test_an_illegal_move_from_a_person_s_function_is_one_line() -> None:
    game = qarena.game("nim:1,2")
    with pytest.raises(QarenaError, match="not a legal move") as e:
        qarena.play(lambda p: 99, "random", game)
    assert "\n" not in str(e.value)
    with pytest.raises(QarenaError, match="cannot take 5 from pile 2") as e:
        qarena.play(lambda p: "2:5", "random", game)
    assert "\n" not in str(e.value)


def test_train_until_perfect_then_judge_play_and_compete(tmp_path: Path) -> None:
    agent = qarena.train("nim:3,5,7", until_perfect=True, progress=True)
    assert qarena.judge(agent, games=100).optimality.share == 1.0
    path = qarena.save(agent, tmp_path / "nim.npz")
    again = qarena.load(path)
    assert qarena.judge(path, games=100).optimality.share == 1.0
    assert again.episodes == agent.episodes
    # Misère 3-5-7 has nim-sum 1: the first player wins with best play.
    game = qarena.play(agent, "perfect")
    assert game.winner == 0 and not game.mistakes
    assert "A wins" in repr(game) and "<table>" in game._repr_html_()
    match = qarena.compete("perfect", path, games=50)
    assert match.a_first.win == 50 and match.b_first.loss == 50


def test_perfect_play_draws_tic_tac_toe() -> None:
    # Tic-tac-toe is a draw with best play.
    match = qarena.compete("perfect", "perfect", "tictactoe", games=30)
    assert match.total.draw == match.total.games == 60


def test_perfect_players_lose_the_lost_opening_of_1_3_5_7() -> None:
    # Misère 1-3-5-7 has nim-sum 0 (and piles above one): the player to move loses.
    game = qarena.play("perfect", "perfect", "nim:1,3,5,7")
    assert game.winner == 1 and not game.mistakes


def test_a_callback_stops_training() -> None:
    seen: list[Progress] = []

    def stop_soon(p: Progress) -> bool:
        seen.append(p)
        return True

    agent = qarena.train("tictactoe", episodes=1_000_000, callback=stop_soon)
    assert len(seen) == 1 and agent.episodes == seen[0].episodes < 1_000_000


def test_settings_are_keyword_arguments_checked_as_the_command_line_checks_them() -> None:
    agent = qarena.train("nim:2,3", "seat-q", 200, alpha=0.1, gamma=0.8, rewards=(100, 0, -100))
    assert (agent.config.alpha, agent.config.gamma) == (0.1, 0.8)
    with pytest.raises(QarenaError, match=r"alpha must be in \(0, 1\]"):
        qarena.train("nim:2,3", alpha=2.0)
    with pytest.raises(QarenaError, match="unknown learner"):
        qarena.train("nim:2,3", "sarsa")
    with pytest.raises(QarenaError, match="built-in players: name the game"):
        qarena.compete("random", "perfect")


def test_a_scripted_side_plays_its_moves_in_turn_and_each_is_judged() -> None:
    # Misère nim 1-2: taking the whole pile of two leaves the opponent the last match (a
    # win); taking the single match lets the opponent do that to you.
    won = qarena.play(["2:2"], "perfect", "nim:1,2")
    assert won.winner == 0 and not won.mistakes
    lost = qarena.play(["1:1", "2:1"], "perfect", "nim:1,2")
    assert lost.winner == 1 and [t.mover for t in lost.mistakes] == [0]
    with pytest.raises(QarenaError, match="the script's 1 move is played"):
        qarena.play(["1:1"], "perfect", "nim:1,2")
