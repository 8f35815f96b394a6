"""Learning curves as SVG, drawn on the server: one run's optimality and win shares against
episodes (a log axis), and several runs' curves of one measure on one chart. Every string
here is escaped."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from qarena.i18n import _, gettext_noop, ngettext
from qarena.learn.curve import CurvePoint
from qarena.show.svg import open_svg

# --- learning curves ------------------------------------------------------------------------

#: (label, css class, share of a point); the labels are translated where they are shown.
SERIES: list[tuple[str, str, Any]] = [
    # Over all positions: a network's uniform sample where compared beside a table learner.
    (gettext_noop("optimality"), "s-opt", lambda p: p.everywhere),
    (gettext_noop("wins vs random"), "s-random", lambda p: p.matches["random"][0]),
    (
        gettext_noop("wins + draws vs perfect"),
        "s-perfect",
        lambda p: p.matches["perfect"][0] + p.matches["perfect"][1],
    ),
]


#: The same for an n-tuple network's curve, judged along perfect-play games and by its games
#: moving first against perfect play.
JUDGED_SERIES: list[tuple[str, str, Any]] = [
    (gettext_noop("optimality along perfect play"), "s-opt", lambda p: p.optimality),
    (gettext_noop("wins vs perfect, moving first"), "s-random", lambda p: p.record[0]),
    (
        gettext_noop("wins + draws vs perfect, moving first"),
        "s-perfect",
        lambda p: p.record[0] + p.record[1],
    ),
]


#: The line a curve judged from varied openings adds (classic Connect Four's network).
VARIED_SERIES: tuple[str, str, Any] = (
    gettext_noop("optimality from varied openings"),
    "s-varied",
    lambda p: p.varied,
)


#: The line a curve judged over a uniform sample of all positions adds (a network on a board
#: enumerated here).
UNIFORM_SERIES: tuple[str, str, Any] = (
    gettext_noop("optimality over all positions (a sample)"),
    "s-uniform",
    lambda p: p.uniform,
)


#: The line a curve recording the best reply adds (a game enumerated here): the share of the
#: two seats in which no opponent who knows the learner's moves can beat it from the start
#: (0, ½ or 1), drawn as steps: a verdict, not a measure between points.
UNBEATEN_SERIES: tuple[str, str, Any] = (
    gettext_noop("seats unbeaten from the start (of 2)"),
    "s-unbeaten",
    lambda p: sum(p.unbeaten) / 2,
)


def _steps(xs: Sequence[float], ys: Sequence[float]) -> str:
    """Polyline points drawing ``ys`` as steps: each holds until the next point."""
    out: list[str] = []
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if i:
            out.append(f"{x:.1f},{ys[i - 1]:.1f}")
        out.append(f"{x:.1f},{y:.1f}")
    return " ".join(out)


def _curve_label(points: int) -> str:
    return ngettext(
        "learning curve, {count} point", "learning curve, {count} points", points
    ).format(count=points)


@dataclass(frozen=True)
class _LogChart:
    """A chart of shares (0 to 1, up) over episodes (a log axis, across) in a ``w`` × ``h``
    box with margins: where a point goes, and the frame both curve charts draw."""

    w: int
    h: int
    left: int
    right: int
    top: int
    bottom: int
    span: float  # the most episodes the axis reaches

    @property
    def pw(self) -> int:
        return self.w - self.left - self.right

    @property
    def ph(self) -> int:
        return self.h - self.top - self.bottom

    def x(self, episodes: float) -> float:
        return self.left + self.pw * math.log10(max(episodes, 1)) / math.log10(self.span)

    def y(self, share: float) -> float:
        return self.top + self.ph * (1 - share)

    def frame(self, label_gap: int) -> list[str]:
        """A line per quarter, one per decade, and the axis's name ``label_gap`` below."""
        x, y, top, ph = self.x, self.y, self.top, self.ph
        parts = []
        for s in (0, 0.25, 0.5, 0.75, 1):
            parts.append(
                f'<line class="grid" x1="{self.left}" x2="{self.w - self.right}" '
                f'y1="{y(s):.1f}" y2="{y(s):.1f}"/>'
                f'<text class="tick" x="{self.left - 6}" y="{y(s) + 4:.1f}" text-anchor="end">'
                f"{int(s * 100)}%</text>"
            )
        decade = 1
        while decade <= self.span:
            parts.append(
                f'<line class="grid" x1="{x(decade):.1f}" x2="{x(decade):.1f}" y1="{top}" '
                f'y2="{top + ph}"/><text class="tick" x="{x(decade):.1f}" y="{top + ph + 16}" '
                f'text-anchor="middle">{decade:,}</text>'
            )
            decade *= 10
        axis = escape(_("episodes (log scale)"))
        parts.append(
            f'<text class="tick" x="{self.left + self.pw / 2:.1f}" y="{top + ph + label_gap}" '
            f'text-anchor="middle">{axis}</text>'
        )
        return parts


