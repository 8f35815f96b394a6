"""Figures of a sweep: optimality against episodes for each setting with a band over seeds, and
a heatmap of final optimality over two axes. Drawn with the same reproducible matplotlib set-up
as the learning curves, so the same sweep gives the same bytes."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from qarena.errors import QarenaError
from qarena.experiments.folder import COLUMNS, SETTING_COLUMNS, RunRow, SweepFolder, read_results
from qarena.experiments.grid import Fixed
from qarena.i18n import _, ngettext
from qarena.learn.curve import Curve
from qarena.policyfile import read_meta
from qarena.show.figures import PIXELS, ROW_PIXELS, encode, new_figure, plain, reproducible

#: Settings drawn on one optimality figure at most (each a line and a band).
MAX_LINES = 20
#: Cells of a heatmap at most, per side.
MAX_CELLS = 40
#: The axes a heatmap can take: the columns that set a run (episodes too).
HEATMAP_AXES = (*(c for c in SETTING_COLUMNS if c != "seed"), "episodes")

Row = RunRow


@dataclass(frozen=True)
class Series:
    """One setting: its label and, at each x, the seeds' optimality."""

    label: str
    x: list[int]
    values: list[list[float]]  # per x, one value per seed


def _order(value: str) -> tuple[int, float, str]:
    """Numbers in numeric order, words after them in text order."""
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


def select(rows: Sequence[Row], where: Mapping[str, str]) -> list[Row]:
    """The rows whose columns have the values ``where`` names (as results.csv writes them)."""
    for key in where:
        if key not in COLUMNS:
            raise QarenaError(_("--where {key}: results.csv has no column {key!r}").format(key=key))
    chosen = [r for r in rows if all(_same(r.column(k), v) for k, v in where.items())]
    if not chosen:
        shown = ", ".join(f"{k}={v}" for k, v in where.items())
        raise QarenaError(_("no run of the sweep has {settings}").format(settings=shown))
    return chosen


def _same(cell: str, wanted: str) -> bool:
    if cell == wanted:
        return True
    try:
        return float(cell) == float(wanted)
    except ValueError:
        return False


def varying(rows: Sequence[Row], columns: Sequence[str]) -> list[str]:
    """The columns whose (non-blank) values differ between rows."""
    return [c for c in columns if len({r.column(c) for r in rows} - {""}) > 1]


def _label(row: Row, columns: Sequence[str]) -> str:
    cells = row.cells()
    return ", ".join(f"{c}={cells[c]}" for c in columns if cells[c]) or row.learner


