"""Perfect play in the web app, bounded: which boards solved by search it offers, the solutions
it keeps (by memory, not by count), and the gate every request that may search goes through.

A search of Connect Four can take from microseconds to days, and it takes every core while it
runs. So a request that may search (a move against perfect play on a board solved by search,
or a page that shows the solver's verdicts there) never runs on the server's worker threads,
which every page shares: it waits, in the event loop, for one of :data:`SEARCH_SLOTS` threads
of its own; at most :data:`MAX_WAITING` wait, and the next is answered 503 with Retry-After.
Its search ends when :data:`MOVE_SECONDS` have passed since it arrived (waiting included), when
its client has gone, or when the server stops (``threads.limit``); the game is then left exactly
as it was before the request (:func:`bounded`), and the person is told to try again.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
from fastapi import Request

from qarena import threads
from qarena.budget import memory_budget
from qarena.errors import QarenaError
from qarena.exact import Exact, Oracle, Outcome, SearchSolution
from qarena.exact.book import SHIPPED
from qarena.exact.search import Searcher
from qarena.games import Game, Move, Position
from qarena.i18n import _
from qarena.web.exceptions import Full

T = TypeVar("T")

#: The longest a request against perfect play may search: the AI's reply and the verdicts shown
#: after it. Measured (2 cores shared with other work): classic Connect Four's slowest moves,
#: the AI's first beyond the opening book (ply 5), take 10-40 s; every later move under 10 s.
MOVE_SECONDS = 30.0
#: Searches at once, each on a thread of its own (a Searcher itself uses every core).
SEARCH_SLOTS = 2
#: Requests waiting for a search slot; the next is answered 503 at once. A request's time limit
#: counts its wait, so one that waits long is answered 503 at its limit all the same.
MAX_WAITING = 2
#: Bytes of a search table of the web's (the command line's is 1 GiB): 64 MiB, the size
#: Pons' solver uses; measured on classic Connect Four, moves take as long as with 1 GiB.
TABLE_BYTES = 64 << 20
#: Bytes of solutions the web keeps at most (a quarter of the memory budget if that is less):
#: four boards' search tables, or many small games' enumerated tables.
KEPT_BYTES = 256 << 20
#: Boards solved by search (without an opening book) that the web offers perfect play on: a
#: search from their start (usually their longest), weak and exact, took at most about half of
#: MOVE_SECONDS. Measured with a 64 MiB table on 2 cores shared with other work, in three runs
#: (benchmarks/web_flood.py --boards): connect4:5x6 1.5-2.7 s, 4x7 1.8 s, 5x7 7-16 s,
#: tictactoe:4x5:4 1.4-3.4 s, 5x5:4 6-9 s. Not offered: connect4:6x6 12.6-20 s, 4x8 10-22 s,
#: tictactoe:4x6:4 14-21 s; connect4:7x7, 4x9 and tictactoe:5x5:5, 5x6:4, 6x6:4 did not end
#: within 60 s (nor will 7x8, 6x8, 8x7, 5x9).
QUICK_BOARDS = (
    "connect4:5x6:4",
    "connect4:4x7:4",
    "connect4:5x7:4",
    "tictactoe:4x5:4",
    "tictactoe:5x5:4",
)


def offered_boards() -> tuple[str, ...]:
    """The boards solved by search the web offers perfect play on: those with an opening book,
    and :data:`QUICK_BOARDS`."""
    return (*SHIPPED, *QUICK_BOARDS)


def check_offered(game: Game) -> None:
    """Refuse, in one line that lists what is offered, perfect play of a board solved by search
    whose moves the web could not answer in time. Builds nothing."""
    answers = Oracle.of(game)
    if answers.searched and game.spec not in offered_boards():
        text = _(
            "the web app offers perfect play by search only on boards it answers within "
            "{seconds:g} s: {boards}; play {spec} against perfect play on the command line: "
            "qarena play {spec} --opponent perfect"
        ).format(seconds=MOVE_SECONDS, boards=", ".join(offered_boards()), spec=game.spec)
        if answers.reason is not None:  # searched only because it does not fit here: say so
            text = _("{reason}; {search}").format(reason=answers.reason, search=text)
        raise QarenaError(text)


def solution_bytes(solution: Exact) -> int:
    """What a kept solution holds in memory: its search table, or its enumerated tables."""
    if isinstance(solution, SearchSolution):
        s = solution.searcher
        if isinstance(s, Searcher):
            return int(s.table.nbytes)
        return int(s.keys.nbytes + s.values.nbytes)
    tables = getattr(solution, "tables", None)
    return sum(int(a.nbytes) for a in vars(tables).values() if isinstance(a, np.ndarray))


def web_solution(game: Game) -> Exact:
    """A new solution of ``game`` with the web's table size (enumerated games: the solver's,
    cached per process); a table over this machine's memory budget refused as it comes."""
    answers = Oracle.of(game)
    if not answers.searched:
        return answers.exact()
    return SearchSolution(game, answers.searcher(table_bytes=TABLE_BYTES).required())


