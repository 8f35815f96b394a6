"""n-tuple networks (``kernels/ntuple.py``): a board game's values from many small lookup
tables, learned by TD(λ) self-play, for boards too big for a table of every position.

:class:`NTupleNetwork` holds the tuples (cells chosen by seeded random walks over the board),
the tables (one set per player to move) and the training settings; it plays as a player
(``act``, ``values``) and learns with :meth:`NTupleNetwork.learn`, on one thread or several
sharing the tables.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import Game, Move, Position
from qarena.games.connect4 import ConnectFour
from qarena.games.tictactoe import TicTacToe
from qarena.i18n import _
from qarena.kernels import ntuple as k
from qarena.kernels.rng import seed_state
from qarena.policyfile import ArraySpec, load_policy, read_meta, save_policy

#: The most tuples and cells per tuple a network may have (a table has 4**length entries).
MAX_TUPLES = 1_000
MAX_LENGTH = 10


def random_walk_tuples(game: TicTacToe, count: int, length: int, seed: int) -> np.ndarray:
    """``count`` tuples of ``length`` distinct cells, each a walk from a random cell to a
    random neighbour (any of the 8 around) not yet in it, started again when it is stuck."""
    rows, cols = game.rows, game.cols
    if length > rows * cols:
        raise QarenaError(
            _("a tuple of {length} cells does not fit a board of {cells}").format(
                length=length, cells=rows * cols
            )
        )
    rng = np.random.default_rng(seed)
    out = np.zeros((count, length), dtype=np.int64)
    for t in range(count):
        while True:
            cell = int(rng.integers(rows * cols))
            walk = [cell]
            while len(walk) < length:
                r, c = divmod(walk[-1], cols)
                around = [(r + dr) * cols + c + dc
                          for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                          if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
                          and (r + dr) * cols + c + dc not in walk]  # fmt: skip
                if not around:
                    break
                walk.append(around[int(rng.integers(len(around)))])
            if len(walk) == length:
                out[t] = walk
                break
    return out


@dataclass
class NTupleNetwork:
    """An n-tuple network for one board (tic-tac-toe or Connect Four of any size)."""

    game: TicTacToe
    tuples: np.ndarray
    weights: np.ndarray = field(repr=False)
    name: str = "ntuple"
    #: Games learned so far.
    games: int = 0

    @classmethod
    def new(cls, game: Game, tuples: int = 70, length: int = 8, seed: int = 0) -> NTupleNetwork:
        """A network of ``tuples`` random-walk tuples of ``length`` cells, its tables zero
        (every board worth a draw), checked against the memory budget first."""
        if not isinstance(game, TicTacToe):
            raise QarenaError(
                _("n-tuple networks play board games (tic-tac-toe, Connect Four), not {spec}")
                .format(spec=game.spec)
            )  # fmt: skip
        check_count("tuples", tuples, MAX_TUPLES)
        check_count("tuple length", length, MAX_LENGTH)
        need = 2 * tuples * k.CODES**length * k.WEIGHT_BYTES
        if need > memory_budget():
            raise TooLargeError(
                _(
                    "{tuples} tuples of {length} cells need {need} of tables, more than this "
                    "machine can spare ({budget})"
                ).format(
                    tuples=tuples,
                    length=length,
                    need=format_bytes(need),
                    budget=format_bytes(memory_budget()),
                )
            )
        layout = random_walk_tuples(game, tuples, length, seed)
        weights = np.zeros((2, tuples, k.CODES**length), dtype=np.float32)
        return cls(game, layout, weights)

    def __post_init__(self) -> None:
        game = self.game
        images = np.array(game.symmetries, dtype=np.int64)
        # cells[s, t, j]: the j-th cell of tuple t seen through symmetry s.
        self._cells = images[:, self.tuples]
        self._lines = np.array(game.lines, dtype=np.int64).reshape(len(game.lines), game.k)
        self._gravity = isinstance(game, ConnectFour)
        self._scratch = np.zeros(self._cells.shape[0] * self._cells.shape[1], dtype=np.int64)
        self._touches = k.touches(self._cells, game.cells)

    # --- as a player --------------------------------------------------------------------

    def _board(self, position: Position) -> np.ndarray:
        return np.asarray(position, dtype=np.int8)

    def value(self, position: Position) -> float:
        """The board's value for x (the first player): +1 a win, -1 a loss."""
        side = self.game.to_move(position)
        found = k.value(
            self.weights, self._board(position), 0 if side is None else side, self._cells,
            self.game.cols, self._gravity, self._scratch,
        )  # fmt: skip
        return float(found)

    def values(self, position: Position) -> dict[Move, float]:
        """Each legal move's value for the player making it: the value of the board it
        leaves, from that player's side (+1 where the move wins)."""
        game = self.game
        side = game.to_move(position)
        sign = 1.0 if side == 0 else -1.0
        out: dict[Move, float] = {}
        for move in game.legal_moves(position):
            after = game.apply(position, move)
            if game.is_terminal(after):
                out[move] = float(game.result(after) * -1)  # the result for the one who moved
            else:
                out[move] = sign * self.value(after)
        return out

    def act(self, position: Position) -> Move:
        """The move of the highest value (the first of them in a tie)."""
        values = self.values(position)
        if not values:
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=self.game.format_position(position)
                )
            )
        return max(values, key=lambda m: values[m])

    # --- learning -----------------------------------------------------------------------

    def learn(
        self,
        games: int,
        *,
        alpha: tuple[float, float] = (0.5, 0.1),
        epsilon: tuple[float, float] = (0.1, 0.0),
        lam: float = 0.5,
        seed: int = 0,
        workers: int = 1,
        total: int | None = None,
    ) -> int:
        """Play and learn ``games`` games of self-play: α (a step on the sum of the tables'
        entries, shared among them) decays from ``alpha[0]`` to ``alpha[1]`` and ε falls from
        ``epsilon[0]`` to ``epsilon[1]`` over ``total`` games
        (default: these), on ``workers`` threads sharing the tables (one thread: the same
        seed learns the same network). Returns the moves made."""
        check_count("games", games, 10**10)
        check_count("workers", workers, len(os.sched_getaffinity(0)) * 4)
        total = games if total is None else total
        counters = [np.zeros(k.COUNTERS, dtype=np.int64) for _ in range(workers)]
        rngs = [seed_state(seed * 1_000 + i + self.games) for i in range(workers)]
        shares = [games // workers + (1 if i < games % workers else 0) for i in range(workers)]
        game = self.game
        share = 1.0 / (self._cells.shape[0] * self._cells.shape[1])
        a0, a1 = alpha[0] * share, alpha[1] * share

        def run(i: int) -> None:
            k.play_games(
                self.weights, self._cells, self._lines, game.rows, game.cols, self._gravity,
                shares[i], a0, a1, epsilon[0], epsilon[1], lam, self.games,
                total, rngs[i], counters[i], *self._touches,
            )  # fmt: skip

        if workers == 1:
            run(0)
        else:
            threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(workers)]
            try:
                for t in threads:
                    t.start()
                for t in threads:
                    while t.is_alive():
                        t.join(timeout=0.2)
            finally:
                for c in counters:
                    c[2] = 1
                for t in threads:
                    t.join()
        self.games += sum(int(c[0]) for c in counters)
        return sum(int(c[1]) for c in counters)


