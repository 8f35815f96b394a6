"""The reachable positions of a game as a dense index ("rows"), with their transitions and exact
values: the tables the solver, the learners, evaluation and play all share.

With canonical positions on (the default), a row stands for a symmetry class: its
representative, whose moves are in its own frame and lead to representatives. Without, every
reachable position has its own row. Nothing is sized by the encoding, only by what is reached.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from qarena.budget import check_memory, estimate_positions, format_count, search_limit
from qarena.errors import PositionError, QarenaError, TooLargeError
from qarena.games.base import Game, Move, Position, mixed_radix_arrays
from qarena.i18n import _
from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.space import explore, index_space, retrograde

#: Positions :meth:`GameTables.lift` works on at once, in bounded memory.
LIFT_CHUNK = 1 << 16
#: Depths are stored as uint16.
MAX_PLIES = 2**16 - 1


@dataclass(frozen=True, eq=False)
class GameTables:
    """``codes[row]``: the position's code, ascending; ``nxt[row, move]``: the row a move leads
    to, -1 where illegal; ``moves[row, :nmoves[row]]``: the legal moves in order;
    ``result[row]``: the terminal result for the mover, NOT_TERMINAL where play goes on;
    ``mover[row]``: the seat to move, -1 where the position does not tell (impartial games);
    ``orbit[row]``: the positions the row stands for (1 without symmetry); ``value[row]`` and
    ``depth[row]``: the game value for the mover and the plies to the end with best play (quick
    wins, slow losses); ``start``: the start's row; ``order``: the rows where play goes on,
    each after every row it leads to (the order the search valued them in: it follows the
    moves, not the values)."""

    game: Game
    canonical: bool
    codes: np.ndarray
    nxt: np.ndarray
    moves: np.ndarray
    nmoves: np.ndarray
    result: np.ndarray
    mover: np.ndarray
    orbit: np.ndarray
    value: np.ndarray
    depth: np.ndarray
    start: int
    order: np.ndarray

    @property
    def rows(self) -> int:
        return int(self.codes.size)

    def __repr__(self) -> str:
        kind = "symmetry classes" if self.canonical else "positions"
        return f"GameTables({self.game.spec}, {self.rows:,} rows: {kind})"

    @cached_property
    def legal(self) -> np.ndarray:
        """``legal[row, move]``: the move is legal there."""
        legal: np.ndarray = self.nxt >= 0
        legal.flags.writeable = False
        return legal

    @cached_property
    def live(self) -> np.ndarray:
        """``live[row]``: play goes on there (someone has a move to make)."""
        live: np.ndarray = self.result == NOT_TERMINAL
        live.flags.writeable = False
        return live

    @property
    def positions(self) -> int:
        """Reachable positions, every member of a class counted."""
        return int(self.orbit.sum())

    def find(self, position: Position) -> int:
        """The row of ``position`` (of its class, with canonical positions on), or -1 if play
        cannot reach it."""
        game = self.game
        code = game.encode(game.canonical(position) if self.canonical else position)
        row = int(np.searchsorted(self.codes, code))
        return row if row < self.codes.size and self.codes[row] == code else -1

    def row_of(self, position: Position) -> int:
        """The row of ``position``; refuses one play cannot reach."""
        row = self.find(position)
        if row < 0:
            raise PositionError(
                _("{position} cannot be reached from the start of {spec}").format(
                    position=self.game.format_position(position), spec=self.game.spec
                )
            )
        return row

    def frame(self, position: Position) -> tuple[int, dict[Move, Move]]:
        """The row of ``position`` and each legal move's id in the row's frame (the same move
        seen in the class representative)."""
        row = self.row_of(position)
        game = self.game
        if self.canonical:
            return row, game.canonical_moves(position)
        return row, {m: m for m in game.legal_moves(position)}

    def position(self, row: int) -> Position:
        """The position a row stands for (its class representative)."""
        return self.game.decode(int(self.codes[row]))

    def lift(self, mask: np.ndarray, plain: GameTables) -> np.ndarray:
        """A ``[row, move]`` mask of these canonical tables as the same choices in ``plain``
        (the game's tables without symmetry), each position reading its class's row in its
        own frame; so agents that share values across symmetries meet those that do not."""
        game = self.game
        radix = np.asarray(game.radix, dtype=np.int64)
        weight = np.asarray(mixed_radix_arrays(game.radix)[1], dtype=np.int64)
        parts = [game._move_component(m) for m in range(game.num_moves)]
        comp_of = np.array([c for c, _ in parts], dtype=np.int64)
        details = sorted({d for _, d in parts})
        detail_of = np.array([details.index(d) for _, d in parts], dtype=np.int64)
        # The move a (component, detail) pair names, or -1 where there is none.
        named = np.full((radix.size, len(details)), -1, dtype=np.int64)
        for c in range(radix.size):
            for j, d in enumerate(details):
                with contextlib.suppress(QarenaError, ValueError, IndexError):
                    named[c, j] = game._make_move(c, d)
        slots = np.arange(radix.size, dtype=np.int64)[None, :]
        out = np.zeros(plain.nxt.shape, dtype=np.bool_)
        for first in range(0, plain.rows, LIFT_CHUNK):
            digits = (plain.codes[first : first + LIFT_CHUNK, None] // weight) % radix
            perms = game.canonical_perms(digits)
            rows = np.searchsorted(self.codes, np.take_along_axis(digits, perms, axis=1) @ weight)
            where = np.empty_like(perms)  # where each component went
            np.put_along_axis(where, perms, np.broadcast_to(slots, perms.shape), axis=1)
            legal = plain.legal[first : first + LIFT_CHUNK]
            for m in range(game.num_moves):
                ok = np.flatnonzero(legal[:, m])
                moved = named[where[ok, comp_of[m]], detail_of[m]]
                out[first + ok, m] = mask[rows[ok], moved]
        return out


def check_fits(game: Game, canonical: bool = True) -> None:
    """Refuse, before anything is allocated, a game clearly too large to search here."""
    check_memory(game, "solve", canonical=canonical)
    if game.max_plies > MAX_PLIES:
        raise TooLargeError(
            _(
                "{spec} is too large: games can last {plies:,} moves; the solver handles at "
                "most {most:,}"
            ).format(spec=game.spec, plies=game.max_plies, most=MAX_PLIES)
        )


@lru_cache(maxsize=4)
def game_tables(game: Game, canonical: bool = True) -> GameTables:
    """Search ``game`` from its start once per process (later calls return the cached tables):
    its reachable positions (classes, with ``canonical``), transitions and exact values.

    Refuses, with TooLargeError, a game whose estimate does not fit the memory budget before
    searching, and stops a search that finds more positions than the budget holds."""
    check_fits(game, canonical)
    ga = game.arrays()
    limit = search_limit(game)
    # A bit per code beats a hash set where the encoding is dense enough: a bitmap no larger
    # than the hash set the estimate implies (16 bytes per position).
    bitmap = game.num_positions // 8 <= 16 * estimate_positions(game, canonical)
    found, complete = explore(ga, canonical, limit, bitmap)
    if not complete:
        raise TooLargeError(
            _(
                "{spec} is too large to search here: more than {count} positions reachable, "
                "more than this machine's memory holds"
            ).format(spec=game.spec, count=format_count(limit))
        )
    codes = np.sort(found)
    del found
    n, m = codes.size, game.num_moves
    check_memory(game, "tables", positions=n, canonical=canonical)
    nxt = np.empty((n, m), dtype=np.int32)
    moves = np.empty((n, m), dtype=np.int32)
    nmoves = np.empty(n, dtype=np.int32)
    result = np.empty(n, dtype=np.int8)
    mover = np.empty(n, dtype=np.int8)
    orbit = np.empty(n, dtype=np.int64)
    index_space(ga, canonical, codes, nxt, moves, nmoves, result, mover, orbit)
    start_code = game.encode(game.canonical(game.start()) if canonical else game.start())
    start = int(np.searchsorted(codes, start_code))
    value = np.empty(n, dtype=np.int8)
    depth = np.empty(n, dtype=np.uint16)
    order = np.empty(n, dtype=np.int32)
    order = order[: retrograde(nxt, result, start, game.max_plies, value, depth, order)]
    for arr in (codes, nxt, moves, nmoves, result, mover, orbit, value, depth, order):
        arr.flags.writeable = False
    return GameTables(
        game, canonical, codes, nxt, moves, nmoves, result, mover, orbit, value, depth, start, order
    )
