"""Positions as SVG, drawn on the server. Every string here is escaped.

Boards: one ``<g class="cell" data-move="b2">`` per cell. Heaps: one ``<g class="match"
data-move="3:4">`` per match, where clicking a match takes it and every match to its right.
In a game being played, each move is also a keyboard control (``tabindex``, ``role="button"``
and an ``aria-label`` saying the move; ``static/qarena.js`` plays it on Enter or Space), and on
3×3 boards a cell's ``data-key`` is its numeric-keypad digit. The last move is marked: a ring
on its cell, or the matches it took drawn as ghosts. The inspect page's boards carry the
agent's values. Learning curves are drawn by ``curve_svg.py``.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from html import escape
from typing import NamedTuple

from qarena.games import Game, Position
from qarena.i18n import _

_CELL = 64
# A match's column: wide enough for a finger (touch targets of at least 32 px).
_MATCH_W = 32
_ROW_H = 64


def _attrs(extra: dict[str, str] | None, move: str) -> str:
    """``extra`` on a clickable element, and htmx's ``hx-vals`` carrying its move."""
    if extra is None:
        return ""
    vals = json.dumps({"move": move})
    return "".join(f' {k}="{escape(v)}"' for k, v in {**extra, "hx-vals": vals}.items())


def _control(words: str) -> str:
    """What makes a move a keyboard control: a tab stop, a button to assistive technology, and
    what it does in words."""
    return f' tabindex="0" role="button" aria-label="{escape(words)}"'


def open_svg(svg_id: str, cls: str, w: int, h: int, label: str, live: bool) -> str:
    """An ``<svg>`` element's opening tag, sized ``w`` × ``h`` and labelled for screen readers."""
    # An image's children are hidden from assistive technology: a board with moves to play
    # is a group of buttons instead.
    role = "group" if live else "img"
    return (
        f'<svg id="{svg_id}" class="{cls}" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'role="{role}" aria-label="{escape(label)}">'
    )


def position_svg(
    game: Game,
    position: Position,
    clickable: dict[str, str] | None = None,
    svg_id: str = "position",
    before: Position | None = None,
    suggested: str | None = None,
) -> str:
    """The position as an ``<svg id="position">``. ``clickable`` holds attributes every
    clickable element gets besides ``data-move`` (e.g. htmx's), or None for a still picture.
    ``before`` is the position before the last move, which is then marked. ``suggested`` is a
    move (as text) to mark as the one to play: the game page's way to beat the AI."""
    if game.layout == "grid":
        return _board(game, position, clickable, svg_id, before, suggested)
    if game.layout in ("piles", "heap"):
        return _heaps(game, position, clickable, svg_id, before, suggested)
    return _text_svg(game, position, svg_id)


def drawing_width(game: Game) -> int:
    """The width in pixels ``position_svg`` draws ``game``'s positions at."""
    if game.layout == "grid":
        return _PAD + game.grid_size()[1] * _CELL + 4
    if game.layout in ("piles", "heap"):
        return _LABEL_W + (max(game.radix) - 1) * _MATCH_W + 10
    return 300


def _text_svg(game: Game, position: Position, svg_id: str) -> str:
    """A game without a drawing of its own: its position's text form."""
    text = escape(game.format_position(position))
    return (
        f'<svg id="{svg_id}" viewBox="0 0 300 40" width="300" height="40" role="img" '
        f'aria-label="{text}"><text x="4" y="24">{text}</text></svg>'
    )


def keypad_digit(cell: int) -> str:
    """The numeric-keypad digit of a cell of a 3×3 board: 7 8 9 the top row (a1 b1 c1)."""
    r, c = divmod(cell, 3)
    return str((2 - r) * 3 + c + 1)


_PAD = 24


