"""`qarena plot`: learning curves as PNG or SVG, one run or several overlaid, and bad input."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from qarena.cli.app import run
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.learn.curve import Curve, CurvePoint
from qarena.learn.learners import load_learner, make_learner
from qarena.learn.tables.qlearning import QLearner
from qarena.show.figures import PIXELS, ROW_PIXELS, PlotRun, describe, render_curves

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Policy files trained once for the module: nim with two learning rates, tic-tac-toe
    (which has draws against perfect), and nim without a curve."""
    folder = tmp_path_factory.mktemp("runs")
    nim = ["nim:1,2,3", "--curve", "--every", "100", "--episodes", "2000"]
    trained = {
        "nim": nim,
        "nim-slow": [*nim, "--alpha", "0.5"],
        "ttt": ["tictactoe", "--curve", "--every", "300", "--episodes", "3000"],
        "plain": ["nim:1,2,3", "--episodes", "200"],
    }
    paths = {}
    for name, args in trained.items():
        paths[name] = folder / f"{name}.npz"
        assert run(["train", *args, "--out", str(paths[name])]) == 0
    return paths


def _plot(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    code = run(["plot", *(str(a) for a in args)])
    return code, capsys.readouterr().err


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which must come first after the signature."""
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _line_ids(svg: bytes) -> set[str]:
    root = ET.fromstring(svg)
    return {g.get("id", "") for g in root.iter(f"{SVG}g")} & {
        f"{key}-{i}"
        for key in ("optimality", "random-win", "perfect-win", "perfect-not-lost", "unbeaten")
        for i in range(5)
    }


def _vertices(svg: bytes, gid: str) -> int:
    """Vertices of the line drawn in group ``gid``: its own path, not the marker's in <defs>."""
    group = ET.fromstring(svg).find(f".//{SVG}g[@id='{gid}']")
    assert group is not None, gid
    paths = group.findall(f"{SVG}path")
    assert len(paths) == 1
    return len(re.findall(r"[ML]", paths[0].get("d", "")))


def test_png_default_path_and_size(files: dict[str, Path], capsys: pytest.CaptureFixture[str]):
    target = files["nim"].with_suffix(".png")
    code, err = _plot(capsys, files["nim"])
    assert code == 0
    assert err.strip() == f"wrote {target}"
    assert _png_size(target.read_bytes()) == PIXELS == (1200, 750)


def test_svg_lines_have_a_vertex_per_point(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, lines in (
        ("nim", {"optimality-0", "random-win-0", "perfect-win-0", "unbeaten-0"}),
        (
            "ttt",
            {"optimality-0", "random-win-0", "perfect-win-0", "perfect-not-lost-0", "unbeaten-0"},
        ),
    ):
        out = tmp_path / f"{name}.svg"
        assert _plot(capsys, files[name], "-o", out)[0] == 0
        svg = out.read_bytes()
        # Nim has no draws, so no "not lost" line; tic-tac-toe against perfect is all draws.
        assert _line_ids(svg) == lines
        curve = load_learner(files[name]).curve
        assert curve is not None and len(curve.points) == (20 if name == "nim" else 10)
        for gid in lines:
            # The unbeaten seats are steps: a vertex per point and one per step between.
            steps = gid.startswith("unbeaten")
            n = len(curve.points)
            assert _vertices(svg, gid) == (2 * n - 1 if steps else n)


def test_same_input_same_bytes(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for suffix in ("png", "svg"):
        a, b = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        assert _plot(capsys, files["ttt"], "-o", a)[0] == 0
        assert _plot(capsys, files["ttt"], "-o", b)[0] == 0
        assert a.read_bytes() == b.read_bytes()
    # Another process, with another string hash seed, writes the same SVG.
    c = tmp_path / "c.svg"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run(
        [sys.executable, "-m", "qarena", "plot", str(files["ttt"]), "-o", str(c)],
        check=True,
        env=env,
        capture_output=True,
    )
    assert c.read_bytes() == (tmp_path / "a.svg").read_bytes()
    # Nothing that dates the file or names a version.
    assert b"<dc:date>" not in c.read_bytes() and b"Matplotlib v" not in c.read_bytes()


def test_overlay_draws_each_run(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [files["nim"], files["nim-slow"], files["ttt"]]
    svg_out, png_out = tmp_path / "all.svg", tmp_path / "all.png"
    assert _plot(capsys, *paths, "-o", svg_out)[0] == 0
    assert _plot(capsys, *paths, "--out", png_out)[0] == 0
    svg = svg_out.read_bytes()
    # Every run's curve records whether it is unbeaten from the start (enumerated games).
    lines = {"optimality", "random-win", "perfect-win", "unbeaten"}
    assert _line_ids(svg) == {f"{key}-{i}" for key in lines for i in range(3)} | {
        "perfect-not-lost-2"
    }
    for i, path in enumerate(paths):
        curve = load_learner(path).curve
        assert curve is not None
        assert _vertices(svg, f"optimality-{i}") == len(curve.points)
    # Three runs: the figure is taller for the legend rows of its five line styles.
    assert _png_size(png_out.read_bytes()) == (PIXELS[0], PIXELS[1] + 4 * ROW_PIXELS)


def test_titles_and_labels(files: dict[str, Path]) -> None:
    nim, slow, ttt = (load_learner(files[n]) for n in ("nim", "nim-slow", "ttt"))
    one = describe([PlotRun("nim", nim)])
    assert one.title == "Q-learning on Nim 1-2-3 (misère)  nim:1,2,3"
    assert one.subtitle == "α=1.0 γ=0.9 ε=1.0→0.1 linear, 2,000 episodes"

    # Two runs of one game: what they share in the title, what differs in each label.
    two = describe([PlotRun("nim", nim), PlotRun("nim-slow", slow)])
    assert two.title == "Q-learning on Nim 1-2-3 (misère)  nim:1,2,3"
    assert two.subtitle == "γ=0.9 ε=1.0→0.1 linear, 2,000 episodes each"
    assert two.labels == ["nim: Q-learning, α=1.0", "nim-slow: Q-learning, α=0.5"]

    mixed = describe([PlotRun("nim", nim), PlotRun("ttt", ttt)])
    assert mixed.title == "Q-learning on several games"
    assert mixed.labels == [
        "nim: Q-learning, nim:1,2,3, 2,000 episodes",
        "ttt: Q-learning, tictactoe:3x3:3, 3,000 episodes",
    ]

    # Settings away from the defaults are named; a learner's missing ones are not.
    game = parse_spec("nim:1,2,3")
    odd = make_learner("q", game, QLearner.default_config(seed=7, initial=0.5, schedule="exp"))
    assert describe([PlotRun("x", odd)]).subtitle == (
        "α=1.0 γ=0.9 ε=1.0→0.1 exp initial 0.5 seed 7, 0 episodes"
    )
    box = make_learner("matchbox", game)
    assert describe([PlotRun("x", box)]).subtitle == "ε=1.0→0.1 linear, 0 episodes"


def _synthetic(points: int) -> PlotRun:
    """A run with a made-up curve: flat stretches (which path simplification would drop)."""
    learner = make_learner("q", parse_spec("nim:1,2,3"))
    shares = {"random": (1.0, 0.0, 0.0), "perfect": (0.5, 0.0, 0.5)}
    learner.curve = Curve(
        10, points=[CurvePoint(10 * (i + 1), min(1.0, i / 5), shares) for i in range(points)]
    )
    return PlotRun("synthetic", learner)


def test_markers_only_for_few_points() -> None:
    for points, markers in ((29, True), (30, False), (400, False)):
        svg = render_curves([_synthetic(points)], "svg")
        group = ET.fromstring(svg).find(f".//{SVG}g[@id='optimality-0']")
        assert group is not None
        assert (group.find(f".//{SVG}use") is not None) == markers
        assert _vertices(svg, "optimality-0") == points
        assert _vertices(svg, "random-win-0") == points


def test_render_refuses_what_it_cannot_draw() -> None:
    learner = make_learner("q", parse_spec("nim:1,2,3"))
    with pytest.raises(QarenaError, match="has no learning curve"):
        render_curves([PlotRun("bare", learner)], "png")
    with pytest.raises(QarenaError, match="png and svg"):
        render_curves([_synthetic(3)], "pdf")


def _refused(capsys: pytest.CaptureFixture[str], message: str, *args: str | Path) -> None:
    code, err = _plot(capsys, *args)
    assert code == 2
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    assert message in err, err


def test_errors_leave_no_file(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = set(os.listdir(files["plain"].parent))
    _refused(
        capsys,
        f"{files['plain']} has no learning curve; train it with --curve",
        files["plain"],
    )
    assert not files["plain"].with_suffix(".png").exists()
    _refused(capsys, "must end in .png or .svg", files["nim"], "-o", tmp_path / "nim.pdf")
    _refused(capsys, "-o", files["nim"], files["ttt"])
    _refused(capsys, "no such policy file", tmp_path / "missing.npz")
    _refused(capsys, "does not exist", files["nim"], "-o", tmp_path / "no" / "such.png")
    # A policy file named .png would be its own default output: never overwritten.
    odd = tmp_path / "odd.png"
    odd.write_bytes(files["nim"].read_bytes())
    _refused(capsys, "one of the files this command reads", odd)
    assert odd.read_bytes() == files["nim"].read_bytes()
    # A curve-less file among good ones: refused before anything is drawn.
    _refused(capsys, "no learning curve", files["nim"], files["plain"], "-o", tmp_path / "x.svg")
    assert set(os.listdir(files["plain"].parent)) == before
    assert os.listdir(tmp_path) == ["odd.png"]


def test_cli_starts_without_matplotlib() -> None:
    code = "import sys, qarena.cli.app; print('matplotlib' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
