"""qarena's games as OpenSpiel games (qarena.env.openspiel): OpenSpiel's own checks pass,
OpenSpiel's own solver agrees with qarena's on every game's value, the known count of
tic-tac-toe positions comes out of OpenSpiel's state enumeration, and OpenSpiel's MCTS bot
plays through the bridge and is judged exactly by qarena; importing the bridge registers the
game, and its string form, OpenSpiel's serialization and pickling round-trip."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, get_all_states, mcts, minimax  # noqa: E402

from qarena.env import judge_policy  # noqa: E402
from qarena.env.openspiel import (  # noqa: E402
    SHORT_NAME,
    decode_spec,
    encode_spec,
    openspiel_game,
    register,
)
from qarena.errors import SpecError  # noqa: E402
from qarena.exact import solve  # noqa: E402
from qarena.games import parse_spec  # noqa: E402
from tests.conftest import RunScript  # noqa: E402

SPECS = [
    "nim:3,5,7",
    "nim:1,3,5,7",
    "nim:2,3:normal",
    "subtraction:12:3",
    "tictactoe",
    "connect4:4x4",
]


@pytest.mark.parametrize("spec", SPECS)
def test_openspiel_s_random_simulation_check_passes(spec: str) -> None:
    game = openspiel_game(spec)
    # serialize=True: every state on the way also goes through OpenSpiel's serialization.
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)
    assert game.num_distinct_actions() == parse_spec(spec).num_moves


@pytest.mark.parametrize(
    ("spec", "count"),
    [
        # Every legal tic-tac-toe position, ended ones included: 5,478.
        ("tictactoe", 5_478),
        # Misère 3-5-7: every pile size from 0 up, 4 × 6 × 8.
        ("nim:3,5,7", 192),
    ],
)
def test_openspiel_enumerates_the_known_positions(spec: str, count: int) -> None:
    states = get_all_states.get_all_states(
        openspiel_game(spec), include_terminals=True, include_chance_states=False, to_string=str
    )
    assert len(states) == count


# Games small enough for OpenSpiel's alpha-beta in Python, which keeps no table of positions.
@pytest.mark.parametrize(
    "spec",
    ["nim:1,2,3", "nim:2,3:normal", "subtraction:12:3", "tictactoe:3x3:2", "tictactoe:2x4:3"],
)
def test_openspiel_s_alpha_beta_agrees_with_qarena_s_solver(spec: str) -> None:
    value, _ = minimax.alpha_beta_search(openspiel_game(spec))
    game = parse_spec(spec)
    assert value == solve(game).value_of(game.start())  # for the first player, who moves


def test_the_string_form_loads_through_openspiel_s_registry() -> None:
    assert SHORT_NAME in pyspiel.registered_names()
    game = pyspiel.load_game(f"{SHORT_NAME}(spec=nim:3;5;7)")
    assert str(game.new_initial_state()) == "3 5 7"
    # OpenSpiel's parameter keeps the game-string form; qarena's spec has the commas.
    assert game.get_parameters()["spec"] == "nim:3;5;7"
    assert game.game.spec == "nim:3,5,7"
    # A dict's value is not parsed by OpenSpiel, so there the spec is written as it is.
    assert pyspiel.load_game(SHORT_NAME, {"spec": "nim:3,5,7"}) == game
    assert pyspiel.load_game(f"{SHORT_NAME}(spec=nim:3%2C5%2c7)") == game
    assert pyspiel.load_game(SHORT_NAME) == game  # the default spec
    assert str(pyspiel.load_game(f"{SHORT_NAME}(spec=tictactoe)")) == (
        f"{SHORT_NAME}(spec=tictactoe:3x3:3)"
    )


def test_importing_the_bridge_registers_the_game(run_script: RunScript) -> None:
    """In a fresh interpreter, where no other test has loaded the game: the import alone."""
    script = (
        "import pyspiel\n"
        f"print({SHORT_NAME!r} in pyspiel.registered_names())\n"
        "import qarena, qarena.env.openspiel\n"
        f"print({SHORT_NAME!r} in pyspiel.registered_names())\n"
        f"print(pyspiel.load_game('{SHORT_NAME}(spec=nim:1;2;3)'))\n"
        "print(qarena.__file__)\n"
    )
    before, after, loaded, where = run_script(script).splitlines()
    assert (before, after) == ("False", "True")
    assert loaded == f"{SHORT_NAME}(spec=nim:1;2;3)"
    assert Path(where).parent == Path(__import__("qarena").__file__).parent  # this checkout's


def test_registering_again_is_harmless() -> None:
    game = openspiel_game("nim:3,5,7")
    register()
    register()
    assert pyspiel.registered_names().count(SHORT_NAME) == 1
    assert pyspiel.load_game(str(game)) == game
    assert type(pyspiel.load_game(str(game))) is type(game)


ROUND_TRIP = ["nim:3,5,7", "tictactoe", "connect4:4x5", "nim:2,3:normal", "subtraction:12:3"]


@pytest.mark.parametrize("spec", ROUND_TRIP)
def test_the_game_s_string_loads_back_as_the_same_game(spec: str) -> None:
    game = openspiel_game(spec)
    assert "," not in str(game)
    again = pyspiel.load_game(str(game))
    assert again == game
    assert str(again) == str(game)
    assert again.game == parse_spec(spec)
    assert pickle.loads(pickle.dumps(game)) == game


def _mid_game(spec: str) -> tuple[object, object]:
    game = openspiel_game(spec)
    state = game.new_initial_state()
    for _ in range(2):  # the lowest move twice: every game here is still going after it
        state.apply_action(state.legal_actions()[0])
    assert not state.is_terminal() and len(state.history()) == 2
    return game, state


@pytest.mark.parametrize("spec", ROUND_TRIP)
def test_openspiel_s_serialization_round_trips_a_mid_game_state(spec: str) -> None:
    game, state = _mid_game(spec)
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert again_game == game
    assert again.history() == state.history()  # type: ignore[attr-defined]
    assert str(again) == str(state)
    assert again.position == state.position  # type: ignore[attr-defined]
    assert again.current_player() == state.current_player()  # type: ignore[attr-defined]
    # The rules come from the game, not from the serialized state: it carries just the position.
    assert "position" in again.__dict__ and "rules" not in again.__dict__


@pytest.mark.parametrize("spec", ROUND_TRIP)
def test_a_pickled_state_round_trips(spec: str) -> None:
    game, state = _mid_game(spec)
    again = pickle.loads(pickle.dumps(state))
    assert again.get_game() == game
    assert again.history() == state.history()  # type: ignore[attr-defined]
    assert str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()  # type: ignore[attr-defined]
    again.apply_action(again.legal_actions()[0])  # and play goes on from it
    assert len(again.history()) == 3


@pytest.mark.parametrize(
    "spec", ["nim:3,5,7", "a%3B,;=()%25\nb", "%2C;,", "tictactoe:4x4:4", "é,(x)=y"]
)
def test_the_spec_s_encoding_has_no_separator_and_decodes_exactly(spec: str) -> None:
    encoded = encode_spec(spec)
    assert not set(encoded) & set(",=()\n")
    assert decode_spec(encoded) == spec


def test_a_bad_spec_in_a_game_string_is_one_line() -> None:
    with pytest.raises(SpecError) as error:
        pyspiel.load_game(f"{SHORT_NAME}(spec=nim:3;x)")
    assert "\n" not in str(error.value)
    assert "'x'" in str(error.value)


def test_an_alpha_beta_player_is_judged_perfect() -> None:
    """OpenSpiel's exact search, asked about every decision position through the bridge, is
    perfect play by qarena's judge: two independent solvers agree move by move."""
    bridged = openspiel_game("subtraction:12:3")

    def alpha_beta(position: tuple[int, ...]) -> int:
        state = bridged.new_initial_state(position)
        _, move = minimax.alpha_beta_search(
            bridged, state, maximizing_player_id=state.current_player()
        )
        return int(move)

    assert judge_policy("subtraction:12:3", alpha_beta).share == 1.0


