"""qarena.env: the games as PettingZoo and Gymnasium environments, and judging outside policies.

PettingZoo's and Gymnasium's own checkers run over a spread of games and opponents; the rest
checks facts known without reading the code: a perfect player of misère 3-5-7 nim always
beats the second player and always loses to the solver's moves, perfect tic-tac-toe never
loses, a trained policy plays what it learned, the masks are the legal moves. Without
PettingZoo or Gymnasium these tests skip, except under CI (``CI`` set), which installs
``qarena[env]`` and fails them instead.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from qarena.agents import make_agent
from qarena.cli import run
from qarena.env import (
    MissingExtraError,
    action_mask,
    aec_env,
    gym_env,
    judge_policy,
    observation,
    observation_bounds,
    position_of,
)
from qarena.errors import QarenaError, SpecError, TooLargeError
from qarena.exact import game_tables, solve
from qarena.games import parse_spec
from qarena.judging.tables import learner_optimality
from qarena.learn.learners import load_learner
from tests.conftest import in_ci

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "env_qlearning.py"

#: What PettingZoo's api_test says of every dict observation ({"observation", "action_mask"},
#: its classic games' form); it lets its own classic games off by name.
DICT_OBSERVATION_NOTES = (
    r"ignore:Observation is not a NumPy array:UserWarning",
    r"ignore:Observation space for each agent probably should be:UserWarning",
)


def _library(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if in_ci():
            pytest.fail(f"CI installs qarena[env]; {name} is missing ({e})", pytrace=False)
        pytest.skip(f"{name} is not installed (pip install 'qarena[env]')")


@pytest.fixture(scope="module")
def api_test() -> Any:
    return _library("pettingzoo.test").api_test


@pytest.fixture(scope="module")
def check_env() -> Any:
    return _library("gymnasium.utils.env_checker").check_env


@pytest.fixture(scope="module")
def nim_policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A policy file trained on nim:3,5,7 with the defaults, which reach perfect play."""
    path = tmp_path_factory.mktemp("policy") / "nim.npz"
    assert run(["train", "nim:3,5,7", "--out", str(path)]) == 0
    return path


def _masked_random(info_or_obs: dict[str, Any], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(info_or_obs["action_mask"])))


def _episodes(env: Any, choose: Any, episodes: int, seed: int = 0) -> list[float]:
    """Play ``episodes`` games, ``choose(obs, info)`` picking the agent's moves; each game's
    return. The masks must be the legal moves all along."""
    game = env.unwrapped.game
    returns = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        total, done = 0.0, False
        while not done:
            position = position_of(obs)
            legal = np.flatnonzero(info["action_mask"]).tolist()
            assert legal == game.legal_moves(position)
            obs, reward, terminated, truncated, info = env.step(choose(obs, info))
            assert not truncated and not info["illegal_move"]
            total += float(reward)
            done = terminated
        assert not info["action_mask"].any()
        returns.append(total)
        obs, info = env.reset()
    return returns


# --- PettingZoo ---------------------------------------------------------------------------


@pytest.mark.filterwarnings(*DICT_OBSERVATION_NOTES)
@pytest.mark.parametrize(
    "spec",
    [
        "nim:3,5,7",
        "nim:1,2:normal",
        "nim:1",
        "subtraction:12:3",
        "tictactoe",
        "tictactoe:3x4:3",
        "connect4:4x4",
        "connect4",  # 6x7: far too large to solve here, and it plays all the same
    ],
)
def test_aec_env_passes_pettingzoo_api_test(api_test: Any, spec: str) -> None:
    for _ in range(3):  # each run plays one game, at random
        api_test(aec_env(spec), num_cycles=200)


@pytest.mark.filterwarnings(*DICT_OBSERVATION_NOTES)
@pytest.mark.parametrize("spec", ["nim:3,5,7", "subtraction:12:3", "tictactoe:3x4:3", "connect4"])
def test_aec_masks_observations_and_render_follow_the_game(api_test: Any, spec: str) -> None:
    game = parse_spec(spec)
    env = aec_env(spec, render_mode="ansi")
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        position, plies = game.start(), 0
        assert env.render() == game.format_position(position)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            assert position_of(obs["observation"]) == position
            assert obs["observation"][-1] == 1 + plies % 2
            other = env.unwrapped.possible_agents[1 - env.unwrapped.possible_agents.index(agent)]
            assert not env.observe(other)["action_mask"].any()  # not its turn
            if terminated or truncated:
                assert game.is_terminal(position)
                assert not obs["action_mask"].any()
                env.step(None)
                continue
            assert np.flatnonzero(obs["action_mask"]).tolist() == game.legal_moves(position)
            assert agent == ("player_0", "player_1")[plies % 2]
            move = _masked_random(obs, rng)
            env.step(move)
            position, plies = game.apply(position, move), plies + 1
            assert env.render() == game.format_position(position)
        assert env.agents == []


