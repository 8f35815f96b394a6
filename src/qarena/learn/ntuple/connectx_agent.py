"""A Connect Four agent for Kaggle's ConnectX, written by ``qarena export --connectx``: an
n-tuple network learned by self-play (its tables are embedded below) and an alpha-beta search
over its values within Kaggle's clock. It needs numpy and the standard library only. Kaggle
calls ``agent`` (the file's last callable) with its observation and configuration.

The network reads a board as qarena does: each tuple's cells, under each symmetry of the
board, coded 0 (empty, not playable yet), 1 (first player), 2 (second player) or 3 (empty and
playable now) make a base-4 index into that tuple's table (one set of tables per side to
move); the board's value for the first player is tanh of the sum of the entries.
"""

import base64
import math
import time
import zlib

import numpy as np

#: When Kaggle began to run this file: its first move's clock was already running.
_BEGUN = time.perf_counter()

# qarena:begin -- written by qarena export: the network, its board and the opening book.
SPEC = ""
ROWS = 0
COLUMNS = 0
INAROW = 0
SYMMETRIES: list[list[int]] = []
TUPLES = 0
LENGTH = 0
ENTRIES = 0
NETWORK = ("", "", "")
BOOK = ("", "")
BOOK_PLIES = -1
# qarena:end

#: The share of Kaggle's time a move (configuration.actTimeout) that a search may take: the
#: rest is the margin for a slow machine, a collection of garbage, Kaggle's own work.
SHARE = 0.5
#: A deeper search is not started past this share of the move's time: it would take longer
#: than the time left (each depth took about 3 times the one before).
DEEPEN_UNTIL = 0.3
#: Seconds since the file began to run within which a first move counts the loading as
#: its own time (Kaggle runs the file within the first move; a harness that ran it earlier
#: does not).
LOADING = 10.0
#: Nodes searched between two looks at the clock.
CLOCK_EVERY = 128
#: Above any value of the network (tanh: at most 1): a win, sooner wins higher.
WIN = 2.0


def _unpack(text: str, dtype: str, count: int) -> np.ndarray:
    """An array from its embedded text: base64 of zlib of its bytes, byte planes apart (the
    planes of small numbers compress to almost nothing)."""
    raw = np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=np.uint8)
    size = np.dtype(dtype).itemsize
    return raw.reshape(size, count).T.copy().view(dtype).reshape(count)


def _get(holder: object, name: str, default: object = None) -> object:
    """A field of Kaggle's observation or configuration (an attribute, or a dict's key)."""
    if isinstance(holder, dict):
        return holder.get(name, default)
    return getattr(holder, name, default)


class Network:
    """The n-tuple network: the value of a board, and of boards one move on, in one batch."""

    def __init__(self) -> None:
        places = np.cumsum(_unpack(NETWORK[1], "<u8", ENTRIES).astype(np.int64))
        entries = _unpack(NETWORK[2], "<f4", ENTRIES)
        tuples = _unpack(NETWORK[0], "<u2", TUPLES * LENGTH).astype(np.int64)
        span = 4**LENGTH
        weights = np.zeros(2 * TUPLES * span, dtype=np.float32)
        weights[places] = entries
        # One flat table per side to move: tuple t's entries start at t * span.
        self.sides = (weights[: TUPLES * span], weights[TUPLES * span :])
        images = np.array(SYMMETRIES, dtype=np.int64)
        # cells[n, j]: the j-th cell of tuple n % TUPLES under symmetry n // TUPLES.
        self.cells = images[:, tuples.reshape(TUPLES, LENGTH)].reshape(-1, LENGTH)
        self.powers = 4 ** np.arange(LENGTH, dtype=np.int64)
        self.offsets = np.tile(np.arange(TUPLES, dtype=np.int64) * span, len(SYMMETRIES))
        n_cells = ROWS * COLUMNS
        # place[c, n]: what a code at cell c adds to index n (its power of 4 there, or 0).
        place = np.zeros((n_cells, self.cells.shape[0]), dtype=np.int64)
        for j in range(LENGTH):
            place[self.cells[:, j], np.arange(self.cells.shape[0])] += self.powers[j]
        # change[mark - 1, c]: a stone of ``mark`` dropped on cell c (code 3 to mark) and the
        # cell above it becoming playable (code 0 to 3).
        change = np.zeros((2, n_cells, self.cells.shape[0]), dtype=np.int64)
        for mark in (1, 2):
            change[mark - 1] = (mark - 3) * place
            change[mark - 1, COLUMNS:] += 3 * place[:-COLUMNS]
        self.change = change

    def indices(self, board: list[int]) -> np.ndarray:
        """Every (symmetry, tuple)'s place in its side's flat table, for a board (Kaggle's:
        row-major from the top, 0 empty, 1 and 2 the players)."""
        cells = np.asarray(board, dtype=np.int64)
        codes = cells.copy()
        empty = cells == 0
        below = np.ones(cells.size, dtype=bool)  # the bottom row is playable when empty
        below[:-COLUMNS] = cells[COLUMNS:] != 0
        codes[empty & below] = 3
        found: np.ndarray = (codes[self.cells] * self.powers).sum(axis=1) + self.offsets
        return found

    def total(self, side: int, idx: np.ndarray) -> np.ndarray:
        """The sums of the entries ``idx`` names (its last axis: one board's) in the tables of
        ``side`` (0: the first player to move), in 64 bits."""
        sums: np.ndarray = self.sides[side][idx].sum(axis=-1, dtype=np.float64)
        return sums

    def value(self, board: list[int]) -> float:
        """The board's value for the first player, +1 a win, -1 a loss: the very float
        qarena's ``NTupleNetwork.value`` gives (its entries summed one by one in 64 bits, in
        its order, then ``math.tanh``; the search sums them pairwise, 1e-16 apart)."""
        side = sum(1 for c in board if c) % 2
        entries = self.sides[side][self.indices(board)].astype(np.float64)
        return math.tanh(float(np.cumsum(entries)[-1]))