def _board_frame(game: Game, svg_id: str, cls: str, label: str, live: bool) -> list[str]:
    """A board's opening: the ``<svg>`` and the column letters and row numbers around it."""
    rows, cols = game.grid_size()
    w, h = _PAD + cols * _CELL + 4, _PAD + rows * _CELL + 4
    parts = [open_svg(svg_id, cls, w, h, label, live)]
    for c in range(cols):
        x = _PAD + c * _CELL + _CELL // 2
        parts.append(f'<text class="label" x="{x}" y="16">{string.ascii_lowercase[c]}</text>')
    for r in range(rows):
        y = _PAD + r * _CELL + _CELL // 2 + 5
        parts.append(f'<text class="label" x="10" y="{y}">{r + 1}</text>')
    return parts


def _cell_xy(game: Game, cell: int) -> tuple[int, int]:
    r, c = divmod(cell, game.grid_size()[1])
    return _PAD + c * _CELL, _PAD + r * _CELL


def _mark(x: int, y: int, mark: int) -> str:
    """X (player 1) or O (player 2) in the cell at ``x, y``; nothing on an empty cell."""
    m = 14
    if mark == 1:
        return (
            f'<path class="mark-x" d="M{x + m},{y + m}L{x + _CELL - m},{y + _CELL - m}'
            f'M{x + _CELL - m},{y + m}L{x + m},{y + _CELL - m}"/>'
        )
    if mark == 2:
        return (
            f'<circle class="mark-o" cx="{x + _CELL / 2}" cy="{y + _CELL / 2}" '
            f'r="{_CELL / 2 - m}"/>'
        )
    return ""


def _cell_state(mark: int) -> str:
    return "x" if mark == 1 else "o" if mark == 2 else "empty"


def _board(
    game: Game,
    position: Position,
    clickable: dict[str, str] | None,
    svg_id: str,
    before: Position | None,
    suggested: str | None = None,
) -> str:
    live = clickable is not None and not game.is_terminal(position)
    drop = game.drops
    cols = game.grid_size()[1]
    # Connect Four: one keyboard stop per column, on the cell its piece would land in.
    landing = {}
    if drop:
        for cell, mark in enumerate(position):
            if not mark:
                landing[cell % cols] = cell
    parts = _board_frame(game, svg_id, "board", game.format_position(position), live)
    # Connect Four: drawn column by column, so that Tab goes from column to column.
    cells = range(len(position))
    order = sorted(cells, key=lambda i: (i % cols, i)) if drop else cells
    for cell in order:
        mark = position[cell]
        c = cell % cols
        x, y = _cell_xy(game, cell)
        # Connect Four: a click anywhere in a column drops a piece there.
        chosen = game.move_of(c if drop else cell, 0)
        assert chosen is not None, "a grid's cells (or columns) are its moves"
        move = game.format_move(chosen)
        state = _cell_state(mark)
        attrs = _attrs(clickable, move)
        words = (
            _("drop a piece in column {move}").format(move=move)
            if drop
            else _("play {move}").format(move=move)
        )
        tip = words
        playable = live and (landing.get(c) == cell if drop else not mark)
        if playable:
            attrs += _control(words)
        if clickable is not None and game.keypad:
            digit = keypad_digit(cell)
            attrs += f' data-key="{digit}"'
            if playable:
                attrs += f' aria-keyshortcuts="{digit}"'
            tip = _("{action} (key {digit})").format(action=tip, digit=digit)
        last = before is not None and before[cell] != mark
        cls = f"cell {state}" + (" live" if live and not mark else "")
        cls += " last-move" if last else ""
        # Connect Four: the cell the suggested column's piece lands in.
        hint = move == suggested and (landing.get(c) == cell if drop else not mark)
        cls += " suggested" if hint else ""
        parts.append(f'<g class="{cls}" data-move="{escape(move)}"{attrs}>')
        parts.append(f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}"/>')
        if hint:
            parts.append(
                f'<rect class="suggest-ring" x="{x + 8}" y="{y + 8}" width="{_CELL - 16}" '
                f'height="{_CELL - 16}" rx="8"/>'
            )
        if last:
            parts.append(
                f'<rect class="ring" x="{x + 5}" y="{y + 5}" width="{_CELL - 10}" '
                f'height="{_CELL - 10}" rx="10"/>'
            )
        parts.append(_mark(x, y, mark))
        if last:
            title = _("{move}: the last move").format(move=move)
        else:
            title = tip if live and not mark else move
        parts.append(f"<title>{escape(title)}</title></g>")
    parts.append("</svg>")
    return "".join(parts)