def _play_aec(spec: str, moves: list[str]) -> dict[str, float]:
    """Play the moves (as people type them) and return each agent's final reward."""
    env = aec_env(spec)
    env.reset()
    game = env.unwrapped.game
    final: dict[str, float] = {}
    script = iter(moves)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
        else:
            env.step(game.parse_move(next(script)))
    assert next(script, None) is None
    return final


def test_aec_rewards_are_the_games_outcome(api_test: Any) -> None:
    # x completes the top row: the first player wins.
    won = ["a1", "a2", "b1", "b2", "c1"]
    assert _play_aec("tictactoe", won) == {"player_0": 1.0, "player_1": -1.0}
    draw = ["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"]
    assert _play_aec("tictactoe", draw) == {"player_0": 0.0, "player_1": 0.0}
    # One object: misère, whoever takes it loses; normal play, whoever takes it wins.
    assert _play_aec("nim:1", ["1:1"]) == {"player_0": -1.0, "player_1": 1.0}
    assert _play_aec("nim:1:normal", ["1:1"]) == {"player_0": 1.0, "player_1": -1.0}
    # Subtraction 12, take 1..3, misère: the first player takes 3, then answers k with 4 - k.
    takes = ["3", "1", "3", "2", "2", "1"]
    assert _play_aec("subtraction:12:3", takes) == {"player_0": 1.0, "player_1": -1.0}


def test_aec_illegal_move_loses_and_a_non_move_is_refused(api_test: Any) -> None:
    env = aec_env("nim:3,5,7")
    env.reset()
    game = env.unwrapped.game
    env.step(game.parse_move("1:3"))  # pile 1 is empty now
    env.step(game.parse_move("1:1"))
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}
    assert env.infos["player_1"] == {"illegal_move": True}
    env.reset()
    for action in (game.num_moves, -1, 1.5, "1:1"):
        with pytest.raises(QarenaError, match=r"is not a move of nim:3,5,7: actions are move ids"):
            env.step(action)


# --- Gymnasium ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "opponent", "seat"),
    [
        ("nim:3,5,7", "random", "random"),
        ("nim:3,5,7", "perfect", "second"),
        ("nim:3,5,7", "bouton", "first"),
        ("nim:3,5,7", "poles", "random"),
        ("nim:1,2:normal", "perfect", "first"),
        ("subtraction:12:3", "subtraction", "random"),
        ("tictactoe", "perfect", "random"),
        ("tictactoe:3x4:3", "random", "second"),
        ("connect4:4x4", "perfect", "random"),
        ("connect4", "random", "random"),  # no tables needed
    ],
)
def test_gym_env_passes_check_env(check_env: Any, spec: str, opponent: str, seat: str) -> None:
    env = gym_env(spec, opponent=opponent, seat=seat)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def test_gym_env_against_a_policy_file_passes_check_env(check_env: Any, nim_policy: Path) -> None:
    env = gym_env("nim:3,5,7", opponent=nim_policy, seat="random")
    assert env.unwrapped.opponent_name == "nim.npz"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def _solver_moves(spec: str) -> Any:
    solution = solve(parse_spec(spec))
    return lambda obs, info: solution.optimal_moves(position_of(obs))[0]


def test_perfect_player_of_misere_nim_beats_the_second_seat_whatever_it_plays(
    check_env: Any,
) -> None:
    rng = np.random.default_rng(1)
    env = gym_env("nim:3,5,7", opponent="perfect", seat="second")
    assert _episodes(env, lambda obs, info: _masked_random(info, rng), 200) == [-1.0] * 200
    # The solver's own moves in the second seat lose just the same.
    assert _episodes(env, _solver_moves("nim:3,5,7"), 20) == [-1.0] * 20


def test_the_solvers_moves_in_the_first_seat_always_win(check_env: Any) -> None:
    for opponent in ("perfect", "random", "bouton", "poles"):
        env = gym_env("nim:3,5,7", opponent=opponent, seat="first")
        assert _episodes(env, _solver_moves("nim:3,5,7"), 50) == [1.0] * 50, opponent


