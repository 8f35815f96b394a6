"""The one interface every game implements, and the dense encoding they share.

Positions are immutable tuples of small integers ("components": pile sizes or board cells);
moves are dense integers ``0 <= m < num_moves``. A position's code is its mixed-radix number,
so tables indexed by (position, move) are plain numpy arrays of shape
``(num_positions, num_moves)``.

Values and results are always seen from the player to move (negamax form): ``WIN`` means the
player to move wins with best play (or, at a terminal position, has won).
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from qarena.errors import (
    IllegalMoveError,
    PositionError,
    QarenaError,
    TooLargeError,
    echo_value,
)
from qarena.i18n import _, gettext_noop

Position = tuple[int, ...]
Move = int


@dataclass(frozen=True)
class BoardGrid:
    """A board of ``rows`` × ``cols`` cells (row-major from the top-left) where ``k`` marks in
    a line win: what search, n-tuple networks and drawings read of a board game, whatever its
    class. With ``gravity`` a piece drops to the lowest empty cell of the column a move names
    (Connect Four); else a move names its cell."""

    rows: int
    cols: int
    k: int
    gravity: bool
    #: Every run of k cells in a row, column or diagonal.
    lines: tuple[tuple[int, ...], ...]
    #: The cell permutations that map the board onto itself (the identity first).
    symmetries: tuple[tuple[int, ...], ...]

    @property
    def cells(self) -> int:
        return self.rows * self.cols


def grid_of(game: Game) -> BoardGrid:
    """The board of a game whose positions are cells (its :attr:`Game.grid`); a game that
    has none is refused in one line."""
    grid = game.grid
    if grid is None:
        raise QarenaError(_("{spec} is not a board game").format(spec=game.spec))
    return grid


WIN = 1
DRAW = 0
LOSS = -1

#: Values as data (JSON, CSV, policy files): always these English words.
VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}
#: Values in words for people, translated where shown (:func:`value_word`).
VALUE_WORDS = {WIN: gettext_noop("win"), DRAW: gettext_noop("draw"), LOSS: gettext_noop("loss")}
#: Outcomes of a game from one side, in the order records count them.
OUTCOMES = ("win", "draw", "loss")


class GameArrays(NamedTuple):
    """A game's rules as plain arrays and scalars, the only form compiled kernels see.

    Heap games (nim, subtraction): ``move_comp`` is the pile a move takes from, ``move_take``
    how many. Boards: ``move_comp`` is the cell, ``lines`` the cells of every k-in-a-row; with
    ``gravity`` (Connect Four) ``move_comp`` is a column of a board ``cols`` wide, and the mark
    lands on its lowest empty cell.

    Symmetry, for the search over canonical positions: ``syms`` lists a board's cell
    permutations (the representative is the least code over them); ``rank`` orders the piles
    of a heap game by starting size (the representative sorts the sizes into that order).
    Empty arrays mean no symmetry.
    """

    board: bool
    misere: bool
    num_positions: int
    num_moves: int
    start: int
    radix: np.ndarray
    weight: np.ndarray
    move_comp: np.ndarray
    move_take: np.ndarray
    lines: np.ndarray
    gravity: bool = False
    cols: int = 0
    syms: np.ndarray = np.zeros((0, 1), dtype=np.int64)
    rank: np.ndarray = np.zeros(0, dtype=np.int64)


class Game(ABC):
    """Rules of a finite two-player alternating game, as pure functions over positions.

    Subclasses are frozen dataclasses; two games with the same spec compare equal.
    """

    #: True when the position alone does not say whose turn it is (nim, subtraction):
    #: both players face the same choices, and seats follow from alternation.
    impartial: bool = False

    # --- identity -------------------------------------------------------------------
    @property
    @abstractmethod
    def spec(self) -> str:
        """The canonical spec text, e.g. ``nim:3,5,7`` or ``tictactoe:4x4:4``."""

    @property
    @abstractmethod
    def title(self) -> str:
        """A short human description, e.g. ``Nim 3-5-7 (misère)``."""

    @property
    @abstractmethod
    def radix(self) -> tuple[int, ...]:
        """Number of values each component can take; positions encode in this mixed radix."""

    @property
    @abstractmethod
    def num_moves(self) -> int:
        """Number of distinct move ids."""

    @property
    @abstractmethod
    def max_plies(self) -> int:
        """An upper bound on the length of any game."""

    # --- rules ----------------------------------------------------------------------
    @abstractmethod
    def start(self) -> Position:
        """The starting position."""

    @abstractmethod
    def to_move(self, position: Position) -> int | None:
        """0 for the first player, 1 for the second; None in impartial games."""

    @abstractmethod
    def legal_moves(self, position: Position) -> list[Move]:
        """Legal move ids in ascending order; empty exactly at terminal positions."""

    @abstractmethod
    def _apply_unchecked(self, position: Position, move: Move) -> Position: ...

    @abstractmethod
    def is_terminal(self, position: Position) -> bool:
        """True when the game is over."""

    @abstractmethod
    def result(self, position: Position) -> int:
        """WIN, DRAW or LOSS for the player to move at a terminal position."""

    # --- text forms -----------------------------------------------------------------
    @abstractmethod
    def format_position(self, position: Position) -> str: ...

    @abstractmethod
    def parse_position(self, text: str) -> Position: ...

    @abstractmethod
    def format_move(self, move: Move) -> str: ...

    @abstractmethod
    def parse_move(self, text: str) -> Move: ...

    # --- symmetry -------------------------------------------------------------------
    @abstractmethod
    def _canonical_perm(self, position: Position) -> tuple[int, ...]:
        """A permutation ``perm`` with ``canonical[j] = position[perm[j]]``."""

    @abstractmethod
    def _move_component(self, move: Move) -> tuple[int, int]:
        """(component, detail) of a move: (pile, count taken) or (cell, 0)."""

    @abstractmethod
    def _make_move(self, component: int, detail: int) -> Move: ...

    @abstractmethod
    def arrays(self) -> GameArrays:
        """The rules in the array form compiled kernels take."""

    # --- words for people (generic defaults; games override) -------------------------
    #: How a position is drawn: "piles" (rows of objects), "heap" (one heap and its cap),
    #: "grid" (a lettered board of marks) or "text" (its text form).
    layout: str = "text"

    def grid_size(self) -> tuple[int, int]:
        """(rows, columns) of a "grid" layout, row-major over the position's components."""
        return 1, len(self.radix)

    #: On a "grid": pieces drop to the lowest empty cell of a column, and a move names the
    #: column (Connect Four).
    drops: bool = False

    @property
    def keypad(self) -> bool:
        """On a "grid": whether the digit keys play its cells, laid out as a numeric keypad."""
        return False

    def move_of(self, component: int, detail: int) -> Move | None:
        """The move on ``component`` (a pile; a cell, or a column where pieces drop) with
        ``detail`` (how many it takes; 0 on a board), or None when no move is that: what a
        drawing's click names."""
        try:
            move = self._make_move(component, detail)
            if 0 <= move < self.num_moves and self._move_component(move) == (component, detail):
                return move
        except (IndexError, ValueError, QarenaError):
            pass
        return None

    def click_help(self) -> str:
        """How to play its drawing with the mouse (and keys); typing is the default."""
        return _("Type a move.")

    def rules_text(self) -> str:
        """The game in a sentence or two; empty when there is nothing short to say."""
        return ""

    def move_help(self, position: Position) -> str:
        """How to type a move, with an example legal in ``position``."""
        example = self.format_move(self.legal_moves(position)[0])
        return _("Moves: like {example}.").format(example=example)

    def move_words(self, move: Move) -> str:
        """What a move does, after a subject: "takes 2 from pile 3 (3:2)", "plays b2"."""
        return _("plays {move}").format(move=self.format_move(move))

    def illegal_words(self, position: Position, move: Move) -> str:
        """Why a well-formed move is not legal in ``position``."""
        return _("{move} is not legal here.").format(move=self.format_move(move))

    def ending_words(self, position: Position, last_mover: str, addressed: bool = False) -> str:
        """Why the game ended in ``position``, naming ``last_mover`` ("The AI", "A"); with
        ``addressed``, the last mover is the person read to ("You took the last match"), whose
        verb other languages conjugate differently."""
        return _("The game is over.")

    def seat(self, position: Position) -> str | None:
        """The name of the side to move (``x``, ``o``); None in impartial games."""
        side = self.to_move(position)
        return None if side is None else ("first", "second")[side]

    def winning_line(self, position: Position) -> str | None:
        """How a won game was won, e.g. ``x has 3 in a row (a1 b2 c3)``; None otherwise."""
        return None

    def winner_mark(self, position: Position) -> str | None:
        """The mark (``x``, ``o``) of the side that has won ``position``, as data; None when
        nobody has, or the game has no marks."""
        return None

    def end_words(self, position: Position) -> str:
        """How a finished game ended, in words, e.g. ``the board is full: draw``."""
        won = self.winning_line(position)
        if won is not None:
            return won
        return _("over: {value} for the player to move").format(
            value=value_word(self.result(position))
        )

    # --- rule-based players and theory ----------------------------------------------
    #: Names of the game's closed-form players (``bouton``, ``poles``...), beyond random and
    #: perfect play.
    rule_players: tuple[str, ...] = ()

    @property
    def grid(self) -> BoardGrid | None:
        """The game's board as the players that read cells and lines see it (search, n-tuple
        networks, drawings): tic-tac-toe's, and Connect Four's, whose pieces drop; None for a
        game that is not a board of cells where k marks in a line win."""
        return None

    @property
    def searchable(self) -> bool:
        """Whether qarena's search solver plays this game, solving positions one at a time
        (``qarena.exact.search``): what works for boards too big to enumerate."""
        return False

    def rule_move(self, name: str, position: Position) -> Move:
        """The move rule player ``name`` makes in ``position`` (a non-terminal position)."""
        raise QarenaError(_("{spec} has no {name!r} player").format(spec=self.spec, name=name))

    def theory(self, position: Position) -> Theory | None:
        """The closed-form account of ``position``, computed without the solver; None when
        the game has none (it is then explained by search)."""
        return None

    # --- shared implementation ------------------------------------------------------
    @cached_property
    def _weights(self) -> tuple[int, ...]:
        weights, w = [], 1
        for r in self.radix:
            weights.append(w)
            w *= r
        return tuple(weights)

    @property
    def num_positions(self) -> int:
        """Size of the dense encoding: every code in ``range(num_positions)`` decodes."""
        n = 1
        for r in self.radix:
            n *= r
        return n

    def position_bound(self) -> int:
        """An upper bound on the positions reachable from the start, for memory estimates made
        before any search; games whose encoding is sparse give a closer one."""
        return self.num_positions

    @property
    def symmetry_count(self) -> int:
        """How many positions a symmetry class holds at most, as estimates divide by it."""
        return 1

    def _check_position(self, position: Position) -> None:
        if len(position) != len(self.radix) or any(
            not 0 <= v < r for v, r in zip(position, self.radix, strict=True)
        ):
            raise PositionError(
                _("{position} is not a position of {spec}").format(
                    position=echo_value(position), spec=self.spec
                )
            )

    def position_of(self, given: object) -> Position:
        """A position given from outside, checked: its text form (:meth:`parse_position`), or
        its components as a tuple or list of whole numbers, which must be a position the text
        form could name (in range, and by the game's own rules: pieces that do not float, a
        fair count of marks). Anything else is a one-line :class:`PositionError`."""
        if isinstance(given, str):
            return self.parse_position(given)
        if isinstance(given, tuple | list) and len(given) != len(self.radix):  # before reading
            raise PositionError(
                _("{position} is not a position of {spec}").format(
                    position=echo_value(given), spec=self.spec
                )
            )
        if not isinstance(given, tuple | list) or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_) for v in given
        ):
            raise PositionError(
                _(
                    "{position} is not a position of {spec}: give its text, like {example!r}, "
                    "or its {count} components as whole numbers"
                ).format(
                    position=echo_value(given),
                    spec=self.spec,
                    example=self.format_position(self.start()),
                    count=len(self.radix),
                )
            )
        position = tuple(int(v) for v in given)
        self._check_position(position)
        # The text form's checks are the game's rules for a position: the same ones here.
        self.parse_position(self.format_position(position))
        return position

    def apply(self, position: Position, move: Move) -> Position:
        """The position after ``move``; the given position is left as it was."""
        if move not in self.legal_moves(position):
            raise IllegalMoveError(
                _("{move} is not legal in {position}").format(
                    move=self.format_move(move) if 0 <= move < self.num_moves else move,
                    position=self.format_position(position),
                )
            )
        return self._apply_unchecked(position, move)

    def encode(self, position: Position) -> int:
        """The position's dense code in ``range(num_positions)``."""
        self._check_position(position)
        return sum(v * w for v, w in zip(position, self._weights, strict=True))

    def decode(self, code: int) -> Position:
        """The position with this code."""
        if not 0 <= code < self.num_positions:
            raise PositionError(
                _("code {code} is outside 0..{last}").format(code=code, last=self.num_positions - 1)
            )
        out = []
        for r in self.radix:
            code, d = divmod(code, r)
            out.append(d)
        return tuple(out)

    # --- the same, for many positions at once (building tables) --------------------------
    def canonical_perms(self, digits: np.ndarray) -> np.ndarray:
        """:meth:`_canonical_perm` of every row of ``digits`` (one position's components per
        row), as an int64 array of the same shape. Games override it with array code; this
        default asks one position at a time."""
        out = np.empty(digits.shape, dtype=np.int64)
        for i, row in enumerate(digits.tolist()):
            out[i] = self._canonical_perm(tuple(row))
        return out

    def canonical(self, position: Position) -> Position:
        """The representative of the position's symmetry class (same value, same moves)."""
        perm = self._canonical_perm(position)
        return tuple(position[i] for i in perm)

    def canonical_move(self, position: Position, move: Move) -> Move:
        """``move`` in ``position`` expressed as the same move in ``canonical(position)``."""
        perm = self._canonical_perm(position)
        comp, detail = self._move_component(move)
        return self._make_move(perm.index(comp), detail)

    def canonical_moves(self, position: Position) -> dict[Move, Move]:
        """Every legal move of ``position`` mapped to the same move in its canonical frame."""
        perm = self._canonical_perm(position)
        out = {}
        for m in self.legal_moves(position):
            comp, detail = self._move_component(m)
            out[m] = self._make_move(perm.index(comp), detail)
        return out

    def images(self, position: Position) -> tuple[Position, ...]:
        """Every position of ``position``'s symmetry class, each once (a player that may play
        images apart is asked at one drawn from these: ``judging.uniform``); games with
        symmetry override it."""
        return (position,)

    def uncanonical_move(self, position: Position, move: Move) -> Move:
        """The inverse of :meth:`canonical_move`: a canonical-frame move back in ``position``."""
        perm = self._canonical_perm(position)
        comp, detail = self._move_component(move)
        return self._make_move(perm[comp], detail)

    def __str__(self) -> str:
        return self.spec


