"""Connect Four solved by search (``kernels/search.py``), for boards too big to enumerate: the
size of a search table, and :class:`Searcher`.

:class:`Searcher` holds a transposition table and answers for positions of one board size:
the score of a position (:meth:`Searcher.score`: Pons' and BitBully's scores, positive when the
player to move wins, its size how soon) and the score of each move
(:meth:`Searcher.move_scores`), looking early positions up in an opening book when it has one.
Four in a row only, on boards whose columns fit a 64-bit word with a spare bit each. Within
:meth:`Searcher.within` a call searches at most a given count of positions, else ends with
:class:`BudgetSpent`: with one worker, a budget that ends it at the same position on any
machine, as seconds do not.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import BoardGrid, Game, Move, Position, grid_of
from qarena.i18n import _
from qarena.kernels import search as k
from qarena.threads import run_threads

if TYPE_CHECKING:  # book.py builds books with a Searcher
    from qarena.exact.book import Book

#: Bytes an entry of the table takes: the key's low 40 bits, both bounds, a move, in one word.
ENTRY_BYTES = 8
#: The most a table takes unless asked for more: 1 GiB, and never more than a quarter of the
#: memory budget. Pages are touched only as entries are written, so a short search costs less.
DEFAULT_TABLE_BYTES = 1 << 30
#: Positions whose move scores a SearchSolution keeps before it starts afresh.


def prime_at_least(n: int) -> int:
    """The smallest odd prime at least ``max(n, 4099)``: the table's size (see kernels/search)."""
    n = max(n, 4099) | 1
    while any(n % d == 0 for d in range(3, int(n**0.5) + 1, 2)):
        n += 2
    return n