def test_openspiel_s_mcts_plays_through_the_bridge_and_is_judged() -> None:
    """MCTS with its solver: on a game small enough to search to the end from every position
    it is exact, and qarena's judge says so; on tic-tac-toe it never beats perfect play."""
    small = openspiel_game("nim:1,2,3")
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = mcts.MCTSBot(
        small, 2.0, 2_000, evaluator, solve=True, random_state=np.random.RandomState(0)
    )

    def searched(position: tuple[int, ...]) -> int:
        return int(bot.step(small.new_initial_state(position)))

    assert judge_policy("nim:1,2,3", searched).share == 1.0

    game = openspiel_game("tictactoe")
    solution = solve(parse_spec("tictactoe"))
    rng = np.random.RandomState(1)

    class Perfect(pyspiel.Bot):  # type: ignore[misc]
        def step(self, state: object) -> int:
            moves = solution.optimal_moves(state.position)  # type: ignore[attr-defined]
            return int(moves[rng.randint(len(moves))])

        def restart_at(self, state: object) -> None:
            pass

        def inform_action(self, state: object, player: int, action: int) -> None:
            pass

    searcher = mcts.MCTSBot(
        game, 2.0, 200, mcts.RandomRolloutEvaluator(1, rng), solve=True, random_state=rng
    )
    for bots, perfect_seat in (([searcher, Perfect()], 1), ([Perfect(), searcher], 0)):
        for _ in range(3):
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
            assert returns[perfect_seat] >= 0  # perfect play never loses tic-tac-toe


def test_the_guide_s_openspiel_example_runs_as_shown() -> None:
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "guide" / "environments.md"
    text = page.read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "openspiel_game" in b)
    scope: dict[str, object] = {}
    exec(compile(block, str(page), "exec"), scope)
    assert scope["value"] == -1.0
    assert scope["share"] == 1.0
