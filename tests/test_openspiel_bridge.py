"""qarena's games as OpenSpiel games (qarena.env.openspiel): OpenSpiel's own checks pass,
OpenSpiel's own solver agrees with qarena's on every game's value, the known count of
tic-tac-toe positions comes out of OpenSpiel's state enumeration, and OpenSpiel's MCTS bot
plays through the bridge and is judged exactly by qarena."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, get_all_states, mcts, minimax  # noqa: E402

from qarena.env import judge_policy  # noqa: E402
from qarena.env.openspiel import SHORT_NAME, openspiel_game  # noqa: E402
from qarena.exact import solve  # noqa: E402
from qarena.games import parse_spec  # noqa: E402

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
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)
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
    openspiel_game("nim")  # registers the game
    assert SHORT_NAME in pyspiel.registered_names()
    game = pyspiel.load_game(f"{SHORT_NAME}(spec=nim:3;5;7)")
    assert str(game.new_initial_state()) == "3 5 7"
    assert game.get_parameters()["spec"] == "nim:3,5,7"


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


def test_readme_s_openspiel_example_runs_as_shown() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "openspiel_game" in b)
    scope: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), scope)
    assert scope["value"] == -1.0
    assert scope["share"] == 1.0
