"""The Python API at the top of the package, and the one player protocol, judged by facts
from outside the code: Bouton's theorem, known game values, the solver."""

from __future__ import annotations

import functools
import operator
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    with pytest.raises(QarenaError, match=r"built-in players: give their game \(a spec"):
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


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"episodes": "100"}, "episodes must be a whole number, not '100'"),
        ({"episodes": 1.5}, "episodes must be a whole number, not 1.5"),
        ({"episodes": True}, "episodes must be a whole number, not True"),
        ({"check_every": 2.5, "until_perfect": True}, "check_every must be a whole number"),
        ({"curve": True, "every": "10"}, "every must be a whole number"),
        ({"seed": 1.5}, "seed must be a whole number, not 1.5"),
        ({"alpha": "0.5"}, "alpha must be a number, not '0.5'"),
        ({"alpha": True}, "alpha must be a number, not True"),
        ({"initial": None, "gamma": [1]}, r"gamma must be a number, not \[1\]"),
        ({"schedule": 3}, "schedule must be one of linear, exp, constant, not 3"),
        ({"rewards": "1,0,-1"}, "rewards are three numbers WIN,DRAW,LOSS, not '1,0,-1'"),
        ({"rewards": (1, 0, True)}, "rewards are three numbers"),
    ],
)
def test_a_setting_of_the_wrong_type_is_one_line_naming_it(
    given: dict[str, object], expected: str
) -> None:
    # They raised TypeError (episodes="100", seed=1.5), or trained on (episodes=1.5 and
    # True, alpha=True): every training setting is typed by its one declaration.
    with pytest.raises(QarenaError, match=expected) as e:
        qarena.train("nim:1,2", **given)  # type: ignore[arg-type]
    assert "\n" not in str(e.value)


def test_whole_numbers_of_any_kind_and_numbers_for_rates_are_taken() -> None:
    import numpy as np

    agent = qarena.train("nim:1,2", episodes=np.int64(40), alpha=1, seed=np.uint8(3))
    assert agent.episodes == 40 and agent.config.alpha == 1.0 and agent.config.seed == 3
    assert isinstance(agent.config.alpha, float) and isinstance(agent.config.seed, int)


@pytest.mark.parametrize("returned", [0.0, True, None, [0], "x" * 100_000])
def test_a_move_function_returning_what_is_not_a_move_is_one_line(returned: object) -> None:
    # 0.0 and True compare equal to move 0 and were taken, then broke the tables they index
    # (IndexError); a 100,000-character text is repeated cut short.
    with pytest.raises(QarenaError) as e:
        qarena.play(lambda p: returned, "random", "nim:1,2")
    text = str(e.value)
    assert "\n" not in text and len(text) < 300
    assert "a move is its text" in text or "is not PILE:COUNT" in text


def test_a_move_function_may_return_numpy_s_whole_numbers() -> None:
    import numpy as np

    game = qarena.game("nim:1,2")
    done = qarena.play(lambda p, legal: np.int64(legal[-1]), "perfect", game)
    assert done.winner in (0, 1)


@pytest.mark.parametrize(
    ("spec", "position", "expected"),
    [
        ("connect4", (5,) * 42, "is not a position of connect4:6x7:4"),
        ("connect4", (0,) * 3, r"\(0, 0, 0\) is not a position of connect4"),
        ("nim", (9, 9, 9), "is not a position of nim:3,5,7"),
        ("nim", ("1", "2", "3"), "give its text, like '3 5 7', or its 3 components"),
        ("nim", 357, "give its text"),
        ("connect4:4x5", (1,) + (0,) * 19, "floating in column a"),
        ("tictactoe", (2,) + (0,) * 8, "has 0 x and 1 o"),
        ("connect4", (5,) * 100_000, "is not a position of connect4"),
    ],
)
def test_a_position_given_as_numbers_is_checked_as_its_text_would_be(
    spec: str, position: object, expected: str
) -> None:
    # (5,)*42 on Connect Four raised IndexError; (9, 9, 9) on nim 3-5-7 was drawn.
    with pytest.raises(QarenaError, match=expected) as e:
        qarena.board(spec, position)  # type: ignore[arg-type]
    assert "\n" not in str(e.value) and len(str(e.value)) < 300


def test_a_position_may_be_a_list() -> None:
    game = qarena.game("tictactoe")
    assert qarena.board(game, [1, 0, 0, 0, 2, 0, 0, 0, 0]).position == game.parse_position(
        "x../.o./..."
    )