def test_bouton_is_perfect_in_normal_nim(check_env: Any) -> None:
    rng = np.random.default_rng(2)
    env = gym_env("nim:3,5,7:normal", opponent="bouton", seat="second")
    assert _episodes(env, lambda obs, info: _masked_random(info, rng), 100) == [-1.0] * 100


def test_perfect_tictactoe_never_loses(check_env: Any) -> None:
    rng = np.random.default_rng(3)
    env = gym_env("tictactoe", opponent="perfect", seat="random")
    returns = _episodes(env, lambda obs, info: _masked_random(info, rng), 300)
    assert max(returns) <= 0.0 and min(returns) == -1.0
    assert _episodes(env, _solver_moves("tictactoe"), 30) == [0.0] * 30


def test_a_perfect_policy_file_plays_perfectly(check_env: Any, nim_policy: Path) -> None:
    assert learner_optimality(load_learner(nim_policy)).share == 1.0
    rng = np.random.default_rng(4)
    env = gym_env("nim:3,5,7", opponent=str(nim_policy), seat="second")
    assert _episodes(env, lambda obs, info: _masked_random(info, rng), 100) == [-1.0] * 100


def test_gym_observation_info_and_render(check_env: Any) -> None:
    game = parse_spec("nim:3,5,7")
    env = gym_env("nim:3,5,7", opponent="bouton", seat="second", render_mode="ansi")
    obs, info = env.reset(seed=0)
    opening = make_agent("bouton", game).act(game.start())
    position = game.apply(game.start(), opening)
    assert info["seat"] == "second" and info["opponent_move"] == opening
    assert obs.dtype == np.int64 and obs.tolist() == [*position, 2]
    assert env.observation_space.low.tolist() == [0, 0, 0, 1]
    assert env.observation_space.high.tolist() == [3, 5, 7, 2]
    assert env.action_space.n == game.num_moves == 15
    assert env.render() == game.format_position(position)
    assert info["action_mask"].dtype == np.int8
    assert env.unwrapped.action_masks().tolist() == info["action_mask"].astype(bool).tolist()
    assert env.action_space.sample(mask=info["action_mask"]) in game.legal_moves(position)
    # The seat is drawn per episode, from the seed.
    env = gym_env("tictactoe", seat="random")
    seats = {env.reset(seed=s)[1]["seat"] for s in range(20)}
    assert seats == {"first", "second"}
    first = [env.reset(seed=7)[0].tolist() for _ in range(3)]
    assert first[0] == first[1] == first[2]


def test_gym_illegal_move_ends_the_episode_as_a_loss(check_env: Any) -> None:
    env = gym_env("tictactoe", opponent="perfect", seat="first")
    env.reset(seed=0)
    *_, info = env.step(4)  # the centre; the opponent replies
    _, reward, terminated, truncated, info = env.step(info["opponent_move"])  # taken
    assert (reward, terminated, truncated, info["illegal_move"]) == (-1.0, True, False, True)
    with pytest.raises(QarenaError, match="the episode is over"):
        env.step(0)
    env.reset()
    with pytest.raises(QarenaError, match=r"actions are move ids 0\.\.8"):
        env.step(9)


def test_gymnasium_make_knows_the_id(check_env: Any) -> None:
    import gymnasium

    import qarena.env.gym  # noqa: F401 - registers qarena/Game-v0

    env = gymnasium.make("qarena/Game-v0", spec="subtraction:12:3", opponent="subtraction")
    obs, _ = env.reset(seed=0)
    assert obs.tolist() == [12, 1]


# --- errors and budgets -----------------------------------------------------------------------


