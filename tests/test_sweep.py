"""qarena sweep: each run is exactly qarena train with its settings, measured as qarena eval
measures it; the table is the same whatever runs it; sweeps resume; bad input is one line."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from qarena.cli import run
from qarena.errors import QarenaError
from qarena.experiments.folder import COLUMNS
from qarena.experiments.grid import Grid, Setting
from qarena.games import parse_spec
from qarena.learn.learners import load_learner
from tests.conftest import default_sigint, in_ci

QARENA = [sys.executable, "-m", "qarena"]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _sweep(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code, out, err = _run(capsys, "sweep", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _rows(folder: Path) -> list[dict[str, str]]:
    text = (folder / "results.csv").read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames or ()) == COLUMNS
    return list(reader)


def _without_time(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in r.items() if k != "train_seconds"} for r in rows]


def test_the_grid_leaves_out_what_a_run_cannot_use() -> None:
    game = parse_spec("nim:3,5,7")
    grid = Grid(
        learners=("q", "matchbox"),
        values={"alpha": (0.5, 1.0), "starts": (0.0,)},
        opponents=("self", "random"),
        seeds=(0, 1),
    )
    names = [s.name for s in grid.settings(game)]
    # q: 2 alphas x (self with starts 0, random without starts) x 2 seeds. matchbox has no
    # alpha, and its default starts is 0 already: self and random, 2 seeds each.
    assert names == [
        "q,alpha=0.5,starts=0,seed=0",
        "q,alpha=0.5,starts=0,seed=1",
        "q,alpha=0.5,vs=random,seed=0",
        "q,alpha=0.5,vs=random,seed=1",
        "q,starts=0,seed=0",
        "q,starts=0,seed=1",
        "q,vs=random,seed=0",
        "q,vs=random,seed=1",
        "matchbox,seed=0",
        "matchbox,seed=1",
        "matchbox,vs=random,seed=0",
        "matchbox,vs=random,seed=1",
    ]
    setting = Setting("q", (("alpha", 0.5), ("rewards", (1.0, 0.0, -2.0))), "random", "first")
    assert setting.command("nim", "x.npz") == (
        "qarena train nim --out x.npz --alpha 0.5 --rewards 1,0,-2 --opponent random "
        "--seat first --seed 0"
    )


def test_a_run_is_qarena_train_and_its_row_is_qarena_eval(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "sweep"
    record = _sweep(
        capsys,
        "nim:3,5,7",
        "--out",
        str(folder),
        "--learner",
        "q,afterstate",
        "--epsilon",
        "0.3,1",
        "--opponent",
        "self,random",
        "--episodes",
        "300",
        "--seeds",
        "0-1",
        "--games",
        "200",
        "--workers",
        "1",
    )
    assert record["runs"] == record["trained"] == 16
    rows = _rows(folder)
    assert [r["run"] for r in rows] == [r["run"] for r in record["rows"]]
    assert sorted(p.stem for p in (folder / "runs").glob("*.npz")) == sorted(r["run"] for r in rows)
    for row in rows[::3]:
        path = folder / "runs" / f"{row['run']}.npz"
        setting = Setting.from_json(json.loads(json.dumps(_setting_of(path))))
        trained = tmp_path / "trained.npz"
        argv = setting.command("nim:3,5,7", str(trained)).split()[1:]
        code, _, err = _run(capsys, *argv)
        assert code == 0, err
        mine, theirs = load_learner(path), load_learner(trained)
        assert mine.config == theirs.config and mine.episodes == theirs.episodes == 300
        for name, array in theirs.arrays().items():
            np.testing.assert_array_equal(mine.arrays()[name], array)
        _assert_row_is_eval(capsys, row, path, 200)
        assert row["episodes"] == "300" and int(row["steps"]) == mine.steps


def _assert_row_is_eval(
    capsys: pytest.CaptureFixture[str], row: dict[str, str], path: Path, games: int
) -> None:
    """A run's row holds what ``qarena eval RUN --games N`` says of its file."""
    code, out, err = _run(capsys, "eval", str(path), "--games", str(games), "--json")
    assert code == 0, err
    evaluation = json.loads(out)
    assert float(row["optimality"]) == evaluation["optimality"]
    for name in ("random", "perfect"):
        seats = evaluation["matches"][name]
        for outcome in ("win", "draw", "loss"):
            both = (seats["first"][outcome] + seats["second"][outcome]) / 2
            assert float(row[f"{name}_{outcome}"]) == pytest.approx(both, abs=1e-12)
    # Unbeaten from the start in each seat, as ``qarena beat RUN`` says of its file.
    code, out, err = _run(capsys, "beat", str(path), "--json")
    assert code == 0, err
    reply = json.loads(out)["best_reply"]
    for seat in ("first", "second"):
        assert row[f"unbeaten_{seat}"] == ("false" if reply[seat]["beaten"] else "true")


