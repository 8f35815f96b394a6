"""One reading of a player's name everywhere: a built-in's name (random, perfect, a rule
player) is the built-in even where a file of that name lies; a file with such a name is given
as a path (``./random``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from qarena.cli import run
from qarena.games import parse_spec
from qarena.judging.tables import learner_optimality
from qarena.learn.learners import make_learner, save_learner
from qarena.training.run import default_episodes

#: Lost for the player to move (nim-sum 0): whoever answers a perfect opener wins.
SPEC = "nim:1,3,5,7"


@pytest.fixture
def decoy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A perfect nim:1,3,5,7 policy saved under the name "random" in the working folder."""
    monkeypatch.chdir(tmp_path)
    learner = make_learner("q", parse_spec(SPEC))
    learner.train(default_episodes(learner))
    assert learner_optimality(learner).share == 1.0
    save_learner(tmp_path / "good.npz", learner)
    shutil.copy(tmp_path / "good.npz", tmp_path / "random")
    return tmp_path / "random"


def _json(capsys: pytest.CaptureFixture[str], args: list[str]) -> dict[str, object]:
    assert run(args) == 0
    record: dict[str, object] = json.loads(capsys.readouterr().out)
    return record


def test_eval_reads_a_built_in_s_name_as_the_built_in(
    decoy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builtin = _json(capsys, ["eval", "random", "--game", SPEC, "--games", "50", "--json"])
    file = _json(capsys, ["eval", "./random", "--games", "50", "--json"])
    # Uniform random play keeps the value only where every move does: optimality 0 over the
    # decision positions; the file is perfect play.
    assert builtin["optimality"] == 0.0 and file["optimality"] == 1.0


def test_compete_and_train_read_names_the_same_way(
    decoy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["perfect", "--game", SPEC, "--games", "20", "--json"]
    builtin = _json(capsys, ["compete", "random", *args])
    file = _json(capsys, ["compete", "./random", *args])
    # Perfect play opening a lost position loses to perfect play, and beats random play.
    assert file["b_first"] == {"win": 1.0, "draw": 0.0, "loss": 0.0}
    assert builtin["b_first"]["win"] < 1.0  # type: ignore[index]
    assert run(["train", SPEC, "--opponent", "random", "--episodes", "100", "-o", "a.npz"]) == 0
    assert run(["train", SPEC, "--opponent", "./random", "--episodes", "100", "-o", "b.npz"]) == 0


def test_the_environment_reads_names_the_same_way(decoy: Path) -> None:
    pytest.importorskip("gymnasium")
    import numpy as np

    from qarena.env.players import opponent_chooser
    from qarena.exact import solve

    game = parse_spec(SPEC)
    solution = solve(game)
    _, builtin = opponent_chooser(game, "random")
    _, file = opponent_chooser(game, "./random")
    rng = np.random.default_rng(0)
    # From 0,3,5,7 (nim-sum 1, won) only a single match taken from the 3, 5 or 7 keeps the win.
    position = game.apply(game.start(), game.legal_moves(game.start())[0])
    keeps = solution.optimal_moves(position)
    assert len(keeps) < len(game.legal_moves(position))
    assert {file(position, rng) for _ in range(50)} <= set(keeps)
    assert not {builtin(position, rng) for _ in range(50)} <= set(keeps)


def test_one_lookup_takes_every_kind_of_player(decoy: Path) -> None:
    from qarena.agents import GreedyAgent, Player, RandomAgent, player

    game = parse_spec(SPEC)
    assert isinstance(player("random", game), RandomAgent)
    file = player("./random", game)
    assert isinstance(file, GreedyAgent) and isinstance(file, Player)
    assert isinstance(player(Path("good.npz")), GreedyAgent)  # a file knows its game
    first = player(lambda position: game.legal_moves(position)[0], game)
    assert first.act(game.start()) == game.legal_moves(game.start())[0]
    assert first.values(game.start()) is None


def test_the_shipped_network_is_named_network_everywhere_a_player_goes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import qarena
    from qarena.errors import QarenaError
    from qarena.learn.ntuple.network import NTupleNetwork

    monkeypatch.chdir(tmp_path)  # no file called "network" here: the name is the name
    net = qarena.player("network", "connect4")
    assert isinstance(net, NTupleNetwork) and net.name == "network"
    assert net.game.spec == "connect4:6x7:4"
    assert qarena.player("network").game.spec == "connect4:6x7:4"  # its board, unnamed
    loaded = qarena.load("network")
    assert isinstance(loaded, NTupleNetwork) and loaded.games == net.games > 0
    # The command line takes the name too (compete: watch would also search every move's verdict).
    record = _json(capsys, ["compete", "network", "random", "--games", "2", "--json"])
    assert record["game"] == "connect4:6x7:4" and record["a"] == "network"
    # A board it was not trained for: one line naming the board it plays and that game's
    # own players, not Nim's rule players.
    with pytest.raises(QarenaError, match="network plays connect4:6x7:4 only") as e:
        qarena.player("network", "connect4:4x4")
    assert "bouton" not in str(e.value) and "random, perfect" in str(e.value)
    with pytest.raises(QarenaError, match="unknown player 'netwrk'") as e:
        qarena.player("netwrk", "connect4")
    assert "poles" not in str(e.value) and "network" in str(e.value)


def test_an_unknown_opponent_lists_the_game_s_own_players() -> None:
    import qarena
    from qarena.errors import QarenaError

    with pytest.raises(QarenaError, match="unknown opponent 'nobody'") as e:
        qarena.train("tictactoe", episodes=10, opponent="nobody")
    assert "self, random, perfect" in str(e.value) and "bouton" not in str(e.value)
