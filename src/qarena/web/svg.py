"""Positions and learning curves as SVG, drawn on the server. Every string here is escaped.

Boards: one ``<g class="cell" data-move="b2">`` per cell. Heaps: one ``<g class="match"
data-move="3:4">`` per match, where clicking a match takes it and every match to its right.
Curves: optimality and win shares against episodes.
"""

from __future__ import annotations

import json
import math
import string
from html import escape
from typing import Any

from qarena.games import ConnectFour, Game, HeapGame, Position, Subtraction, TicTacToe
from qarena.learn.curve import CurvePoint

_CELL = 64
_MATCH_W = 18
_ROW_H = 64


def _attrs(extra: dict[str, str] | None, move: str) -> str:
    """``extra`` on a clickable element, and htmx's ``hx-vals`` carrying its move."""
    if extra is None:
        return ""
    vals = json.dumps({"move": move})
    return "".join(f' {k}="{escape(v)}"' for k, v in {**extra, "hx-vals": vals}.items())


def position_svg(
    game: Game,
    position: Position,
    clickable: dict[str, str] | None = None,
    svg_id: str = "position",
) -> str:
    """The position as an ``<svg id="position">``. ``clickable`` holds attributes every
    clickable element gets besides ``data-move`` (e.g. htmx's), or None for a still picture."""
    if isinstance(game, TicTacToe):
        return _board(game, position, clickable, svg_id)
    if isinstance(game, HeapGame):
        return _heaps(game, position, clickable, svg_id)
    text = escape(game.format_position(position))
    return f'<svg id="{svg_id}" viewBox="0 0 300 40"><text x="4" y="24">{text}</text></svg>'


def _board(
    game: TicTacToe, position: Position, clickable: dict[str, str] | None, svg_id: str
) -> str:
    pad = 24
    w, h = pad + game.cols * _CELL + 4, pad + game.rows * _CELL + 4
    parts = [
        f'<svg id="{svg_id}" class="board" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'role="img" aria-label="{escape(game.format_position(position))}">'
    ]
    for c in range(game.cols):
        x = pad + c * _CELL + _CELL // 2
        parts.append(f'<text class="label" x="{x}" y="16">{string.ascii_lowercase[c]}</text>')
    for r in range(game.rows):
        y = pad + r * _CELL + _CELL // 2 + 5
        parts.append(f'<text class="label" x="10" y="{y}">{r + 1}</text>')
    over = game.is_terminal(position)
    for cell, mark in enumerate(position):
        r, c = divmod(cell, game.cols)
        x, y = pad + c * _CELL, pad + r * _CELL
        # Connect Four: a click anywhere in a column drops a piece there.
        move = game.format_move(c if isinstance(game, ConnectFour) else cell)
        state = "x" if mark == 1 else "o" if mark == 2 else "empty"
        attrs = _attrs(clickable, move)
        cls = f"cell {state}" + (" live" if clickable is not None and not mark and not over else "")
        parts.append(f'<g class="{cls}" data-move="{escape(move)}"{attrs}>')
        parts.append(f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}"/>')
        m = 14
        if mark == 1:
            parts.append(
                f'<path class="mark-x" d="M{x + m},{y + m}L{x + _CELL - m},{y + _CELL - m}'
                f'M{x + _CELL - m},{y + m}L{x + m},{y + _CELL - m}"/>'
            )
        elif mark == 2:
            parts.append(
                f'<circle class="mark-o" cx="{x + _CELL / 2}" cy="{y + _CELL / 2}" '
                f'r="{_CELL / 2 - m}"/>'
            )
        parts.append(f"<title>{escape(move)}</title></g>")
    parts.append("</svg>")
    return "".join(parts)