def _setting_of(path: Path) -> dict:
    from qarena.policyfile import read_meta

    return read_meta(path)["sweep"]["setting"]


def test_a_sweep_resumes_and_workers_do_not_change_the_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["subtraction:12:3", "--alpha", "0.2,1", "--episodes", "500", "--games", "100"]
    one, two = tmp_path / "one", tmp_path / "two"
    first = _sweep(capsys, *args, "--seeds", "0-1", "--out", str(one), "--workers", "1")
    assert (first["trained"], first["skipped"]) == (4, 0)
    before = {p.name: p.stat().st_mtime_ns for p in (one / "runs").iterdir()}
    again = _sweep(capsys, *args, "--seeds", "0-3", "--out", str(one), "--workers", "1")
    assert (again["trained"], again["skipped"]) == (4, 4)
    assert all((one / "runs" / n).stat().st_mtime_ns == t for n, t in before.items())
    pooled = _sweep(capsys, *args, "--seeds", "0-3", "--out", str(two), "--workers", "2")
    assert pooled["trained"] == 8
    assert _without_time(_rows(one)) == _without_time(_rows(two))
    # Another game or other fixed options in the same folder: refused, nothing touched.
    code, out, err = _run(capsys, "sweep", "nim", "--out", str(one))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "holds a sweep with game 'subtraction:12:3'" in err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--alpha", "2"], "alpha must be in (0, 1]"),
        (["--alpha", "0.5,x"], "--alpha takes numbers"),
        (["--alpha", ""], "comma-separated list"),
        (["--seeds", "5-1"], "ends before it starts"),
        (["--seeds", "0-99999"], "more than 10,000 seeds"),
        (["--learner", "matchbox", "--alpha", "0.5"], "--alpha does not apply to the matchbox"),
        (["--learner", "nope"], "--learner: unknown 'nope'"),
        (["--opponent", "nobody"], "unknown opponent 'nobody'"),
        (["--opponent", "random", "--starts", "0.5"], "--starts applies to self-play"),
        (["--seat", "first"], "--seat applies only against an --opponent"),
        (["--rewards", "1,0"], "--rewards takes triples"),
        (["--rewards", "1,0,-1;\u0661,0,-1"], "--rewards takes triples"),
        (["--episodes", "0"], "--episodes must be at least 1"),
        (["--ray-address", "x:1"], "--ray-address applies to --backend ray"),
        (["--backend", "slurm"], "unknown backend 'slurm'"),
        (["--every", "10"], "add --curve"),
        (
            ["--alpha", "0.1,0.2,0.3,0.4,0.5", "--epsilon", "0.1,0.2,0.3,0.4", "--seeds", "0-999"],
            "combinations; at most 10,000 runs",
        ),
    ],
)
def test_bad_sweeps_are_one_line_and_write_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], says: str
) -> None:
    folder = tmp_path / "sweep"
    code, out, err = _run(capsys, "sweep", "nim", "--out", str(folder), *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err
    assert not folder.exists()


def test_out_must_be_a_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("mine")
    code, _, err = _run(capsys, "sweep", "nim", "--out", str(target))
    assert code == 2 and "is not a folder" in err
    assert target.read_text() == "mine"


def test_a_folder_of_someone_elses_files_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A folder without sweep.json is not a sweep's: its results.csv is someone's own, which
    the sweep used to write over. Refused before anything is written; an empty folder is
    taken."""
    mine = tmp_path / "results.csv"
    mine.write_text("my,own\n1,2\n")
    code, out, err = _run(capsys, "sweep", "nim:1,2", "--out", str(tmp_path), "--episodes", "10")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "holds files but no sweep (results.csv)" in err
    assert mine.read_text() == "my,own\n1,2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.csv"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _run(capsys, "sweep", "nim:1,2", "--out", str(empty), "--episodes", "10")[0] == 0


def test_a_refused_backend_leaves_no_folder_behind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep refused after its folder was made (here: Ray cannot start) removes the folder
    it made; one refused before (Ray not installed) never makes it."""
    from qarena.experiments import backends

    def no_ray(*args: object, **kwargs: object) -> None:
        raise QarenaError("cannot start a local Ray instance: no room")

    monkeypatch.setattr(backends, "run_ray", no_ray)
    folder = tmp_path / "new" / "sweep"
    code, _, err = _run(
        capsys, "sweep", "nim:1,2", "--out", str(folder), "--episodes", "10", "--backend", "ray"
    )
    assert code == 2 and "cannot start a local Ray instance" in err
    assert not folder.exists()
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    code, _, err = _run(
        capsys, "sweep", "nim:1,2", "--out", str(folder), "--episodes", "10", "--backend", "ray"
    )
    assert code == 2 and "needs Ray" in err
    assert not folder.exists()


@pytest.mark.slow
def test_ctrl_c_keeps_finished_runs_and_the_same_command_resumes(tmp_path: Path) -> None:
    folder = tmp_path / "sweep"
    argv = [*QARENA, "sweep", "nim:3,5,7", "--out", str(folder), "--seeds", "0-39"]
    argv += ["--episodes", "10000000", "--workers", "2", "--games", "50"]
    # Its own process group, as a terminal's Ctrl-C reaches the command and its workers.
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_sigint,  # noqa: PLW1509 - only resets a signal, takes no lock
    )
    try:
        deadline = time.monotonic() + 120
        while not list((folder / "runs").glob("*.npz")) and time.monotonic() < deadline:
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "run the same command again" in err
    # Nothing after it: the pool's semaphores were released, none reported leaked.
    assert "leaked" not in err and "resource_tracker" not in err, err
    kept = sorted(p.stem for p in (folder / "runs").glob("*.npz"))
    assert 1 <= len(kept) < 40
    assert sorted(r["run"] for r in _rows(folder)) == kept
    assert not [p for p in (folder / "runs").iterdir() if p.suffix != ".npz"]  # no temp files
    for name in kept:
        assert load_learner(folder / "runs" / f"{name}.npz").episodes == 10_000_000