class _OutOfTime(Exception):
    """The move's time is up: the search gives the best move of the last depth finished."""


class Search:
    """Alpha-beta (negamax) over the network's values on bitboards: a column's ROWS + 1 bits,
    bottom first, the top one always empty (Pascal Pons' layout, which qarena's solver and
    opening books share)."""

    def __init__(self, net: Network) -> None:
        self.net = net
        self.height = ROWS + 1
        self.bottom = sum(1 << (c * self.height) for c in range(COLUMNS))
        self.board = self.bottom * ((1 << ROWS) - 1)
        self.columns = [((1 << ROWS) - 1) << (c * self.height) for c in range(COLUMNS)]
        centre = COLUMNS // 2
        self.order = sorted(range(COLUMNS), key=lambda c: (abs(c - centre), c))
        self.table: dict[int, tuple[int, int, float, int]] = {}
        self.nodes = 0
        self.deadline = 0.0
        #: The depth the last move's search finished (0: no search).
        self.depth = 0

    # --- rules ---------------------------------------------------------------------------

    def wins_at(self, stones: int, mask: int) -> int:
        """The empty cells where one more stone of ``stones`` makes INAROW in a line. A line
        that would wrap from one column into the next passes through a column's spare top bit,
        never a stone, so no line wraps."""
        found = 0
        for step in (1, self.height, self.height - 1, self.height + 1):
            for gap in range(INAROW):  # where in the line the empty cell is
                hit = -1
                for j in range(INAROW):
                    if j == gap:
                        continue
                    shift = (j - gap) * step
                    moved = stones >> shift if shift > 0 else stones << -shift
                    hit &= moved
                    if not hit:
                        break
                found |= hit
        return found & self.board & ~mask

    def cell_of(self, bit: int) -> int:
        """The cell (row-major from the top) of a bitboard's one bit."""
        at = bit.bit_length() - 1
        col, row = divmod(at, self.height)
        return (ROWS - 1 - row) * COLUMNS + col

    def moves(self, mine: int, mask: int) -> tuple[float | None, list[int]]:
        """What the mover may play: (a settled value, no moves) when it wins at once or loses
        whatever it plays; else (None, the moves that do not lose at once, as bits), a move
        forced where the opponent would win."""
        free = (mask + self.bottom) & self.board
        stones = mask.bit_count()
        if self.wins_at(mine, mask) & free:
            return self.win(stones + 1), []
        theirs = self.wins_at(mine ^ mask, mask)
        forced = theirs & free
        safe = free & ~(theirs >> 1)  # not under a cell where the opponent wins
        if forced:
            if forced & (forced - 1) or not forced & safe:
                return -self.win(stones + 2), []
            return None, [forced]
        if not safe:
            return -self.win(stones + 2), []
        return None, [safe & self.columns[c] for c in self.order if safe & self.columns[c]]

    def win(self, stones: int) -> float:
        """A win with the ``stones``-th stone: sooner is higher."""
        return WIN + (ROWS * COLUMNS - stones) / (ROWS * COLUMNS)

    # --- search ----------------------------------------------------------------------------

    def statics(self, mine: int, mask: int, idx: np.ndarray, moves: list[int]) -> list[float]:
        """The network's value, for the mover, of the board after each of ``moves``."""
        stones = mask.bit_count()
        side = stones % 2
        cells = [self.cell_of(m) for m in moves]
        after = idx + self.net.change[side][cells]
        found = np.tanh(self.net.total(1 - side, after))
        values: list[float] = (found if side == 0 else -found).tolist()
        return values

    def negamax(
        self, mine: int, mask: int, idx: np.ndarray, depth: int, alpha: float, beta: float
    ) -> float:
        """The position's value for the mover, searched ``depth`` plies."""
        self.nodes += 1
        if self.nodes % CLOCK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise _OutOfTime
        settled, moves = self.moves(mine, mask)
        if settled is not None:
            return settled
        stones = mask.bit_count()
        if stones + 1 >= ROWS * COLUMNS:
            return 0.0  # the last cell, and no win: a draw
        values = self.statics(mine, mask, idx, moves)
        if depth <= 1:
            return max(values)
        key = mine + mask
        first = -1
        kept = self.table.get(key)
        if kept is not None:
            kept_depth, bound, value, first = kept
            if kept_depth >= depth and (
                bound == 0 or (bound > 0 and value >= beta) or (bound < 0 and value <= alpha)
            ):
                return value
        order = sorted(range(len(moves)), key=lambda i: (moves[i] != first, -values[i]))
        start = alpha
        best, chosen = -9.0, moves[order[0]]
        side = stones % 2
        for i in order:
            move = moves[i]
            after = idx + self.net.change[side][self.cell_of(move)]
            value = -self.negamax(mine ^ mask, mask | move, after, depth - 1, -beta, -alpha)
            if value > best:
                best, chosen = value, move
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        bound = 1 if best >= beta else (-1 if best <= start else 0)
        self.table[key] = (depth, bound, best, chosen)
        return best

    def choose(self, board: list[int], seconds: float, book: "Book | None") -> int:
        """The column to play on Kaggle's ``board`` within ``seconds``."""
        started = time.perf_counter()
        self.deadline = started + seconds
        self.depth = 0
        mine, mask = self.bits(board)
        settled, moves = self.moves(mine, mask)
        free = (mask + self.bottom) & self.board
        if settled is not None:
            wins = self.wins_at(mine, mask) & free
            if wins:  # a win at once
                return self.column(wins & -wins)
            theirs = self.wins_at(mine ^ mask, mask) & free
            lost = theirs or free  # lost anyway: block one of the wins, or play on
            return self.column(lost & -lost)
        if len(moves) == 1:
            return self.column(moves[0])
        if book is not None:
            found = book.best(mine, mask, moves, self)
            if found is not None:
                return self.column(found)
        idx = self.net.indices(board)
        values = self.statics(mine, mask, idx, moves)
        ranked = [moves[i] for i in sorted(range(len(moves)), key=lambda i: -values[i])]
        best = ranked[0]
        side = mask.bit_count() % 2
        self.table = {}
        depth = 2
        while time.perf_counter() - started < DEEPEN_UNTIL * seconds:
            scores: dict[int, float] = {}
            alpha = -9.0
            try:
                for move in ranked:
                    after = idx + self.net.change[side][self.cell_of(move)]
                    value = -self.negamax(mine ^ mask, mask | move, after, depth - 1, -9.0, -alpha)
                    scores[move] = value
                    alpha = max(alpha, value)
            except _OutOfTime:
                # A move of this depth beating the last depth's best (searched first) is better.
                if scores and max(scores.values()) > scores.get(ranked[0], 9.0):
                    best = max(scores, key=lambda m: scores[m])
                break
            # Best first at the next depth; those cut by the window keep their order after it.
            ranked.sort(key=lambda m: -scores[m])
            best = ranked[0]
            if abs(scores[best]) >= WIN or depth >= ROWS * COLUMNS - mask.bit_count():
                break  # settled: a win or a loss is proved, or the game is searched to its end
            self.depth = depth
            depth += 1
        return self.column(best)

    def bits(self, board: list[int]) -> tuple[int, int]:
        """Kaggle's board as (the mover's stones, all stones)."""
        stones = [0, 0, 0]
        for cell, mark in enumerate(board):
            if mark:
                row, col = divmod(cell, COLUMNS)
                stones[mark] |= 1 << (col * self.height + ROWS - 1 - row)
        mask = stones[1] | stones[2]
        mover = 1 if mask.bit_count() % 2 == 0 else 2
        return stones[mover], mask

    def column(self, bit: int) -> int:
        return (bit.bit_length() - 1) // self.height


