"""A learner kind with two settings of its own, declared in one module, this one, and
registered once: ``toy``, trained and played through the command line, the Python API, a sweep
(one of its settings an axis, its columns in results.csv), the web's Train form (its two
fields; posting it trains a stored policy) and the web's game page, with no other file changed
(issue 57).

Why this toy: a class meeting ``learn.family.Trainable`` directly, not a table learner's
subclass, is the least code that still is a real learner (it trains by chunks, saves, loads,
is judged, plays); a table learner's config is ``LearnConfig``, one dataclass shared by every
table kind, so a table kind with settings of its own would need that dataclass changed."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
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
from qarena.learn.curve import Curve
from qarena.learn.family import JudgingFamily, Text, Trainable
from qarena.learn.settings import TrainingSetting, build_config, check_config, typed
from qarena.learn.tables.base import Opponent
from qarena.policyfile import encode_policy, load_policy, save_policy

#: The toy's own settings: declared here, with it, and nowhere else.
ROLLOUTS = TrainingSetting(
    "rollouts",
    "int",
    "toy learner: random games played for each episode.",
    "rollouts an episode",
    low=1,
    high=20,
)
LEAN = TrainingSetting(
    "lean",
    "float",
    "toy learner: what a drawn game's first move counts, beside a win's 1.",
    "weight of a draw",
    low=0,
    high=1,
)


@dataclass(frozen=True)
class ToyConfig:
    seed: int = 0
    rollouts: int = 1
    lean: float = 0.0

    def __post_init__(self) -> None:
        check_config(self, ("seed", "rollouts", "lean"))  # the declaration's bounds

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Toy(Trainable):
    """Counts the first moves of random games (a win 1, a draw ``lean``), ``rollouts`` games
    an episode; plays the most counted legal move (the lowest on a tie)."""

    kind: ClassVar[str] = "toy"
    title: ClassVar[Text] = Text("toy learner")
    hyperparameters: ClassVar[tuple[str, ...]] = ("seed", "rollouts", "lean")
    settings: ClassVar[tuple[TrainingSetting, ...]] = (ROLLOUTS, LEAN)
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
        config: ToyConfig = build_config(ToyConfig, {k: typed(k, v) for k, v in given.items()},
                                         base, "toy")  # fmt: skip
        return config

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

    def _contents(self, extra: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
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
        arrays, meta = self._contents(extra)
        save_policy(path, arrays, meta, inputs)

    def to_bytes(self, extra: Mapping[str, Any] | None = None) -> bytes:
        arrays, meta = self._contents(extra)
        return encode_policy(arrays, meta)

    def default_episodes(self, self_play: bool = True) -> int:
        return 20

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
        for _game in range(episodes * self.config.rollouts):
            position, first = game.start(), None
            while not game.is_terminal(position):
                moves = game.legal_moves(position)
                move = moves[int(rng.integers(len(moves)))]
                first = move if first is None else first
                position = game.apply(position, move)
                steps += 1
            result = game.result(position)
            if first is not None and result >= 0:
                self.counts[first] += 1.0 if result > 0 else self.config.lean
        self.episodes += episodes
        return steps

    def warm_up(self) -> None:
        pass

    def values(self, position: Position) -> dict[Move, float]:
        most = max(1.0, float(self.counts.max()))
        return {m: float(self.counts[m]) / most for m in self.game.legal_moves(position)}

    def act(self, position: Position) -> Move:
        values = self.values(position)
        best = max(values.values())
        return min(m for m, v in values.items() if v == best)


@pytest.fixture
def toy() -> Iterator[type[Toy]]:
    """The toy registered as a learner kind for one test, and taken out after it."""
    learners.register(Toy)
    try:
        yield Toy
    finally:
        learners.unregister(Toy.kind)


def test_the_api_takes_its_settings_as_keywords_and_checks_them(toy: type[Toy]) -> None:
    learner = qarena.train("tictactoe", "toy", 10, seed=3, rollouts=3, lean=0.5)  # type: ignore[call-arg]
    assert isinstance(learner, Toy) and learner.config == ToyConfig(3, 3, 0.5)
    plain = qarena.train("tictactoe", "toy", 10, seed=3)
    assert plain.counts.sum() < learner.counts.sum()  # type: ignore[attr-defined]
    with pytest.raises(QarenaError, match=r"rollouts must be at most 20, not 21"):
        qarena.train("tictactoe", "toy", 10, rollouts=21)  # type: ignore[call-arg]
    with pytest.raises(QarenaError, match=r"lean must be in \[0, 1\], not 2"):
        qarena.train("tictactoe", "toy", 10, lean=2.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'leaning'"):
        qarena.train("tictactoe", "toy", 10, leaning=0.5)  # type: ignore[call-arg]
    # Its settings are its own: another learner refuses them in one line.
    with pytest.raises(QarenaError, match="lean applies to --learner toy only"):
        qarena.train("tictactoe", "q", 10, lean=0.5)  # type: ignore[call-arg]


def test_its_settings_leave_with_it() -> None:
    before = {s.name for s in qarena.learn.settings.ALL_SETTINGS}
    learners.register(Toy)
    learners.unregister(Toy.kind)
    assert {s.name for s in qarena.learn.settings.ALL_SETTINGS} == before
    assert "lean" not in before and "toy" not in learners.LEARNERS
    with pytest.raises(TypeError, match="unexpected keyword argument 'lean'"):
        qarena.train("tictactoe", "q", 10, lean=0.5)  # type: ignore[call-arg]


def test_the_command_line_trains_evaluates_and_plays_it(
    toy: type[Toy],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "toy.npz"
    argv = ["train", "tictactoe", "--learner", "toy", "--episodes", "12", "--rollouts", "2"]
    assert run([*argv, "--lean", "0.25", "--seed", "1", "--out", str(out), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["learner"] == "toy" and record["episodes"] == 12
    made = learners.load_learner(out)
    assert isinstance(made, Toy) and made.config == ToyConfig(1, 2, 0.25)
    # The same run through the API learns the same counts.
    again = qarena.train("tictactoe", "toy", 12, seed=1, rollouts=2, lean=0.25)  # type: ignore[call-arg]
    assert np.array_equal(again.counts, made.counts)  # type: ignore[attr-defined]
    # Its options are in train's help, with their declared words.
    assert run(["train", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "--rollouts" in shown and "--lean" in shown
    # Out of bounds: one line, exit 2.
    assert run([*argv[:-2], "--rollouts", "0", "--out", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err
    assert "--rollouts" in err and len(err.strip().splitlines()) == 1
    # Judged and played from its file.
    assert run(["eval", str(out), "--games", "4"]) == 0
    assert "toy learner on Tic-tac-toe" in capsys.readouterr().out
    assert run(["compete", str(out), "random", "--game", "tictactoe", "--games", "2"]) == 0
    # A person plays against it (non-interactively: the AI's move, then q).
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert run(["play", str(out), "--first", "ai"]) == 0
    said = capsys.readouterr()
    assert "Loaded an agent for tictactoe:3x3:3" in said.err + said.out


def test_a_sweep_takes_its_setting_as_an_axis_and_writes_its_columns(
    toy: type[Toy], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "sweep"
    argv = ["sweep", "tictactoe", "--learner", "toy", "--rollouts", "1,3", "--lean", "0.5"]
    assert run([*argv, "--episodes", "8", "--games", "4", "--workers", "1",
                "--out", str(folder)]) == 0  # fmt: skip
    capsys.readouterr()
    with (folder / "results.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and {"rollouts", "lean"} <= set(rows[0])
    assert sorted(r["rollouts"] for r in rows) == ["1", "3"]
    assert {r["lean"] for r in rows} == {"0.5"}
    runs = sorted((folder / "runs").glob("*.npz"))
    made = sorted(learners.load_learner(p).config.rollouts for p in runs)
    assert made == [1, 3]
    # The table reads back while the kind is known.
    assert run([*argv, "--episodes", "8", "--games", "4", "--out", str(folder)]) == 0
    assert "rollouts" in capsys.readouterr().out


def test_the_python_sweep_takes_its_setting_as_an_axis(toy: type[Toy], tmp_path: Path) -> None:
    done = qarena.sweep("tictactoe", tmp_path / "api", "toy", rollouts=[1, 2], lean=0.5,
                        episodes=8, games=4, workers=1)  # fmt: skip
    assert "rollouts" in done.columns()
    assert sorted(r.column("rollouts") for r in done.rows) == ["1", "2"]
    with (tmp_path / "api" / "results.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["rollouts"] for r in rows) == ["1", "2"]
    assert {r["lean"] for r in rows} == {"0.5"}
    # Not a setting of any kind: the TypeError Python gives.
    with pytest.raises(TypeError, match="unexpected keyword argument 'leaning'"):
        qarena.sweep("tictactoe", tmp_path / "no", "toy", leaning=0.5)


def test_the_web_trains_it_from_its_form_fields_and_plays_the_stored_policy(
    toy: type[Toy], tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient

    from qarena.web.app import create_app

    with TestClient(create_app(tmp_path)) as client:
        page = client.get("/train").text
        legend = re.search(r"<legend>Toy learner only</legend>(.*?)</fieldset>", page, re.S)
        assert legend is not None
        assert re.findall(r'name="(\w+)"', legend.group(1)) == ["rollouts", "lean"]
        assert "rollouts an episode" in legend.group(1) and "weight of a draw" in legend.group(1)
        # Out of bounds: the form again, saying why.
        form = {"game": "tictactoe", "learner": "toy", "episodes": "12", "rollouts": "99"}
        r = client.post("/train", data=form, follow_redirects=False)
        assert r.status_code in (400, 422) and "rollouts" in r.text
        r = client.post(
            "/train", data={**form, "rollouts": "2", "lean": "0.5"}, follow_redirects=False
        )
        assert r.status_code == 303, r.text
        job = r.headers["location"].rsplit("/", 1)[1]
        t0 = time.monotonic()
        while (snap := client.get(f"/api/train/{job}").json())["state"] in ("queued", "running"):
            assert time.monotonic() - t0 < 30
            time.sleep(0.05)
        assert snap["state"] == "done", snap
        stored = learners.load_learner(client.app.state.web.store.path(snap["policy"]))  # type: ignore[attr-defined]
        assert isinstance(stored, Toy) and stored.config.rollouts == 2 and stored.config.lean == 0.5
        # The JSON API takes them too, and refuses another learner's use of them.
        body = {"game": "tictactoe", "learner": "toy", "episodes": 5, "rollouts": 2}
        assert client.post("/api/train", json=body).status_code == 202
        r = client.post("/api/train", json={**body, "learner": "q"})
        assert r.status_code == 422 and "rollouts applies to --learner toy only" in r.text
        # The stored policy's page shows its settings by their declared labels.
        shown = client.get(f"/policies/{snap['policy']}/inspect")
        assert shown.status_code == 200, shown.text
        rows = dict(re.findall(r'<th scope="row">([^<]*)</th><td>([^<]*)</td>', shown.text))
        assert rows.get("rollouts an episode") == "2" and rows.get("weight of a draw") == "0.5"
        # Its game page: a person's move, the stored policy's answer.
        played = client.get(f"/policies/{snap['policy']}/play")
        assert played.status_code == 200, played.text
        r = client.post("/api/games", json={"policy": snap["policy"], "first": "ai", "seed": 1})
        assert r.status_code == 200, r.text
        first = r.json()["history"][0]
        assert stored.game.parse_move(first) == stored.act(stored.game.start())