def curve_svg(
    points: Sequence[CurvePoint],
    total: int,
    svg_id: str = "curve",
    *,
    judged: bool = False,
) -> str:
    """A learning curve on one line of SVG (it travels in a server-sent event). Episodes are on
    a log axis, as ``qarena plot`` draws them: most learning happens in the first few percent
    of a run, which a linear axis squeezes against the left edge. ``judged``: an n-tuple
    network's points (:data:`JUDGED_SERIES`, at each count of games)."""
    series = JUDGED_SERIES if judged else SERIES
    if judged and points and all(p.varied is not None for p in points):
        series = [series[0], VARIED_SERIES, *series[1:]]
    if judged and points and all(p.uniform is not None for p in points):
        series = [series[0], UNIFORM_SERIES, *series[1:]]
    if points and all(p.unbeaten is not None for p in points):
        series = [*series, UNBEATEN_SERIES]
    xs = [p.episodes for p in points]
    # The legend's entries side by side, wrapped onto more lines where a language's words are
    # long (widths estimated from the text: the SVG is drawn on the server).
    places: list[tuple[int, int]] = []
    lx, line = 44, 0
    for label, _cls, _share in series:
        width = 22 + int(6.2 * len(_(label))) + 18
        if places and lx + width > 560:
            lx, line = 44, line + 1
        places.append((lx, line))
        lx += width
    extra = 16 * line
    chart = _LogChart(
        560,
        260 + extra,
        44,
        28,
        12,
        56 + extra,
        max(total, xs[-1] if xs else 1, 10),
    )
    w, h, left, top, pw, ph, x, y = (
        chart.w, chart.h, chart.left, chart.top, chart.pw, chart.ph, chart.x, chart.y
    )  # fmt: skip
    parts = [open_svg(svg_id, "curve", w, h, _curve_label(len(points)), False)]
    parts.extend(chart.frame(30))
    for (label, cls, share), (lx, row) in zip(series, places, strict=True):
        if points:
            if cls == UNBEATEN_SERIES[1]:
                d = _steps([x(at) for at in xs], [y(share(p)) for p in points])
            else:
                d = " ".join(
                    f"{x(at):.1f},{y(share(p)):.1f}" for at, p in zip(xs, points, strict=True)
                )
            parts.append(f'<polyline class="{cls}" points="{d}"/>')
        ly = h - 4 - 16 * (line - row)
        parts.append(
            f'<line class="{cls}" x1="{lx}" x2="{lx + 18}" y1="{ly - 4}" y2="{ly - 4}"/>'
            f'<text class="tick" x="{lx + 22}" y="{ly}">{escape(_(label))}</text>'
        )
    if not points:
        empty = escape(_("no points yet"))
        parts.append(
            f'<text class="tick" x="{left + pw / 2:.1f}" y="{top + ph / 2:.1f}" '
            f'text-anchor="middle">{empty}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


# --- several learning curves on one chart ---------------------------------------------------

#: Line colours of the series compared, in turn (told apart by colour-blind people too: the
#: Okabe–Ito palette).
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c8c8c")
#: What a comparison can plot, by name: each of :data:`SERIES`, and whether it is unbeaten
#: from the start (where its curve records it).
METRICS: dict[str, tuple[str, str, Any]] = {
    "optimality": SERIES[0],
    "random": SERIES[1],
    "perfect": SERIES[2],
    "unbeaten": UNBEATEN_SERIES,
}


def _compare_label(metric: str, count: int) -> str:
    return ngettext(
        "{metric} of {count} policy against episodes",
        "{metric} of {count} policies against episodes",
        count,
    ).format(metric=_(metric), count=count)


def curves_svg(
    series: list[tuple[str, str, list[CurvePoint]]], metric: str, svg_id: str = "compare-chart"
) -> str:
    """Several learning curves on one chart: one ``metric`` (a key of :data:`METRICS`) of each
    ``(key, label, points)`` series, in the colours of :data:`PALETTE` in turn (the page
    gives the legend; each line's tooltip names it); episodes on a log axis, as in
    :func:`curve_svg`. It fills the width it is given (a viewBox and no fixed size)."""
    name, cls, share = METRICS[metric]
    span = max([10, *(p.episodes for _key, _label, points in series for p in points)])
    chart = _LogChart(520, 280, 44, 16, 10, 40, span)
    w, h, x, y = chart.w, chart.h, chart.x, chart.y
    parts = [
        f'<svg id="{svg_id}" class="curve compare" viewBox="0 0 {w} {h}" role="img" '
        f'aria-label="{escape(_compare_label(name, len(series)))}">'
    ]
    parts.extend(chart.frame(34))
    for i, (key, label, points) in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        if cls == UNBEATEN_SERIES[1]:
            d = _steps([x(p.episodes) for p in points], [y(share(p)) for p in points])
        else:
            d = " ".join(f"{x(p.episodes):.1f},{y(share(p)):.1f}" for p in points)
        parts.append(
            f'<polyline class="series" data-series="{escape(key)}" stroke="{colour}" '
            f'points="{d}"><title>{escape(label)}</title></polyline>'
        )
        if points:  # its end, which a curve of one point needs to be seen at all
            end = points[-1]
            parts.append(
                f'<circle class="end" fill="{colour}" cx="{x(end.episodes):.1f}" '
                f'cy="{y(share(end)):.1f}" r="3.5"/>'
            )
    parts.append("</svg>")
    return "".join(parts)
