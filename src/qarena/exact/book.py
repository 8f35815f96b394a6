"""Opening books for Connect Four solved by search: the exact score of every position of the
first plies, built by qarena's own search and looked up before searching.

A book of ``plies`` N holds every position with at most N stones in which nobody has four,
mirror images once (under the smaller of their two keys, ``kernels.search.canonical``). Only
the positions of exactly N stones are searched (:class:`BookBuild`, on every core, the threads
sharing one table, resumable from a ``.partial`` file); the earlier ones are backed up from
them move by move (``kernels.search.back_up``), which is exact and takes seconds.

A book is a file in qarena's array-file container (``qarena.policyfile``): the sorted keys
(``uint64``) and their scores (``int8``), with the game and the plies in its metadata.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.exact.searcher import Searcher, default_entries, searchable
from qarena.games.base import Game, grid_of
from qarena.i18n import _
from qarena.kernels import search as k
from qarena.policyfile import ArraySpec, load_policy, load_shipped, save_policy
from qarena.threads import run_threads

#: The ``kind`` in a book's metadata, and in a build's partial file.
KIND = "connect4-book"
PARTIAL_KIND = "connect4-book-partial"
#: Most plies a book may have: 14 plies of 6×7 are already hundreds of millions of positions.
MAX_PLIES = 14
#: Bytes a position takes while a book is built: its two bitboards and key for each of its
#: moves as the next ply is made, before duplicates go.
BUILD_BYTES_PER_CHILD = 24
#: Seconds between two saves of a build's progress.
CHECKPOINT_SECONDS = 60.0
#: The book shipped in the package, by game: the file under ``qarena/data``.
SHIPPED = {"connect4:6x7:4": "connect4-6x7.book.npz"}


@dataclass(frozen=True, eq=False)
class Book:
    """Exact scores of the first ``plies`` plies of one board, by canonical key."""

    spec: str
    plies: int
    keys: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return int(self.keys.size)

    def __repr__(self) -> str:
        return f"Book({self.spec}: {len(self):,} positions of up to {self.plies} plies)"

    def score(self, mine: np.uint64, mask: np.uint64, rows: int, cols: int) -> int | None:
        """The score of a position, or None when the book does not hold it."""
        key = k.canonical(mine + mask, rows, cols, k.geometry(rows, cols))
        i = int(np.searchsorted(self.keys, key))
        if i < self.keys.size and self.keys[i] == key:
            return int(self.scores[i])
        return None


def levels(game: Game, plies: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For each count of stones 0..plies, the positions of that many stones in which nobody
    has four, mirror images once: (the mover's stones, all stones, canonical keys), sorted by
    key. Each ply's arrays are checked against the memory budget before they are made."""
    grid = grid_of(game)
    rows, cols = grid.rows, grid.cols
    mine = np.zeros(1, dtype=np.uint64)
    mask = np.zeros(1, dtype=np.uint64)
    keys = np.zeros(1, dtype=np.uint64)
    out = [(mine, mask, keys)]
    for stones in range(plies):
        need = mine.size * cols * BUILD_BYTES_PER_CHILD
        if need > memory_budget():
            raise TooLargeError(
                _(
                    "a book of {plies} plies needs more than {need} while it is built, more "
                    "than this machine can spare ({budget}); ask for fewer plies"
                ).format(plies=plies, need=format_bytes(need), budget=format_bytes(memory_budget()))
            )
        mine, mask, keys = k.expand(mine, mask, stones, rows, cols)
        keys, first = np.unique(keys, return_index=True)
        mine, mask = mine[first], mask[first]
        out.append((mine, mask, keys))
    return out


def _digest(keys: np.ndarray) -> str:
    return hashlib.sha256(keys.tobytes()).hexdigest()


