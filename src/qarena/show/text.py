"""Positions drawn for people: rows of matchsticks for heaps, a lettered grid for boards.

Pure functions from a game and a position to a rich renderable; nothing here reads input or
prints, so ``qarena play``, ``qarena table`` and ``watch`` share them with the Python API
(``str(qarena.board(...))``: the same drawing, as plain text).
"""

from __future__ import annotations

import string

from rich.text import Text

from qarena.games import Game, Move, Position
from qarena.i18n import _

__all__ = ["MARKS", "draw", "draw_board", "draw_heap", "draw_piles"]

#: How board cells are shown: empty, the first player's mark, the second player's.
MARKS = ("", "x", "o")
_MARK_STYLES = ("", "bold cyan", "bold magenta")
_STICK_STYLE = "bold yellow"


def draw(game: Game, position: Position, cell_notes: dict[Move, str] | None = None) -> Text:
    """The position as a picture.

    ``cell_notes`` maps a board move (a cell) to a short text shown in that cell while it is
    empty, e.g. a learned value ``+0.81``; heap games have no cells and ignore it.
    """
    if game.layout == "grid":
        return draw_board(game, position, cell_notes)
    if game.layout == "heap":
        return draw_heap(game, position)
    if game.layout == "piles":
        return draw_piles(game, position)
    return Text(game.format_position(position))


def _sticks(count: int) -> Text:
    return Text(" ".join("|" * count), style=_STICK_STYLE)


def draw_piles(game: Game, position: Position) -> Text:
    """One numbered row of matchsticks per pile, e.g. ``Pile 1 (3)  | | |``."""
    labels = [
        _("Pile {number} ({count})").format(number=i + 1, count=n) for i, n in enumerate(position)
    ]
    width = max(len(label) for label in labels)
    text = Text()
    for i, (label, n) in enumerate(zip(labels, position, strict=True)):
        if i:
            text.append("\n")
        text.append(label if n == 0 else label.ljust(width) + "  ")
        text.append_text(_sticks(n))
    return text


def draw_heap(game: Game, position: Position) -> Text:
    """The single heap, e.g. ``Heap (12)  | | | …``, and how many a move may take."""
    (n,) = position
    text = Text(_("Heap ({count})").format(count=n) + ("  " if n else ""))
    text.append_text(_sticks(n))
    most = len(game.legal_moves(position))  # 1..min(n, k): one move per count
    if most:
        takes = _("A move takes 1.") if most == 1 else _("A move takes 1 to {most}.")
        text.append("\n" + takes.format(most=most))
    return text


def draw_board(game: Game, position: Position, cell_notes: dict[Move, str] | None = None) -> Text:
    """A grid with columns a, b, c… across the top and rows 1, 2, 3… down the side (row 1 at
    the top, as in the move ``b2``); empty cells show their note from ``cell_notes``, a move's
    note in the cell the move fills (on Connect Four, where the piece lands, not row 1)."""
    notes = {_landing(game, position, m): note for m, note in (cell_notes or {}).items()}
    rows, cols = game.grid_size()
    width = max([3, *(len(note) + 2 for note in notes.values())])
    label = len(str(rows))
    pad = " " * label
    text = Text(pad + "  ")
    text.append(" ".join(string.ascii_lowercase[c].center(width) for c in range(cols)))
    text.append(f"\n{pad} ┌" + "┬".join("─" * width for _col in range(cols)) + "┐")
    for r in range(rows):
        if r:
            text.append(f"\n{pad} ├" + "┼".join("─" * width for _col in range(cols)) + "┤")
        text.append(f"\n{r + 1:>{label}} │")
        for c in range(cols):
            cell = r * cols + c
            mark = position[cell]
            if mark:
                text.append(MARKS[mark].center(width), style=_MARK_STYLES[mark])
            else:
                text.append(notes.get(cell, "").center(width), style="dim")
            text.append("│")
    text.append(f"\n{pad} └" + "┴".join("─" * width for _col in range(cols)) + "┘")
    return text


def _landing(game: Game, position: Position, move: Move) -> int:
    """The cell ``move`` fills: the move itself on a board, the lowest empty cell of its column
    with gravity."""
    if not game.drops:
        return move
    after = game.apply(position, move)
    return next(i for i, (a, b) in enumerate(zip(position, after, strict=True)) if a != b)