@pytest.mark.slow  # make test stays under 8 minutes; CI runs the slow checks too
def test_ray_gives_the_local_table_row_for_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        if in_ci():
            pytest.fail("CI installs qarena[ray]; Ray is missing")
        pytest.skip("Ray is not installed (pip install 'qarena[ray]')")
    args = ["nim:3,5,7", "--learner", "q,matchbox", "--epsilon", "0.2,1", "--episodes", "400"]
    args += ["--seeds", "0-1", "--games", "100"]
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    _sweep(capsys, *args, "--out", str(local), "--workers", "2")
    record = _sweep(capsys, *args, "--out", str(on_ray), "--backend", "ray", "--workers", "2")
    assert record["trained"] == 8
    assert _without_time(_rows(local)) == _without_time(_rows(on_ray))


def test_plots_of_a_sweep_are_reproducible_and_show_its_numbers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "sweep"
    _sweep(
        capsys,
        "nim:3,5,7",
        "--out",
        str(folder),
        "--alpha",
        "0.1,1",
        "--epsilon",
        "0,1",
        "--starts",
        "0",
        "--episodes",
        "300",
        "--seeds",
        "0-1",
        "--games",
        "50",
        "--curve",
        "--workers",
        "1",
    )
    rows = _rows(folder)
    figures = {}
    for name, extra in (("heat", ["--x", "alpha", "--y", "epsilon"]), ("lines", [])):
        for i in range(2):
            out = tmp_path / f"{name}{i}.svg"
            code, _, err = _run(capsys, "plot", str(folder), *extra, "-o", str(out))
            assert code == 0, err
            figures[name, i] = out.read_bytes()
        assert figures[name, 0] == figures[name, 1]
    heat = figures["heat", 0].decode()
    # Each cell is written with the mean optimality of its two seeds, read from results.csv.
    for alpha in ("0.1", "1.0"):
        for epsilon in ("0.0", "1.0"):
            cell = [
                float(r["optimality"])
                for r in rows
                if (r["alpha"], r["epsilon"]) == (alpha, epsilon)
            ]
            assert len(cell) == 2
            assert f"{sum(cell) / 2:.3f}" in heat
    lines = figures["lines", 0].decode()
    assert all(f'id="optimality-{i}"' in lines for i in range(4))
    assert 'id="optimality-4"' not in lines and 'id="band-3"' in lines
    # Without curves and with one episode count there is nothing to draw against episodes.
    bare = tmp_path / "bare"
    _sweep(capsys, "nim", "--out", str(bare), "--seeds", "0-1", "--games", "10", "--workers", "1")
    code, _, err = _run(capsys, "plot", str(bare))
    assert code == 2 and "sweep with --curve" in err
    default = folder / "heatmap-alpha-episodes.png"
    code, _, err = _run(capsys, "plot", str(folder), "--x", "alpha", "--y", "episodes")
    assert code == 2 and "the runs also differ in epsilon" in err and not default.exists()
    code, _, err = _run(capsys, "plot", str(folder), "--x", "alpha")
    assert code == 2 and "give both --x and --y" in err
    code, _, err = _run(capsys, "plot", str(folder), "--where", "colour=red")
    assert code == 2 and "no column 'colour'" in err


