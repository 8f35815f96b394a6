"""How qarena's objects look in a notebook: boards drawn as the web app draws them (with the
agent's or the solver's value of each move), learning curves as inline charts.

Objects of the lower layers (games, solutions, learners, curves) cannot draw themselves
without importing the drawing; :func:`register` teaches IPython to draw them instead. It runs
when the top-level API is first used (``import qarena``; ``qarena.game(...)``), and only inside
IPython. Every picture carries its own style, scoped to it, so it looks the same in Jupyter,
VS Code and the rendered docs.
"""

from __future__ import annotations

import html
import secrets
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from qarena.agents.greedy import GreedyAgent
from qarena.exact.solver import Solution
from qarena.games import Game, Move, Position, value_word
from qarena.i18n import _, ngettext
from qarena.learn.curve import Curve, CurvePoint
from qarena.learn.tables.base import Learner
from qarena.show.curve_svg import PALETTE, curve_svg, curves_svg
from qarena.show.svg import inspect_svg, position_svg
from qarena.show.text import draw

#: The drawing's look (the web app's stylesheet, its colours written out), for pictures shown
#: outside the web app. Each rule is scoped to one picture's box.
_RULES = (
    "svg text { font: 14px system-ui, sans-serif; fill: #5b6574; }",
    "svg.board rect { fill: #fff; stroke: #1d2430; stroke-width: 2; }",
    "svg.board .ring { fill: none; stroke: #b4541c; stroke-width: 3; }",
    "svg.board .mark-x { stroke: #1f6fb2; stroke-width: 6; stroke-linecap: round; fill: none; }",
    "svg.board .mark-o { stroke: #a63d8c; stroke-width: 6; fill: none; }",
    "svg.heaps .hit { fill: transparent; }",
    "svg.heaps .stick { fill: #e0b15a; stroke: #8a6320; }",
    "svg.heaps .head { fill: #c0392b; }",
    "svg.heaps .match.far .stick { fill: #f3e6c8; stroke: #c9b48a; }",
    "svg.heaps .match.far .head { fill: #e2a49d; }",
    "svg.inspect .note { font-size: 13px; fill: #1d2430; }",
    "svg.curve .grid { stroke: #d5dae1; }",
    "svg.curve polyline, svg.curve line { fill: none; stroke-width: 2.5; }",
    "svg.curve .s-opt { stroke: #b4541c; }",
    "svg.curve .s-random { stroke: #1f6fb2; }",
    "svg.curve .s-perfect { stroke: #2c7a3f; }",
    "svg.curve .s-varied, svg.curve .s-uniform { stroke: #a63d8c; stroke-dasharray: 6 3; }",
    "svg.curve .s-unbeaten { stroke: #555; stroke-dasharray: 2 3; }",
    "svg.compare polyline.series { fill: none; stroke-width: 2.5; stroke-linejoin: round; }",
    "svg.curve .tick { font-size: 11px; }",
    "table.qarena td, table.qarena th { text-align: left; padding: 0 1em 0 0; }",
)


def _boxed(body: Callable[[str], str]) -> str:
    """``body(id)`` in a box of its own id, with the drawing's style scoped to that box."""
    key = "qarena-" + secrets.token_hex(4)
    style = " ".join(f"#{key} {rule}" for rule in _RULES)
    return f'<div id="{key}"><style>{style}</style>{body(key)}</div>'