#: What an n-tuple network's file says it is.
KIND = "ntuple"


def is_network(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an n-tuple network's file (by its metadata alone; False for any
    file that is not one of qarena's, whose loader then says what is wrong)."""
    try:
        return read_meta(path).get("kind") == KIND
    except QarenaError:
        return False


def save_network(path: str | os.PathLike[str], net: NTupleNetwork) -> None:
    """The network in qarena's array file (the one safe writer): its tuples, and only the
    table entries that are not zero (most are never reached), as their places and values."""
    flat = net.weights.reshape(-1)
    places = np.flatnonzero(flat).astype(np.int64)
    save_policy(
        os.fspath(path),
        {"tuples": net.tuples.astype(np.int64), "places": places, "entries": flat[places]},
        {
            "kind": KIND,
            "game": net.game.spec,
            "tuples": int(net.tuples.shape[0]),
            "length": int(net.tuples.shape[1]),
            "entries": int(places.size),
            "games": net.games,
        },
    )


def load_network(path: str | os.PathLike[str], game: Game | None = None) -> NTupleNetwork:
    """An n-tuple network's file (of ``game``, when given); anything else is refused in one
    line naming the file, its sizes checked before any array is read."""
    from qarena.games import parse_spec

    p = os.fspath(path)
    meta: dict[str, Any] = {}

    def damaged(what: str) -> QarenaError:
        return QarenaError(_("{file} is damaged: {what}").format(file=p, what=what))

    def expect(found: dict[str, Any]) -> dict[str, ArraySpec]:
        if found.get("kind") != KIND:
            raise QarenaError(_("{file} is not an n-tuple network").format(file=p))
        spec = found.get("game")
        if game is not None and spec != game.spec:
            raise QarenaError(
                _("{file} plays {other}, not {spec}").format(file=p, other=spec, spec=game.spec)
            )
        tuples, length, entries = found.get("tuples"), found.get("length"), found.get("entries")
        games = found.get("games")
        sizes = (tuples, length, entries, games)
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in sizes):
            raise damaged(_("its sizes are not counts"))
        assert isinstance(tuples, int) and isinstance(length, int) and isinstance(entries, int)
        assert isinstance(games, int)
        if not (0 < tuples <= MAX_TUPLES and 0 < length <= MAX_LENGTH):
            raise damaged(_("its sizes are not counts"))
        if not 0 <= entries <= 2 * tuples * k.CODES**length or not 0 <= games < 2**62:
            raise damaged(_("its sizes are not counts"))
        meta.update(found)
        return {
            "tuples": ((tuples, length), np.dtype(np.int64)),
            "places": ((entries,), np.dtype(np.int64)),
            "entries": ((entries,), np.dtype(np.float32)),
        }

    data = load_policy(p, expect)
    board = game if game is not None else parse_spec(str(meta["game"]))
    if not isinstance(board, TicTacToe):
        raise damaged(_("its game is not a board"))
    layout, places = data.arrays["tuples"], data.arrays["places"]
    if layout.min() < 0 or layout.max() >= board.cells:
        raise damaged(_("a tuple's cell is off the board"))
    if any(len(set(row)) != layout.shape[1] for row in layout.tolist()):
        raise damaged(_("a tuple holds a cell twice"))
    size = 2 * layout.shape[0] * k.CODES ** layout.shape[1]
    if places.size and (places[0] < 0 or places[-1] >= size or (places[1:] <= places[:-1]).any()):
        raise damaged(_("its entries' places are not in order"))
    weights = np.zeros(size, dtype=np.float32)
    weights[places] = data.arrays["entries"]
    net = NTupleNetwork(
        board, layout, weights.reshape(2, layout.shape[0], k.CODES ** layout.shape[1])
    )
    net.games = int(meta["games"])
    return net
