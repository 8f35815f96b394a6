"""Connect Four on an R×C board with k in a row: a move names a column and the piece falls to
the lowest empty cell of it; x moves first."""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from qarena.errors import MoveError, PositionError, SpecError, echo
from qarena.games.base import Game, GameArrays, Move, Position
from qarena.games.registry import Menu, positive_part, register
from qarena.games.tictactoe import EMPTY, TicTacToe, board_fields, board_size
from qarena.i18n import _, gettext_noop


@dataclass(frozen=True)
class ConnectFour(TicTacToe):
    """The board of tic-tac-toe (cells row-major from the top-left, lines of k) with gravity:
    a move is a column index, and only the left–right mirror is a symmetry."""

    rows: int = 6
    cols: int = 7
    k: int = 4

    @property
    def spec(self) -> str:
        return f"connect4:{self.rows}x{self.cols}:{self.k}"

    @property
    def title(self) -> str:
        return _("Connect Four {rows}×{cols}, {k} in a row").format(
            rows=self.rows, cols=self.cols, k=self.k
        )

    @property
    def num_moves(self) -> int:
        return self.cols

    def _drop(self, position: Position, col: int) -> int:
        """The cell a piece dropped in ``col`` lands on, or -1 when the column is full."""
        for r in range(self.rows - 1, -1, -1):
            cell = r * self.cols + col
            if position[cell] == EMPTY:
                return cell
        return -1

    def position_bound(self) -> int:
        # Column heights of every total, each filling coloured ceil(n/2) x and floor(n/2) o.
        ways = [1]  # ways[n]: height choices of the columns so far holding n pieces
        for _column in range(self.cols):
            nxt = [0] * (len(ways) + self.rows)
            for n, w in enumerate(ways):
                for h in range(self.rows + 1):
                    nxt[n + h] += w
            ways = nxt
        return sum(w * math.comb(n, n // 2) for n, w in enumerate(ways))

    def legal_moves(self, position: Position) -> list[Move]:
        if self.is_terminal(position):
            return []
        return [c for c in range(self.cols) if position[c] == EMPTY]

    def _apply_unchecked(self, position: Position, move: Move) -> Position:
        return super()._apply_unchecked(position, self._drop(position, move))

    # --- symmetry: the mirror only; a move's component is its column's top cell ----------
    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        n = self.cols
        cells = range(self.rows * n)
        mirror = tuple((j // n) * n + (n - 1 - j % n) for j in cells)
        return tuple(dict.fromkeys((tuple(cells), mirror)))

    def _move_component(self, move: Move) -> tuple[int, int]:
        if not 0 <= move < self.cols:
            raise MoveError(
                _("move id {move} is outside 0..{last}").format(move=move, last=self.cols - 1)
            )
        return move, 0

    def _make_move(self, component: int, detail: int) -> Move:
        return component % self.cols

    # A piece drops to the lowest empty cell of the column a move names.
    drops = True

    def click_help(self) -> str:
        return _("Click a column to drop a piece in it.")

    def arrays(self) -> GameArrays:
        # The board's arrays, with columns for moves and gravity on.
        return (
            super()
            .arrays()
            ._replace(
                move_comp=np.arange(self.cols, dtype=np.int64),
                move_take=np.zeros(self.cols, dtype=np.int64),
                gravity=True,
                cols=self.cols,
            )
        )

    # --- words and text forms -------------------------------------------------------------
    def rules_text(self) -> str:
        return _(
            "Take turns dropping a piece into a column; it falls to the lowest empty cell. "
            "x moves first. {k} in a row (across, down or diagonally) wins."
        ).format(k=self.k)

    def move_help(self, position: Position) -> str:
        example = self.format_move(self.legal_moves(position)[0])
        last = string.ascii_lowercase[self.cols - 1]
        return _(
            "Moves: a column letter, a to {last} from the left; for example {example}."
        ).format(last=last, example=example)

    def move_words(self, move: Move) -> str:
        return _("drops a piece in column {column}").format(column=self.format_move(move))

    def illegal_words(self, position: Position, move: Move) -> str:
        return _("Column {column} is full; pick another.").format(column=self.format_move(move))

    def parse_position(self, text: str) -> Position:
        """The board's text form (rows from the top, joined by '/'), or the moves that lead
        to the position as column numbers from 1 on the left, as Pons' and Tromp's tools
        write them (``4453``), or as the column letters one plays with (``ddec``); ``0`` alone
        is the empty board."""
        digits = text.strip()
        if digits.isascii() and digits.isdigit() and self.cols <= 9:
            return self._replay(text, digits)
        # Letters alone are moves: a board's text has a '/' between its rows (a one-row board
        # has none, and its "xo" stays a board).
        if digits.isascii() and digits.isalpha() and self.rows > 1:
            return self._replay(text, digits.lower())
        position = super().parse_position(text)
        for c in range(self.cols):
            for r in range(self.rows - 1):
                if position[r * self.cols + c] != EMPTY and position[(r + 1) * self.cols + c] == 0:
                    raise PositionError(
                        _(
                            "position {text!r} has a piece floating in column {column}: pieces "
                            "fall to the lowest empty cell"
                        ).format(text=echo(text), column=string.ascii_lowercase[c])
                    )
        return position

    def _replay(self, text: str, digits: str) -> Position:
        position = self.start()
        if digits == "0":
            return position
        if len(digits) > self.rows * self.cols:
            raise PositionError(
                _("the moves {text!r} are more than the board's {cells} cells").format(
                    text=echo(text), cells=self.rows * self.cols
                )
            )
        for i, ch in enumerate(digits):
            if ch.isdigit():
                col = int(ch) - 1
                if not 0 <= col < self.cols:
                    raise PositionError(
                        _(
                            "move {number} of {text!r} is column {column}; columns are numbered "
                            "1 to {cols} from the left"
                        ).format(number=i + 1, text=echo(text), column=ch, cols=self.cols)
                    )
            else:
                col = string.ascii_lowercase.index(ch)
                if col >= self.cols:
                    raise PositionError(
                        _(
                            "move {number} of {text!r} is column {column}; columns are a to "
                            "{last} from the left"
                        ).format(
                            number=i + 1,
                            text=echo(text),
                            column=ch,
                            last=string.ascii_lowercase[self.cols - 1],
                        )
                    )
            if self.is_terminal(position):
                raise PositionError(
                    _("move {number} of {text!r} comes after the game is over").format(
                        number=i + 1, text=echo(text)
                    )
                )
            if col not in self.legal_moves(position):
                raise PositionError(
                    _("move {number} of {text!r} is in column {column}, which is full").format(
                        number=i + 1, text=echo(text), column=ch
                    )
                )
            position = self._apply_unchecked(position, col)
        return position

    @property
    def searchable(self) -> bool:
        """Four in a row on a board whose columns, each with a spare cell, fit 64 bits: what
        the search solver plays (``qarena.exact.search``)."""
        return self.k == 4 and self.cols * (self.rows + 1) <= 64

    def format_move(self, move: Move) -> str:
        col, _detail = self._move_component(move)
        return string.ascii_lowercase[col]

    @property
    def keypad(self) -> bool:
        return False  # a move is a column here, not a cell

    def parse_move(self, text: str) -> Move:
        m = re.fullmatch(r"\s*([a-zA-Z])\s*", text)
        col = string.ascii_lowercase.index(m.group(1).lower()) if m else -1
        if not 0 <= col < self.cols:
            last = string.ascii_lowercase[self.cols - 1]
            raise MoveError(
                _(
                    "move {text!r} is not a column of the {rows}x{cols} board; expected a letter "
                    "a-{last}, 'a' on the left"
                ).format(text=echo(text), rows=self.rows, cols=self.cols, last=last)
            )
        return col


def _parse(text: str, rest: list[str]) -> Game:
    form = _("expected like 'connect4:6x7:4' (rows x columns : k in a row)")
    if len(rest) > 2:
        raise SpecError(_("{text!r} has too many parts; {form}").format(text=text, form=form))
    if not rest:
        return ConnectFour()
    rows, cols = board_size(text, rest[0], form)
    k = positive_part(text, rest[1], "k", form, max(rows, cols)) if len(rest) == 2 else 4
    if k > max(rows, cols):
        raise SpecError(
            _(
                "{text!r}: {k} in a row cannot fit on a {rows}x{cols} board; give k, e.g. "
                "'connect4:{rows}x{cols}:{most}'"
            ).format(text=text, k=k, rows=rows, cols=cols, most=max(rows, cols))
        )
    return ConnectFour(rows=rows, cols=cols, k=k)


register(
    "connect4",
    _parse,
    aliases=("connect-four",),
    form=gettext_noop("connect4[:ROWSxCOLS[:K]] like 'connect4:4x5'"),
    menu=Menu(
        title=gettext_noop("Connect Four"),
        fields=board_fields("c4_", 4),
        spec=lambda v: f"connect4:{v['c4_rows']}x{v['c4_cols']}:{v['c4_k']}",
        note=gettext_noop(
            "A piece falls to the lowest empty cell of its column. Small boards, such as 4×4, "
            "train here on the spot; bigger ones play once trained on the command line. Against "
            "perfect play, any board with four in a row up to 6 rows × 7 columns plays at once."
        ),
    ),
)
