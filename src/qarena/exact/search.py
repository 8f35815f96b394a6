"""Connect Four solved by search (``kernels/search.py``), for boards too big to enumerate.

:class:`Searcher` holds a transposition table and answers for positions of one board size:
the score of a position (:meth:`Searcher.score`: Pons' and BitBully's scores, positive when the
player to move wins, its size how soon) and the score of each move
(:meth:`Searcher.move_scores`), looking early positions up in an opening book when it has one.
:class:`SearchSolution` answers what :class:`~qarena.exact.solver.Solution` answers (values,
plies to the end, the moves that keep the value) by search, for the rest of qarena.
Four in a row only, on boards whose columns fit a 64-bit word with a spare bit each.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.exact.book import Book, shipped_book
from qarena.exact.solver import Outcome
from qarena.games.base import DRAW, LOSS, WIN, BoardGrid, Game, Move, Position, grid_of
from qarena.i18n import _
from qarena.kernels import mnk
from qarena.kernels import search as k
from qarena.threads import check, run_threads

#: Bytes an entry of the table takes: the key's low 40 bits, both bounds, a move, in one word.
ENTRY_BYTES = 8
#: The most a table takes unless asked for more: 1 GiB, and never more than a quarter of the
#: memory budget. Pages are touched only as entries are written, so a short search costs less.
DEFAULT_TABLE_BYTES = 1 << 30
#: Positions whose move scores a SearchSolution keeps before it starts afresh.
MAX_KEPT = 100_000


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

    def _run(self, jobs: list[Callable[[np.ndarray], None]], first_stops: bool = False) -> None:
        """Run each job on a thread of its own with its own counters (the table is shared),
        and wait; with ``first_stops``, the first job to finish stops the others. Ctrl-C
        stops every search at once (none stores a result it did not prove) and is raised
        again here."""
        flags = [np.zeros(k.COUNTERS, dtype=np.int64) for _ in jobs]

        def run(job: Callable[[np.ndarray], None], counters: np.ndarray) -> None:
            job(counters)
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


def _sign(score: int) -> int:
    return WIN if score > 0 else LOSS if score < 0 else DRAW


def end_score(result: int, stones: int, cells: int) -> int:
    """The score of a finished position of ``stones`` for the player to move: 0 for a draw,
    else (the last stone won) minus the winner's score, as the move that won was scored
    (a win with stone number ``s`` scores ``(cells + 2 - s) // 2``)."""
    if result == DRAW:
        return 0
    won = (cells + 2 - stones) // 2
    return won if result == WIN else -won


def plies_to_end(score: int, stones: int, cells: int) -> int:
    """Plies to the end of best play from a position of ``stones`` with this score: the
    winner's last stone is the one that leaves ``cells + 1 - 2 * |score|`` or one fewer cells
    (whichever is the winner's), a draw fills the board."""
    if score == 0:
        return cells - stones
    last = cells + 2 - 2 * abs(score)  # the winning stone's count, or one more
    if (last - stones) % 2 != (1 if score > 0 else 0):
        last -= 1
    return last - stones


@dataclass(eq=False)
class SearchSolution:
    """What :class:`~qarena.exact.solver.Solution` answers, by search, for one Connect Four
    board too big to enumerate: values (a weak search: who wins), plies to the end and every
    move's score (an exact one). Answers are kept, so a game's positions are searched once."""

    game: Game
    searcher: Searcher | LineSearcher
    _scores: dict[tuple[Position, bool], dict[Move, int]] = field(
        default_factory=dict, init=False, repr=False
    )
    #: The best moves of positions whose every move was not scored (:meth:`_best`).
    _best_kept: dict[tuple[Position, bool], list[Move]] = field(
        default_factory=dict, init=False, repr=False
    )
    #: One search at a time: callers on other threads (the web app's requests) wait, and
    #: then find the answer kept, rather than searching the same position side by side.
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __repr__(self) -> str:
        book = self.searcher.book
        return (
            f"SearchSolution({self.game.spec}: by search"
            + (f", {book!r}" if book is not None else "")
            + ")"
        )

    def is_reachable(self, position: Position) -> bool:
        """Any position the game accepts is one play can reach: its text form is checked."""
        return True

    def move_scores(self, position: Position, weak: bool = False) -> dict[Move, int]:
        """Each legal move's score (:meth:`Searcher.move_scores`); nothing at the end."""
        if self.game.is_terminal(position):
            return {}
        key = (position, weak)
        found = self._scores.get(key)
        if found is not None:
            return found
        # The wait for the lock keeps to the caller's limit too (threads.limit): a web request
        # in line behind a long search gives up when its time is up or its client has gone.
        while not self._lock.acquire(timeout=0.1):
            check()
        try:
            found = self._scores.get(key)
            if found is None:
                if len(self._scores) >= MAX_KEPT:
                    self._scores.clear()  # a long-lived process (the web app) stays bounded
                found = self.searcher.move_scores(position, weak)
                self._scores[key] = found
        finally:
            self._lock.release()
        return found

    def score(self, position: Position) -> int:
        """The position's score for the player to move (0 at the end of the game, or minus
        the winner's score when it has just won)."""
        game = self.game
        if game.is_terminal(position):
            stones = sum(1 for v in position if v)
            return end_score(game.result(position), stones, len(position))
        return max(self.move_scores(position).values())

    def value_of(self, position: Position) -> int:
        """WIN, DRAW or LOSS for the player to move, with best play by both."""
        if self.game.is_terminal(position):
            return self.game.result(position)
        return max(self.move_values(position).values())

    def sign(self, position: Position) -> int:
        """WIN, DRAW or LOSS for the player to move, by one weak search of the position itself
        (:meth:`value_of` scores each move), or from the move scores kept. Not kept itself:
        a caller asking many positions (the refutation search) keeps its own answers."""
        game = self.game
        if game.is_terminal(position):
            return game.result(position)
        known = self._scores.get((position, False)) or self._scores.get((position, True))
        if known:
            return _sign(max(known.values()))
        while not self._lock.acquire(timeout=0.1):
            check()
        try:
            return _sign(self.searcher.score(position, weak=True))
        finally:
            self._lock.release()

    def depth_of(self, position: Position) -> int:
        """Plies to the end with best play (quick wins, slow losses)."""
        if self.game.is_terminal(position):
            return 0
        stones = sum(1 for v in position if v)
        return plies_to_end(self.score(position), stones, len(position))

    def move_values(self, position: Position) -> dict[Move, int]:
        """For each legal move, the value it leaves the mover (from the exact scores when
        they are known already, else by a weak search)."""
        exact = self._scores.get((position, False))
        scores = exact if exact is not None else self.move_scores(position, weak=True)
        return {m: _sign(s) for m, s in scores.items()}

    def move_outcomes(self, position: Position) -> dict[Move, Outcome]:
        """For each legal move, its value for the mover and the plies to the end with it
        (from the exact scores)."""
        stones = sum(1 for v in position if v)
        cells = len(position)
        return {
            m: Outcome(_sign(s), plies_to_end(s, stones, cells))
            for m, s in self.move_scores(position).items()
        }

    def optimal_moves(self, position: Position) -> list[Move]:
        """The legal moves that keep the position's value, in column order; empty at
        terminal positions."""
        return self._best(position, weak=True)

    def best_moves(self, position: Position) -> list[Move]:
        """The moves of the best score, in column order: the fastest win, the slowest loss."""
        return self._best(position, weak=False)

    def _best(self, position: Position, weak: bool) -> list[Move]:
        """The best moves from every move's scores when they are known already, else by
        :meth:`Searcher.best_moves` (a search of the position, then one test a move)."""
        if self.game.is_terminal(position):
            return []
        known = self._scores.get((position, False))
        if known is None and weak:
            known = self._scores.get((position, True))
        if known is not None or not isinstance(self.searcher, Searcher):
            scores = known if known is not None else self.move_scores(position, weak)
            if weak:
                scores = {m: _sign(s) for m, s in scores.items()}
            top = max(scores.values())
            return [m for m, s in scores.items() if s == top]
        key = (position, weak)
        found = self._best_kept.get(key)
        if found is not None:
            return found
        while not self._lock.acquire(timeout=0.1):
            check()
        try:
            found = self._best_kept.get(key)
            if found is None:
                if len(self._best_kept) >= MAX_KEPT:
                    self._best_kept.clear()
                found = self.searcher.best_moves(position, weak)
                self._best_kept[key] = found
        finally:
            self._lock.release()
        return found

    @property
    def start_value(self) -> int:
        return self.value_of(self.game.start())


@lru_cache(maxsize=2)
def search_solution(game: Game) -> SearchSolution:
    """One search solution per board and process (one table of the default size), with the
    book shipped for that board if there is one."""
    if grid_of(game).gravity:
        return SearchSolution(game, Searcher(game, book=shipped_book(game)))
    return SearchSolution(game, LineSearcher(game))


__all__ = [
    "ENTRY_BYTES",
    "LineSearcher",
    "SearchSolution",
    "Searcher",
    "bits",
    "default_entries",
    "end_score",
    "plies_to_end",
    "search_solution",
    "searchable",
]
