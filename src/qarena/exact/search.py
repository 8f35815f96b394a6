"""Boards too big to enumerate, solved by search: the one place a searcher is built
(:func:`build_searcher`, which :meth:`~qarena.exact.oracles.Oracle.searcher` asks), and
:class:`SearchSolution`, which answers what :class:`~qarena.exact.solver.Solution` answers
(values, plies to the end, the moves that keep the value) by search, for the rest of qarena.

The searchers themselves: :class:`~qarena.exact.searcher.Searcher` for Connect Four
(``searcher.py``), :class:`~qarena.exact.line_searcher.LineSearcher` for tic-tac-toe boards
(``line_searcher.py``); both, and their table sizes, are also importable from here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import lru_cache

from qarena.budget import format_bytes
from qarena.errors import QarenaError
from qarena.exact.book import shipped_book
from qarena.exact.line_searcher import LineSearcher
from qarena.exact.searcher import (
    DEFAULT_TABLE_BYTES,
    ENTRY_BYTES,
    BudgetSpent,
    Searcher,
    bits,
    check_table,
    default_entries,
    prime_at_least,
    searchable,
)
from qarena.exact.solver import Outcome
from qarena.games.base import DRAW, LOSS, WIN, Game, Move, Position, grid_of
from qarena.i18n import _
from qarena.kernels import mnk
from qarena.threads import check


@dataclass(frozen=True)
class Built:
    """A searcher as :func:`build_searcher` made it: ``searcher``, None where none could be
    made; ``fallback``, what it fell back to and why in one line a caller shows or records
    (None when it is as asked); ``refused``, where none was made, the refusal to raise as it
    came (``TooLargeError`` for a table over the memory budget)."""

    searcher: Searcher | LineSearcher | None
    fallback: str | None = None
    refused: QarenaError | None = None

    def required(self) -> Searcher | LineSearcher:
        """The searcher, or its refusal raised."""
        if self.searcher is None:
            assert self.refused is not None
            raise self.refused
        return self.searcher


def _make(
    game: Game, entries: int | None, book: bool, workers: int | None
) -> Searcher | LineSearcher:
    if not grid_of(game).gravity:  # tic-tac-toe boards (LineSearcher says which it solves)
        if entries is None:
            return LineSearcher(game)
        return LineSearcher(game, entries=entries)
    found = shipped_book(game) if book else None
    if entries is None and workers is None:
        return Searcher(game, book=found)
    if workers is None:
        return Searcher(game, entries=entries or default_entries(), book=found)
    return Searcher(game, entries=entries or default_entries(), workers=workers, book=found)


def build_searcher(
    game: Game,
    *,
    table_bytes: int | None = None,
    book: bool = True,
    workers: int | None = None,
    smaller: bool = False,
) -> Built:
    """A new searcher of ``game``: its table of ``table_bytes`` (default: sized from the memory
    budget, :data:`DEFAULT_TABLE_BYTES` at most), the opening book shipped for the board with
    ``book`` (where there is one), ``workers`` threads (default: every core; Connect Four
    only). Never raises for the game or the table: a game search cannot solve, or a table over
    the memory budget, gives no searcher and says why; with ``smaller``, a table over the
    budget falls back to the default size, and says so."""
    try:
        gravity = grid_of(game).gravity  # a game with no board is refused in one line
        if not game.searchable:
            _make(game, None, False, None)  # the searcher's own one-line refusal
    except QarenaError as e:
        return Built(None, str(e), e)
    per = ENTRY_BYTES if gravity else mnk.ENTRY_BYTES
    entries = None if table_bytes is None else max(1, table_bytes // per)
    try:
        return Built(_make(game, entries, book, workers))
    except QarenaError as e:  # its table: over the memory budget, or past any count
        if not smaller or entries is None:
            return Built(None, str(e), e)
        why = e
    least = default_entries(per)
    try:
        searcher = _make(game, least, book, workers)
    except QarenaError as e:  # its table: over the memory budget, or past any count
        return Built(None, str(e), e)
    return Built(
        searcher,
        _("{reason}; searching with a table of {size} instead").format(
            reason=str(why).rstrip("."), size=format_bytes(least * per)
        ),
    )


#: Positions whose move scores a SearchSolution keeps before it starts afresh.
MAX_KEPT = 100_000


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
    return SearchSolution(game, build_searcher(game).required())


__all__ = [
    "DEFAULT_TABLE_BYTES",
    "ENTRY_BYTES",
    "BudgetSpent",
    "Built",
    "LineSearcher",
    "SearchSolution",
    "Searcher",
    "bits",
    "build_searcher",
    "check_table",
    "default_entries",
    "end_score",
    "plies_to_end",
    "prime_at_least",
    "search_solution",
    "searchable",
]