def _one_line(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(excinfo.value)
    assert text and "\n" not in text
    return text


def test_bad_settings_are_one_line(check_env: Any, api_test: Any, tmp_path: Path) -> None:
    with pytest.raises(SpecError) as e:
        gym_env("nim:0")
    _one_line(e)
    with pytest.raises(SpecError) as e:
        aec_env("chess")
    _one_line(e)
    with pytest.raises(QarenaError, match="plays nim, not tictactoe") as e:
        gym_env("tictactoe", opponent="bouton")
    _one_line(e)
    with pytest.raises(QarenaError, match="unknown opponent 'nobody'") as e:
        gym_env("nim", opponent="nobody")
    listed = "random, perfect, strongest, bouton, poles, poles-strict, or a policy file"
    assert listed in _one_line(e)
    with pytest.raises(QarenaError, match="unknown seat 'middle'") as e:
        gym_env("nim", seat="middle")
    _one_line(e)
    with pytest.raises(QarenaError, match="the first move can end nim:1") as e:
        gym_env("nim:1", seat="random")
    _one_line(e)
    for make in (lambda: gym_env("nim", render_mode="human"), lambda: aec_env("nim", "human")):
        with pytest.raises(QarenaError, match="render_mode is 'ansi', 'rgb_array' or None") as e:
            make()
        _one_line(e)
    with pytest.raises(QarenaError, match="no such policy file") as e:
        gym_env("nim", opponent=tmp_path / "missing.npz")
    _one_line(e)


def test_other_games_policy_file_is_refused(check_env: Any, nim_policy: Path) -> None:
    with pytest.raises(QarenaError, match="it is a policy for nim:3,5,7, not nim:2,2") as e:
        gym_env("nim:2,2", opponent=nim_policy)
    _one_line(e)


def test_only_what_needs_the_tables_is_held_to_the_budget(
    check_env: Any, api_test: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = time.monotonic()
    with pytest.raises(TooLargeError, match="connect4:6x7:4 is too large") as e:
        judge_policy("connect4", lambda position: 0)
    _one_line(e)
    assert time.monotonic() - started < 5  # refused before any work
    # Perfect play needs no tables on classic Connect Four: the search solver plays it.
    perfect = gym_env("connect4", opponent="perfect", seat="second")
    obs, _ = perfect.reset(seed=0)
    assert obs.shape == (43,) and int(obs[:42].astype(bool).sum()) == 1  # its opening move
    env = gym_env("connect4", opponent="random")
    obs, _ = env.reset(seed=0)
    assert obs.shape == (43,)
    aec_env("connect4").reset()
    # A small budget refuses the solver's opponent, and not the random one.
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "1000")
    solve.cache_clear()
    game_tables.cache_clear()
    try:
        # Too large to enumerate here, it would be searched: its table is too large too.
        with pytest.raises(TooLargeError, match=r"a search table of .* more than this machine"):
            gym_env("tictactoe:3x4:3", opponent="perfect")
        gym_env("tictactoe:3x4:3", opponent="random").reset(seed=0)
    finally:
        monkeypatch.delenv("QARENA_MEMORY_LIMIT")
        solve.cache_clear()
        game_tables.cache_clear()


def test_missing_libraries_say_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, make in (
        ("pettingzoo", lambda: aec_env("nim")),
        ("gymnasium", lambda: gym_env("nim")),
    ):
        monkeypatch.setitem(sys.modules, name, None)  # importing it fails; undone at teardown
        with pytest.raises(MissingExtraError) as e:
            make()
        assert isinstance(e.value, ImportError) and isinstance(e.value, QarenaError)
        assert f"qarena.env needs {name}" in _one_line(e)
        assert "pip install 'qarena[env]'" in str(e.value)


# --- the encoding and the judge --------------------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["nim:3,5,7", "subtraction:12:3", "tictactoe:3x4:3", "connect4:4x4"]
)
def test_encoding_round_trips_and_fits_its_bounds(spec: str) -> None:
    game = parse_spec(spec)
    low, high = observation_bounds(game)
    assert (low < high).all() and low[-1] == 1 and high[-1] == 2
    rng = np.random.default_rng(5)
    position, seat = game.start(), 0
    while True:
        obs = observation(game, position, seat)
        assert position_of(obs) == position and obs[-1] == seat + 1
        assert ((low <= obs) & (obs <= high)).all()
        mask = action_mask(game, position)
        assert np.flatnonzero(mask).tolist() == game.legal_moves(position)
        if game.is_terminal(position):
            break
        position = game.apply(position, int(rng.choice(np.flatnonzero(mask))))
        seat = 1 - seat
    with pytest.raises(QarenaError):
        observation(game, position, 2)


@pytest.mark.parametrize(
    "spec", ["nim:3,5,7", "nim:2,2", "nim:1,3,5,7:normal", "subtraction:12:3", "tictactoe"]
)
def test_judge_gives_the_solvers_policy_full_marks(spec: str) -> None:
    solution = solve(parse_spec(spec))
    assert judge_policy(spec, lambda p: solution.optimal_moves(p)[-1]).share == 1.0
    values = judge_policy(spec, lambda p: {m: float(v) for m, v in solution.move_values(p).items()})
    assert values.share == 1.0 and values.optimal == values.decisions > 0


def _values_of(learner: Any) -> Any:
    """A trained learner as a policy from outside: its values of each move of a position."""
    tables, values = learner.tables, learner.values()

    def policy(position: tuple[int, ...]) -> dict[int, float]:
        row, frame = tables.frame(position)
        return {m: float(values[row, f]) for m, f in frame.items()}

    return policy