def test_judge_checks_every_position_before_any_game() -> None:
    # A finished position, or one that is not a position, was refused only after the games
    # were played (22 s for classic Connect Four): now before the player moves at all.
    asked: list[tuple[int, ...]] = []

    def counting(position: tuple[int, ...], legal: list[int]) -> int:
        asked.append(position)
        return legal[0]

    cases: list[tuple[object, str]] = [
        (["3", "1212121"], "1212121 is finished; there is no move to judge"),
        ([(0,) * 20, (5,) * 20], "is not a position of connect4:4x5:4"),
        ([[0] * 19], "is not a position of connect4:4x5:4"),
        ("12", "positions is a list of positions, not '12'"),
        ([], "positions must be at least 1, not 0"),
    ]
    for positions, expected in cases:
        with pytest.raises(QarenaError, match=expected):
            qarena.judge(counting, "connect4:4x5", games=3, positions=positions)  # type: ignore[arg-type]
    assert asked == []
    # A list of numbers is a position as its tuple is.
    listed = qarena.judge("perfect", "connect4:4x5", games=0, positions=[[0] * 20, "3"])
    assert listed.optimality.decisions == 2 and listed.optimality.share == 1.0


def test_dir_of_qarena_is_the_api() -> None:
    qarena.game("nim:1,2")  # submodules imported by then are not part of the namespace either
    assert dir(qarena) == sorted({*qarena.__all__})
    assert "Any" not in dir(qarena) and "PackageNotFoundError" not in dir(qarena)


def test_a_function_player_s_defaulted_parameters_are_its_own_and_rng_is_seeded() -> None:
    import random

    seen: list[object] = []

    def first(position, rng=random.Random(0)):  # type: ignore[no-untyped-def]  # noqa: B008
        # Called with the position only: the default is not taken for the legal moves.
        seen.append(rng)
        return qarena.game("nim:2,3").legal_moves(position)[0]

    qarena.play(first, "perfect", "nim:2,3")
    assert seen and all(isinstance(r, random.Random) for r in seen)

    def coin(position, moves, rng):  # type: ignore[no-untyped-def]
        return rng.choice(moves)

    one = qarena.compete(coin, "random", "nim:3,5,7", games=50, seed=7)
    two = qarena.compete(coin, "random", "nim:3,5,7", games=50, seed=7)
    other = qarena.compete(coin, "random", "nim:3,5,7", games=50, seed=8)
    assert one.to_json() == two.to_json()
    assert one.to_json() != other.to_json()


def test_reprs_show_the_share_and_a_sample_s_interval() -> None:
    from qarena.judging.tables import Optimality

    assert repr(Optimality(4, 3)) == "Optimality(0.7500: 3 of 4 decisions)"
    exact = qarena.judge("perfect", "nim:2,3", games=10)
    assert "interval" not in repr(exact)
    sampled = qarena.judge("perfect", "nim:2,3", games=1, sample=20)
    assert sampled.sample is not None
    low, high = sampled.sample.interval
    assert f"95% interval [{low:.4f}, {high:.4f}]" in repr(sampled)
    # Each sampled position once: the empty board is not judged twice.
    positions = [v.position for v in sampled.sample.verdicts]
    assert len(positions) == len(set(positions))


def test_settings_take_their_command_line_names_as_keywords(tmp_path: Path) -> None:
    from qarena.learn.settings import KEYWORDS, SETTINGS

    # Derived from the declaration: every flag's name is a keyword.
    assert KEYWORDS == {"epsilon_schedule": "schedule", "lambda": "lam"}
    assert all(s.keyword == s.option[2:].replace("-", "_") for s in SETTINGS)
    by_flag = qarena.train("nim:2,3", episodes=300, epsilon_schedule="exp", seed=1)
    by_name = qarena.train("nim:2,3", episodes=300, schedule="exp", seed=1)
    assert by_flag.config.schedule == by_name.config.schedule == "exp"
    assert (by_flag.q == by_name.q).all()
    with pytest.raises(QarenaError, match="one setting; give it once"):
        qarena.train("nim:2,3", episodes=10, schedule="linear", epsilon_schedule="exp")
    with pytest.raises(TypeError, match="unexpected keyword argument 'epsilon_schedul'"):
        qarena.train("nim:2,3", episodes=10, epsilon_schedul="exp")
    runs = qarena.sweep(
        "nim:2,3", tmp_path / "sw", episodes=100, seed=[1, 2], epsilon_schedule="exp", games=10
    )
    assert sorted(r.seed for r in runs.rows) == [1, 2]
    assert {r.settings.get("schedule") for r in runs.rows} == {"exp"}