def optimality_series(folder: SweepFolder, rows: Sequence[Row]) -> list[Series]:
    """One series per setting (the seeds pooled): the runs' learning curves when they have
    them, else the final optimality at each episode count of the sweep."""
    metas = {r.run: read_meta(folder.path(r.run)) for r in rows}
    curves = all("curve" in m for m in metas.values())
    group_by = [c for c in varying(rows, SETTING_COLUMNS) if c != "seed"]
    if not curves and len({r.episodes for r in rows}) < 2:
        raise QarenaError(
            _(
                "these runs have no learning curves and one episode count: sweep with --curve, "
                "or with several --episodes, to draw optimality against episodes"
            )
        )
    groups: dict[tuple[str, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(tuple(row.column(c) for c in group_by), []).append(row)
    if len(groups) > MAX_LINES:
        raise QarenaError(
            _(
                "the runs form {count} settings; a figure draws at most {most}: choose some "
                "with --where COLUMN=VALUE"
            ).format(count=len(groups), most=MAX_LINES)
        )
    series = []
    for members in groups.values():
        label = _label(members[0], group_by)
        if curves:
            by_x: dict[int, list[float]] = {}
            for row in members:
                for x, y in _curve(folder, row, metas[row.run]):
                    by_x.setdefault(x, []).append(y)
        else:
            by_x = {}
            for row in members:
                by_x.setdefault(row.episodes, []).append(row.optimality)
        # Points every seed reached: a band over fewer seeds would narrow for no reason.
        most = max(len(v) for v in by_x.values())
        xs = sorted(x for x, v in by_x.items() if len(v) == most)
        series.append(Series(label, xs, [by_x[x] for x in xs]))
    return series


def _curve(folder: SweepFolder, row: Row, meta: Mapping[str, object]) -> list[tuple[int, float]]:
    """A run's curve as (episodes, optimality): a network's points are its optimality along
    perfect-play games (``qarena train --curve``), at each count of games."""
    try:  # either kind of curve: its points' optimality, at each count
        return [(p.episodes, p.optimality) for p in Curve.from_json(meta["curve"]).points]
    except QarenaError as e:
        raise QarenaError(
            _("{file}: {problem}").format(file=folder.path(row.run), problem=e)
        ) from None


def render_optimality(series: Sequence[Series], title: str, fmt: str) -> bytes:
    """Mean optimality over seeds against episodes, one line per setting, shaded from the
    lowest to the highest seed."""
    from matplotlib.ticker import FuncFormatter

    with reproducible():
        # Long labels (settings that differ between learners) take a legend row each.
        columns = 2 if max(len(s.label) for s in series) <= 48 else 1
        fig = new_figure(PIXELS[0], PIXELS[1] + ROW_PIXELS * max(0, len(series) - 1) // columns)
        ax = fig.add_subplot()
        for i, s in enumerate(series):
            colour = f"C{i % 10}"
            style = "-" if i < 10 else "--"
            mean = [statistics.fmean(v) for v in s.values]
            seeds = max(len(v) for v in s.values)
            (line,) = ax.plot(
                s.x,
                mean,
                color=colour,
                linestyle=style,
                marker="o" if len(s.x) < 30 else "",
                markersize=3.5,
                linewidth=1.6,
                label=ngettext("{label} ({count} seed)", "{label} ({count} seeds)", seeds).format(
                    label=s.label, count=seeds
                ),
            )
            line.set_gid(f"optimality-{i}")
            if seeds > 1:
                band = ax.fill_between(
                    s.x, [min(v) for v in s.values], [max(v) for v in s.values], color=colour
                )
                band.set_alpha(0.15)
                band.set_gid(f"band-{i}")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:,.0f}"))
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(_("episodes (log scale)"))
        ax.set_ylabel(_("optimality (mean; band: lowest to highest seed)"))
        ax.grid(True, which="major", alpha=0.5)
        fig.suptitle(plain(title), fontsize=12)
        fig.legend(loc="outside lower center", ncols=columns, fontsize=9)
        return encode(fig, fmt)


def heatmap_cells(
    rows: Sequence[Row], x: str, y: str
) -> tuple[list[str], list[str], list[list[float | None]], int]:
    """The x and y values (sorted), the mean final optimality over seeds in each cell (None:
    no run), and the most seeds in a cell."""
    for axis in (x, y):
        if axis not in HEATMAP_AXES:
            raise QarenaError(
                _("cannot map {axis!r}; the axes are {axes}").format(
                    axis=axis, axes=", ".join(HEATMAP_AXES)
                )
            )
    if x == y:
        raise QarenaError(_("--x and --y must be two different axes"))
    others = [c for c in varying(rows, HEATMAP_AXES) if c not in (x, y)]
    if others:
        raise QarenaError(
            _(
                "the runs also differ in {columns}: choose one value of each with --where, "
                "e.g. --where {column}={value}"
            ).format(
                columns=", ".join(others),
                column=others[0],
                value=sorted({r.column(others[0]) for r in rows})[0],
            )
        )
    xs = sorted({r.column(x) for r in rows}, key=_order)
    ys = sorted({r.column(y) for r in rows}, key=_order)
    if len(xs) > MAX_CELLS or len(ys) > MAX_CELLS:
        raise QarenaError(
            _("a heatmap has at most {most} values on each axis").format(most=MAX_CELLS)
        )
    cells: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        cells.setdefault((r.column(x), r.column(y)), []).append(r.optimality)
    grid = [[_mean(cells.get((xv, yv))) for xv in xs] for yv in ys]
    seeds = max(len(v) for v in cells.values())
    return xs, ys, grid, seeds


def _mean(values: list[float] | None) -> float | None:
    return statistics.fmean(values) if values else None


@dataclass(frozen=True)
class Panel:
    """One heatmap: its values over ``xs`` across and ``ys`` up (None: no run there)."""

    title: str
    xs: Sequence[str]
    ys: Sequence[str]
    grid: Sequence[Sequence[float | None]]


def render_heatmap(
    xs: Sequence[str],
    ys: Sequence[str],
    grid: Sequence[Sequence[float | None]],
    names: tuple[str, str],
    title: str,
    fmt: str,
) -> bytes:
    """Final optimality over two axes, each cell its mean over seeds, written in the cell."""
    panel = Panel("", xs, ys, grid)
    return render_matrices([panel], names, _("optimality (mean over seeds)"), title, fmt)


def render_matrices(
    panels: Sequence[Panel],
    names: tuple[str, str],
    colour_label: str,
    title: str,
    fmt: str,
) -> bytes:
    """Heatmaps side by side on one colour scale from 0 to 1, each cell's value written in it."""
    import numpy as np

    with reproducible():
        width = PIXELS[0] if len(panels) == 1 else 520 * len(panels) + 160
        fig = new_figure(width, PIXELS[1])
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        image = None
        for k, (ax, panel) in enumerate(zip(axes, panels, strict=True)):
            data = np.array([[math.nan if v is None else v for v in row] for row in panel.grid])
            image = ax.imshow(
                np.ma.masked_invalid(data), cmap="viridis", vmin=0.0, vmax=1.0, origin="lower"
            )
            image.set_gid(f"heatmap-{k}" if len(panels) > 1 else "heatmap")
            ax.set_aspect("auto")
            ax.set_xticks(range(len(panel.xs)), [plain(v) for v in panel.xs])
            ax.set_yticks(range(len(panel.ys)), [plain(v) for v in panel.ys])
            ax.set_xlabel(names[0])
            if k == 0:
                ax.set_ylabel(names[1])
            if panel.title:
                ax.set_title(plain(panel.title), fontsize=10)
            for j, row in enumerate(panel.grid):
                for i, v in enumerate(row):
                    if v is not None:
                        ax.text(
                            i,
                            j,
                            f"{v:.3f}",
                            ha="center",
                            va="center",
                            fontsize=9 if len(panels) == 1 else 8,
                            color="black" if v > 0.6 else "white",
                        )
        assert image is not None
        fig.colorbar(image, ax=list(axes), label=colour_label)
        fig.suptitle(plain(title), fontsize=12)
        return encode(fig, fmt)


def render_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[Sequence[float]]],
    labels: tuple[str, str],
    title: str,
    fmt: str,
    *,
    reference: tuple[str, float] | None = None,
    log: bool = False,
) -> bytes:
    """Grouped bars: for each category, one bar per series at the mean of its values, with
    each value (a seed) drawn as a dot on it; an optional horizontal reference line. The axes'
    ``labels``: across, then up."""
    with reproducible():
        fig = new_figure(*PIXELS)
        ax = fig.add_subplot()
        n = max(1, len(series))
        width = 0.8 / n
        for k, (label, values) in enumerate(series.items()):
            offsets = [i - 0.4 + width * (k + 0.5) for i in range(len(categories))]
            means = [statistics.fmean(v) if v else math.nan for v in values]
            bars = ax.bar(offsets, means, width * 0.9, color=f"C{k % 10}", label=plain(label))
            for i, bar in enumerate(bars):
                bar.set_gid(f"bars-{k}-{i}")
            for x, v in zip(offsets, values, strict=True):
                ax.plot([x] * len(v), v, "o", color="0.15", markersize=3)
        if reference is not None:
            ax.axhline(reference[1], color="0.3", linestyle="--", linewidth=1.2)
            ax.text(
                len(categories) - 0.5,
                reference[1],
                plain(reference[0]),
                ha="right",
                va="bottom",
                fontsize=9,
                color="0.3",
            )
        if log:
            ax.set_yscale("log")
        ax.set_xticks(range(len(categories)), [plain(c) for c in categories])
        ax.set_xlabel(labels[0])
        ax.set_ylabel(labels[1])
        ax.grid(True, axis="y", alpha=0.4)
        fig.suptitle(plain(title), fontsize=12)
        if len(series) > 1:
            fig.legend(loc="outside lower center", ncols=min(4, len(series)), fontsize=9)
        return encode(fig, fmt)


def sweep_rows(root: Path) -> tuple[SweepFolder, Fixed, list[RunRow]]:
    """A sweep folder, its fixed settings and its results table."""
    folder = SweepFolder(root)
    fixed = folder.fixed()
    if fixed is None:
        raise QarenaError(
            _("{root} is not a sweep folder (it has no sweep.json); see qarena sweep").format(
                root=root
            )
        )
    rows = read_results(folder.results)
    if not rows:
        raise QarenaError(_("{file} has no runs yet").format(file=folder.results))
    return folder, fixed, rows