def test_judge_agrees_with_qarena_on_a_trained_learner(nim_policy: Path, tmp_path: Path) -> None:
    path = tmp_path / "weak.npz"
    assert (
        run(["train", "tictactoe", "--episodes", "2000", "--starts", "0", "--out", str(path)]) == 0
    )
    for learner in (load_learner(path), load_learner(nim_policy)):
        assert judge_policy(learner.game, _values_of(learner)) == learner_optimality(learner)
    assert learner_optimality(load_learner(path)).share < 1.0


def test_judge_counts_ties_and_unseen_positions_as_qarena_does() -> None:
    spec = "nim:3,5,7"
    everything = judge_policy(spec, {})  # no values anywhere: every move ties
    assert everything.optimal == 0 and everything.decisions == 164
    first = judge_policy(spec, lambda p: parse_spec(spec).legal_moves(p)[0])
    assert 0 < first.share < 1
    with pytest.raises(QarenaError, match=r"the policy plays 1:3 in [0-2] \d \d, which is not a"):
        judge_policy(spec, lambda p: 2)  # takes 3 from pile 1, whatever is left there
    with pytest.raises(QarenaError, match="is not a finite number"):
        judge_policy(spec, lambda p: {0: float("nan")})
    with pytest.raises(QarenaError, match="expected a move id or a mapping"):
        judge_policy(spec, lambda p: "1:1")


# --- the example ------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_example_trains_through_the_environment_and_judges_the_agent(check_env: Any) -> None:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "nim:3,5,7", "--episodes", "3000"],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.monotonic() - started < 20, "the example should take seconds"
    found = re.search(r"^optimality (\d\.\d{4}) \((\d+) of (\d+) decision", result.stdout, re.M)
    assert found, result.stdout
    assert 0.0 <= float(found.group(1)) <= 1.0
    assert int(found.group(3)) == 164  # misère 3-5-7 nim's decision positions


def test_gym_env_against_an_n_tuple_network_passes_check_env(
    check_env: Any, tmp_path: Path
) -> None:
    from qarena.learn.ntuple.files import save_network
    from qarena.learn.ntuple.network import NTupleNetwork

    game = parse_spec("connect4:4x5")
    net = NTupleNetwork.new(game, 10, 4, seed=1)
    net.learn(2_000)
    path = tmp_path / "net.npz"
    save_network(path, net)
    env = gym_env("connect4:4x5", opponent=path, seat="random")
    assert env.unwrapped.opponent_name == "net.npz"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def test_position_of_reads_the_mover_s_view_back() -> None:
    from qarena.env.encoding import seen_by

    for spec in ("tictactoe", "nim:3,5,7"):
        game = parse_spec(spec)
        position = game.start()
        rng = np.random.default_rng(3)
        while not game.is_terminal(position):
            seat = game.to_move(position) or 0
            for viewer in (0, 1):
                obs = seen_by(game, position, seat, viewer)
                assert position_of(obs, game, view="mover") == position
            moves = game.legal_moves(position)
            position = game.apply(position, moves[int(rng.integers(len(moves)))])
    with pytest.raises(QarenaError, match="read with its game"):
        position_of(np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 1]), view="mover")


def test_gym_env_against_an_alphazero_network_and_its_search_passes_check_env(
    check_env: Any, tmp_path: Path
) -> None:
    """An AlphaZero file is an opponent as any policy file is: greedily from its policy head,
    and as ``mcts:N:FILE`` searching with it (each move searched afresh from the environment's
    generator: MCTS alone failed the determinism check before); the checker passes and
    the opponent's moves are the player's own."""
    pytest.importorskip("torch")
    import qarena

    net = qarena.train("connect4:4x4", "alphazero", 32, seed=0, channels=8, blocks=1, workers=1)
    path = tmp_path / "az.npz"
    qarena.save(net, path)
    for opponent in (str(path), f"mcts:8:{path}", "mcts:16"):
        env = gym_env("connect4:4x4", opponent=opponent, seat="second")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
        assert [str(w.message) for w in caught] == []
    # Moving second, the first move the environment shows is the network's own greedy one.
    game = parse_spec("connect4:4x4")
    env = gym_env("connect4:4x4", opponent=str(path), seat="second")
    obs, _info = env.reset(seed=0)
    moved = position_of(obs, game, view="mover")
    assert moved == game.apply(game.start(), net.act(game.start()))