def test_until_perfect_stops_each_run_where_qarena_train_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "sweep"
    args = ["subtraction:12:3", "--learner", "q,matchbox", "--starts", "0", "--seeds", "0-1"]
    _sweep(capsys, *args, "--until-perfect", "--games", "10", "--out", str(folder))
    rows = _rows(folder)
    assert len(rows) == 4
    for row in rows:
        setting = Setting.from_json(_setting_of(folder / "runs" / f"{row['run']}.npz"))
        command = setting.command(row["game"], str(tmp_path / "t.npz"), until_perfect=True)
        code, out, err = _run(capsys, *command.split()[1:], "--json")
        assert code == 0, err
        trained = json.loads(out)
        assert trained["perfect_at"] == int(row["perfect_at"]) == int(row["episodes"])
        assert float(row["optimality"]) == trained["optimality"] == 1.0


def test_a_second_sweep_into_a_busy_folder_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from qarena.experiments.folder import SweepFolder

    folder = tmp_path / "sweep"
    with SweepFolder(folder).locked():
        code, out, err = _run(capsys, "sweep", "nim", "--out", str(folder))
    assert code == 2 and out == ""
    assert "is in use by another sweep" in err
    assert not (folder / "runs").exists()
    _sweep(capsys, "nim", "--out", str(folder), "--games", "10")  # free again afterwards