def _heaps(
    game: HeapGame, position: Position, clickable: dict[str, str] | None, svg_id: str
) -> str:
    label_w = 90
    most = max(game.piles)
    w = label_w + most * _MATCH_W + 10
    h = len(position) * _ROW_H + 8
    parts = [
        f'<svg id="{svg_id}" class="heaps" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'role="img" aria-label="{escape(game.format_position(position))}">'
    ]
    one = isinstance(game, Subtraction)
    for p, n in enumerate(position):
        y = 8 + p * _ROW_H
        label = f"Heap ({n})" if one else f"Pile {p + 1} ({n})"
        parts.append(f'<text class="label" x="4" y="{y + 34}">{escape(label)}</text>')
        parts.append(f'<g class="pile" data-pile="{p + 1}">')
        for i in range(n):
            take = n - i
            move = str(take) if one else f"{p + 1}:{take}"
            x = label_w + i * _MATCH_W
            ok = game.max_take is None or take <= game.max_take
            attrs = _attrs(clickable, move)
            cls = "match" + (" takeable" if ok else "") + (" live" if clickable is not None else "")
            parts.append(
                f'<g class="{cls}" data-move="{escape(move)}"{attrs}>'
                f'<rect class="hit" x="{x}" y="{y}" width="{_MATCH_W}" height="{_ROW_H - 8}"/>'
                f'<rect class="stick" x="{x + 6}" y="{y + 14}" width="6" height="40" rx="2"/>'
                f'<circle class="head" cx="{x + 9}" cy="{y + 12}" r="5"/>'
                f"<title>take {take}</title></g>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


# --- learning curves ------------------------------------------------------------------------

#: (label, css class, share of a point)
SERIES: list[tuple[str, str, Any]] = [
    ("optimality", "s-opt", lambda p: p.optimality),
    ("wins vs random", "s-random", lambda p: p.matches["random"][0]),
    (
        "wins + draws vs perfect",
        "s-perfect",
        lambda p: p.matches["perfect"][0] + p.matches["perfect"][1],
    ),
]


def curve_svg(points: list[CurvePoint], total: int, svg_id: str = "curve") -> str:
    """A learning curve on one line of SVG (it travels in a server-sent event). Episodes are on
    a log axis, as ``qarena plot`` draws them: most learning happens in the first few percent
    of a run, which a linear axis squeezes against the left edge."""
    w, h, left, right, top, bottom = 560, 260, 44, 28, 12, 56
    pw, ph = w - left - right, h - top - bottom
    span = max(total, points[-1].episodes if points else 1, 10)
    top_decade = math.log10(span)

    def x(e: float) -> float:
        return left + pw * math.log10(max(e, 1)) / top_decade

    def y(s: float) -> float:
        return top + ph * (1 - s)

    parts = [
        f'<svg id="{svg_id}" class="curve" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'role="img" aria-label="learning curve, {len(points)} points">'
    ]
    for s in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<line class="grid" x1="{left}" x2="{w - right}" y1="{y(s):.1f}" y2="{y(s):.1f}"/>'
            f'<text class="tick" x="{left - 6}" y="{y(s) + 4:.1f}" text-anchor="end">'
            f"{int(s * 100)}%</text>"
        )
    decade = 1
    while decade <= span:
        parts.append(
            f'<line class="grid" x1="{x(decade):.1f}" x2="{x(decade):.1f}" y1="{top}" '
            f'y2="{top + ph}"/><text class="tick" x="{x(decade):.1f}" y="{top + ph + 16}" '
            f'text-anchor="middle">{decade:,}</text>'
        )
        decade *= 10
    parts.append(
        f'<text class="tick" x="{left + pw / 2:.1f}" y="{top + ph + 30}" '
        'text-anchor="middle">episodes (log scale)</text>'
    )
    for i, (label, cls, share) in enumerate(SERIES):
        if points:
            d = " ".join(f"{x(p.episodes):.1f},{y(share(p)):.1f}" for p in points)
            parts.append(f'<polyline class="{cls}" points="{d}"/>')
        lx = left + i * 160
        parts.append(
            f'<line class="{cls}" x1="{lx}" x2="{lx + 18}" y1="{h - 8}" y2="{h - 8}"/>'
            f'<text class="tick" x="{lx + 22}" y="{h - 4}">{escape(label)}</text>'
        )
    if not points:
        parts.append(
            f'<text class="tick" x="{left + pw / 2:.1f}" y="{top + ph / 2:.1f}" '
            'text-anchor="middle">no points yet</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def click_help(game: Game) -> str:
    """How to play the drawing with the mouse. Drawings are the one place that knows the games
    by type: each game's picture is its own."""
    if isinstance(game, Subtraction):
        return f"Click a match to take it and every match to its right (1 to {game.k})."
    if isinstance(game, HeapGame):
        return "Click a match to take it and every match to its right in that pile."
    if isinstance(game, ConnectFour):
        return "Click a column to drop a piece in it."
    if isinstance(game, TicTacToe):
        return "Click an empty cell."
    return "Type a move."
