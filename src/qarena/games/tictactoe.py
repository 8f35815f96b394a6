"""Tic-tac-toe on an m×n board (rows × columns) with k in a row; x moves first."""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from qarena.budget import MAX_SIDE
from qarena.errors import MoveError, PositionError, SpecError, echo
from qarena.games.base import (
    DRAW,
    LOSS,
    BoardGrid,
    Game,
    GameArrays,
    Move,
    Position,
    mixed_radix_arrays,
)
from qarena.games.registry import Field, Menu, positive_part, register
from qarena.i18n import _, gettext_noop

EMPTY, X, O = 0, 1, 2  # noqa: E741 - the marks people write
_CHARS = ".xo"
MAX_COLUMNS = len(string.ascii_lowercase)


@dataclass(frozen=True)
class TicTacToe(Game):
    """Cells hold EMPTY, X or O, row-major from the top-left; a move is the cell's index."""

    rows: int = 3
    cols: int = 3
    k: int = 3

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1:
            raise SpecError(
                _("a board needs at least 1 row and 1 column, not {rows}x{cols}").format(
                    rows=self.rows, cols=self.cols
                )
            )
        if self.cols > MAX_COLUMNS:
            raise SpecError(
                _("a board has at most {most} columns (a..z), not {cols}").format(
                    most=MAX_COLUMNS, cols=self.cols
                )
            )
        if not 1 <= self.k <= max(self.rows, self.cols):
            raise SpecError(
                _("{k} in a row cannot fit on a {rows}x{cols} board; k must be 1..{most}").format(
                    k=self.k, rows=self.rows, cols=self.cols, most=max(self.rows, self.cols)
                )
            )

    # --- identity -------------------------------------------------------------------
    @property
    def spec(self) -> str:
        return f"tictactoe:{self.rows}x{self.cols}:{self.k}"

    @property
    def title(self) -> str:
        return _("Tic-tac-toe {rows}×{cols}, {k} in a row").format(
            rows=self.rows, cols=self.cols, k=self.k
        )

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def radix(self) -> tuple[int, ...]:
        return (3,) * self.cells

    @property
    def num_moves(self) -> int:
        return self.cells

    @property
    def max_plies(self) -> int:
        return self.cells

    def position_bound(self) -> int:
        # Boards holding ceil(n/2) x's and floor(n/2) o's, for every n.
        return sum(math.comb(self.cells, n) * math.comb(n, n // 2) for n in range(self.cells + 1))

    @property
    def symmetry_count(self) -> int:
        return len(self.symmetries)

    @property
    def searchable(self) -> bool:
        """Boards of up to 40 cells: what the search solver plays (``qarena.exact.search``),
        its table's keys the board in base 3 within 64 bits."""
        return self.cells <= 40

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every run of k cells in a row, column or diagonal."""
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_r, end_c = r + dr * (self.k - 1), c + dc * (self.k - 1)
                    if 0 <= end_r < self.rows and 0 <= end_c < self.cols:
                        out.append(
                            tuple((r + dr * i) * self.cols + c + dc * i for i in range(self.k))
                        )
        # k = 1 finds each cell four times over; one is enough.
        return tuple(dict.fromkeys(out))

    # --- rules ----------------------------------------------------------------------
    def start(self) -> Position:
        return (EMPTY,) * self.cells

    def to_move(self, position: Position) -> int:
        self._check_position(position)
        return 0 if position.count(X) == position.count(O) else 1

    def winner(self, position: Position) -> int:
        """X or O if that player has k in a row, else EMPTY."""
        for line in self.lines:
            if _complete(position, line):
                return position[line[0]]
        return EMPTY

    def is_terminal(self, position: Position) -> bool:
        self._check_position(position)
        return self.winner(position) != EMPTY or EMPTY not in position

    def legal_moves(self, position: Position) -> list[Move]:
        if self.is_terminal(position):
            return []
        return [i for i, v in enumerate(position) if v == EMPTY]

    def _apply_unchecked(self, position: Position, move: Move) -> Position:
        mark = X if self.to_move(position) == 0 else O
        return (*position[:move], mark, *position[move + 1 :])

    def result(self, position: Position) -> int:
        if not self.is_terminal(position):
            raise PositionError(
                _("{position} is not a finished game").format(
                    position=self.format_position(position)
                )
            )
        # Whoever completed a line moved last, so the player to move has lost.
        return LOSS if self.winner(position) != EMPTY else DRAW

    # --- symmetry -------------------------------------------------------------------
    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """Cell permutations that map the board onto itself (8 if square, else 4)."""
        m, n = self.rows, self.cols

        def perm(f: object) -> tuple[int, ...]:
            assert callable(f)
            return tuple(f(j // n, j % n) for j in range(m * n))

        maps = [
            perm(lambda r, c: r * n + c),
            perm(lambda r, c: r * n + (n - 1 - c)),
            perm(lambda r, c: (m - 1 - r) * n + c),
            perm(lambda r, c: (m - 1 - r) * n + (n - 1 - c)),
        ]
        if m == n:
            maps += [
                perm(lambda r, c: c * n + r),
                perm(lambda r, c: c * n + (n - 1 - r)),
                perm(lambda r, c: (n - 1 - c) * n + r),
                perm(lambda r, c: (n - 1 - c) * n + (n - 1 - r)),
            ]
        return tuple(dict.fromkeys(maps))

    def _canonical_perm(self, position: Position) -> tuple[int, ...]:
        weights = self._weights
        return min(
            self.symmetries,
            key=lambda p: sum(position[p[j]] * weights[j] for j in range(len(p))),
        )

    def images(self, position: Position) -> tuple[Position, ...]:
        # The board under each of its symmetries: the orbit, in a fixed order.
        found = {tuple(position[i] for i in perm) for perm in self.symmetries}
        return tuple(sorted(found))

    def canonical_perms(self, digits: np.ndarray) -> np.ndarray:
        # The first symmetry of least code, as min() over the symmetries picks.
        syms = np.asarray(self.symmetries, dtype=np.int64)
        weights = np.asarray(self._weights, dtype=np.int64)
        best = np.zeros(digits.shape[0], dtype=np.int64)
        least = np.full(digits.shape[0], np.iinfo(np.int64).max, dtype=np.int64)
        for s, perm in enumerate(syms):
            code = digits[:, perm].astype(np.int64) @ weights
            better = code < least
            best[better], least[better] = s, code[better]
        out: np.ndarray = syms[best]
        return out

    def _move_component(self, move: Move) -> tuple[int, int]:
        if not 0 <= move < self.cells:
            raise MoveError(
                _("move id {move} is outside 0..{last}").format(move=move, last=self.cells - 1)
            )
        return move, 0

    def _make_move(self, component: int, detail: int) -> Move:
        return component

    # --- array form -----------------------------------------------------------------
    def arrays(self) -> GameArrays:
        radix, weight = mixed_radix_arrays(self.radix)
        return GameArrays(
            board=True,
            misere=False,
            num_positions=self.num_positions,
            num_moves=self.num_moves,
            start=0,
            radix=radix,
            weight=weight,
            move_comp=np.arange(self.cells, dtype=np.int64),
            move_take=np.zeros(self.cells, dtype=np.int64),
            lines=np.asarray(self.lines, dtype=np.int64).reshape(len(self.lines), self.k),
            syms=np.asarray(self.symmetries, dtype=np.int64),
        )

    # --- words ----------------------------------------------------------------------
    layout = "grid"

    def grid_size(self) -> tuple[int, int]:
        return self.rows, self.cols

    def click_help(self) -> str:
        if self.keypad:
            return _("Click an empty cell, or press its digit key.")
        return _("Click an empty cell.")

    def rules_text(self) -> str:
        return _(
            "Take turns marking empty cells; x moves first. {k} in a row (across, down or "
            "diagonally) wins."
        ).format(k=self.k)

    def move_help(self, position: Position) -> str:
        example = self.format_move(self.legal_moves(position)[0])
        text = _(
            "Moves: a column letter and a row number, like {example}; a1 is the top-left cell."
        ).format(example=example)
        if self.keypad:
            text += " " + _(
                "Or a digit as on a numeric keypad: 7 8 9 is the top row, 5 the middle."
            )
        return text

    def illegal_words(self, position: Position, move: Move) -> str:
        return _("{move} is taken; pick an empty cell.").format(move=self.format_move(move))

    def ending_words(self, position: Position, last_mover: str, addressed: bool = False) -> str:
        if self.winner(position):
            if addressed:
                return _("You made {k} in a row.").format(k=self.k)
            return _("{player} made {k} in a row.").format(player=last_mover, k=self.k)
        return _("The board is full.")

    def seat(self, position: Position) -> str:
        return _CHARS[self.to_move(position) + 1]

    def winning_line(self, position: Position) -> str | None:
        for line in self.lines:
            if _complete(position, line):
                cells = " ".join(self.cell_name(c) for c in line)
                return _("{mark} has {k} in a row ({cells})").format(
                    mark=_CHARS[position[line[0]]], k=self.k, cells=cells
                )
        return None

    def winner_mark(self, position: Position) -> str | None:
        won = self.winner(position)
        return _CHARS[won] if won else None

    def end_words(self, position: Position) -> str:
        return self.winning_line(position) or _("the board is full: draw")

    # --- text forms -----------------------------------------------------------------
    def _example(self) -> str:
        return "/".join("." * self.cols for _row in range(self.rows))

    def format_position(self, position: Position) -> str:
        return "/".join(
            "".join(_CHARS[position[r * self.cols + c]] for c in range(self.cols))
            for r in range(self.rows)
        )

    def parse_position(self, text: str) -> Position:
        shape = _(
            "expected {rows} rows of {cols} cells (x, o or .) joined by '/', like {example!r}"
        ).format(rows=self.rows, cols=self.cols, example=self._example())
        rows = text.strip().lower().split("/")
        if len(rows) != self.rows or any(len(r) != self.cols for r in rows):
            raise PositionError(
                _("position {text!r} does not fit the {rows}x{cols} board: {shape}").format(
                    text=echo(text), rows=self.rows, cols=self.cols, shape=shape
                )
            )
        if any(ch not in _CHARS for r in rows for ch in r):
            raise PositionError(
                _("position {text!r} has a cell that is not x, o or '.': {shape}").format(
                    text=echo(text), shape=shape
                )
            )
        position = tuple(_CHARS.index(ch) for r in rows for ch in r)
        xs, os_ = position.count(X), position.count(O)
        if xs not in (os_, os_ + 1):
            raise PositionError(
                _(
                    "position {text!r} has {xs} x and {os} o; x moves first, so x must have "
                    "as many marks as o or one more"
                ).format(text=echo(text), xs=xs, os=os_)
            )
        winners = {position[line[0]] for line in self.lines if _complete(position, line)}
        if winners == {X, O}:
            raise PositionError(
                _("position {text!r} has both x and o with {k} in a row").format(
                    text=echo(text), k=self.k
                )
            )
        if (winners == {X} and xs != os_ + 1) or (winners == {O} and xs != os_):
            raise PositionError(
                _("position {text!r}: play went on after {k} in a row").format(
                    text=echo(text), k=self.k
                )
            )
        return position

    def cell_name(self, cell: int) -> str:
        """``b2``: the column letter and the row number from the top."""
        return f"{string.ascii_lowercase[cell % self.cols]}{cell // self.cols + 1}"

    def format_move(self, move: Move) -> str:
        cell, _detail = self._move_component(move)
        return self.cell_name(cell)

    @cached_property
    def grid(self) -> BoardGrid:
        return BoardGrid(self.rows, self.cols, self.k, self.drops, self.lines, self.symmetries)

    @property
    def keypad(self) -> bool:
        """Whether moves may be typed as numeric-keypad digits: 3×3 boards, 7 8 9 on top."""
        return self.rows == 3 and self.cols == 3

    def parse_move(self, text: str) -> Move:
        digit = text.strip()
        if self.keypad and len(digit) == 1 and digit in "123456789":
            # Laid out like a numeric keypad: 7 8 9 is the top row, 1 2 3 the bottom one.
            d = int(digit) - 1
            return (2 - d // 3) * 3 + d % 3
        m = re.fullmatch(r"\s*([a-zA-Z])([0-9]{1,9})\s*", text)
        col = string.ascii_lowercase.index(m.group(1).lower()) if m else -1
        row = int(m.group(2)) - 1 if m else -1
        if not (0 <= col < self.cols and 0 <= row < self.rows):
            last = string.ascii_lowercase[self.cols - 1]
            raise MoveError(
                _(
                    "move {text!r} is not a cell of the {rows}x{cols} board; expected a column "
                    "letter a-{last} and a row number 1-{rows}, like 'a1' (top-left)"
                ).format(text=echo(text), rows=self.rows, cols=self.cols, last=last)
            )
        return row * self.cols + col


def _complete(position: Position, line: tuple[int, ...]) -> bool:
    first = position[line[0]]
    return first != EMPTY and all(position[i] == first for i in line)


def board_size(text: str, part: str, form: str) -> tuple[int, int]:
    """ROWSxCOLS of a board spec, each 1 to MAX_SIDE."""
    m = re.fullmatch(r"([0-9]{1,4})x([0-9]{1,4})", part)
    if not m:
        raise SpecError(
            _("{text!r}: the board size {part!r} is not ROWSxCOLS; {form}").format(
                text=text, part=part, form=form
            )
        )
    rows, cols = int(m.group(1)), int(m.group(2))
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise SpecError(
            _(
                "{text!r}: a board has 1 to {most} rows and columns, not {rows}x{cols}; {form}"
            ).format(text=text, most=MAX_SIDE, rows=rows, cols=cols, form=form)
        )
    return rows, cols


def _parse(text: str, rest: list[str]) -> Game:
    form = _("expected like 'tictactoe:3x3:3' (rows x columns : k in a row)")
    if len(rest) > 2:
        raise SpecError(_("{text!r} has too many parts; {form}").format(text=text, form=form))
    if not rest:
        return TicTacToe()
    rows, cols = board_size(text, rest[0], form)
    # Without k, a full row of the shorter side wins: 3x3 -> 3, 4x4 -> 4.
    k = (
        positive_part(text, rest[1], "k", form, max(rows, cols))
        if len(rest) == 2
        else max(min(rows, cols), 1)
    )
    return TicTacToe(rows=rows, cols=cols, k=k)


def board_fields(prefix: str, side: int) -> tuple[Field, Field, Field]:
    """A board's menu fields (rows, columns, in a row to win), named with ``prefix``."""
    return (
        Field(f"{prefix}rows", gettext_noop("Rows"), str(side), most=MAX_SIDE,
              what=gettext_noop("rows")),
        Field(f"{prefix}cols", gettext_noop("Columns"), str(side), most=MAX_SIDE,
              what=gettext_noop("columns")),
        Field(f"{prefix}k", gettext_noop("In a row to win"), str(side), most=MAX_SIDE,
              what=gettext_noop("in a row to win")),
    )  # fmt: skip


register(
    "tictactoe",
    _parse,
    aliases=("tic-tac-toe",),
    form=gettext_noop("tictactoe[:ROWSxCOLS[:K]] like 'tictactoe:4x4:4'"),
    menu=Menu(
        title=gettext_noop("Tic-tac-toe"),
        fields=board_fields("", 3),
        spec=lambda v: f"tictactoe:{v['rows']}x{v['cols']}:{v['k']}",
    ),
)