def test_a_policy_file_opponent_is_the_one_qarena_train_meets(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rival = tmp_path / "rival.npz"
    assert run(["train", "nim:2,3", "--episodes", "50", "--out", str(rival)]) == 0
    capsys.readouterr()
    folder = tmp_path / "sweep"
    args = ["nim:2,3", "--opponent", str(rival), "--episodes", "200", "--games", "20"]
    record = _sweep(capsys, *args, "--out", str(folder), "--workers", "1")
    (row,) = record["rows"]
    assert row["opponent"].startswith("rival-")
    trained = tmp_path / "trained.npz"
    command = ["train", "nim:2,3", "--opponent", str(rival), "--episodes", "200", "--seed", "0"]
    assert run([*command, "--out", str(trained)]) == 0
    mine = load_learner(folder / "runs" / f"{row['run']}.npz")
    for name, array in load_learner(trained).arrays().items():
        np.testing.assert_array_equal(mine.arrays()[name], array)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--out", "report.txt"], "must name an .html file"),
        (["--runs", "{file}"], "is not a folder"),
        (["--backend", "slurm"], "unknown backend 'slurm'"),
        (["--ray-address", "x:1"], "--ray-address applies to --backend ray"),
        (["--workers", "0"], "--workers must be at least 1"),
    ],
)
def test_bad_reports_are_one_line_and_run_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("mine")
    argv = [a.replace("{file}", str(tmp_path / "file")) for a in args]
    code, out, err = _run(capsys, "report", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_the_report_s_progress_goes_to_stderr_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54: ``qarena report --quick > out.txt`` said nothing for 104 s: its progress was
    a spinner only, which shows nothing where stderr is not a terminal. Now, there, each step
    is a line on stderr, and stdout (the redirected file) gets the page's line alone. One
    tiny sweep stands in for the report's questions."""
    from qarena.cli import experimenting
    from qarena.experiments.report import Lab

    def one_sweep(lab: Lab) -> list[object]:
        lab.sweep("tiny", "nim:1,2", Grid(("q",), {}, episodes=(200,), seeds=(0, 1)))
        return []

    monkeypatch.setattr(experimenting, "build_report", one_sweep)
    monkeypatch.setattr(experimenting, "render_html", lambda *_args: b"<html></html>")
    page = tmp_path / "r.html"
    code, out, err = _run(capsys, "report", "--out", str(page), "--workers", "1")
    assert code == 0, err
    assert out.startswith(f"wrote {page}") and len(out.strip().splitlines()) == 1
    lines = err.strip().splitlines()
    assert lines, "no progress on stderr"
    assert lines[0] == "report: starting…"
    assert "report: tiny: 2 of 2 runs to train" in lines
    assert lines[-2:] == ["report: tiny: 1 of 2 runs trained", "report: tiny: 2 of 2 runs trained"]


def test_a_network_run_is_qarena_train_and_its_row_is_qarena_eval(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from qarena.learn.ntuple.files import load_network

    args = ["tictactoe", "--learner", "q,ntuple", "--tuples", "3,6", "--tuple-length", "4"]
    args += ["--lambda", "0,0.8", "--episodes", "3000", "--games", "100"]
    one, two = tmp_path / "one", tmp_path / "two"
    record = _sweep(capsys, *args, "--out", str(one), "--workers", "1")
    # q reads none of the network's settings: one run; the network, 2 x 2.
    assert [r["run"] for r in record["rows"]] == [
        "q,episodes=3000,seed=0",
        "ntuple,tuples=3,tuple_length=4,lam=0,episodes=3000,seed=0",
        "ntuple,tuples=3,tuple_length=4,episodes=3000,seed=0",
        "ntuple,tuples=6,tuple_length=4,lam=0,episodes=3000,seed=0",
        "ntuple,tuples=6,tuple_length=4,episodes=3000,seed=0",
    ]
    rows = _rows(one)
    assert rows[0]["tuples"] == rows[0]["lam"] == "" and rows[0]["canonical"] == "true"
    for row in rows[1:]:
        path = one / "runs" / f"{row['run']}.npz"
        setting = Setting.from_json(_setting_of(path))
        trained = tmp_path / "trained.npz"
        code, _, err = _run(capsys, *setting.command("tictactoe", str(trained)).split()[1:])
        assert code == 0, err
        mine, theirs = load_network(path), load_network(trained)
        assert mine.config == theirs.config and mine.games == theirs.games == 3000
        np.testing.assert_array_equal(mine.weights, theirs.weights)
        assert (row["tuples"], row["tuple_length"], row["canonical"]) == (
            str(mine.config.tuples),
            "4",
            "",
        )
        _assert_row_is_eval(capsys, row, path, 100)
    pooled = _sweep(capsys, *args, "--out", str(two), "--workers", "2")
    assert pooled["trained"] == 5
    assert _without_time(_rows(one)) == _without_time(_rows(two))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--opponent", "random"], "--opponent does not apply to the ntuple learner"),
        (["--until-perfect"], "--until-perfect does not apply to the ntuple learner"),
        (["--no-canonical"], "--no-canonical does not apply to the ntuple learner"),
        (["--tuples", "0"], "--tuples must be at least 1"),
        (["--lambda", "1.5"], "lambda must be in [0, 1]"),
        (["--tuple-length", "10", "--tuples", "2,16"], "more than this machine can spare"),
    ],
)
def test_bad_network_sweeps_are_one_line_and_write_nothing(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    args: list[str],
    says: str,
) -> None:
    # 110 MiB: classic Connect Four's default 200 tuples of 8 cells fit (100 MiB), 16 of 10
    # cells (128 MiB) do not.
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", str(110 * 2**20))
    folder = tmp_path / "sweep"
    code, out, err = _run(capsys, "sweep", "connect4", "--learner", "ntuple", "--out",
                          str(folder), *args)  # fmt: skip
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err
    assert not folder.exists()


