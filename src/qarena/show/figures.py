"""Learning curves drawn with matplotlib: one run, or several overlaid to compare them.

The figure is built on a bare ``Figure`` with the Agg canvas (no pyplot, so no global figure
state and no GUI backend), and encoded to bytes here; the caller writes them. Output is
deterministic: the same runs give the same bytes, so plots can be compared and tested.
matplotlib is imported inside the functions, so commands that never plot start without it.
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qarena.errors import QarenaError
from qarena.i18n import _, gettext_noop, ngettext
from qarena.learn.curve import Curve, CurvePoint
from qarena.learn.family import Trainable

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import LineStyleType

#: The formats ``render_curves`` writes, by file suffix.
FORMATS = ("png", "svg")
#: PNG resolution, and the size of a one-run figure in pixels: legible on a laptop screen.
DPI = 150
PIXELS = (1200, 750)
#: Overlaid runs: extra height per legend row beyond the first (a row per run on the left, per
#: line style on the right), so the legends under the axes do not squeeze them.
ROW_PIXELS = 30
#: Runs with fewer points than this get markers; denser ones read better as bare lines.
MARKER_POINTS = 30

#: Hyperparameters named in a title even at their defaults: they are what people compare.
ALWAYS_SHOWN = ("alpha", "gamma", "epsilon")


@dataclass(frozen=True)
class Metric:
    """One line per run: its id (for the SVG ``gid``), legend text (marked with
    ``gettext_noop``, translated where drawn), style and values."""

    key: str
    label: str
    style: LineStyleType
    value: Callable[[CurvePoint], float]
    #: Drawn as steps: a verdict at each point, not a measure between them.
    steps: bool = False


METRICS = (
    # Over all decision positions: exact for a table learner, a uniform sample's share for a
    # network (so that both can be drawn on one chart).
    Metric("optimality", gettext_noop("optimality"), "-", lambda p: p.everywhere),
    Metric(
        "random-win", gettext_noop("win share vs random"), "--", lambda p: p.matches["random"][0]
    ),
    Metric(
        "perfect-win",
        gettext_noop("win share vs perfect"),
        ":",
        lambda p: p.matches["perfect"][0],
    ),
    # Against a perfect player a correct tic-tac-toe agent can only draw, so win share alone
    # stays at 0; win + draw shows it learning not to lose.
    Metric(
        "perfect-not-lost",
        gettext_noop("win or draw vs perfect"),
        "-.",
        lambda p: p.matches["perfect"][0] + p.matches["perfect"][1],
    ),
    # Whether any opponent who knows its moves can beat it from the start, in each seat: the
    # share of the two seats where none can (0, 1/2 or 1), where the curve records it.
    Metric(
        "unbeaten",
        gettext_noop("seats unbeaten from the start (of 2)"),
        (0, (4, 1, 1, 1)),
        lambda p: sum(p.unbeaten) / 2 if p.unbeaten is not None else 0.0,
        steps=True,
    ),
)


@dataclass(frozen=True)
class PlotRun:
    """A run to draw: ``name`` (the file's stem) tells overlaid runs apart."""

    name: str
    learner: Trainable

    @property
    def curve(self) -> Curve:
        curve = self.learner.curve
        if curve is None or not curve.points:
            raise QarenaError(
                _("{name} has no learning curve; train it with --curve").format(name=self.name)
            )
        return curve


def check_beside(name: str, learner: Trainable) -> None:
    """Refuse, in one line, to draw ``learner``'s curve beside others where it holds no
    optimality over all positions (a network's judged along perfect play only)."""
    if learner.curve is not None and not learner.curve.everywhere:
        raise QarenaError(
            _(
                "{file} is judged along perfect-play games only (its board is solved by search "
                "here, or it was trained before curves judged all positions): its curve is "
                "drawn alone"
            ).format(file=name)
        )


@dataclass(frozen=True)
class Texts:
    """What a figure says: two title lines and each run's legend label."""

    title: str
    subtitle: str
    labels: list[str]


def metrics_of(curve: Curve) -> list[Metric]:
    """The lines a curve gets: "not lost" only when draws against perfect occur at all; a
    network's curve (judged along play, with its uniform sample of all positions) only its
    optimality, the one measure both kinds of curve share; the seats where it is unbeaten
    from the start where the curve records them."""
    shown = {"optimality", "unbeaten"} if curve.judged else {m.key for m in METRICS}
    if not curve.judged and not any(p.matches["perfect"][1] > 0 for p in curve.points):
        shown.discard("perfect-not-lost")
    if not curve.unbeaten:
        shown.discard("unbeaten")
    return [m for m in METRICS if m.key in shown]


def _num(x: object) -> str:
    # repr of a float is its shortest exact form: 0.9, not 0.9000000000000001; 1.0 stays 1.0.
    return repr(float(x)) if isinstance(x, int | float) else str(x)


def _hyper_items(h: dict[str, Any]) -> dict[str, str]:
    """Hyperparameter values as short texts, keyed by the first field each covers."""
    items: dict[str, str] = {}
    if "alpha" in h:
        items["alpha"] = f"α={_num(h['alpha'])}"
    if "gamma" in h:
        items["gamma"] = f"γ={_num(h['gamma'])}"
    if "epsilon" in h:
        schedule = h.get("schedule", "constant")
        if schedule == "constant" or "epsilon_end" not in h:
            items["epsilon"] = f"ε={_num(h['epsilon'])} {schedule}"
        else:
            items["epsilon"] = f"ε={_num(h['epsilon'])}→{_num(h['epsilon_end'])} {schedule}"
    if "rewards" in h:
        items["rewards"] = _("rewards {values}").format(
            values=",".join(f"{float(r):g}" for r in h["rewards"])
        )
    if "initial" in h:
        items["initial"] = _("initial {value}").format(value=_num(h["initial"]))
    if "canonical" in h:
        items["canonical"] = _("one per symmetry") if h["canonical"] else _("all positions")
    if "seed" in h:
        items["seed"] = _("seed {seed}").format(seed=h["seed"])
    return items


def _items(learner: Trainable) -> dict[str, str]:
    return _hyper_items(learner.hyperparameter_values())


def _shown(learner: Trainable, items: dict[str, str]) -> list[str]:
    """The items worth a title: the learning rates always, the rest when not the default."""
    cls = type(learner)
    default = cls.default_config(learner.game).to_dict()
    defaults = _hyper_items({k: default[k] for k in cls.hyperparameters})
    return [t for k, t in items.items() if k in ALWAYS_SHOWN or defaults.get(k) != t]


def describe(runs: Sequence[PlotRun]) -> Texts:
    """Title lines and legend labels. One run: its game, learner and hyperparameters. Several:
    what they share goes in the title; each label names the file, learner and what differs."""
    if not runs:
        raise ValueError("no runs to describe")
    first = runs[0].learner
    if len(runs) == 1:
        game = first.game
        title = _("{learner} on {game}  {spec}").format(
            learner=first.title, game=game.title, spec=game.spec
        )
        subtitle = _line(_shown(first, _items(first)), _episodes(first.episodes))
        return Texts(title, subtitle, [runs[0].name])

    learners = [r.learner for r in runs]
    same_game = len({le.game.spec for le in learners}) == 1
    same_kind = len({le.kind for le in learners}) == 1
    same_episodes = len({le.episodes for le in learners}) == 1
    items = [_items(le) for le in learners]
    keys = list(dict.fromkeys(k for it in items for k in it))
    differ = {k for k in keys if len({it.get(k) for it in items}) > 1}

    game_text = f"{first.game.title}  {first.game.spec}" if same_game else _("several games")
    title = (
        _("{learner} on {game}").format(learner=first.title, game=game_text)
        if same_kind
        else game_text
    )
    common = {k: t for k, t in items[0].items() if k not in differ}
    # Defaults differ between learners, so mixed kinds share only the learning rates' line.
    sub = (
        _shown(first, common) if same_kind else [t for k, t in common.items() if k in ALWAYS_SHOWN]
    )
    episodes = _("{count:,} episodes each").format(count=first.episodes) if same_episodes else ""
    labels = []
    for run, it in zip(runs, items, strict=True):
        le = run.learner
        parts = [le.title, *(t for k, t in it.items() if k in differ)]
        if not same_game:
            parts.append(le.game.spec)
        if not same_episodes:
            parts.append(_episodes(le.episodes))
        labels.append(f"{run.name}: {', '.join(parts)}")
    return Texts(title, _line(sub, episodes), labels)


def _episodes(count: int) -> str:
    """``2,000 episodes`` (English says "episodes" even for one)."""
    return ngettext("{count:,} episodes", "{count:,} episodes", count).format(count=count)


def _line(items: list[str], episodes: str) -> str:
    """``α=1.0 γ=0.9 ε=1.0→0.1 linear, 2,000 episodes``, either part possibly empty."""
    return ", ".join(part for part in (" ".join(items), episodes) if part)


def figure_pixels(runs: int) -> tuple[int, int]:
    """Width and height of the PNG: taller with more runs, whose legend sits under the axes."""
    rows = 0 if runs == 1 else max(runs, len(METRICS)) - 1
    return PIXELS[0], PIXELS[1] + ROW_PIXELS * rows


def and_list(items: Sequence[str]) -> str:
    """``png and svg``, ``a, b and c``: items joined as a list in the current language."""
    if len(items) < 2:
        return "".join(items)
    return _("{items} and {last}").format(items=", ".join(items[:-1]), last=items[-1])


def or_list(items: Sequence[str]) -> str:
    """``.png or .svg``: alternatives joined in the current language."""
    if len(items) < 2:
        return "".join(items)
    return _("{items} or {last}").format(items=", ".join(items[:-1]), last=items[-1])


def plain(text: str) -> str:
    """Text as matplotlib shows it verbatim: "$" starts mathtext there, and a file name
    holding two would be typeset or fail."""
    return text.replace("$", r"\$")


def _format_episodes(x: float, _pos: int | None = None) -> str:
    return f"{x:,.0f}"


def _minor_labels(span: float) -> set[int]:
    """Which minor ticks of the log axis get numbers: with a decade or two of episodes the
    powers of ten alone would leave one or two labels."""
    if span < 30:
        return {2, 3, 5}
    if span < 300:
        return {2, 5}
    return set()


def _mantissa(x: float) -> int:
    """The leading digit of a tick at a multiple of a power of ten (300 → 3)."""
    if x <= 0:
        return 0
    return round(x / 10.0 ** math.floor(math.log10(x) + 1e-9))


def _draw_run(
    ax: Axes, run: PlotRun, index: int, colours: Callable[[int, int], str]
) -> list[Metric]:
    curve = run.curve
    x = [p.episodes for p in curve.points]
    marker = "o" if len(curve.points) < MARKER_POINTS else ""
    metrics = metrics_of(curve)
    for j, metric in enumerate(metrics):
        (line,) = ax.plot(
            x,
            [metric.value(p) for p in curve.points],
            linestyle=metric.style,
            drawstyle="steps-post" if metric.steps else "default",
            color=colours(index, j),
            marker=marker,
            markersize=3.5,
            linewidth=1.6,
        )
        # A stable id in the SVG, so tools (and the tests) can find each line.
        line.set_gid(f"{metric.key}-{index}")
    return metrics


@contextlib.contextmanager
def reproducible() -> Iterator[None]:
    """matplotlib's default style, not the user's matplotlibrc, with settings that make the
    same figure give the same bytes: draw inside this."""
    import matplotlib as mpl
    import matplotlib.style

    with (
        matplotlib.style.context("default"),
        mpl.rc_context(
            {
                # No path simplification: every recorded point is a vertex, flat runs too.
                "path.simplify": False,
                # Fixed ids in the SVG (clip paths, markers), not random ones per call.
                "svg.hashsalt": "qarena",
            }
        ),
    ):
        yield


def new_figure(width: int, height: int) -> Figure:
    """A bare figure of ``width`` × ``height`` pixels (at :data:`DPI`) on the Agg canvas:
    never a GUI backend, no pyplot state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def encode(fig: Figure, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes, with no date or version in them."""
    if fmt not in FORMATS:
        raise QarenaError(
            _("cannot draw {fmt!r}; the formats are {formats}").format(
                fmt=fmt, formats=and_list(FORMATS)
            )
        )
    buffer = io.BytesIO()
    metadata: dict[str, str | None] = (
        {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
    )
    fig.savefig(buffer, format=fmt, metadata=metadata)
    return buffer.getvalue()


def render_curves(runs: Sequence[PlotRun], fmt: str) -> bytes:
    """The learning curves of ``runs`` as PNG or SVG bytes: x episodes (log scale), y shares."""
    if fmt not in FORMATS:
        raise QarenaError(
            _("cannot draw {fmt!r}; the formats are {formats}").format(
                fmt=fmt, formats=and_list(FORMATS)
            )
        )
    if not runs:
        raise QarenaError(_("no runs to plot"))
    curves = [run.curve for run in runs]  # refuses a run without one before any drawing
    texts = describe(runs)

    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter

    single = len(runs) == 1

    def colours(run: int, metric: int) -> str:
        # One run: a colour per metric. Several: a colour per run, a line style per metric.
        return f"C{metric if single else run % 10}"

    with reproducible():
        fig = new_figure(*figure_pixels(len(runs)))
        ax = fig.add_subplot()
        drawn = [_draw_run(ax, run, i, colours) for i, run in enumerate(runs)]
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(_format_episodes))
        lo = min(c.points[0].episodes for c in curves)
        hi = max(c.points[-1].episodes for c in curves)
        mantissas = _minor_labels(hi / lo)
        ax.xaxis.set_minor_formatter(
            FuncFormatter(lambda x, pos: _format_episodes(x) if _mantissa(x) in mantissas else "")
        )
        # A little room beyond [0, 1], so lines at exactly 0 or 1 are not hidden by the frame.
        ax.set_ylim(-0.02, 1.02)
        ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_xlabel(_("episodes (log scale)"))
        ax.set_ylabel(_("share"))
        ax.grid(True, which="major", alpha=0.5)
        ax.grid(True, which="minor", axis="x", alpha=0.15)
        fig.suptitle(plain(texts.title), fontsize=12)
        ax.set_title(plain(texts.subtitle), fontsize=10, color="0.3")

        # Legends below the axes, from proxies with explicit labels, so a file name starting
        # with "_" is still shown and each entry appears once. Several runs: their colours
        # below, the line styles to the right (side by side below, long labels of runs ran
        # into them).
        keys = {m.key for ms in drawn for m in ms}
        shown = [m for m in METRICS if m.key in keys]
        style_handles = [
            Line2D([], [], linestyle=m.style, color=colours(0, j) if single else "0.25")
            for j, m in enumerate(shown)
        ]
        legend = {"fontsize": 9, "handlelength": 2.6, "columnspacing": 1.4}
        style_labels = [_(m.label) for m in shown]
        if single:
            ncols = 4 if len(shown) <= 4 else 3  # five entries in four columns ran off the edge
            fig.legend(
                style_handles, style_labels, loc="outside lower center", ncols=ncols, **legend
            )
        else:
            run_handles = [Line2D([], [], color=colours(i, 0)) for i in range(len(runs))]
            labels = [plain(t) for t in texts.labels]
            fig.legend(run_handles, labels, loc="outside lower center", **legend)
            fig.legend(style_handles, style_labels, loc="outside right upper", **legend)

        return encode(fig, fmt)


def render_judged_curve(name: str, learner: Trainable, fmt: str) -> bytes:
    """The learning curve of a learner judged along perfect play (an n-tuple network's) as
    PNG or SVG bytes: its optimality along perfect-play games and its wins moving first
    against perfect play, against what it learned from (left: its games of self-play, or
    episodes) and the minutes of training (right)."""
    if fmt not in FORMATS:
        raise QarenaError(
            _("cannot draw {fmt!r}; the formats are {formats}").format(
                fmt=fmt, formats=and_list(FORMATS)
            )
        )
    curve = learner.curve
    if curve is None or not curve.points:
        raise QarenaError(
            _("{name} has no learning curve; train it with --curve").format(name=name)
        )
    points = curve.points
    game = learner.game
    learned = _("games of self-play") if learner.unit == "games" else _("episodes")
    lines: list[tuple[str, str, list[float]]] = [
        ("optimality", _("optimality, along perfect play"), [p.optimality for p in points]),
        ("wins", _("won, first against perfect"), [p.record[0] for p in points]),
        ("losses", _("lost, first against perfect"), [p.record[2] for p in points]),
    ]
    if all(p.varied is not None for p in points):
        off_line = [p.varied or 0.0 for p in points]
        lines.insert(1, ("varied", _("optimality, from varied openings"), off_line))
    if all(p.uniform is not None for p in points):
        everywhere = [p.everywhere for p in points]
        lines.insert(1, ("uniform", _("optimality, all positions (a sample)"), everywhere))
    if curve.unbeaten:
        seats = [sum(p.unbeaten or (False, False)) / 2 for p in points]
        lines.append(("unbeaten", _("seats unbeaten from the start (of 2)"), seats))
    marker = "o" if len(points) < MARKER_POINTS else ""
    # Points from the first thousand games to millions (the early ones): a log axis.
    wide = points[-1].games >= 50 * points[0].games
    from matplotlib.ticker import FuncFormatter

    with reproducible():
        fig = new_figure(*figure_pixels(1))
        left = fig.add_subplot(1, 2, 1)
        right = fig.add_subplot(1, 2, 2, sharey=left)
        for ax, xs, label in (
            (left, [p.games for p in points], learned),
            (right, [(p.seconds or 0.0) / 60 for p in points], _("minutes of training")),
        ):
            for j, (key, text, ys) in enumerate(lines):
                (line,) = ax.plot(
                    xs,
                    ys,
                    marker=marker,
                    markersize=3,
                    color=f"C{j}",
                    label=text,
                    drawstyle="steps-post" if key == "unbeaten" else "default",
                )
                line.set_gid(f"{key}-{'games' if ax is left else 'minutes'}")
            ax.grid(True, alpha=0.5)
            if wide:
                ax.set_xscale("log")
                ax.set_xlabel(_("{what} (log scale)").format(what=label))
            else:
                ax.set_xlim(left=0)
                ax.set_xlabel(label)
        left.xaxis.set_major_formatter(
            FuncFormatter(lambda x, _pos: _format_episodes(x) if x else "0")
        )
        left.set_ylim(-0.02, 1.02)
        left.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
        left.set_ylabel(_("share"))
        fig.suptitle(
            _("{learner} on {game}  {spec}").format(
                learner=learner.title, game=game.title, spec=game.spec
            ),
            fontsize=12,
        )
        # What the learner says of itself (a network: its tuples), then the curve's judging.
        judged = _("{games} games judged per point").format(games=curve.games)
        left.set_title(
            "; ".join([*(text for _label, text in learner.summary()), judged]),
            fontsize=10,
            color="0.3",
            loc="left",  # longer than one panel: centred, it ran off the figure's left edge
        )
        handles, labels = left.get_legend_handles_labels()
        # Four lines (with the varied openings') take two rows: one would not fit the width.
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=3 if len(lines) < 4 else 2,
            fontsize=9,
        )
        return encode(fig, fmt)
