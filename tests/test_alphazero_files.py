"""AlphaZero network files held to the bytes on disk and their contents checked when read
(issue 54): a small file claiming a large network is refused before its arrays are inflated,
and values a run could not learn from (weights of 3e38, a result of 1e30, cells of 7) are
refused in one line naming the file, not at the save after the run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

import qarena
from qarena.cli import run
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.learn.alphazero import files as az_file
from qarena.learn.alphazero.files import MOST_WEIGHT, load_net
from qarena.learn.alphazero.learner import AlphaZeroConfig, AlphaZeroLearner, LearningSettings
from qarena.learn.alphazero.net import layout, param_count
from qarena.learn.learners import load_learner
from qarena.policyfile import read_meta, save_policy
from tests.test_network_files import _run_measured, refused

SMALL = {"channels": 8, "blocks": 1, "simulations": 8, "opening": 0}


def zeros_network(path: Path, channels: int, blocks: int, spec: str = "connect4") -> Path:
    """A well-formed AlphaZero file (its checksum right) whose weights are all zeros: a
    thousandth of what it declares on disk."""
    game = parse_spec(spec)
    assert game.grid is not None
    weights = param_count(game.grid, channels, blocks)
    config = AlphaZeroConfig(channels=channels, blocks=blocks).to_dict()
    meta = {"kind": "alphazero", "game": game.spec, "channels": channels, "blocks": blocks,
            "weights": weights, "buffer": 0, "adam_steps": 0, "settings": config, "games": 0,
            "seconds": 0.0}  # fmt: skip
    save_policy(path, {"weights": np.zeros(weights, np.float32)}, meta)
    return path


def test_a_small_file_claiming_a_large_network_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 92 KB file of zeros declared 256 channels × 20 blocks (95 MB of weights, loaded 5
    times over): it was read whole (`qarena table` peaked at 821 MB). Learned weights do not
    deflate 8-fold: refused from the zip's directory, whatever the memory budget."""
    path = zeros_network(tmp_path / "zeros.npz", 128, 10)
    assert path.stat().st_size < 30_000  # 12 MB of weights declared
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", str(10**12))  # the budget would hold it
    error, peak = refused(lambda: load_net(path))
    message = str(error)
    assert str(path) in message and "'weights'" in message and "\n" not in message
    assert "does not compress that much" in message
    assert peak < 2**20


def test_a_trained_network_s_arrays_deflate_far_less_than_the_bound(tmp_path: Path) -> None:
    """The bound is no nearer a real file than 8-fold: a trained network's weights and Adam's
    moments shrink by about a tenth."""
    import zipfile

    net = qarena.train("tictactoe", "alphazero", 32, seed=1, workers=1, **SMALL)
    net.save(tmp_path / "net.npz")
    with zipfile.ZipFile(tmp_path / "net.npz") as zf:
        for name in ("weights", "adam_first", "adam_second"):
            info = zf.getinfo(name + ".npy")
            assert (
                info.file_size
                < 1.5 * info.compress_size
                < az_file.WEIGHTS_RATIO * (info.compress_size)
            )
    assert load_net(tmp_path / "net.npz").moments is not None


def test_the_command_line_refuses_it_in_one_line_without_growing(tmp_path: Path) -> None:
    """`qarena table` of the issue's file (256 channels × 20 blocks, a 1,000,000-position
    buffer declared) peaked at 821 MB; of 256 × 20 with 50,000 positions, 870 MB. Now exit 2,
    one line, and no more than any command starts with."""
    path = zeros_network(tmp_path / "big.npz", 256, 20)
    code, err, peak = _run_measured(
        ["table", path.name], {"QARENA_MEMORY_LIMIT": str(10**11)}, tmp_path
    )
    assert code == 2, err
    assert err.count("\n") == 1 and "big.npz" in err and "does not compress that much" in err
    assert peak < 300_000_000


def test_a_buffer_larger_than_the_learner_keeps_is_refused_before_it_is_read() -> None:
    """A file could declare 1,000,000 positions (75 MB on classic Connect Four) that the
    learner then trimmed to the 50,000 it keeps: it keeps no more, and writes no more."""
    assert LearningSettings.buffer == az_file.MOST_BUFFER


def test_an_upload_of_such_a_file_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    """Four 92 KB uploads took the server from 1,069 to 1,934 MB. Now each is 422, one line
    naming it, nothing stored."""
    from qarena.web.app import create_app
    from tests.test_web_api import store_files, upload

    path = zeros_network(tmp_path / "zeros.npz", 128, 10)
    data = tmp_path / "data"
    with TestClient(create_app(data)) as client:
        r = upload(client, "zeros.npz", path.read_bytes())
        assert r.status_code == 422, r.text[-500:]
        assert "zeros.npz is corrupted" in r.text and "does not compress that much" in r.text
        assert store_files(data) == []


