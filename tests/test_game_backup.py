"""The tic-tac-toe blog's own learner (seed 003), ``game-backup``: every position of a game
backed up at its end, checked against updates computed by hand and against the blog's result."""

from __future__ import annotations

import numpy as np
import pytest

from qarena.agents.opponents import opponent
from qarena.games import parse_spec
from qarena.judging.evaluation import strategy_mask
from qarena.learn.learners import TABLE_LEARNERS as LEARNERS
from qarena.learn.learners import make_learner
from qarena.show.matches import play_series
from tests.test_help import _help

CLS = LEARNERS["game-backup"]


def test_defaults_are_the_blog_s_values() -> None:
    c = CLS.default_config()
    assert (c.rewards, c.initial, c.gamma) == ((1.0, 0.5, 0.0), 0.25, 1.0)


def test_one_game_by_hand() -> None:
    """Heap 3, take 1 (normal play): every move is forced, 3 → 2 → 1 → 0, and the first
    player wins. Its rate 0.5, the second's 0.25; rewards 1 / 0.5 / 0, every value 0.25 at
    first, no discount. Walking back, each position moves toward the value just computed for
    the one after it (the updated value, not the old one); the table keeps a row per view
    (0: the player who moved there, 1: the player to move), as in impartial games the position
    does not tell whose turn it is.

    First player (reward 1): heap 1, its turn:   0.25 + 0.5·(1 − 0.25)      = 0.625
                             heap 2, moved there: 0.25 + 0.5·(0.625 − 0.25)  = 0.4375
                             heap 3, its turn:   0.25 + 0.5·(0.4375 − 0.25)  = 0.34375
    Second player (reward 0): heap 1, moved there: 0.25 + 0.25·(0 − 0.25)    = 0.1875
                             heap 2, its turn:   0.25 + 0.25·(0.1875 − 0.25) = 0.234375
                             heap 3, the other moved there (the opening):
                                                 0.25 + 0.25·(0.234375 − 0.25) = 0.24609375
    """
    game = parse_spec("subtraction:3:1:normal")
    config = CLS.build_config({"alpha": 0.5, "alpha_second": 0.25, "starts": 0.0, "seed": 1})
    learner = make_learner("game-backup", game, config)
    rows = {game.format_position(learner.tables.position(r)): r for r in range(4)}
    assert learner.train(1) == 3
    expected = np.full((2, 4), 0.25)
    expected[1, rows["1"]] = 0.625
    expected[0, rows["2"]] = 0.4375
    expected[1, rows["3"]] = 0.34375
    expected[0, rows["1"]] = 0.1875
    expected[1, rows["2"]] = 0.234375
    expected[0, rows["3"]] = 0.24609375
    assert np.array_equal(learner.v, expected)

    # Against an opponent, with the learner second: only its own walk is learned, the same
    # as the second player's above (its rate is the second seat's).
    alone = make_learner("game-backup", game, config)
    assert alone.train(1, opponent(alone.tables, "random"), seat="second") == 3
    expected = np.full((2, 4), 0.25)
    expected[0, rows["1"]] = 0.1875
    expected[1, rows["2"]] = 0.234375
    expected[0, rows["3"]] = 0.24609375
    assert np.array_equal(alone.v, expected)


def test_every_position_of_the_game_is_backed_up_by_both_agents() -> None:
    """Tic-tac-toe, one game of random moves (exploratory moves are backed up too): each
    agent's own table changes at every position of the game but the last, the opening and the
    positions its opponent moves from included, and nowhere else."""
    game = parse_spec("tictactoe")
    config = CLS.build_config({"epsilon": 1.0, "starts": 0.0, "schedule": "constant", "seed": 7})
    learner = make_learner("game-backup", game, config)
    moves = learner.train(1)
    changed = learner.v != 0.25
    assert np.array_equal(changed[0], changed[1])
    assert changed[0].sum() == moves  # the positions before each move: the game's, but its end
    assert changed[0, learner.tables.start]


@pytest.mark.parametrize("seed", range(4))
def test_the_blog_s_settings_draw_and_never_lose_to_perfect_play(seed: int) -> None:
    """The blog's two agents (its α 0.99 and 0.8 times its factor 0.1, ε 0.5 and 0.2 throughout,
    every game from the opening) after the 20,000 games it says suffice: 400 of 400 games
    against each other drawn, and no loss against perfect play in either seat (measured: 10,000
    games suffice for 4 seeds of 4; after 2,000, perfect play still beats the second agent)."""
    game = parse_spec("tictactoe")
    given = {
        "alpha": 0.099,
        "alpha_second": 0.08,
        "epsilon": 0.5,
        "epsilon_second": 0.2,
        "schedule": "constant",
        "starts": 0.0,
        "seed": seed,
    }
    learner = make_learner("game-backup", game, CLS.build_config(given))
    learner.train(20_000)
    t, mine = learner.tables, learner.best_moves()
    perfect = strategy_mask(t, "perfect")
    assert play_series(t, mine, mine, 400, seed).draw == 400
    assert play_series(t, mine, perfect, 400, seed).loss == 0
    assert play_series(t, perfect, mine, 400, seed).win == 0


def test_each_agent_learns_at_its_own_rate() -> None:
    """With the second agent's rate near 0 its table barely leaves 0.25 while the first
    agent's moves far from it; unset, the second agent learns at the first one's rate."""
    game = parse_spec("tictactoe")
    base = CLS.default_config(seed=4, starts=0.0)
    slow = make_learner("game-backup", game, CLS.build_config({"alpha_second": 1e-9}, base))
    slow.train(3_000)
    assert np.abs(slow.v[0] - 0.25).max() > 0.1
    assert np.abs(slow.v[1] - 0.25).max() < 1e-6
    same = make_learner("game-backup", game, CLS.build_config({"alpha_second": base.alpha}, base))
    plain = make_learner("game-backup", game, base)
    same.train(500)
    plain.train(500)
    assert np.array_equal(same.v, plain.v)


def test_train_help_says_what_it_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The help's box borders wrap long cells: read the words across them.
    text = " ".join(_help(capsys, monkeypatch, ["train"]).replace("│", " ").split())
    assert "game-backup — end-of-game backup (the tic-tac-toe blog's rule)" in text
    assert "afterstate — afterstate TD(0)" in text