class Kept:
    """Solutions by game spec, least recently used first, within ``most`` bytes: a new one
    pushes out the oldest until they fit. Games hold a :class:`KeptSolution`, never the
    solution itself, so one pushed out is freed (and built afresh if asked for again)."""

    def __init__(self, most: int | None = None) -> None:
        self.most = min(KEPT_BYTES, memory_budget() // 4) if most is None else most
        self._solutions: OrderedDict[str, tuple[Exact, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._solutions)

    @property
    def bytes(self) -> int:
        with self._lock:
            return sum(size for _, size in self._solutions.values())

    def get(self, game: Game) -> Exact:
        with self._lock:
            found = self._solutions.get(game.spec)
            if found is not None:
                self._solutions.move_to_end(game.spec)
                return found[0]
        built = web_solution(game)
        size = solution_bytes(built)
        with self._lock:
            found = self._solutions.get(game.spec)
            if found is not None:  # built meanwhile by another request: one is kept
                return found[0]
            self._solutions[game.spec] = (built, size)
            total = sum(s for _, s in self._solutions.values())
            while total > self.most and len(self._solutions) > 1:
                _spec, (_old, freed) = self._solutions.popitem(last=False)
                total -= freed
        return built


class KeptSolution:
    """A game's solution as the games against perfect play hold it: looked up in :class:`Kept`
    at each use, so the memory stays within the cache's bound however many games are open."""

    def __init__(self, game: Game, kept: Kept) -> None:
        self._game = game
        self._kept = kept

    def __repr__(self) -> str:
        return f"KeptSolution({self._game.spec})"

    @property
    def game(self) -> Game:
        return self._game

    def _now(self) -> Exact:
        return self._kept.get(self._game)

    def is_reachable(self, position: Position) -> bool:
        return self._now().is_reachable(position)

    def value_of(self, position: Position) -> int:
        return self._now().value_of(position)

    def depth_of(self, position: Position) -> int:
        return self._now().depth_of(position)

    def move_values(self, position: Position) -> dict[Move, int]:
        return self._now().move_values(position)

    def optimal_moves(self, position: Position) -> list[Move]:
        return self._now().optimal_moves(position)

    def move_outcomes(self, position: Position) -> dict[Move, Outcome]:
        return self._now().move_outcomes(position)


class Busy(Full):
    """The server cannot answer this now (503): ``retry_after`` seconds is when to try again."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))


def stopped_text(why: str, seconds: float) -> str:
    """Why a request's search was given up, for the person, who may simply try again."""
    if why == "time":
        return _(
            "perfect play took longer than {seconds:g} s to answer, so it was stopped and the "
            "game is as it was before; try again (what it found so far is kept)"
        ).format(seconds=seconds)
    return _("the search was stopped (the server is stopping); the game is as it was before")


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Searches in the block end after ``seconds`` (and when the request's own limit is
    reached: its client gone, the server stopping) with :class:`Busy`; the caller puts what it
    changed back as it was."""
    try:
        with threads.limit(seconds=seconds):
            yield
    except threads.Stopped as e:
        raise Busy(stopped_text(e.why, seconds), seconds) from None


class Searches:
    """The gate of requests that may search: ``slots`` threads of its own, ``waiting`` requests
    in line at most (the next: :class:`Busy`), each stopped when its client goes or the server
    stops (``stopping``)."""

    def __init__(
        self,
        slots: int = SEARCH_SLOTS,
        waiting: int = MAX_WAITING,
        seconds: float = MOVE_SECONDS,
        stopping: Callable[[], bool] = lambda: False,
    ) -> None:
        self.slots, self.waiting, self.seconds = slots, waiting, seconds
        self.stopping = stopping
        self._pool = ThreadPoolExecutor(slots, thread_name_prefix="qarena-search")
        self._closed = False
        #: Requests in line or searching; read and changed in the event loop only.
        self.pending = 0

    def full(self) -> Busy:
        return Busy(
            _(
                "the server is busy with other people's moves against perfect play or players "
                "that think; try again in {seconds:g} s"
            ).format(seconds=math.ceil(self.seconds)),
            self.seconds,
        )

    async def run(self, request: Request | None, work: Callable[[], T]) -> T:
        """``work()`` on a search thread, within the request's limit: its client gone (checked
        every quarter second), the server stopping. Waits in the event loop, never on a
        worker thread that pages need."""
        if self.pending >= self.slots + self.waiting:
            raise self.full()
        self.pending += 1
        gone = threading.Event()
        # The time limit counts from the request's arrival: waiting in line is part of it, so
        # every request is answered within it, searched or not.
        deadline = time.monotonic() + self.seconds

        def limited() -> T:
            left = max(0.0, deadline - time.monotonic())
            try:
                with threads.limit(lambda: gone.is_set() or self.stopping(), seconds=left):
                    return work()
            except threads.Stopped as e:  # stopped outside a search: waiting for its game
                raise Busy(stopped_text(e.why, self.seconds), self.seconds) from None

        try:
            future = self._pool.submit(contextvars.copy_context().run, limited)
            waited = asyncio.wrap_future(future)
            while True:
                done, _pending = await asyncio.wait({waited}, timeout=0.25)
                if done:
                    return waited.result()
                if time.monotonic() >= deadline and future.cancel():  # still in line
                    raise Busy(stopped_text("time", self.seconds), self.seconds)
                left = request is not None and await request.is_disconnected()
                if left or self.stopping():
                    gone.set()
                    if future.cancel():  # never started: nothing to undo
                        raise Busy(stopped_text("stopped", self.seconds), self.seconds)
                    # Started: it ends within a fraction of a second, its game put back.
                    await asyncio.wait({waited})
                    return waited.result()
        finally:
            self.pending -= 1

    def close(self) -> None:
        """Stop taking work; running searches end by their limits (the server is stopping)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._closed = True

    def open(self) -> None:
        """Take work again after :meth:`close`: an app served again (its lifespan started
        anew, as a test client does per session) searches on new threads."""
        if self._closed:
            self._pool = ThreadPoolExecutor(self.slots, thread_name_prefix="qarena-search")
            self._closed = False
