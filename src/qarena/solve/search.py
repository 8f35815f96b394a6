"""Connect Four solved by search (``kernels/search.py``), for boards too big to enumerate.

:class:`Searcher` holds a transposition table and answers for positions of one board size:
the score of a position (:func:`score`: Pons' and BitBully's scores, positive when the player
to move wins, its size how soon) and the score of each move (:meth:`Searcher.move_scores`).
Four in a row only, on boards whose columns fit a 64-bit word with a spare bit each.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

import numpy as np

from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import Move, Position
from qarena.games.connect4 import ConnectFour
from qarena.i18n import _
from qarena.kernels import search as k

#: Entries of the transposition table unless asked for another size: a prime, so keys spread
#: over it; 8 bytes each (part of the key and a bound), 64 MB.
DEFAULT_ENTRIES = 8_388_593
#: Bytes an entry takes: the key's low 56 bits and a one-byte bound, in one word.
ENTRY_BYTES = 8


def prime_at_least(n: int) -> int:
    """The smallest odd prime at least ``max(n, 4099)``: the table's size (see kernels/search)."""
    n = max(n, 4099) | 1
    while any(n % d == 0 for d in range(3, int(n**0.5) + 1, 2)):
        n += 2
    return n


def searchable(game: ConnectFour) -> bool:
    """Can :class:`Searcher` solve this game: four in a row, and a column's cells plus a
    spare bit for every column within 64 bits."""
    return game.k == 4 and game.cols * (game.rows + 1) <= 64


def bits(game: ConnectFour, position: Position) -> tuple[np.uint64, np.uint64, int]:
    """A position as (the mover's stones, all stones, the count of stones), as bitboards."""
    rows, cols = game.rows, game.cols
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
    """Solves positions of one Connect Four board; its table carries over between them."""

    game: ConnectFour
    entries: int = DEFAULT_ENTRIES
    workers: int = field(default_factory=lambda: len(os.sched_getaffinity(0)))
    table: np.ndarray = field(init=False, repr=False)
    counters: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not searchable(self.game):
            raise QarenaError(
                _(
                    "{spec} cannot be searched: search solves four in a row on boards where "
                    "columns × (rows + 1) is at most 64"
                ).format(spec=self.game.spec)
            )
        check_count("entries", self.entries, 2**40)
        need = self.entries * ENTRY_BYTES
        if need > memory_budget():
            raise TooLargeError(
                _(
                    "a search table of {entries:,} entries needs {need}, more than this machine "
                    "can spare ({budget}); ask for fewer entries"
                ).format(
                    entries=self.entries,
                    need=format_bytes(need),
                    budget=format_bytes(memory_budget()),
                )
            )
        self.table = np.zeros(prime_at_least(self.entries), dtype=np.uint64)
        self.counters = np.zeros(2, dtype=np.int64)

    def score(self, position: Position) -> int:
        """The score of a position where play goes on (no four yet, a free cell)."""
        game = self.game
        if game.is_terminal(position):
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=game.format_position(position)
                )
            )
        mine, mask, stones = bits(game, position)
        return int(
            k.solve_bits(mine, mask, stones, game.rows, game.cols, self.table, self.counters)
        )

    def move_scores(self, position: Position) -> dict[Move, int]:
        """Each legal move's score for the player making it, the moves shared out among
        ``workers`` threads that share the table (the scores do not depend on who searched
        what: every entry is a true bound)."""
        game = self.game
        if game.is_terminal(position):
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=game.format_position(position)
                )
            )
        mine, mask, stones = bits(game, position)
        rows, cols = game.rows, game.cols
        columns = [c for c in k.centre_order(cols) if c in set(game.legal_moves(position))]

        def one(col: int, counters: np.ndarray) -> int:
            return int(k.move_score(mine, mask, stones, rows, cols, col, self.table, counters))

        if self.workers == 1 or len(columns) == 1:
            found = [one(c, self.counters) for c in columns]
        else:
            pending = list(reversed(columns))
            results: dict[int, int] = {}
            lock = threading.Lock()

            def worker() -> None:
                counters = np.zeros(2, dtype=np.int64)
                while True:
                    with lock:
                        if not pending:
                            break
                        col = pending.pop()
                    results[col] = one(col, counters)
                with lock:
                    self.counters[0] += counters[0]

            threads = [
                threading.Thread(target=worker) for _ in range(min(self.workers, len(columns)))
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            found = [results[c] for c in columns]
        return {int(c): s for c, s in sorted(zip(columns, found, strict=True))}


def score(game: ConnectFour, position: Position) -> int:
    """The score of ``position`` with a fresh table (:meth:`Searcher.score`)."""
    return Searcher(game).score(position)


__all__ = ["DEFAULT_ENTRIES", "Searcher", "bits", "score", "searchable"]
