"""Tic-tac-toe boards (m,n,k-games) of up to 40 cells solved by search (``kernels/mnk.py``):
:class:`LineSearcher`, with symmetric keys, answering what :class:`~qarena.exact.searcher.
Searcher` answers for Connect Four.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qarena.errors import QarenaError
from qarena.exact.searcher import check_table, default_entries, prime_at_least
from qarena.games.base import BoardGrid, Game, Move, Position, grid_of
from qarena.i18n import _
from qarena.kernels import mnk
from qarena.threads import run_threads


@dataclass
class LineSearcher:
    """Solves positions of one tic-tac-toe board (an m,n,k-game) by search
    (``kernels/mnk.py``); its table carries over between them. One thread: the table's
    symmetric keys already make these searches short."""

    game: Game
    entries: int = field(default_factory=lambda: default_entries(mnk.ENTRY_BYTES))
    #: No opening book: the searches from the start take seconds.
    book: None = None
    keys: np.ndarray = field(init=False, repr=False)
    values: np.ndarray = field(init=False, repr=False)
    counters: np.ndarray = field(init=False, repr=False)
    grid: BoardGrid = field(init=False, repr=False)

    def __post_init__(self) -> None:
        game = self.grid = grid_of(self.game)
        if game.gravity or not self.game.searchable:
            raise QarenaError(
                _(
                    "{spec} cannot be searched: search solves tic-tac-toe boards of up to "
                    "{most} cells"
                ).format(spec=self.game.spec, most=mnk.MAX_CELLS)
            )
        check_table(self.entries, mnk.ENTRY_BYTES)
        size = prime_at_least(self.entries)
        self.keys = np.zeros(size, dtype=np.uint64)
        self.values = np.zeros(size, dtype=np.int16)
        self.counters = np.zeros(mnk.COUNTERS, dtype=np.int64)
        self._lines = np.array(
            [sum(1 << c for c in line) for line in game.lines], dtype=np.uint64
        ).reshape(-1)
        self._images = np.array(game.symmetries, dtype=np.int64)
        self._powers = np.array([3**c for c in range(game.cells)], dtype=np.uint64)
        self._board = np.uint64((1 << game.cells) - 1)

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.counters[0])

    def _bits(self, position: Position) -> tuple[np.uint64, np.uint64, int]:
        """(the mover's stones, the other's, the count of stones) as bitboards."""
        stones = sum(1 for v in position if v)
        mover = 1 if stones % 2 == 0 else 2  # x moves first
        me = sum(1 << c for c, v in enumerate(position) if v == mover)
        them = sum(1 << c for c, v in enumerate(position) if v and v != mover)
        return np.uint64(me), np.uint64(them), stones

    def _search(self, me: np.uint64, them: np.uint64, stones: int, weak: bool) -> int:
        """One search on a thread of its own, so that Ctrl-C stops it (and is raised again
        here) with nothing stored that was not proved."""
        flags = np.zeros(mnk.COUNTERS, dtype=np.int64)
        found: list[int | BaseException] = []
        game = self.grid

        def run() -> None:
            try:
                score = mnk.solve_bits(
                    me, them, stones, weak, game.cells, self._board, self._lines, game.k,
                    self._images, self._powers, self.keys, self.values, flags,
                )  # fmt: skip
                found.append(int(score))
            except BaseException as e:  # raised again by the caller's thread
                found.append(e)

        def stop() -> None:
            flags[1] = 1

        try:
            run_threads([run], stop)
        finally:
            self.counters[0] += int(flags[0])
        answer = found[0]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def _check(self, position: Position) -> None:
        if self.game.is_terminal(position):
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=self.game.format_position(position)
                )
            )

    def score(self, position: Position, weak: bool = False) -> int:
        """The score of a position where play goes on; with ``weak``, only its sign."""
        self._check(position)
        return self._search(*self._bits(position), weak)

    def move_scores(self, position: Position, weak: bool = False) -> dict[Move, int]:
        """Each legal move's score for the player making it (with ``weak``, its sign)."""
        self._check(position)
        grid = self.grid
        me, them, stones = self._bits(position)
        wins = mnk.threats(me, them, self._lines, grid.k)
        results: dict[Move, int] = {}
        for move in self.game.legal_moves(position):
            bit = np.uint64(1 << move)
            if wins & bit:
                results[move] = 1 if weak else (grid.cells + 1 - stones) // 2
            elif stones + 1 == grid.cells:
                results[move] = 0
            else:
                results[move] = -self._search(them, me | bit, stones + 1, weak)
        return results