def _heap_label(one: bool, pile: int, n: int) -> str:
    """A pile's label beside it: "Pile 2 (5)", or "Heap (5)" where there is one."""
    if one:
        return _("Heap ({count})").format(count=n)
    return _("Pile {pile} ({count})").format(pile=pile + 1, count=n)


def _take_words(one: bool, pile: int, take: int) -> str:
    """What clicking a match does: "take 3 from pile 2", or "take 3" where there is one heap."""
    if one:
        return _("take {count}").format(count=take)
    return _("take {count} from pile {pile}").format(count=take, pile=pile + 1)


_LABEL_W = 90


def _heaps_frame(game: Game, position: Position, svg_id: str, cls: str, live: bool) -> list[str]:
    """Heaps' opening ``<svg>``, as wide as the largest pile at the start."""
    w = _LABEL_W + (max(game.radix) - 1) * _MATCH_W + 10
    h = len(position) * _ROW_H + 8
    return [open_svg(svg_id, cls, w, h, game.format_position(position), live)]


def _pile_start(one: bool, pile: int, n: int) -> tuple[int, str]:
    """A pile's row: its top ``y`` and the opening of its group, with its label."""
    y = 8 + pile * _ROW_H
    label = escape(_heap_label(one, pile, n))
    return y, (
        f'<text class="label" x="4" y="{y + 34}">{label}</text>'
        f'<g class="pile" data-pile="{pile + 1}">'
    )


class _Pile(NamedTuple):
    """A pile as heaps draw it: its row's top ``y``, the opening of its group, and each match
    as (x, the move a click on it names, None when out of reach; that move in words)."""

    at: int  # its place, from 0
    size: int
    y: int
    start: str
    matches: list[tuple[int, str | None, str]]


def _piles(game: Game, position: Position) -> list[_Pile]:
    """The piles of ``position`` and their matches, left to right: a click on a match takes
    it and every match to its right."""
    one = game.layout == "heap"
    piles = []
    for p, n in enumerate(position):
        y, start = _pile_start(one, p, n)
        matches = []
        for i in range(n):
            take = n - i
            chosen = game.move_of(p, take)
            move = None if chosen is None else game.format_move(chosen)
            matches.append((_LABEL_W + i * _MATCH_W, move, _take_words(one, p, take)))
        piles.append(_Pile(p, n, y, start, matches))
    return piles


def _hit(x: int, y: int) -> str:
    """A match's whole column, what a click or a touch lands on."""
    return f'<rect class="hit" x="{x}" y="{y}" width="{_MATCH_W}" height="{_ROW_H - 8}"/>'


def _match(x: int, y: int) -> str:
    """A match's drawing, in its column at ``x``."""
    return (
        f'<rect class="stick" x="{x + 12}" y="{y + 14}" width="8" height="40" rx="2"/>'
        f'<circle class="head" cx="{x + 16}" cy="{y + 12}" r="6"/>'
    )