def test_python_errors_name_keywords_not_flags() -> None:
    with pytest.raises(QarenaError, match=r"^sample must be at most") as e:
        qarena.judge("random", "connect4:4x5", sample=10**9)
    assert "--" not in str(e.value)
    with pytest.raises(QarenaError, match="give its game") as e:
        qarena.player("random")
    assert "--game" not in str(e.value)


def test_solve_is_the_command_line_s_verb() -> None:
    # Bouton: Nim's first player wins exactly when the heaps' xor is not 0 (3 ^ 5 ^ 7 = 1);
    # 3 ^ 5 ^ 6 = 0 is a loss for the mover.
    import qarena.exact  # the subpackage must not shadow the function once imported

    assert callable(qarena.solve) and "solve" in dir(qarena)
    won = qarena.solve("nim:3,5,7")
    assert won.value_of(won.game.start()) == 1
    lost = qarena.solve("nim:3,5,6")
    assert lost.value_of(lost.game.start()) == -1
    assert qarena.exact.oracle is not None


#: The same mistakes made from Python and at the command line: (the API call, the command's
#: arguments, what Python reads, what the command line reads). One text serves both; only the
#: names of the settings differ.
SAME_MISTAKES: list[tuple[Any, list[str], str, str]] = [
    (
        lambda tmp: qarena.train("nim:2,3", alpha_second=0.5),
        ["train", "nim:2,3", "--alpha-second", "0.5"],
        "alpha_second does not apply to the q learner",
        "--alpha-second does not apply to the q learner",
    ),
    (
        lambda tmp: qarena.train("nim:2,3", "afterstate", seat="first"),
        ["train", "nim:2,3", "--learner", "afterstate", "--seat", "first"],
        "seat applies only against an opponent; self-play takes both",
        "--seat applies only against an --opponent; self-play takes both",
    ),
    (
        lambda tmp: qarena.train("nim:2,3", opponent="random", starts=0.5),
        ["train", "nim:2,3", "--opponent", "random", "--starts", "0.5"],
        "starts applies to self-play; against an opponent games start anew",
        "--starts applies to self-play; against an --opponent games start anew",
    ),
    (
        lambda tmp: qarena.train("nim:2,3", episodes=10**6, curve=True, every=1),
        ["train", "nim:2,3", "--episodes", "1000000", "--curve", "--every", "1"],
        "every=1 would record",
        "--every 1 would record",
    ),
    (
        lambda tmp: qarena.train_network("tictactoe", tuples=0),
        ["train", "tictactoe", "--learner", "ntuple", "--tuples", "0"],
        "tuples must be at least 1, not 0",
        "--tuples must be at least 1, not 0",
    ),
    (
        lambda tmp: qarena.train("connect4", until_perfect=True),
        ["train", "connect4", "--until-perfect"],
        "use qarena.solve, play, compete or judge (by samples); qarena.train_network learns",
        "use qarena solve, explain, play, watch, compete or eval (by samples); qarena train "
        "--learner ntuple learns",
    ),
    (
        lambda tmp: qarena.sweep("nim:2,3", tmp / "f", seat="first"),
        ["sweep", "nim:2,3", "--seat", "first", "--out", "{tmp}/f"],
        "seat applies only against an opponent; self-play takes both",
        "--seat applies only against an --opponent; self-play takes both",
    ),
    (
        lambda tmp: qarena.sweep("nim:2,3", tmp / "a-file"),
        ["sweep", "nim:2,3", "--out", "{tmp}/a-file"],
        "out {tmp}/a-file is not a folder",
        "--out {tmp}/a-file is not a folder",
    ),
    (
        lambda tmp: qarena.judge("random"),
        ["eval", "random"],
        "random is a built-in player: give its game (a spec like nim:3,5,7)",
        "random is a built-in player: name the game with --game SPEC",
    ),
]


@pytest.mark.parametrize("case", range(len(SAME_MISTAKES)))
def test_a_mistake_names_keywords_from_python_and_options_from_the_command_line(
    case: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli import run

    call, args, python, command_line = SAME_MISTAKES[case]
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(QarenaError) as e:
        call(tmp_path)
    said = str(e.value)
    assert python.format(tmp=tmp_path) in said and "--" not in said, said
    capsys.readouterr()
    assert run([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err
    assert command_line.format(tmp=tmp_path) in " ".join(err.split()), err
    # Python's words last as long as the call: a check made afterwards names the option.
    from qarena.budget import check_count

    with pytest.raises(QarenaError, match=r"^--tuples must be at least 1"):
        check_count("--tuples", 0, 10)