def _table(rows: list[tuple[str, str]], head: tuple[str, str]) -> str:
    cells = "".join(f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td></tr>" for a, b in rows)
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return f'<table class="qarena"><tr>{th}</tr>{cells}</table>'


@dataclass(frozen=True)
class Board:
    """A position of a game, drawn; with ``values``, each legal move's value written on the
    board (on a grid) and beside it, as ``value_text`` writes it."""

    game: Game
    position: Position
    values: Mapping[Move, float] | None = None
    value_text: Callable[[float], str] | None = None  # None: a signed number
    heading: str = ""
    before: Position | None = None  # the position before the last move, which is marked

    def __repr__(self) -> str:
        return f"Board({self.game.spec}: {self.game.format_position(self.position)})"

    def __str__(self) -> str:
        """The position drawn as text, as ``qarena play`` draws it in a terminal (a lettered
        grid, rows of matchsticks); with values, each move's value in the cell it fills on a
        grid, else listed below the drawing."""
        write = self.value_text or (lambda v: f"{v:+.3f}")
        values = self.values or {}
        by_move = {m: write(v) for m, v in values.items()}
        lines = [self.heading] if self.heading else []
        lines.append(draw(self.game, self.position, by_move).plain)
        if values and self.game.layout != "grid":  # no cells to write them in
            rows = [(_("move"), _("value"))]
            rows += [(self.game.format_move(m), text) for m, text in by_move.items()]
            width = max(len(move) for move, _text in rows)
            lines += [f"{move:<{width}}  {text}" for move, text in rows]
        return "\n".join(line.rstrip() for text in lines for line in text.splitlines())

    def notes(self) -> dict[str, str]:
        """Each legal move's value as text, by the move's text."""
        write = self.value_text or (lambda v: f"{v:+.3f}")
        return {self.game.format_move(m): write(v) for m, v in (self.values or {}).items()}

    def svg(self, svg_id: str = "position") -> str:
        if self.values is None:
            return position_svg(self.game, self.position, None, svg_id, self.before)
        notes = self.notes()
        links: dict[str, str | None] = dict.fromkeys(notes)  # moves to note, not to follow
        return inspect_svg(self.game, self.position, links, notes, svg_id)

    def _repr_html_(self) -> str:
        def body(key: str) -> str:
            parts = []
            if self.heading:
                parts.append(f"<p>{html.escape(self.heading)}</p>")
            # The board, and beside it (below it on a narrow screen) each move's value.
            parts.append(
                '<div style="display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start">'
            )
            parts.append(f"<div>{self.svg(key + '-board')}</div>")
            if self.values is not None:
                parts.append(_table(list(self.notes().items()), (_("move"), _("value"))))
            parts.append("</div>")
            return "".join(parts)

        return _boxed(body)


def game_html(game: Game) -> str:
    """A game: its title and spec, and its start drawn."""
    heading = f"{game.title} ({game.spec})"
    return Board(game, game.start(), heading=heading)._repr_html_()


def solution_html(solution: Solution) -> str:
    """A solution: what it says of the start, and each opening move's value."""
    game = solution.game
    start = game.start()
    values = {m: float(v) for m, v in solution.move_values(start).items()}
    board = Board(game, start, values, lambda v: value_word(int(v)), repr(solution))
    return board._repr_html_()


def learner_html(learner: Learner) -> str:
    """A learner: its settings, and its value of each opening move on the board."""
    agent = GreedyAgent(learner)
    start = learner.game.start()
    board = Board(learner.game, start, agent.move_values(start), learner.format_value)
    return learner._repr_html_() + board._repr_html_()


def agent_html(agent: GreedyAgent) -> str:
    return learner_html(agent.learner)


def curve_html(curve: Curve) -> str:
    """A learning curve as the web app draws it: optimality and wins on a log axis (a
    network's as judged along perfect play)."""
    total = curve.points[-1].episodes if curve.points else 1
    return _boxed(lambda key: curve_svg(curve.points, total, key + "-curve", judged=curve.judged))


def curves_html(series: Sequence[tuple[str, Sequence[CurvePoint]]]) -> str:
    """Several learning curves' optimality over all positions on one chart, as the web's
    Compare page draws them, each ``(label, points)`` named in a legend below."""
    keyed = [(f"s{i}", label, list(points)) for i, (label, points) in enumerate(series)]

    def body(key: str) -> str:
        chart = curves_svg(keyed, "optimality", key + "-curves")
        items = "".join(
            f'<li><span style="display: inline-block; width: 1.6em; height: 4px; '
            f"background: {PALETTE[i % len(PALETTE)]}; vertical-align: middle; "
            f'margin-right: .5em"></span>{html.escape(label)}</li>'
            for i, (_key, label, _points) in enumerate(keyed)
        )
        font = "font: 14px system-ui, sans-serif; color: #1d2430"
        heading = html.escape(
            _("Optimality over all decision positions (a network's: a uniform sample of them)")
        )
        return (
            f'<p style="{font}; margin: 0 0 .3em">{heading}</p>{chart}'
            f'<ul style="list-style: none; padding: 0; {font}">{items}</ul>'
        )

    return _boxed(body)


def _counted(unit: str, done: int, total: int) -> str:
    if unit == "runs":
        text = ngettext("{done:,} of {total:,} run", "{done:,} of {total:,} runs", total)
    else:
        text = ngettext("{done:,} of {total:,} episode", "{done:,} of {total:,} episodes", total)
    return text.format(done=done, total=total)


@dataclass(frozen=True)
class ProgressLine:
    """How far a run has come, in one line: what a notebook shows where a terminal shows a
    live bar. It is one output, updated in place, so a notebook saved or rendered statically
    keeps the last line (a live widget would leave an empty output there)."""

    description: str
    done: int
    total: int
    seconds: float
    unit: str = "episodes"  # or "runs"

    def __repr__(self) -> str:
        counted = _counted(self.unit, self.done, self.total)
        return _("{what}: {counted} in {seconds:.1f} s").format(
            what=self.description, counted=counted, seconds=self.seconds
        )

    def _repr_html_(self) -> str:
        most = max(self.total, 1)
        return (
            f'<div><progress value="{min(self.done, most)}" max="{most}"></progress> '
            f"{html.escape(repr(self))}</div>"
        )


class Bar(Protocol):
    def update(self, completed: int, total: int | None = None) -> None: ...


class _NotebookBar:
    """A :class:`ProgressLine` displayed once and updated in place (at most every 0.2 s while
    running: each update is a message to the notebook)."""

    def __init__(self, description: str, total: int, unit: str, completed: int) -> None:
        from IPython.display import display  # in a notebook, IPython is there

        self.description, self.total, self.unit, self.done = description, total, unit, completed
        self.start = self.shown = time.monotonic()
        self.handle = display(self.line(), display_id=True)  # type: ignore[no-untyped-call]

    def line(self) -> ProgressLine:
        seconds = time.monotonic() - self.start
        return ProgressLine(self.description, self.done, self.total, seconds, self.unit)

    def update(self, completed: int, total: int | None = None, *, final: bool = False) -> None:
        self.done, self.total = completed, self.total if total is None else total
        now = time.monotonic()
        if final or now - self.shown >= 0.2:
            self.shown = now
            if self.handle is not None:
                self.handle.update(self.line())


class _TerminalBar:
    def __init__(self, bar: Any, task: Any) -> None:
        self.bar, self.task = bar, task

    def update(self, completed: int, total: int | None = None) -> None:
        self.bar.update(self.task, completed=completed, total=total)


@contextmanager
def progress(
    description: str, total: int, unit: str = "episodes", completed: int = 0
) -> Iterator[Bar]:
    """A progress display for ``qarena.train(progress=True)`` and ``qarena.sweep``: in a
    notebook one line of text updated in place (:class:`ProgressLine`), elsewhere the
    terminal's live bar. ``unit`` is what is counted: ``"episodes"`` or ``"runs"``."""
    from rich.console import Console

    if Console().is_jupyter:
        line = _NotebookBar(description, total, unit, completed)
        try:
            yield line
        finally:
            line.update(line.done, final=True)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as RichProgress

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with RichProgress(*columns, TimeElapsedColumn(), transient=False) as bar:
        yield _TerminalBar(bar, bar.add_task(description, total=total, completed=completed))


#: What :func:`register` teaches IPython to draw, by type.
PRINTERS: dict[type, Callable[[Any], str]] = {
    Game: game_html,
    Solution: solution_html,
    Learner: learner_html,
    GreedyAgent: agent_html,
    Curve: curve_html,
}


def register() -> bool:
    """Draw games, solutions, learners, agents and curves in IPython's HTML output, when
    running inside IPython. Returns whether it did."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return False
    shell = ipython_module.get_ipython()
    if shell is None:
        return False
    formatter = shell.display_formatter.formatters["text/html"]
    for cls, printer in PRINTERS.items():
        formatter.for_type(cls, printer)
    return True


__all__ = [
    "PRINTERS",
    "Board",
    "ProgressLine",
    "agent_html",
    "curve_html",
    "curves_html",
    "game_html",
    "progress",
    "register",
]
