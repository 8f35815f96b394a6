"""qarena plot: draw the learning curves that qarena train --curve recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from qarena.cli.common import app, err
from qarena.errors import QarenaError
from qarena.evaluate.plot import FORMATS, PlotRun, render_curves
from qarena.fileio import check_target, write_atomic
from qarena.learn.learners import load_learner


def _output(files: list[Path], out_file: Path | None) -> tuple[Path, str]:
    """Where the figure goes and in which format; refused before any work is done."""
    if out_file is None:
        if len(files) > 1:
            raise QarenaError("several files are drawn on one figure; name it with -o OUT.png")
        out_file = files[0].with_suffix(".png")
    fmt = out_file.suffix.lower().removeprefix(".")
    if fmt not in FORMATS:
        raise QarenaError(
            f"cannot tell how to draw {out_file}: its name must end in "
            f"{' or '.join('.' + f for f in FORMATS)}"
        )
    check_target(out_file, files)
    return out_file, fmt


@app.command("plot")
def plot_command(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE",
            help="Policy files trained with qarena train --curve; several are overlaid.",
            show_default=False,
        ),
    ],
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Figure to write, .png or .svg (default with one FILE: FILE with .png).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw learning curves: optimality and win shares against random and perfect play, over
    the episodes of training (log scale). Several files are overlaid to compare runs."""
    target, fmt = _output(files, out_file)
    runs: list[PlotRun] = []
    for path in files:
        learner = load_learner(path)
        if learner.curve is None or not learner.curve.points:
            raise QarenaError(f"{path} has no learning curve; train it with --curve")
        runs.append(PlotRun(path.stem, learner))
    write_atomic(target, render_curves(runs, fmt), files)
    err.print(f"wrote {target}", markup=False, soft_wrap=True)