class Book:
    """The opening book: the exact score (Pons': the winner's stones left, plus one; positive
    for the mover) of every position of up to BOOK_PLIES stones, mirror images once, keyed by
    the smaller of the key (the mover's stones plus all stones) and its mirror image's."""

    def __init__(self) -> None:
        scores = np.frombuffer(zlib.decompress(base64.b64decode(BOOK[1])), dtype=np.int8)
        self.keys = _unpack(BOOK[0], "<u8", scores.size)
        self.scores = scores

    def score(self, key: int, search: Search) -> int | None:
        mirrored = 0
        full = (1 << search.height) - 1
        for c in range(COLUMNS):
            part = (key >> (c * search.height)) & full
            mirrored |= part << ((COLUMNS - 1 - c) * search.height)
        least = min(key, mirrored)
        i = int(np.searchsorted(self.keys, np.uint64(least)))
        if i < self.keys.size and int(self.keys[i]) == least:
            return int(self.scores[i])
        return None

    def best(self, mine: int, mask: int, moves: list[int], search: Search) -> int | None:
        """The move of the best exact score among ``moves``, when the book holds every
        position they lead to; else None."""
        if mask.bit_count() + 1 > BOOK_PLIES:
            return None
        best, chosen = None, None
        for move in moves:  # centre first: of equal scores, the centre's
            after = mask | move
            found = self.score((mine ^ mask) + after, search)
            if found is None:
                return None
            if best is None or -found > best:
                best, chosen = -found, move
        return chosen