def test_network_settings_and_boards_are_refused_where_they_do_not_apply(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "sweep"
    for args, says in (
        (["nim", "--learner", "ntuple"], "n-tuple networks play board games"),
        (["tictactoe", "--tuples", "5"], "--tuples does not apply to the q learner"),
    ):
        code, out, err = _run(capsys, "sweep", *args, "--out", str(folder))
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert says in err, err
        assert not folder.exists()


def test_a_results_table_from_before_networks_is_still_read(tmp_path: Path) -> None:
    from qarena.experiments.folder import read_results
    from qarena.experiments.grid import NETWORK_AXES

    old = [c for c in COLUMNS if c not in NETWORK_AXES]
    row = {c: "" for c in old} | {"run": "q,seed=0", "game": "nim:3", "learner": "q"}
    row |= {"alpha": "0.5", "canonical": "true", "opponent": "self", "seed": "0"}
    row |= {"episodes": "300", "train_seconds": "0.012345", "steps": "900", "optimality": "1.0"}
    row |= {f"{name}_{o}": "0.5" for name in ("random", "perfect") for o in ("win", "loss")}
    row |= {"random_draw": "0.0", "perfect_draw": "0.0"}
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=old, lineterminator="\n")
    writer.writeheader()
    writer.writerow(row)
    (tmp_path / "results.csv").write_text(buffer.getvalue(), encoding="utf-8")
    (read,) = read_results(tmp_path / "results.csv")
    assert read.settings["tuples"] == "" and read.settings["alpha"] == "0.5"
    assert read.optimality == 1.0 and read.episodes == 300 and read.perfect_at is None
    assert read.cells() == {c: row.get(c, "") for c in COLUMNS}
    # A cell that is not what its column holds is one line, not a traceback.
    damaged = buffer.getvalue().replace(",300,", ",many,")
    (tmp_path / "results.csv").write_text(damaged, encoding="utf-8")
    with pytest.raises(QarenaError, match="a cell is not what its column holds"):
        read_results(tmp_path / "results.csv")


def test_a_network_sweeps_curve_is_the_one_its_file_holds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from qarena.experiments.folder import SweepFolder, read_results
    from qarena.experiments.sweep_figures import optimality_series
    from qarena.learn.ntuple.files import load_network

    folder = tmp_path / "sweep"
    args = ["tictactoe", "--learner", "ntuple", "--tuples", "2,4", "--tuple-length", "4"]
    args += ["--episodes", "2000", "--curve", "--every", "1000", "--games", "20"]
    _sweep(capsys, *args, "--out", str(folder), "--workers", "1")
    rows = read_results(folder / "results.csv")
    assert [r.cells() for r in rows] == _rows(folder)
    series = optimality_series(SweepFolder(folder), rows)
    assert [s.label for s in series] == ["tuples=2", "tuples=4"]
    for row, line in zip(rows, series, strict=True):
        curve = load_network(folder / "runs" / f"{row.run}.npz").curve
        assert curve is not None
        assert line.x == [p.games for p in curve.points] == [1000, 2000]
        assert line.values == [[p.optimality] for p in curve.points]
    code, _, err = _run(capsys, "plot", str(folder), "-o", str(tmp_path / "lines.svg"))
    assert code == 0, err


def test_the_python_sweep_trains_networks_as_the_command_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import qarena

    runs = qarena.sweep(
        "tictactoe", tmp_path / "api", "ntuple", tuples=[2, 3], tuple_length=4, lam=0.5,
        episodes=1000, games=20, workers=1,
    )  # fmt: skip
    record = _sweep(capsys, "tictactoe", "--learner", "ntuple", "--tuples", "2,3",
                    "--tuple-length", "4", "--lambda", "0.5", "--episodes", "1000",
                    "--games", "20", "--workers", "1", "--out", str(tmp_path / "cli"))  # fmt: skip
    assert _without_time([r.cells() for r in runs.rows]) == _without_time(record["rows"])
    assert [r.settings["tuples"] for r in runs.rows] == ["2", "3"]
    assert all(r.canonical is None and r.seat is None for r in runs.rows)
    with pytest.raises(QarenaError, match="until_perfect=True does not apply to the ntuple"):
        qarena.sweep("tictactoe", tmp_path / "x", "ntuple", until_perfect=True)
    assert not (tmp_path / "x").exists()


@pytest.mark.slow  # a spawned pool in a fresh process, twice: about 18 s
@pytest.mark.parametrize("as_module", [False, True])
def test_a_script_sweeping_at_its_top_level_ends(tmp_path: Path, as_module: bool) -> None:
    # No `if __name__ == "__main__":` guard, as users write scripts: the pool's spawned
    # workers must not run the script (and so the sweep) again.
    script = tmp_path / "s.py"
    script.write_text(
        "import qarena\n"
        "s = qarena.sweep('nim:1,2', 'sw', alpha=[0.1, 1.0], episodes=50, workers=2, games=10)\n"
        "print(len(s.rows), 'runs')\n",
        encoding="utf-8",
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, str(tmp_path)])}
    argv = [sys.executable, "-m", "s"] if as_module else [sys.executable, str(script)]
    proc = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "2 runs"
    assert "in use" not in proc.stderr and "Traceback" not in proc.stderr
    assert len(list((tmp_path / "sw" / "runs").glob("*.npz"))) == 2