def mixed_radix_arrays(radix: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``radix`` and its place values as int64 arrays; refused when the codes would not fit
    in 64 bits (classic Connect Four's 3^42), rather than wrapped around."""
    places = [1]
    for r in radix[:-1]:
        places.append(places[-1] * r)
    if places[-1] * (radix[-1] if radix else 1) >= 2**63:
        raise TooLargeError(
            _("the positions of this game do not fit 64-bit codes; it is solved by search")
        )
    return np.asarray(radix, dtype=np.int64), np.asarray(places, dtype=np.int64)


def value_name(value: int) -> str:
    """``win``, ``draw`` or ``loss``: the value as data (JSON, files), never translated."""
    return VALUE_NAMES[value]


def value_word(value: int) -> str:
    """The value in a word for people, in the current language (``win`` in English)."""
    return _(VALUE_WORDS[value])


@dataclass(frozen=True)
class TheoryTable:
    """A small table for people: ``header`` over ``rows``, or key/value rows when ``header`` is
    None; ``total`` is a bold last row below a rule."""

    header: tuple[str, ...] | None
    rows: tuple[tuple[str, ...], ...]
    total: tuple[str, ...] | None = None


class Theory(ABC):
    """A game's closed-form account of a position, computed without the solver.

    Subclasses are frozen dataclasses holding at least these attributes; ``rule`` names the
    rule applied (``bouton``, ``subtraction``...), ``winning_moves`` the moves that leave the
    opponent lost (empty when the position is lost or over).
    """

    game: Game
    position: Position
    value: int
    rule: str
    winning_moves: tuple[Move, ...]

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.position)

    @property
    def optimal_moves(self) -> tuple[Move, ...]:
        """The moves that keep the value: the winning moves, or in a lost position every move
        (all of them lose against best play)."""
        if self.value == WIN:
            return self.winning_moves
        return tuple(self.game.legal_moves(self.position))

    @abstractmethod
    def sentences(self) -> list[str]:
        """Why the position has its value, in sentences."""

    @abstractmethod
    def details(self) -> dict[str, Any]:
        """The theory's numbers, JSON-ready."""

    @abstractmethod
    def table(self) -> TheoryTable:
        """The theory's numbers as a table."""

    def describe_move(self, move: Move) -> str:
        """A winning move and what it leaves."""
        after = self.game.format_position(self.game.apply(self.position, move))
        return _("{move}  leaving {position}").format(
            move=self.game.format_move(move), position=after
        )
