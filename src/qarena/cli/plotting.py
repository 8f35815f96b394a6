"""qarena plot: draw the learning curves that qarena train --curve recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from qarena.agents.players import load_file
from qarena.cli.common import app, err
from qarena.errors import QarenaError
from qarena.experiments.sweep_figures import (
    heatmap_cells,
    optimality_series,
    render_heatmap,
    render_optimality,
    select,
    sweep_rows,
)
from qarena.fileio import check_target, is_dir, write_atomic
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.show.figures import (
    FORMATS,
    PlotRun,
    check_beside,
    or_list,
    render_curves,
    render_judged_curve,
)


def _output(files: list[Path], out_file: Path | None) -> tuple[Path, str]:
    """Where the figure goes and in which format; refused before any work is done."""
    if out_file is None:
        if len(files) > 1:
            raise QarenaError(_("several files are drawn on one figure; name it with -o OUT.png"))
        out_file = files[0].with_suffix(".png")
    fmt = out_file.suffix.lower().removeprefix(".")
    if fmt not in FORMATS:
        raise QarenaError(
            _("cannot tell how to draw {file}: its name must end in {suffixes}").format(
                file=out_file, suffixes=or_list(["." + f for f in FORMATS])
            )
        )
    check_target(out_file, files)
    return out_file, fmt


@app.command("plot")
def plot_command(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE",
            help="Policy files trained with qarena train --curve (several are overlaid), or "
            "one sweep folder from qarena sweep.",
            show_default=False,
        ),
    ],
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Figure to write, .png or .svg (default with one FILE: FILE with .png; with a "
            "sweep folder: optimality.png or heatmap-X-Y.png in it).",
            show_default=False,
        ),
    ] = None,
    x: Annotated[
        str | None,
        typer.Option("--x", help="A sweep's heatmap: the axis across, e.g. alpha."),
    ] = None,
    y: Annotated[
        str | None,
        typer.Option("--y", help="A sweep's heatmap: the axis up, e.g. epsilon."),
    ] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(help="A sweep: only the runs with COLUMN=VALUE, e.g. learner=q; repeatable."),
    ] = None,
) -> None:
    """Draw learning curves: optimality and win shares against random and perfect play, over
    the episodes of training (log scale); several files are overlaid to compare runs. Given a
    sweep folder: optimality against episodes for each setting, with a band over the seeds,
    or with --x and --y a heatmap of final optimality over two axes."""
    if len(files) == 1 and is_dir(files[0]):
        _plot_sweep(files[0], out_file, x, y, where or [])
        return
    if x is not None or y is not None or where:
        raise QarenaError(
            _("--x, --y and --where apply to a sweep folder (qarena sweep --out DIR)")
        )
    target, fmt = _output(files, out_file)
    runs: list[PlotRun] = []
    for path in files:
        learner = load_file(path)  # the file's own kind decides, read once
        if learner.curve is None or not learner.curve.points:
            raise QarenaError(
                _("{name} has no learning curve; train it with --curve").format(name=path)
            )
        # A curve judged along perfect play is drawn as its own figure; beside others only
        # its optimality over all positions (its uniform sample), where it records that.
        if learner.curve.judged:
            if len(files) == 1:
                write_atomic(target, render_judged_curve(path.stem, learner, fmt), files)
                err.print(_("wrote {file}").format(file=target), markup=False, soft_wrap=True)
                return
            check_beside(str(path), learner)
        runs.append(PlotRun(path.stem, learner))
    write_atomic(target, render_curves(runs, fmt), files)
    err.print(_("wrote {file}").format(file=target), markup=False, soft_wrap=True)


def _where(items: list[str]) -> dict[str, str]:
    chosen = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise QarenaError(
                _("--where takes COLUMN=VALUE, like learner=q, not {item!r}").format(item=item)
            )
        chosen[key.replace("-", "_")] = value
    return chosen


def _plot_sweep(
    root: Path, out_file: Path | None, x: str | None, y: str | None, where: list[str]
) -> None:
    if (x is None) != (y is None):
        raise QarenaError(_("a heatmap takes two axes: give both --x and --y"))
    chosen = _where(where)
    folder, fixed, all_rows = sweep_rows(root)
    rows = select(all_rows, chosen) if chosen else all_rows
    game = parse_spec(fixed.game)
    scope = "".join(f", {k}={v}" for k, v in chosen.items())
    if x is not None and y is not None:
        x, y = x.replace("-", "_"), y.replace("-", "_")
        default = root / f"heatmap-{x}-{y}.png"
        target, fmt = _output([root], out_file or default)
        xs, ys, grid, seeds = heatmap_cells(rows, x, y)
        title = _("Final optimality on {game}  {spec}, mean of {count} seed(s)").format(
            game=game.title, spec=game.spec + scope, count=seeds
        )
        data = render_heatmap(xs, ys, grid, (x, y), title, fmt)
    else:
        target, fmt = _output([root], out_file or root / "optimality.png")
        series = optimality_series(folder, rows)
        title = _("Optimality on {game}  {spec}").format(game=game.title, spec=game.spec + scope)
        data = render_optimality(series, title, fmt)
    write_atomic(target, data)
    err.print(_("wrote {file}").format(file=target), markup=False, soft_wrap=True)