def _heaps(
    game: Game,
    position: Position,
    clickable: dict[str, str] | None,
    svg_id: str,
    before: Position | None,
    suggested: str | None = None,
) -> str:
    live = clickable is not None and not game.is_terminal(position)
    parts = _heaps_frame(game, position, svg_id, "heaps", live)
    for pile in _piles(game, position):
        y, p, n = pile.y, pile.at, pile.size
        parts.append(pile.start)
        for x, move, words in pile.matches:
            if move is None:
                # Out of reach: a click here would take more than a move may.
                parts.append(f'<g class="match far">{_hit(x, y)}{_match(x, y)}</g>')
                continue
            attrs = _attrs(clickable, move) + (_control(words) if live else "")
            cls = "match takeable" + (" live" if clickable is not None else "")
            # The match a click on takes the suggested move (the style lights those right of it).
            cls += " suggested" if move == suggested else ""
            parts.append(
                f'<g class="{cls}" data-move="{escape(move)}"{attrs}>{_hit(x, y)}'
                f"{_match(x, y)}<title>{escape(words)}</title></g>"
            )
        taken = 0 if before is None else before[p] - n
        if taken > 0:
            # The matches the last move took, as ghosts where they lay: right of the rest.
            ghosts = "".join(_match(_LABEL_W + i * _MATCH_W, y) for i in range(n, n + taken))
            title = escape(_("{count} just taken").format(count=taken))
            parts.append(
                f'<g class="ghost last-move" data-taken="{taken}">{ghosts}'
                f"<title>{title}</title></g>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


# --- the inspect page: a position to walk through, the agent's values on it -----------------


def _walk_cell(body: str, href: str | None) -> str:
    """``body`` as a link to ``href`` (a move's position, to walk to), or as it is."""
    return body if href is None else f'<a class="walk" href="{escape(href)}">{body}</a>'


def inspect_svg(
    game: Game,
    position: Position,
    links: Mapping[str, str | None],
    notes: dict[str, str],
    svg_id: str = "position",
) -> str:
    """The position for the inspect page: each legal move (by its text) a link to ``links``'
    address for it, and on a board each empty cell showing ``notes``' short text for the move
    that fills it (as ``qarena table`` draws them); on heaps a match's note is its tooltip.
    Drawn apart from the game's board, which plays moves rather than walking to them."""
    if game.layout == "grid":
        return _inspect_board(game, position, links, notes, svg_id)
    if game.layout in ("piles", "heap"):
        return _inspect_heaps(game, position, links, notes, svg_id)
    return _text_svg(game, position, svg_id)


def _inspect_board(
    game: Game,
    position: Position,
    links: Mapping[str, str | None],
    notes: dict[str, str],
    svg_id: str,
) -> str:
    # The cell each move fills (Connect Four: where the piece lands in its column).
    fills = {}
    for m in game.legal_moves(position):
        after = game.apply(position, m)
        cell = next(i for i, (a, b) in enumerate(zip(position, after, strict=True)) if a != b)
        fills[cell] = game.format_move(m)
    parts = _board_frame(game, svg_id, "board inspect", game.format_position(position), True)
    for cell, mark in enumerate(position):
        x, y = _cell_xy(game, cell)
        move = fills.get(cell)
        state = _cell_state(mark)
        inner = f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}"/>{_mark(x, y, mark)}'
        if move is None:
            parts.append(f'<g class="cell {state}">{inner}</g>')
            continue
        note = notes.get(move, "")
        if note:
            inner += (
                f'<text class="note" x="{x + _CELL / 2}" y="{y + _CELL / 2 + 5}" '
                f'text-anchor="middle">{escape(note)}</text>'
            )
        tip = (
            _("{move}: {value}, then see the position after it").format(move=move, value=note)
            if note
            else move
        )
        body = (
            f'<g class="cell {state} live" data-move="{escape(move)}">{inner}'
            f"<title>{escape(tip)}</title></g>"
        )
        parts.append(_walk_cell(body, links.get(move)))
    parts.append("</svg>")
    return "".join(parts)


def _inspect_heaps(
    game: Game,
    position: Position,
    links: Mapping[str, str | None],
    notes: dict[str, str],
    svg_id: str,
) -> str:
    parts = _heaps_frame(game, position, svg_id, "heaps inspect", True)
    for pile in _piles(game, position):
        y = pile.y
        parts.append(pile.start)
        for x, move, words in pile.matches:
            hit = _hit(x, y)
            if move is None or move not in links:  # out of reach: more than a move may take
                parts.append(f'<g class="match far">{hit}{_match(x, y)}</g>')
                continue
            note = notes.get(move)
            tip = _("{action}: {value}").format(action=words, value=note) if note else words
            body = (
                f'<g class="match takeable live" data-move="{escape(move)}">{hit}'
                f"{_match(x, y)}<title>{escape(tip)}</title></g>"
            )
            parts.append(_walk_cell(body, links[move]))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