def default_entries(entry_bytes: int = ENTRY_BYTES) -> int:
    """Entries of a table sized from the memory budget (:data:`DEFAULT_TABLE_BYTES` at most)."""
    return prime_at_least(min(DEFAULT_TABLE_BYTES, memory_budget() // 4) // entry_bytes)


def check_table(entries: int, entry_bytes: int) -> None:
    """Refuse, before allocating, a search table of ``entries`` that memory cannot hold."""
    check_count("entries", entries, 2**40)
    need = entries * entry_bytes
    if need > memory_budget():
        raise TooLargeError(
            _(
                "a search table of {entries:,} entries needs {need}, more than this machine "
                "can spare ({budget}); ask for fewer entries"
            ).format(entries=entries, need=format_bytes(need), budget=format_bytes(memory_budget()))
        )


def searchable(game: Game) -> bool:
    """Can a searcher here solve this game: Connect Four with four in a row, and a column's
    cells plus a spare bit for every column within 64 bits (:class:`Searcher`), or
    tic-tac-toe of up to 40 cells (:class:`LineSearcher`)."""
    return game.searchable


def bits(grid: BoardGrid, position: Position) -> tuple[np.uint64, np.uint64, int]:
    """A position as (the mover's stones, all stones, the count of stones), as bitboards."""
    rows, cols = grid.rows, grid.cols
    mine = mask = 0
    stones = sum(1 for v in position if v)
    mover = 1 if stones % 2 == 0 else 2  # x moves first
    for cell, v in enumerate(position):
        if not v:
            continue
        r, c = divmod(cell, cols)
        bit = 1 << (c * (rows + 1) + (rows - 1 - r))  # row 0 is the top
        mask |= bit
        if v == mover:
            mine |= bit
    return np.uint64(mine), np.uint64(mask), stones


class BudgetSpent(QarenaError):
    """A search given up at the count of positions :meth:`Searcher.within` allowed it."""


@dataclass
class Searcher:
    """Solves positions of one Connect Four board; its table carries over between them, and
    ``book`` (when given) answers for the positions it holds without a search."""

    game: Game
    entries: int = field(default_factory=default_entries)
    workers: int = field(default_factory=lambda: len(os.sched_getaffinity(0)))
    book: Book | None = None
    table: np.ndarray = field(init=False, repr=False)
    counters: np.ndarray = field(init=False, repr=False)
    grid: BoardGrid = field(init=False, repr=False)
    #: Positions the call under way may still search (:meth:`within`); None: no budget.
    _left: int | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.grid = grid_of(self.game)
        if not (self.grid.gravity and searchable(self.game)):
            raise QarenaError(
                _(
                    "{spec} cannot be searched: search solves four in a row on boards where "
                    "columns × (rows + 1) is at most 64"
                ).format(spec=self.game.spec)
            )
        # The table's size is a prime of at least the entries asked for, and of at least the
        # fewest that tell every key of this board from the others (kernels/search), plus the
        # spare entry that the last home's bucket ends on.
        check_table(self.entries, ENTRY_BYTES)
        size = prime_at_least(max(self.entries, k.least_entries(self.grid.rows, self.grid.cols)))
        check_table(size + 1, ENTRY_BYTES)
        check_count("workers", self.workers, 1_024)
        if self.book is not None and self.book.spec != self.game.spec:
            raise QarenaError(
                _("the book is one of {other}, not of {spec}").format(
                    other=self.book.spec, spec=self.game.spec
                )
            )
        self.table = np.zeros(size + 1, dtype=np.uint64)
        self.counters = np.zeros(k.COUNTERS, dtype=np.int64)

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.counters[0])

    @property
    def counts(self) -> dict[str, int]:
        """Positions searched so far, split the way Steininger's c4 counts (it counts only
        the ``interior`` ones): ``leaves`` settled at once, ``forced`` with one safe move,
        ``cuts`` with several but cut at entry (bounds, table), ``interior`` searched."""
        c = self.counters
        return {
            "nodes": int(c[k.C_NODES]),
            "leaves": int(c[k.C_LEAVES]),
            "forced": int(c[k.C_FORCED]),
            "cuts": int(c[k.C_CUTS]),
            "interior": int(c[k.C_INTERIOR]),
        }

    @contextlib.contextmanager
    def within(self, nodes: int | None) -> Iterator[None]:
        """Calls in the block search at most ``nodes`` positions in all (None: no budget),
        else end with :class:`BudgetSpent`, with nothing stored that was not proved. With one
        worker, where a search ends depends on the positions alone: the same answers on any
        machine (with more, on which thread gets there first)."""
        if nodes is not None:
            check_count("nodes", nodes, 2**62)
        self._left = nodes
        try:
            yield
        finally:
            self._left = None

    def _run(self, jobs: list[Callable[[np.ndarray], None]], first_stops: bool = False) -> None:
        """Run each job on a thread of its own with its own counters (the table is shared),
        and wait; with ``first_stops``, the first job to finish stops the others. Ctrl-C
        stops every search at once (none stores a result it did not prove) and is raised
        again here. Within a budget (:meth:`within`) each job may count the positions left,
        and a job that counts past them ends its own search: :class:`BudgetSpent`, unless
        another job answered first (``first_stops``)."""
        flags = [np.zeros(k.COUNTERS, dtype=np.int64) for _ in jobs]
        left = self._left
        if left is not None:
            if left <= 0:
                raise BudgetSpent(_("the search's budget of positions is spent"))
            for f in flags:
                f[k.C_BUDGET] = left
        answered = [False]

        def run(job: Callable[[np.ndarray], None], counters: np.ndarray) -> None:
            job(counters)
            if first_stops and not counters[k.C_STOP]:
                answered[0] = True
            if first_stops:
                for f in flags:
                    f[1] = 1

        def stop() -> None:
            for f in flags:
                f[1] = 1

        try:
            run_threads(
                [functools.partial(run, job, f) for job, f in zip(jobs, flags, strict=True)], stop
            )
        finally:
            for f in flags:
                self.counters += f
            self.counters[k.C_STOP] = 0
            self.counters[k.C_BUDGET] = 0
        if left is not None:
            self._left = left - sum(int(f[k.C_NODES]) for f in flags)
            overran = any(f[k.C_NODES] > left for f in flags)
            if overran and not answered[0]:
                raise BudgetSpent(_("the search's budget of positions is spent"))

    def _check(self, position: Position) -> None:
        if self.game.is_terminal(position):
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=self.game.format_position(position)
                )
            )

    def _booked(self, mine: np.uint64, mask: np.uint64, stones: int, weak: bool) -> int | None:
        if self.book is None or stones > self.book.plies:
            return None
        found = self.book.score(mine, mask, self.grid.rows, self.grid.cols)
        if found is None or not weak:
            return found
        return (found > 0) - (found < 0)

    def score(self, position: Position, weak: bool = False) -> int:
        """The score of a position where play goes on (no four yet, a free cell); with
        ``weak``, only its sign: 1 a win, 0 a draw, -1 a loss for the player to move.

        Every thread searches the position, each breaking ties between moves in its own
        order and all sharing the table; the first to finish answers and the others stop."""
        self._check(position)
        grid = self.grid
        mine, mask, stones = bits(grid, position)
        booked = self._booked(mine, mask, stones, weak)
        if booked is not None:
            return booked
        answers: list[int] = []
        lock = threading.Lock()

        def search(variant: int) -> Callable[[np.ndarray], None]:
            def job(counters: np.ndarray) -> None:
                found = k.solve_bits(
                    mine, mask, stones, grid.rows, grid.cols, self.table, counters, variant, weak
                )
                with lock:
                    if not counters[1]:
                        answers.append(int(found))

            return job

        self._run([search(v) for v in range(self.workers)], first_stops=True)
        return answers[0]

    def _children(
        self, position: Position, weak: bool
    ) -> tuple[dict[int, int], list[tuple[int, np.uint64, np.uint64]], int]:
        """Each legal move's score where it needs no search (a win at once, the last cell,
        the book), the other moves with the bits of the position after them (centre last,
        so the threads pop the centre first), and the stones on the board."""
        self._check(position)
        grid = self.grid
        rows, cols, cells = grid.rows, grid.cols, grid.cells
        mine, mask, stones = bits(grid, position)
        wins = k.winning_cells(mine, mask, rows, k.board_cells(rows, cols))
        free = k.playable(mask, k.bottom_row(rows, cols), k.board_cells(rows, cols))
        known: dict[int, int] = {}
        pending: list[tuple[int, np.uint64, np.uint64]] = []
        for col in reversed(k.centre_order(cols).tolist()):
            move = free & k.column_bits(col, rows)
            if not move:
                continue
            if wins & move:
                known[col] = 1 if weak else (cells + 1 - stones) // 2
            elif stones + 1 == cells:
                known[col] = 0
            else:
                after = (mine ^ mask, mask | move)
                booked = self._booked(*after, stones + 1, weak)
                if booked is not None:
                    known[col] = -booked
                else:
                    pending.append((col, *after))
        return known, pending, stones

    def move_scores(self, position: Position, weak: bool = False) -> dict[Move, int]:
        """Each legal move's score for the player making it (with ``weak``, its sign), the
        moves shared out among ``workers`` threads that share the table (the scores do not
        depend on who searched what: every entry is a true bound)."""
        rows, cols = self.grid.rows, self.grid.cols
        results, pending, stones = self._children(position, weak)
        lock = threading.Lock()

        def job(counters: np.ndarray) -> None:
            while not counters[1]:
                with lock:
                    if not pending:
                        return
                    col, other, after = pending.pop()
                found = k.solve_bits(
                    other, after, stones + 1, rows, cols, self.table, counters, 0, weak
                )
                if not counters[1]:
                    results[col] = -int(found)

        if pending:
            self._run([job] * min(self.workers, len(pending)))
        return dict(sorted(results.items()))

    def best_moves(self, position: Position, weak: bool = False) -> list[Move]:
        """The legal moves of the best score (the fastest win, the slowest loss), in column
        order; with ``weak``, those that keep the position's value. The same moves as the
        best of :meth:`move_scores`, found with less search: the position's own score first
        (from the book, or searched on every thread as :meth:`score` does, which leaves the
        table holding bounds for its moves), then one null-window test a move, shared among
        the threads: does the score after it give the mover that score? A lost position's
        moves all keep its value, so ``weak`` needs no test there."""
        return self.scored_best_moves(position, weak)[1]

    def scored_best_moves(self, position: Position, weak: bool = False) -> tuple[int, list[Move]]:
        """The position's score (with ``weak``, its sign) and :meth:`best_moves`, from one
        search: a caller wanting both need not ask :meth:`score` again."""
        rows, cols = self.grid.rows, self.grid.cols
        best = self.score(position, weak)
        if weak:
            best = (best > 0) - (best < 0)
        if weak and best < 0:
            return best, [c for c in range(cols) if not position[c]]
        known, pending, stones = self._children(position, weak)
        # A move needing no search keeps the score when its score is the position's (a win at
        # once always is: no score beats it).
        kept = [col for col, found in known.items() if found == best]
        lock = threading.Lock()

        def job(counters: np.ndarray) -> None:
            while not counters[1]:
                with lock:
                    if not pending:
                        return
                    col, other, after = pending.pop()
                # The move keeps the score if the score after it is at most -best (it is never
                # below -best: the position's score is the best of its moves').
                found = k.solve_between(
                    other, after, stones + 1, rows, cols, self.table, counters, 0, -best,
                    1 - best,
                )  # fmt: skip
                if not counters[1] and found <= -best:
                    with lock:
                        kept.append(col)

        won_at_once = not weak and best == (self.grid.cells + 1 - stones) // 2
        if pending and not won_at_once:  # else only a win at once is best
            self._run([job] * min(self.workers, len(pending)))
        return best, sorted(kept)