_state: dict[str, object] = {}


def _made_for() -> str:
    return f"{ROWS} rows × {COLUMNS} columns, {INAROW} in a row ({SPEC})"


def _check(configuration: object) -> None:
    """Refuse, in one line, a configuration other than the network's own board."""
    asked = tuple(_get(configuration, name) for name in ("rows", "columns", "inarow"))
    if asked != (ROWS, COLUMNS, INAROW):
        raise ValueError(
            f"this agent was made for ConnectX of {_made_for()}, not of {asked[0]} rows × "
            f"{asked[1]} columns, {asked[2]} in a row"
        )


def _loaded() -> tuple[Network, Search, Book | None]:
    """The network, its search and the book, made once (the first move pays for it: Kaggle
    gives the first move its overage time)."""
    if "search" not in _state:
        net = Network()
        _state["search"] = Search(net)
        _state["book"] = Book() if BOOK_PLIES >= 0 else None
    search = _state["search"]
    book = _state["book"]
    assert isinstance(search, Search)
    assert book is None or isinstance(book, Book)
    return search.net, search, book


def value(board: list[int]) -> float:
    """The network's value of a board (Kaggle's: row-major from the top) for the first player."""
    return _loaded()[0].value(list(board))


def agent(observation: object, configuration: object) -> int:
    """Kaggle's agent: the column to play. Searches SHARE of ``configuration.actTimeout``
    (less when Kaggle's remaining overage is nearly spent); refuses another board."""
    started = time.perf_counter()
    if "search" not in _state and started - _BEGUN < LOADING:
        started = _BEGUN  # Kaggle runs the file within the first move's clock
    _check(configuration)
    _net, search, book = _loaded()
    board = [int(c) for c in _get(observation, "board")]  # type: ignore[attr-defined]
    act = float(_get(configuration, "actTimeout", 2.0))  # type: ignore[arg-type]
    overage = float(_get(observation, "remainingOverageTime", 60.0))  # type: ignore[arg-type]
    # Nearly out of overage (a slow machine): a shorter search, so no move can overrun.
    share = SHARE if overage > act else SHARE / 2
    # The first move's clock ran while the file was read and its tables built: the search
    # takes what is left of its share (at least a glance).
    seconds = max(0.05, share * act - (time.perf_counter() - started))
    return search.choose(board, seconds, book)