@dataclass
class BookBuild:
    """Building a book: the positions of the last ply searched on ``workers`` threads sharing
    one table of ``entries``, progress saved to ``out + ".partial"`` every minute and when
    stopped, and picked up again by a later build of the same book."""

    game: Game
    plies: int
    out: str
    workers: int = 1
    entries: int = 0
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(init=False, repr=False)
    scores: np.ndarray = field(init=False, repr=False)
    nodes: int = 0

    def __post_init__(self) -> None:
        if not searchable(self.game):
            Searcher(self.game)  # raises the one-line refusal
        check_count("--plies", self.plies, MAX_PLIES, least=0)
        self.levels = levels(self.game, self.plies)
        last = self.levels[-1]
        mine, mask, _keys = last
        grid = grid_of(self.game)
        self.scores = k.immediate_scores(mine, mask, self.plies, grid.rows, grid.cols)
        self._resume()

    @property
    def partial(self) -> str:
        return self.out + ".partial"

    @property
    def total(self) -> int:
        """Positions of the last ply."""
        return int(self.scores.size)

    @property
    def done(self) -> int:
        return int(np.count_nonzero(self.scores != k.FULL))

    def _meta(self) -> dict[str, Any]:
        return {
            "kind": PARTIAL_KIND,
            "game": self.game.spec,
            "plies": self.plies,
            "positions": self.total,
            "keys_sha256": _digest(self.levels[-1][2]),
        }

    def _resume(self) -> None:
        if not os.path.exists(self.partial):
            return
        want = self._meta()

        def expect(meta: dict[str, Any]) -> dict[str, ArraySpec]:
            if {key: meta.get(key) for key in want} != want:
                raise QarenaError(
                    _(
                        "{file} is the progress of another book; remove it or build that book"
                    ).format(file=self.partial)
                )
            return {"scores": ((self.total,), np.dtype(np.int64))}

        saved = load_policy(self.partial, expect).arrays["scores"]
        known = saved != k.FULL
        # Held to what a score of a position of this many stones can be before it is kept:
        # the book stores int8, so a score out of range would wrap (10**15 + 7 became 7).
        most = (len(self.game.start()) + 1 - self.plies) // 2
        if (known & ((saved < -most) | (saved > most))).any():
            raise QarenaError(
                _("{file} is damaged: it holds scores no position of {plies} stones has").format(
                    file=self.partial, plies=self.plies
                )
            )
        self.scores[known] = saved[known]

    def chunks(self, size: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The positions still to search, in pieces of ``size``: (their places in the last
        ply, the movers' stones, all stones), for workers elsewhere (``solve_chunk``)."""
        mine, mask, _keys = self.levels[-1]
        todo = np.flatnonzero(self.scores == k.FULL)
        return [(i, mine[i], mask[i]) for i in np.array_split(todo, max(1, -(-todo.size // size)))
                if i.size]  # fmt: skip

    def record(self, places: np.ndarray, scores: np.ndarray) -> None:
        """Scores found elsewhere for the positions at ``places`` of the last ply."""
        self.scores[places] = scores

    def complete(self) -> Book:
        """Once every position of the last ply is scored: the book, written to ``out``, and
        the progress file gone."""
        book = self.finish()
        save_book(self.out, book)
        if os.path.exists(self.partial):
            os.remove(self.partial)
        return book

    def checkpoint(self) -> None:
        """Save the scores found so far (the safe writer: a kill leaves the old file)."""
        save_policy(self.partial, {"scores": self.scores}, self._meta())

    def run(
        self,
        on_progress: Callable[[int, int], None] | None = None,
        stop: threading.Event | None = None,
    ) -> Book | None:
        """Search every position of the last ply not yet scored, then back up and write the
        book. Returns None, with the progress saved, when ``stop`` is set first."""
        game, grid = self.game, grid_of(self.game)
        rows, cols = grid.rows, grid.cols
        searcher = Searcher(game, entries=self.entries or default_entries())
        mine, mask, _keys = self.levels[-1]
        todo = [int(i) for i in np.flatnonzero(self.scores == k.FULL)]
        todo.reverse()  # popped from the end: in key order
        lock = threading.Lock()
        flags = [np.zeros(k.COUNTERS, dtype=np.int64) for _ in range(self.workers)]

        def work(counters: np.ndarray) -> None:
            while True:
                with lock:
                    if not todo or counters[1]:
                        return
                    i = todo.pop()
                found = k.solve_bits(
                    mine[i], mask[i], self.plies, rows, cols, searcher.table, counters
                )
                if counters[1]:
                    with lock:
                        todo.append(i)  # stopped midway: the score is not one
                    return
                self.scores[i] = found

        last = [time.monotonic()]

        def between() -> bool:
            if on_progress is not None:
                on_progress(self.done, self.total)
            if stop is not None and stop.is_set():
                return True
            if time.monotonic() - last[0] > CHECKPOINT_SECONDS:
                self.checkpoint()
                last[0] = time.monotonic()
            return False

        def halt() -> None:
            for f in flags:
                f[1] = 1

        try:
            run_threads(
                [functools.partial(work, f) for f in flags], halt, every=0.5, between=between
            )
        finally:
            self.nodes += sum(int(f[0]) for f in flags)
        if self.done < self.total:
            self.checkpoint()
            return None
        return self.complete()

    def finish(self) -> Book:
        """Back the last ply's scores up to the start, and make the book."""
        grid = grid_of(self.game)
        rows, cols = grid.rows, grid.cols
        keys = [self.levels[-1][2]]
        scores = [self.scores]
        child_keys, child_scores = self.levels[-1][2], self.scores
        for stones in range(self.plies - 1, -1, -1):
            mine, mask, level_keys = self.levels[stones]
            found = k.back_up(mine, mask, stones, rows, cols, child_keys, child_scores)
            if (found == k.MISSING).any():
                raise AssertionError("a position's successor is missing from the next ply")
            keys.append(level_keys)
            scores.append(found)
            child_keys, child_scores = level_keys, found
        every = np.concatenate(keys)
        order = np.argsort(every, kind="stable")
        return Book(
            self.game.spec,
            self.plies,
            every[order],
            np.concatenate(scores)[order].astype(np.int8),
        )


def solve_chunk(
    spec: str, plies: int, mine: np.ndarray, mask: np.ndarray, entries: int
) -> np.ndarray:
    """The scores of positions of ``plies`` stones, searched here with one table (what a Ray
    worker runs for ``qarena book --backend ray``)."""
    from qarena.games import parse_spec

    searcher = Searcher(parse_spec(spec), entries=entries, workers=1)  # Connect Four only
    rows, cols = searcher.grid.rows, searcher.grid.cols
    out = np.empty(mine.size, dtype=np.int64)
    for i in range(mine.size):
        out[i] = k.solve_bits(
            mine[i], mask[i], plies, rows, cols, searcher.table, searcher.counters
        )
    return out


#: What a Ray worker gets for ``qarena book --backend ray``: the board, the plies, the places
#: of the positions in the last ply, their bitboards, and the entries of its table.
ChunkTask = tuple[str, int, np.ndarray, np.ndarray, np.ndarray, int]


def solve_chunk_task(task: ChunkTask) -> tuple[np.ndarray, np.ndarray]:
    """One Ray task: (the places, their scores)."""
    spec, plies, places, mine, mask, entries = task
    return places, solve_chunk(spec, plies, mine, mask, entries)


def save_book(path: str, book: Book) -> None:
    save_policy(
        path,
        {"keys": book.keys, "scores": book.scores},
        {"kind": KIND, "game": book.spec, "plies": book.plies, "positions": len(book)},
    )


def load_book(path: str | os.PathLike[str], game: Game) -> Book:
    """A book file for ``game``; anything else is refused in one line naming the file."""
    p = os.fspath(path)
    meta: dict[str, Any] = {}

    def expect(found: dict[str, Any]) -> dict[str, ArraySpec]:
        if found.get("kind") != KIND:
            raise QarenaError(_("{file} is not an opening book").format(file=p))
        if found.get("game") != game.spec:
            raise QarenaError(
                _("{file} is a book of {other}, not of {spec}").format(
                    file=p, other=found.get("game"), spec=game.spec
                )
            )
        n, plies = found.get("positions"), found.get("plies")
        if not isinstance(n, int) or not isinstance(plies, int) or not 0 < n < 2**32:
            raise QarenaError(_("{file} is damaged: its size is not a count").format(file=p))
        if not 0 <= plies <= MAX_PLIES:
            raise QarenaError(_("{file} is damaged: its size is not a count").format(file=p))
        meta.update(found)
        return {"keys": ((n,), np.dtype(np.uint64)), "scores": ((n,), np.dtype(np.int8))}

    data = load_policy(p, expect)
    keys = data.arrays["keys"]
    if keys.size > 1 and not bool((keys[1:] > keys[:-1]).all()):
        raise QarenaError(_("{file} is damaged: its keys are not in order").format(file=p))
    # No position's score is beyond a win with the first stone.
    most = (len(game.start()) + 1) // 2
    scores = data.arrays["scores"]
    if ((scores < -most) | (scores > most)).any():
        raise QarenaError(_("{file} is damaged: a score is out of range").format(file=p))
    return Book(game.spec, int(meta["plies"]), keys, data.arrays["scores"])


def shipped_book(game: Game) -> Book | None:
    """The book that comes with qarena for this board, if there is one."""
    name = SHIPPED.get(game.spec)
    return None if name is None else load_shipped(name, lambda path: load_book(path, game))


__all__ = [
    "Book",
    "BookBuild",
    "levels",
    "load_book",
    "save_book",
    "shipped_book",
    "solve_chunk",
    "solve_chunk_task",
]
