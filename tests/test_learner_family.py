"""One learner family (issue 38): a learner kind is one class meeting ``learn.family.Trainable``
and one registration. A toy learner registered here, and nowhere else, trains, saves, loads,
is judged, sweeps and plays through the command line and the Python API; and no code outside
``learn/`` (and ``exact/``) asks whether a learner is an n-tuple network."""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
import pytest

import qarena
from qarena.cli.app import run
from qarena.errors import QarenaError
from qarena.games.base import Game, Move, Position
from qarena.games.spec import parse_spec
from qarena.kernels.rng import seed_state
from qarena.learn import learners
from qarena.learn.curve import JUDGED_COLUMNS, Curve
from qarena.learn.family import JudgingFamily, Text, Trainable
from qarena.learn.ntuple.network import NTupleNetwork
from qarena.learn.settings import check_config
from qarena.learn.tables.base import Learner, Opponent
from qarena.policyfile import encode_policy, load_policy, save_policy

SRC = Path(__file__).resolve().parents[1] / "src" / "qarena"


@dataclass(frozen=True)
class ToyConfig:
    """The toy's one setting, checked by its declaration (learn/settings.py)."""

    seed: int = 0

    def __post_init__(self) -> None:
        check_config(self, ("seed",))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Toy(Trainable):
    """Counts the first moves of random games the first player won; plays the most counted
    legal move (the lowest on a tie). Judged along perfect play, as a network is."""

    kind: ClassVar[str] = "toy"
    title: ClassVar[Text] = Text("toy learner")
    hyperparameters: ClassVar[tuple[str, ...]] = ("seed",)
    judging_family: ClassVar[JudgingFamily] = "along_play"
    curve_games: ClassVar[int] = 4
    curve_points: ClassVar[int] = 2
    unit: ClassVar[Literal["episodes", "games"]] = "episodes"
    self_play_only: ClassVar[bool] = True

    def __init__(self, game: Game, config: ToyConfig) -> None:
        self.game, self.config, self.name = game, config, "toy"
        self.episodes = self.run_start = 0
        self.seconds = 0.0
        self.curve: Curve | None = None
        self.preset: dict[str, Any] | None = None
        self.counts = np.zeros(game.num_moves, dtype=np.float64)

    @classmethod
    def default_config(cls, game: Game | None = None, **overrides: Any) -> ToyConfig:
        return ToyConfig(**overrides)

    @classmethod
    def build_config(cls, given: Mapping[str, Any], base: Any = None) -> ToyConfig:
        chosen = {k: v for k, v in given.items() if v is not None}
        for name in chosen:
            if name not in cls.hyperparameters:
                raise QarenaError(f"--{name} does not apply to the toy learner")
        return replace(base or ToyConfig(), **chosen)

    @classmethod
    def create(cls, game: Game, config: Any) -> Toy:
        return cls(game, config)

    @classmethod
    def read(
        cls,
        path: str | os.PathLike[str],
        meta: Mapping[str, Any],
        game: Game | None = None,
        budget: int | None = None,
    ) -> Toy:
        found = parse_spec(str(meta["game"]))
        if game is not None and game.spec != found.spec:
            raise QarenaError(f"{os.fspath(path)} plays {found.spec}, not {game.spec}")
        data = load_policy(path, lambda m: {"counts": ((found.num_moves,), np.dtype(np.float64))})
        toy = cls(found, ToyConfig(**data.meta["settings"]))
        toy.counts[:] = data.arrays["counts"]
        toy.episodes = toy.run_start = int(data.meta["episodes"])
        if "curve" in data.meta:
            toy.curve = Curve.from_json(data.meta["curve"], cls.curve_columns())
        return toy

    def _contents(self, extra: Mapping[str, Any] | None) -> tuple[dict[str, Any], ...]:
        meta = {"kind": self.kind, "game": self.game.spec, "episodes": self.episodes,
                "settings": self.config.to_dict(), **(extra or {})}  # fmt: skip
        if self.curve is not None:
            meta["curve"] = self.curve.to_json()
        return {"counts": self.counts}, meta

    def save(
        self,
        path: str | os.PathLike[str],
        inputs: Iterable[str | os.PathLike[str]] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        save_policy(path, *self._contents(extra), inputs)

    def to_bytes(self, extra: Mapping[str, Any] | None = None) -> bytes:
        return encode_policy(*self._contents(extra))

    def default_episodes(self, self_play: bool = True) -> int:
        return 100

    def train_chunk(
        self,
        episodes: int,
        total: int,
        *,
        opponent: Opponent | None = None,
        seat: str = "both",
        workers: int = 1,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        rng = np.random.default_rng(seed_state(self.config.seed + self.episodes))
        game, steps = self.game, 0
        for _game in range(episodes):
            position, first = game.start(), None
            while not game.is_terminal(position):
                moves = game.legal_moves(position)
                move = moves[int(rng.integers(len(moves)))]
                first = move if first is None else first
                position = game.apply(position, move)
                steps += 1
            if game.result(position) > 0 and first is not None:
                self.counts[first] += 1
        self.episodes += episodes
        return steps

    def warm_up(self) -> None:
        pass

    # --- as a player -----------------------------------------------------------------
    def values(self, position: Position) -> dict[Move, float]:
        most = max(1.0, float(self.counts.max()))
        return {m: float(self.counts[m]) / most for m in self.game.legal_moves(position)}

    def act(self, position: Position) -> Move:
        values = self.values(position)
        best = max(values.values())
        return min(m for m, v in values.items() if v == best)


@pytest.fixture
def toy() -> Iterator[type[Toy]]:
    """The toy registered as a learner kind, for this test only."""
    before = dict(learners.LEARNERS)
    learners.register(Toy)
    yield Toy
    learners.LEARNERS.clear()
    learners.LEARNERS.update(before)


def test_both_families_meet_the_protocol() -> None:
    assert learners.LEARNERS["ntuple"] is NTupleNetwork
    assert all(issubclass(cls, Trainable) for cls in learners.LEARNERS.values())
    assert set(learners.TABLE_LEARNERS) == {
        k for k, cls in learners.LEARNERS.items() if issubclass(cls, Learner)
    }
    assert NTupleNetwork.curve_columns() == JUDGED_COLUMNS


def test_a_toy_learner_trains_saves_loads_and_is_judged_through_the_api(
    toy: type[Toy], tmp_path: Path
) -> None:
    learner = qarena.train("tictactoe", "toy", 40, curve=True, seed=3)
    assert isinstance(learner, Toy) and learner.episodes == 40
    assert learner.curve is not None and [p.episodes for p in learner.curve.points] == [20, 40]
    assert all(0 <= p.optimality <= 1 for p in learner.curve.points)
    path = qarena.save(learner, tmp_path / "toy.npz")
    again = qarena.load(path)
    assert isinstance(again, Toy) and again.episodes == 40
    assert np.array_equal(again.counts, learner.counts)
    assert again.curve is not None and again.curve.to_json() == learner.curve.to_json()
    more = qarena.train("tictactoe", "toy", 20, resume=again)
    assert more is again and again.episodes == 60
    # The same seed learns the same counts.
    twin = qarena.train("tictactoe", "toy", 40, seed=3)
    assert np.array_equal(twin.counts, learner.counts)  # type: ignore[attr-defined]
    evaluation = qarena.judge(again, "tictactoe", games=10)
    assert 0 <= evaluation.optimality.share <= 1


def test_a_toy_learner_trains_and_plays_through_the_command_line(
    toy: type[Toy], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "toy.npz"
    argv = ["train", "tictactoe", "--learner", "toy", "--episodes", "30", "--curve"]
    assert run([*argv, "--out", str(out), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["learner"] == "toy" and record["episodes"] == 30 and record["curve_points"] == 2
    assert isinstance(learners.load_learner(out), Toy)
    assert run(["train", "tictactoe", "--learner", "toy", "--resume", str(out), "--out",
                str(out), "--episodes", "10", "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["episodes"] == 10
    assert learners.load_learner(out).episodes == 40
    # What it does not use is refused in one line, as for any learner.
    assert run([*argv, "--out", str(tmp_path / "x.npz"), "--gamma", "0.5"]) == 2
    assert "does not apply" in capsys.readouterr().err
    # It plays as itself: a match against random play from its file.
    assert run(["compete", str(out), "random", "--game", "tictactoe", "--games", "4"]) == 0
    assert "toy.npz" in capsys.readouterr().out
    # It says what was loaded in its own words, and a person plays against it (one move,
    # then q): the one resolution of a file's player names it by its file.
    capsys.readouterr()
    from qarena.cli.play import _from_file

    rival = _from_file(str(out), seed=0)
    assert rival.name == "toy.npz" and rival.game.spec == "tictactoe:3x3:3"
    start = rival.game.start()
    assert rival.choices(start) == [learners.load_learner(out).act(start)]  # type: ignore[attr-defined]
    assert "Loaded an agent for tictactoe:3x3:3 from" in capsys.readouterr().err
    # qarena table shows its values of one position's moves beside the solver's verdicts, as
    # for any learner; a kind that keeps no table of positions has no --top or --csv: one line.
    assert run(["table", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "toy learner  tictactoe:3x3:3, 40 episodes" in shown and "keeps the draw" in shown
    assert run(["table", str(out), "--top", "3"]) == 2
    err = capsys.readouterr().err
    assert "keeps no table of positions" in err and "toy learner" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_toy_learner_sweeps(
    toy: type[Toy], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "sweep"
    argv = ["sweep", "tictactoe", "--learner", "toy", "--seeds", "1,2", "--episodes", "20"]
    # Registered in this process only: its runs stay here (spawned workers know the kinds
    # registered in learn/learners.py, as a new learner kind is).
    assert run([*argv, "--games", "4", "--workers", "1", "--out", str(folder)]) == 0
    runs = sorted((folder / "runs").glob("*.npz"))
    assert len(runs) == 2 and all(isinstance(learners.load_learner(p), Toy) for p in runs)
    # On two spawned workers: each imports the toy's module by its name and registers it (the
    # task says where the kind is defined), and learns the same counts from the same seeds.
    assert learners.origin("toy") == (Toy.__module__, "Toy") and learners.origin("q") is None
    spawned = tmp_path / "spawned"
    assert run([*argv, "--games", "4", "--workers", "2", "--out", str(spawned)]) == 0
    again = sorted((spawned / "runs").glob("*.npz"))
    assert [p.name for p in again] == [p.name for p in runs]
    for one, two in zip(runs, again, strict=True):
        a, b = learners.load_learner(one), learners.load_learner(two)
        assert isinstance(a, Toy) and isinstance(b, Toy) and np.array_equal(a.counts, b.counts)


def test_a_kind_from_elsewhere_is_adopted_by_its_module_s_name_or_refused() -> None:
    before = dict(learners.LEARNERS)
    try:
        learners.adopt("toy", (__name__, "Toy"))
        assert learners.LEARNERS["toy"] is Toy
        with pytest.raises(QarenaError, match="cannot be imported here"):
            learners.adopt("other", ("qarena_no_such_module", "Other"))
        with pytest.raises(QarenaError, match="is not the learner 'other'"):
            learners.adopt("other", (__name__, "ToyConfig"))
        assert "other" not in learners.LEARNERS
    finally:
        learners.LEARNERS.clear()
        learners.LEARNERS.update(before)


#: What asks whether a learner is an n-tuple network: its class, its config, the check of
#: a file, the kind's name (``KIND``, imported as ``NETWORK``; ``"ntuple"``), a stored row's
#: ``.network``.
NETWORK_NAMES = re.compile(
    r"\b(is_network|NTupleNetwork|NetworkConfig|NETWORK|KIND)\b|\.network\b|\"ntuple\""
)
#: Files outside learn/ and exact/ that still ask, each with how many branches (if, elif, a
#: conditional expression, a comprehension's if) do: the list may only shrink (issue 38).
#: Before this issue: 51 branches in 23 files; now none (the shipped network is a player's
#: name, ``agents.strategies.SHIPPED_PLAYERS``, asked as ``perfect`` is).
STILL_BRANCHING: dict[str, int] = {}


def _branches(path: Path) -> int:
    """Branches in ``path`` whose test names the network: if, elif, while, a conditional
    expression, a comprehension's if."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tests: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests.extend(node.ifs)
    return sum(bool(NETWORK_NAMES.search(ast.unparse(t))) for t in tests)


def test_no_code_outside_learn_branches_on_the_network_but_what_is_listed() -> None:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(("learn/", "exact/")):
            continue
        count = _branches(path)
        if count:
            found[rel] = count
    assert found == STILL_BRANCHING, "a branch on the network outside learn/ (or fewer: shrink)"


def test_the_branch_scanner_sees_a_branch() -> None:
    """The scan fails on code that asks (as the layer test does on a wrong import)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.py"
        path.write_text("def f(x):\n    return 1 if isinstance(x, NTupleNetwork) else 2\n")
        assert _branches(path) == 1
        path.write_text("def f(x):\n    return x.play()\n")
        assert _branches(path) == 0


def test_a_curve_of_either_kind_reads_back() -> None:
    table = {"every": 10, "early": False, "games": 250, "columns": ["episodes", "optimality",
             "random_win", "random_draw", "random_loss", "perfect_win", "perfect_draw",
             "perfect_loss"], "points": [[10, 0.5, 0.6, 0.2, 0.2, 0.0, 0.9, 0.1]]}  # fmt: skip
    judged = {"every": 1000, "early": True, "games": 50, "columns": list(JUDGED_COLUMNS),
              "points": [[1000, 1.5, 0.75, 0.0, 1.0, 0.0]]}  # fmt: skip
    for data in (table, judged):
        curve = Curve.from_json(data)
        assert curve.to_json() == data
    assert Curve.from_json(judged).points[0].record == (0.0, 1.0, 0.0)
    with pytest.raises(QarenaError, match="not in a form"):
        Curve.from_json(judged, Curve.from_json(table).columns)


def test_a_toy_learner_trains_through_the_web_and_is_stored(toy: type[Toy], tmp_path: Path) -> None:
    """The Train API takes any registered kind: the run is the command line's (the same
    counts from the same seed), stored and listed as its kind."""
    import time

    from fastapi.testclient import TestClient

    from qarena.web.app import create_app

    with TestClient(create_app(tmp_path)) as client:
        r = client.post(
            "/api/train", json={"game": "tictactoe", "learner": "toy", "episodes": 30, "seed": 2}
        )
        assert r.status_code == 202, r.text
        t0 = time.monotonic()
        while (snap := client.get(f"/api/train/{r.json()['job']}").json())["state"] in (
            "queued",
            "running",
        ):
            assert time.monotonic() - t0 < 30
            time.sleep(0.05)
        assert snap["state"] == "done" and snap["episodes"] == 30, snap
        # Its run's page says how it ended in its own unit, with no optimality claimed.
        ended = client.get(f"/train/{r.json()['job']}").text
        assert "Done: 30 episodes. qarena eval FILE judges it." in ended
        assert "best move in" not in ended
        row = client.get(f"/api/policies/{snap['policy']}").json()
        assert (row["learner"], row["episodes"], row["optimality"]) == ("toy", 30, None)
        stored = learners.load_learner(client.app.state.web.store.path(snap["policy"]))  # type: ignore[attr-defined]
        assert isinstance(stored, Toy)
        # It plays on the web as itself: a game against the stored policy, to its end, each
        # of the AI's moves the toy's own.
        r = client.post("/api/games", json={"policy": snap["policy"], "first": "ai", "seed": 1})
        assert r.status_code == 200, r.text
        state = r.json()
        while state["result"] is None:
            r = client.post(
                f"/api/games/{state['id']}/moves", json={"move": state["legal_moves"][0]}
            )
            assert r.status_code == 200, r.text
            state = r.json()
        game = stored.game
        position = game.start()
        for ply, text in enumerate(state["history"]):
            move = game.parse_move(text)
            if ply % 2 == 0:  # the AI moved first
                assert move == stored.act(position)
            position = game.apply(position, move)
        assert game.is_terminal(position) and len(state["history"]) >= 5
        # Its page: its title, what it learned, its settings and its curve.
        page = client.get(f"/policies/{snap['policy']}/inspect")
        assert page.status_code == 200, page.text
        assert "Toy learner for" in page.text and "30 episodes" in page.text
        # Judged along play, and on this enumerated game over a uniform sample of all
        # positions too: its curve has a place beside the table learners'.
        assert "Learning curve" in page.text and "Its learning curve beside others" in page.text
        compared = client.get("/compare", params={"id": snap["policy"]}).text
        assert compared.count('<polyline class="series"') == 1
        watched = client.get("/watch", params={"a": snap["policy"], "b": "perfect"})
        assert watched.status_code == 200, watched.text
        # Its game page in the browser, as a person meets it.
        played = client.get(f"/policies/{snap['policy']}/play")
        assert played.status_code == 200, played.text
        assert "Opponent: toy learner, 30 episodes." in played.text
    made = tmp_path / "made.npz"
    argv = ["train", "tictactoe", "--learner", "toy", "--episodes", "30", "--seed", "2"]
    assert run([*argv, "--curve", "--out", str(made)]) == 0
    cli = learners.load_learner(made)
    assert isinstance(stored, Toy) and isinstance(cli, Toy)
    assert np.array_equal(stored.counts, cli.counts)


def test_qarena_train_trains_a_network_as_train_network_does() -> None:
    """One API for every kind: ``qarena.train(spec, "ntuple", …)`` is the run
    ``qarena.train_network`` makes (the same network from the same seed)."""
    one = qarena.train("tictactoe", "ntuple", 2_000, tuples=6, tuple_length=4, seed=5, workers=1)
    two = qarena.train_network("tictactoe", 2_000, tuples=6, tuple_length=4, seed=5, workers=1)
    assert isinstance(one, NTupleNetwork) and isinstance(two, NTupleNetwork)
    assert one.episodes == two.games == 2_000
    assert np.array_equal(one.weights, two.weights) and one.weights.any()
    with pytest.raises(QarenaError, match="does not apply"):
        qarena.train("tictactoe", "ntuple", 10, gamma=0.5)


def test_the_player_a_learner_plays_as() -> None:
    """A table learner plays as its greedy agent, a network as itself, a learner with only
    its moves and values with the protocol's defaults; one with no moves is refused."""
    from qarena.agents.base import OpponentPlayer
    from qarena.agents.greedy import GreedyAgent
    from qarena.agents.players import LearnerAsPlayer, plays_as

    game = parse_spec("tictactoe")
    toy = Toy(game, ToyConfig())
    toy.counts[4] = 3.0
    agent = plays_as(toy, "mine.npz")
    assert (
        isinstance(agent, LearnerAsPlayer)
        and isinstance(agent, OpponentPlayer)
        and agent.learner is toy
    )
    assert agent.name == "mine.npz" and agent.choices(game.start()) == [4]
    assert agent.nbytes == toy.counts.nbytes
    net = NTupleNetwork.new(game, 2, 3)
    assert plays_as(net) is net and net.learner is net
    table = learners.new_learner("q", parse_spec("nim:1,2"))
    assert isinstance(plays_as(table), GreedyAgent)

    class Mute(Toy):
        act = None  # type: ignore[assignment]

    with pytest.raises(QarenaError, match="the learner 'toy' has no moves to play"):
        plays_as(Mute(game, ToyConfig()))