# --- contents ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    net = qarena.train("tictactoe", "alphazero", 32, seed=1, workers=1, **SMALL)
    assert isinstance(net, AlphaZeroLearner)
    path = tmp_path_factory.mktemp("az") / "net.npz"
    net.save(path)
    return path


def _rewritten(source: Path, out: Path, **arrays: np.ndarray) -> Path:
    """``source`` with ``arrays`` in place of its own, its checksum right."""
    meta = {k: v for k, v in read_meta(source).items() if k != "sha256"}
    with np.load(source) as data:
        found = {name: data[name] for name in data.files if name != "meta"}
    save_policy(out, {**found, **arrays}, meta)
    return out


def _place(path: Path, tensor: str) -> int:
    """Where ``tensor`` starts in the flat weights of the network in ``path``."""
    meta = read_meta(path)
    grid = parse_spec(meta["game"]).grid
    assert grid is not None
    at = 0
    for name, shape in layout(grid, meta["channels"], meta["blocks"]):
        if name == tensor:
            return at
        at += math.prod(shape)
    raise AssertionError(tensor)


def _changed(path: Path, name: str, change: Any) -> np.ndarray:
    with np.load(path) as data:
        a = data[name].copy()
    change(a)
    return a


def _set(index: Any, value: float) -> Any:
    def change(a: np.ndarray) -> None:
        a[index] = value

    return change


CONTENTS = [
    # name, array, change, what the line says
    ("huge-weight", "weights", lambda p: _set(_place(p, "stem.weight"), 3e38),
     "3e+38 in stem.weight, beyond what learning makes"),
    ("negative-variance", "weights", lambda p: _set(_place(p, "stem_norm.running_var"), -1.0),
     "-1 in stem_norm.running_var"),
    ("result", "buffer_value", lambda p: _set(0, 1e30), "a result outside −1 to 1"),
    ("cell", "buffer_boards", lambda p: _set((0, 0), 7), "a cell that is not 0, 1 or 2"),
    ("mover", "buffer_movers", lambda p: _set(0, -5), "a player to move that is not 0 or 1"),
    ("share", "buffer_policy", lambda p: _set((0, 0), 5.0), "shares summing to 1"),
    ("shares-sum", "buffer_policy", lambda p: _set(slice(None), 0.0), "shares summing to 1"),
    ("first-moment", "adam_first", lambda p: _set(0, 1e6), "moments are beyond any Adam"),
    ("second-moment", "adam_second", lambda p: _set(0, 1e36), "moments are beyond any Adam"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "array", "change", "says"), CONTENTS, ids=[c[0] for c in CONTENTS]
)
def test_values_no_run_learns_from_are_refused_when_the_file_is_read(
    trained: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    array: str,
    change: Any,
    says: str,
) -> None:
    """Weights of 3e38 loaded, trained and failed at the save ("contains NaN or infinite
    values"), the run's work lost; a result of 1e30 the same; cells of 7 and movers of −5
    were taken. Now each is refused when the file is read: one line naming the file and
    what is wrong, exit 2."""
    path = _rewritten(
        trained, tmp_path / f"{case}.npz", **{array: _changed(trained, array, change(trained))}
    )
    with pytest.raises(QarenaError, match="damaged") as info:
        load_net(path)
    assert says in str(info.value) and str(path) in str(info.value)
    assert run(["table", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and f"{case}.npz" in err and len(err.strip().splitlines()) == 1


def test_weights_within_the_bound_learn_and_save(trained: Path, tmp_path: Path) -> None:
    """What the loader takes, a run learns from and saves: weights of half the bound (every
    learned number), 64 games on, saved and read back."""
    meta = read_meta(trained)
    grid = parse_spec(meta["game"]).grid
    assert grid is not None
    with np.load(trained) as data:
        weights = data["weights"].copy()
    rng = np.random.default_rng(0)
    at = 0
    for name, shape in layout(grid, meta["channels"], meta["blocks"]):
        size = math.prod(shape)
        if not name.endswith(("running_mean", "running_var")):
            weights[at : at + size] = rng.uniform(-0.5, 0.5, size) * MOST_WEIGHT
        at += size
    path = _rewritten(trained, tmp_path / "big.npz", weights=weights)
    learner = qarena.train("tictactoe", "alphazero", 64, resume=load_learner(path), workers=1)
    assert learner.episodes == 96
    learner.save(tmp_path / "after.npz")
    assert load_net(tmp_path / "after.npz").meta["games"] == 96
