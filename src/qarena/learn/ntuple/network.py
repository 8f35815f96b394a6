"""n-tuple networks (``kernels/ntuple.py``): a board game's values from many small lookup
tables, learned by TD(λ) self-play, for boards too big for a table of every position.

:class:`NTupleNetwork` holds the tuples (cells chosen by seeded random walks over the board),
the tables (one set per player to move) and the training settings; it plays as a player
(``act``, ``values``) and learns with :meth:`NTupleNetwork.learn`, on one thread or several
sharing the tables.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from qarena import threads
from qarena.budget import check_count
from qarena.errors import QarenaError
from qarena.games.base import BoardGrid, Game, Move, Position, mixed_radix_arrays
from qarena.games.picking import ByMoveValues, ChoosingPlayer, highest
from qarena.i18n import _, gettext_noop, ngettext, number
from qarena.kernels import ntuple as k
from qarena.kernels.rng import seed_state
from qarena.learn.curve import Curve
from qarena.learn.family import JudgingFamily, Text, Trainable
from qarena.learn.ntuple.config import (
    KIND,
    MAX_LENGTH,
    MAX_TUPLES,
    MOST_GAMES,
    NetworkConfig,
    check_board,
    check_fits,
    default_config,
    default_games,
    table_bytes,
)
from qarena.learn.tables.base import Opponent
from qarena.threads import run_threads

if TYPE_CHECKING:
    from qarena.exact.space import GameTables

#: Games of self-play between two reports of progress (or looks at a curve point): about a
#: second on classic Connect Four, half a minute on tictactoe:12x12:5, so a stop is also
#: looked at within a chunk (every 0.2 s). Fixed, so one thread learns the same network from
#: the same seed however the run is watched.
CHUNK = 10_000
#: Games of perfect play (and as many against it) behind each point of a network's curve.
JUDGED_GAMES = 50
#: Rows of a game's tables whose moves are chosen in one compiled call: a stop is looked at
#: between them (about a tenth of a second each on tictactoe:4x4).
TABLE_ROWS = 4096


def random_walk_tuples(game: BoardGrid, count: int, length: int, seed: int) -> np.ndarray:
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
class NTupleNetwork(Trainable, ChoosingPlayer):
    """An n-tuple network for one board (tic-tac-toe or Connect Four of any size): a learner
    kind (``--learner ntuple``) and the player it plays as."""

    kind: ClassVar[str] = KIND
    title: ClassVar[Text] = Text(gettext_noop("n-tuple network"))
    #: Its settings, in the order of :class:`NetworkConfig`'s fields.
    hyperparameters: ClassVar[tuple[str, ...]] = (
        "tuples", "tuple_length", "alpha", "alpha_end", "epsilon", "epsilon_end", "lam", "opening",
        "seed",
    )  # fmt: skip
    judging_family: ClassVar[JudgingFamily] = "along_play"
    curve_games: ClassVar[int] = JUDGED_GAMES
    curve_points: ClassVar[int] = 10
    chunk: ClassVar[int | None] = CHUNK
    unit: ClassVar[Literal["episodes", "games"]] = "games"
    self_play_only: ClassVar[bool] = True
    threaded: ClassVar[bool] = True
    # Every tuple is read under every symmetry of the board: images get the same values.
    symmetric = True

    game: Game
    tuples: np.ndarray
    weights: np.ndarray = field(repr=False)
    name: str = "ntuple"
    #: Games learned so far.
    games: int = 0
    config: NetworkConfig = field(default_factory=NetworkConfig)
    #: Seconds of training so far (self-play only, not judging).
    seconds: float = 0.0
    curve: Curve | None = None
    #: Games learned before this run: α and ε schedules start again here (``--resume``).
    run_start: int = 0
    preset: dict[str, Any] | None = None
    #: The board it reads (the game's cells, lines, symmetries and gravity).
    grid: BoardGrid = field(init=False, repr=False)

    # --- as a learner kind (learn/family.py) --------------------------------------------

    @property
    def episodes(self) -> int:
        """Games learned so far: a game of self-play is its episode."""
        return self.games

    @episodes.setter
    def episodes(self, value: int) -> None:
        self.games = value

    @classmethod
    def default_config(cls, game: Game | None = None, **overrides: Any) -> NetworkConfig:
        """Its settings for ``game`` unless told (more tuples on big boards)."""
        base = NetworkConfig() if game is None else default_config(game)
        return replace(base, **overrides) if overrides else base

    @classmethod
    def build_config(cls, given: Mapping[str, Any], base: Any = None) -> NetworkConfig:
        return NetworkConfig.build(given, base)

    @classmethod
    def check_game(cls, game: Game) -> None:
        check_board(game)

    @classmethod
    def check_fits(cls, config: Any, game: Game | None = None) -> None:
        check_fits(config.tuples, config.tuple_length)

    @classmethod
    def model_bytes(cls, config: Any, game: Game | None = None) -> int:
        return table_bytes(config)

    @classmethod
    def default_length(cls, game: Game) -> int | None:
        return default_games(game)

    @classmethod
    def fixed_settings(cls) -> tuple[str, ...]:
        return ("tuples", "tuple_length", "seed")

    @classmethod
    def create(cls, game: Game, config: Any) -> NTupleNetwork:
        return cls.from_config(game, config)

    @classmethod
    def read(
        cls,
        path: str | os.PathLike[str],
        meta: Mapping[str, Any],
        game: Game | None = None,
        budget: int | None = None,
    ) -> NTupleNetwork:
        from qarena.learn.ntuple.files import load_network  # the file's module imports this one

        return load_network(path, game, budget)

    def save(
        self,
        path: str | os.PathLike[str],
        inputs: Iterable[str | os.PathLike[str]] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        from qarena.learn.ntuple.files import save_network

        save_network(path, self, inputs, extra)

    def to_bytes(self, extra: Mapping[str, Any] | None = None) -> bytes:
        from qarena.learn.ntuple.files import network_bytes

        return network_bytes(self, extra)

    def default_episodes(self, self_play: bool = True) -> int:
        return default_games(self.game)

    def shape(self) -> dict[str, Any]:
        return {"tuples": self.config.tuples, "tuple_length": self.config.tuple_length}

    def summary(self) -> list[tuple[str, str]]:
        c = self.config
        return [
            (
                _("network"),
                _("{tuples:,} tuples of {length} cells, {entries:,} table entries in use").format(
                    tuples=c.tuples, length=c.tuple_length, entries=int((self.weights != 0).sum())
                ),
            )
        ]

    def loaded_text(self, file: str, share: float | None = None) -> str:
        return _(
            "Loaded an n-tuple network for {spec} from {file} ({count:,} games of self-play)."
        ).format(spec=self.game.spec, file=file, count=self.games)

    def opponent_text(self) -> str:
        return ngettext(
            "Opponent: an n-tuple network that learned the game by self-play alone, in {count:,} "
            "game.",
            "Opponent: an n-tuple network that learned the game by self-play alone, in {count:,} "
            "games.",
            self.games,
        ).format(count=self.games)

    def trained_text(self, share: float | None = None) -> str:
        return ngettext(
            "{count:,} game of self-play. Its optimality is not judged here: qarena eval FILE "
            "judges it (by samples on a board too big to enumerate).",
            "{count:,} games of self-play. Its optimality is not judged here: qarena eval FILE "
            "judges it (by samples on a board too big to enumerate).",
            self.games,
        ).format(count=self.games)

    def train_chunk(
        self,
        episodes: int,
        total: int,
        *,
        opponent: Opponent | None = None,
        seat: str = "both",
        workers: int = 1,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        return self.train(episodes, total, workers, should_stop)

    @classmethod
    def new(cls, game: Game, tuples: int = 70, length: int = 8, seed: int = 0) -> NTupleNetwork:
        """A network of ``tuples`` random-walk tuples of ``length`` cells, its tables zero
        (every board worth a draw), checked against the memory budget first."""
        board = check_board(game)
        check_count("tuples", tuples, MAX_TUPLES)
        check_count("tuple length", length, MAX_LENGTH)
        check_fits(tuples, length)
        layout = random_walk_tuples(board, tuples, length, seed)
        weights = np.zeros((2, tuples, k.CODES**length), dtype=np.float32)
        config = NetworkConfig(tuples=tuples, tuple_length=length, seed=seed)
        return cls(game, layout, weights, config=config)

    @classmethod
    def from_config(cls, game: Game, config: NetworkConfig) -> NTupleNetwork:
        """A new network shaped as ``config`` says, to learn as it says."""
        net = cls.new(game, config.tuples, config.tuple_length, config.seed)
        net.config = config
        return net

    def train(
        self,
        games: int,
        total: int,
        workers: int = 1,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        """``games`` more games of this run of ``total``, with the network's settings (see
        :meth:`learn`); returns the moves made."""
        c = self.config
        return self.learn(
            games,
            alpha=(c.alpha, c.alpha_end),
            epsilon=(c.epsilon, c.epsilon_end),
            lam=c.lam,
            opening=c.opening,
            seed=c.seed,
            workers=workers,
            total=total,
            should_stop=should_stop,
        )

    def connectx_source(self, book: bool = False) -> str:
        """It as a Kaggle ConnectX submission (``learn/ntuple/kaggle.py``): a network of
        Connect Four only (ConnectX has gravity)."""
        if not self.grid.gravity:
            raise QarenaError(
                _(
                    "{spec} is not Connect Four: only a network of Connect Four can be exported "
                    "to Kaggle's ConnectX"
                ).format(spec=self.game.spec)
            )
        from qarena.learn.ntuple.kaggle import connectx_source

        return connectx_source(self, book)

    def warm_up(self) -> None:
        """Compile (or load the cached) kernels without learning, so timing excludes it."""
        NTupleNetwork.new(self.game, 1, 1).learn(1)

    def __repr__(self) -> str:
        c = self.config
        return (
            f"NTupleNetwork({self.game.spec}, {c.tuples} tuples of {c.tuple_length} cells, "
            f"games={self.games:,}, seed={c.seed})"
        )

    @property
    def nbytes(self) -> int:
        """Bytes its arrays hold: what keeping it loaded costs."""
        arrays = (self.tuples, self.weights, self._cells, self._lines, self._scratch)
        return sum(a.nbytes for a in (*arrays, *self._touches))

    def check_room(self, games: int, name: str | None = None) -> None:
        """Refuse, in one line, ``games`` more games when the count would pass
        :data:`MOST_GAMES` (its file would then be refused); ``name`` names the network."""
        if self.games + games > MOST_GAMES:
            raise QarenaError(
                _(
                    "{network} has learned {games:,} games; {more:,} more would pass the most a "
                    "network counts ({most:,})"
                ).format(
                    network=name or _("the network"), games=self.games, more=games, most=MOST_GAMES
                )
            )

    def __post_init__(self) -> None:
        game = self.grid = check_board(self.game)
        images = np.array(game.symmetries, dtype=np.int64)
        # cells[s, t, j]: the j-th cell of tuple t seen through symmetry s.
        self._cells = images[:, self.tuples]
        self._lines = np.array(game.lines, dtype=np.int64).reshape(len(game.lines), game.k)
        self._gravity = game.gravity
        self._scratch = np.zeros(self._cells.shape[0] * self._cells.shape[1], dtype=np.int64)
        self._touches = k.touches(self._cells, game.cells)

    # --- as a player --------------------------------------------------------------------

    def _board(self, position: Position) -> np.ndarray:
        return np.asarray(position, dtype=np.int8)

    def as_evaluator(self) -> NTupleEvaluator:
        """What a search asks of it: its boards' values, and its arrays for the compiled
        MCTS (:class:`NTupleEvaluator`)."""
        return NTupleEvaluator(self)

    def value(self, position: Position) -> float:
        """The board's value for x (the first player): +1 a win, -1 a loss."""
        side = self.game.to_move(position)
        found = k.value(
            self.weights, self._board(position), 0 if side is None else side, self._cells,
            self.grid.cols, self._gravity, self._scratch,
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
        return self.choices(position)[0]

    def choices(self, position: Position) -> list[Move]:
        """The moves of the highest value, in the game's order."""
        return highest(self.game, position, self.values(position))

    def table_choices(
        self, tables: GameTables, rows: np.ndarray | None = None
    ) -> np.ndarray | None:
        """``mask[row, move]``: :meth:`choices` at every row of ``tables`` where play goes on
        (or at ``rows``, in their order), the rows' boards read in compiled chunks of
        :data:`TABLE_ROWS` (``kernels.ntuple.table_choices``): the same moves, ties kept, as
        asking each row's position. None for another game's tables: asked row by row."""
        if tables.game != self.game:
            return None
        if rows is None:
            asked = np.flatnonzero(tables.live)
        else:
            asked = np.ascontiguousarray(rows, dtype=np.int64)
            # The kernel reads the tables unchecked: a row outside them is refused here.
            if asked.size and (asked.min() < 0 or asked.max() >= tables.rows):
                raise IndexError(f"rows outside 0..{tables.rows - 1}")
        base, place = mixed_radix_arrays(tables.game.radix)
        chosen = np.zeros((asked.size, tables.nxt.shape[1]), dtype=np.bool_)
        for first in range(0, asked.size, TABLE_ROWS):
            threads.check()  # a run's stop reaches a sample or a best reply being judged
            k.table_choices(
                self.weights, self._cells, self.grid.cols, self._gravity, tables.codes,
                tables.nxt, tables.result, tables.mover, asked[first : first + TABLE_ROWS],
                base, place, *self._touches, chosen[first : first + TABLE_ROWS],
            )  # fmt: skip
        if rows is not None:
            return chosen
        mask = np.zeros_like(tables.legal)
        mask[asked] = chosen
        return mask

    # What a person playing against it sees, as for a table learner's agent: its pick, best
    # moves and values as text come from ``ChoosingPlayer``, from its choices and values.

    def format_value(self, value: float, compact: bool = False) -> str:
        return number(value, "+.2f" if compact else "+.4f")

    def value_legend(self) -> str:
        """What its values mean, for a note under them."""
        return _(
            "The network's values are for the player making the move: +1 a sure win, 0 a "
            "draw, −1 a sure loss. Each is tanh of the sum of its tables' entries for the "
            "board the move leaves; the network plays the highest."
        )

    # --- learning -----------------------------------------------------------------------

    def learn(  # noqa: PLR0913 - its settings, by keyword
        self,
        games: int,
        *,
        alpha: tuple[float, float] | None = None,
        epsilon: tuple[float, float] | None = None,
        lam: float | None = None,
        opening: int | None = None,
        seed: int = 0,
        workers: int = 1,
        total: int | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        """Play and learn ``games`` games of self-play: α (a step on the sum of the tables'
        entries, shared among them) decays from ``alpha[0]`` to ``alpha[1]`` and ε falls from
        ``epsilon[0]`` to ``epsilon[1]`` over ``total`` games (default: these), on
        ``workers`` threads sharing the tables (one thread: the same seed learns the same
        network). Settings not given are the network's own (:class:`NetworkConfig`). Returns
        the moves made. Once ``should_stop`` returns True (it is asked every 0.2 s) the games
        under way are the last: :attr:`games` counts those played."""
        own = self.config
        alpha = (own.alpha, own.alpha_end) if alpha is None else alpha
        epsilon = (own.epsilon, own.epsilon_end) if epsilon is None else epsilon
        lam = own.lam if lam is None else lam
        opening = own.opening if opening is None else opening
        check_count("games", games, 10**10)
        check_count("workers", workers, len(os.sched_getaffinity(0)) * 4)
        self.check_room(games)
        total = self.games - self.run_start + games if total is None else total
        counters = [np.zeros(k.COUNTERS, dtype=np.int64) for _ in range(workers)]
        rngs = [seed_state(seed * 1_000 + i + self.games) for i in range(workers)]
        shares = [games // workers + (1 if i < games % workers else 0) for i in range(workers)]
        game = self.grid
        share = 1.0 / (self._cells.shape[0] * self._cells.shape[1])
        a0, a1 = alpha[0] * share, alpha[1] * share

        def run(i: int) -> None:
            k.play_games(
                self.weights, self._cells, self._lines, game.rows, game.cols, self._gravity,
                shares[i], a0, a1, epsilon[0], epsilon[1], lam, self.games - self.run_start,
                total, rngs[i], counters[i], *self._touches, opening,
            )  # fmt: skip

        if workers == 1 and should_stop is None:
            run(0)
        else:

            def stop() -> None:
                for c in counters:
                    c[2] = 1

            # A run stops through its own should_stop (a game on a big board is long: a chunk
            # of 10,000 on tictactoe:12x12:5 took 36 s), not the caller's limit.
            run_threads(
                [functools.partial(run, i) for i in range(workers)],
                stop,
                between=should_stop,
                limited=False,
            )
        self.games += sum(int(c[0]) for c in counters)
        return sum(int(c[1]) for c in counters)


@dataclass
class NTupleEvaluator(ByMoveValues):
    """An n-tuple network as a search reads it (``games.picking.Evaluator``): its move
    values, clipped; the board's own value, which a search scoring many boards asks instead
    of each move (:meth:`NTupleNetwork.value`); and :attr:`compiled`, the arrays the
    compiled MCTS over Connect Four boards computes the same values from."""

    net: NTupleNetwork

    @property
    def name(self) -> str:  # type: ignore[override]  # the network's, as it is named now
        return self.net.name

    @property
    def game(self) -> Game:  # type: ignore[override]
        return self.net.game

    def raw(self, position: Position) -> dict[Move, float]:
        return self.net.values(position)

    def board_value(self, position: Position) -> float:
        return self.net.value(position)

    @property
    def compiled(self) -> tuple[np.ndarray, ...]:
        """Its weights, the cells of each tuple in each image and the cells' touches: what
        the compiled MCTS over Connect Four boards computes its values from."""
        net = self.net
        return (net.weights, net._cells, *net._touches)
