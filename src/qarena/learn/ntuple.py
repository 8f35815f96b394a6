"""n-tuple networks (``kernels/ntuple.py``): a board game's values from many small lookup
tables, learned by TD(λ) self-play, for boards too big for a table of every position.

:class:`NTupleNetwork` holds the tuples (cells chosen by seeded random walks over the board),
the tables (one set per player to move) and the training settings; it plays as a player
(``act``, ``values``) and learns with :meth:`NTupleNetwork.learn`, on one thread or several
sharing the tables.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import BoardGrid, Game, Move, Position
from qarena.games.picking import Picks
from qarena.i18n import _, number, option
from qarena.kernels import ntuple as k
from qarena.kernels.rng import seed_state
from qarena.learn.curve import JudgedCurve
from qarena.policyfile import (
    ArraySpec,
    encode_policy,
    load_policy,
    load_shipped,
    read_meta,
    save_policy,
)
from qarena.threads import run_threads

#: The most tuples and cells per tuple a network may have (a table has 4**length entries).
MAX_TUPLES = 1_000
MAX_LENGTH = 10
#: The most games a network counts as learned: its file is refused beyond it, and training
#: that would pass it does not start.
MOST_GAMES = 2**62 - 1
#: How far a network file's list of places may deflate: distinct rising numbers below 2**31
#: do not shrink below a fifth (0, 1, 2, … deflate 5.3 to 1; the shipped network's, 5.6), so
#: a small file cannot claim billions of entries and have them read before it is refused.
PLACES_RATIO = 64
#: Bytes per cell of its tuples a network takes besides its tables: under each of the
#: board's symmetries (at most 8), the cell's image and its place in the tuples, as numbers
#: and while they are indexed as Python pairs (116 to 137 bytes measured).
LAYOUT_BYTES_PER_CELL = 8 * 160
#: What reading a network file takes besides its arrays: the zip's and numpy's buffers.
READ_BYTES = 2**20
#: Longest part of a file's text (its game spec, a setting) repeated in an error.
_ECHO = 80


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


@dataclass(frozen=True)
class NetworkConfig:
    """How a network is shaped and learns: ``tuples`` random walks of ``tuple_length`` cells
    (seeded by ``seed``, as is its self-play); α decays exponentially from ``alpha`` to
    ``alpha_end`` over a run, a step on the sum of the tables' entries shared among them; ε
    falls linearly from ``epsilon`` to ``epsilon_end``; ``lam`` is TD(λ)'s λ."""

    tuples: int = 70
    tuple_length: int = 8
    alpha: float = 0.5
    alpha_end: float = 0.3
    epsilon: float = 0.2
    epsilon_end: float = 0.2
    lam: float = 0.8
    seed: int = 0

    def __post_init__(self) -> None:
        for name, most in (("tuples", MAX_TUPLES), ("tuple_length", MAX_LENGTH)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise QarenaError(_("training settings are malformed ({problem})").format(
                    problem=name))  # fmt: skip
            check_count("--" + name.replace("_", "-"), value, most)
        for name in ("alpha", "alpha_end"):
            value = getattr(self, name)
            if not _real(value) or not 0 < value <= 1:
                raise QarenaError(
                    _("{name} must be in (0, 1], not {value}").format(
                        name=name.replace("_", "-"), value=value
                    )
                )
        for name in ("epsilon", "epsilon_end", "lam"):
            value = getattr(self, name)
            if not _real(value) or not 0 <= value <= 1:
                flag = "lambda" if name == "lam" else name.replace("_", "-")
                raise QarenaError(
                    _("{name} must be in [0, 1], not {value}").format(name=flag, value=value)
                )
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2**63:
            raise QarenaError(
                _("seed must be a whole number from 0 to 2**63 - 1, not {value}").format(
                    value=self.seed
                )
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def build(cls, given: Mapping[str, Any], base: NetworkConfig | None = None) -> NetworkConfig:
        """``base`` (default: the defaults) with the settings given (None: not given); a
        setting a network does not use is refused in the command line's words."""
        names = {f.name for f in fields(cls)}
        for name, value in given.items():
            if value is not None and name not in names:
                flag = "--epsilon-schedule" if name == "schedule" else "--" + name.replace("_", "-")
                raise QarenaError(
                    _("{flag} does not apply to the {learner} learner").format(
                        flag=option(flag, name), learner=KIND
                    )
                )
        chosen = {k: v for k, v in given.items() if v is not None}
        try:
            return replace(base or cls(), **chosen)
        except TypeError as e:
            raise QarenaError(
                _("training settings are malformed ({problem})").format(problem=e)
            ) from None


def _real(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def check_board(game: Game) -> BoardGrid:
    """The board of a game an n-tuple network plays; refused in one line if it has none."""
    board = game.grid
    if board is None:
        raise QarenaError(
            _("n-tuple networks play board games (tic-tac-toe, Connect Four), not {spec}")
            .format(spec=game.spec)
        )  # fmt: skip
    return board


def refuse_table_options(options: Iterable[tuple[str, bool]]) -> None:
    """Refuse, in one line, the first of the table learners' options given (``(flag, used)``
    pairs) that a network has no use for."""
    for flag, used in options:
        if used:
            raise QarenaError(
                _(
                    "{flag} does not apply to an n-tuple network, which learns by self-play and "
                    "is judged along perfect-play games ({curve})"
                ).format(flag=option(flag), curve=option("--curve"))
            )


def table_bytes(config: NetworkConfig) -> int:
    """The bytes of the tables of a network shaped as ``config`` says."""
    return int(_tables(config.tuples, config.tuple_length) * k.WEIGHT_BYTES)


def _tables(tuples: int, length: int) -> int:
    """Entries of the tables of ``tuples`` tuples of ``length`` cells, both players'."""
    return int(2 * tuples * k.CODES**length)


def load_bytes(tuples: int, length: int, entries: int) -> int:
    """The most a network file of these sizes takes in memory while it is loaded: its tables,
    its layout, and its ``entries`` places (int64) and values (float32) as they are read."""
    return int(
        _tables(tuples, length) * k.WEIGHT_BYTES
        + tuples * length * LAYOUT_BYTES_PER_CELL
        + entries * (8 + k.WEIGHT_BYTES)
        + READ_BYTES
    )


def _cut(text: str, most: int = _ECHO) -> str:
    """A file's text as an error repeats it: at most ``most`` characters, a long one cut."""
    return text if len(text) <= most else text[: most - 1] + "…"


def check_fits(tuples: int, length: int) -> None:
    """Refuse, before anything is allocated, tables larger than the memory budget."""
    need = table_bytes(NetworkConfig(tuples=tuples, tuple_length=length))
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


#: Boards of at least this many cells (classic Connect Four's 42) get :data:`BIG_TUPLES`
#: tuples unless told: there 70 keep fewer decisions along perfect play (BENCHMARKS.md).
BIG_BOARD = 42
BIG_TUPLES = 200


def default_config(game: Game) -> NetworkConfig:
    """The settings a network for ``game`` learns with unless told: :class:`NetworkConfig`'s,
    with 200 tuples on boards of 42 cells or more."""
    return NetworkConfig(tuples=BIG_TUPLES) if len(game.start()) >= BIG_BOARD else NetworkConfig()


def default_games(game: Game) -> int:
    """Games of self-play a network learns by default: 2,000 · 2^(cells/2), at most four
    million (classic Connect Four's 42 cells; 45,000 for tic-tac-toe's 9)."""
    cells = len(game.start())
    return int(min(4_000_000, round(2_000 * 2 ** (cells / 2), -3)))


@dataclass
class NTupleNetwork(Picks):
    """An n-tuple network for one board (tic-tac-toe or Connect Four of any size)."""

    game: Game
    tuples: np.ndarray
    weights: np.ndarray = field(repr=False)
    name: str = "ntuple"
    #: Games learned so far.
    games: int = 0
    config: NetworkConfig = field(default_factory=NetworkConfig)
    #: Seconds of training so far (self-play only, not judging).
    seconds: float = 0.0
    curve: JudgedCurve | None = None
    #: Games learned before this run: α and ε schedules start again here (``--resume``).
    run_start: int = 0
    #: The board it reads (the game's cells, lines, symmetries and gravity).
    grid: BoardGrid = field(init=False, repr=False)

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
            seed=c.seed,
            workers=workers,
            total=total,
            should_stop=should_stop,
        )

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
        values = self.values(position)
        if not values:
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=self.game.format_position(position)
                )
            )
        best = max(values.values())
        return [m for m, v in values.items() if v == best]

    # What a person playing against it sees, as for a table learner's agent: its pick, best
    # moves and values as text come from ``Picks``, from its choices and values.

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

    def learn(
        self,
        games: int,
        *,
        alpha: tuple[float, float] | None = None,
        epsilon: tuple[float, float] | None = None,
        lam: float | None = None,
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
                total, rngs[i], counters[i], *self._touches,
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


#: What an n-tuple network's file says it is.
KIND = "ntuple"


def is_network(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an n-tuple network's file (by its metadata alone; False for any
    file that is not one of qarena's, whose loader then says what is wrong)."""
    try:
        return read_meta(path).get("kind") == KIND
    except QarenaError:
        return False


def save_network(
    path: str | os.PathLike[str],
    net: NTupleNetwork,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> None:
    """The network in qarena's array file (the one safe writer; ``inputs``, files the command
    read, are never overwritten): its tuples, its settings, its curve, and only the table
    entries that are not zero (most are never reached), as their places and values."""
    save_policy(os.fspath(path), *_contents(net), inputs)


def network_bytes(net: NTupleNetwork, extra: Mapping[str, Any] | None = None) -> bytes:
    """The network's file as bytes, ``extra`` added to its metadata (a sweep's run)."""
    arrays, meta = _contents(net)
    return encode_policy(arrays, {**meta, **(extra or {})})


def _contents(net: NTupleNetwork) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    flat = net.weights.reshape(-1)
    places = np.flatnonzero(flat).astype(np.int64)
    arrays = {"tuples": net.tuples.astype(np.int64), "places": places, "entries": flat[places]}
    meta = {
        "kind": KIND,
        "game": net.game.spec,
        "tuples": int(net.tuples.shape[0]),
        "length": int(net.tuples.shape[1]),
        "entries": int(places.size),
        "games": net.games,
        "settings": net.config.to_dict(),
        "seconds": round(net.seconds, 3),
        **({"curve": net.curve.to_json()} if net.curve is not None else {}),
    }
    return arrays, meta


def _sizes(meta: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """A network file's tuples, their length and its entries, as its metadata says; None
    unless they (and its games) are counts a network can have."""
    tuples, length, entries = meta.get("tuples"), meta.get("length"), meta.get("entries")
    games = meta.get("games")
    sizes = (tuples, length, entries, games)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in sizes):
        return None
    assert isinstance(tuples, int) and isinstance(length, int) and isinstance(entries, int)
    assert isinstance(games, int)
    if not (0 < tuples <= MAX_TUPLES and 0 < length <= MAX_LENGTH):
        return None
    if not 0 <= entries <= _tables(tuples, length) or not 0 <= games <= MOST_GAMES:
        return None
    return tuples, length, entries


def _check_load(p: str, tuples: int, length: int, entries: int, budget: int | None) -> None:
    """Refuse a network file whose sizes need more memory than ``budget`` (default: the
    machine's) to load: the whole cost, from its sizes alone, before any array is read."""
    most = memory_budget() if budget is None else budget
    need = load_bytes(tuples, length, entries)
    if need > most:
        raise TooLargeError(
            _(
                "{file} is a network of {tuples:,} tuples of {length} cells with {entries:,} "
                "entries: loading it needs {need}, more than the {budget} it may take here"
            ).format(
                file=p,
                tuples=tuples,
                length=length,
                entries=entries,
                need=format_bytes(need),
                budget=format_bytes(most),
            )
        )


def load_network(
    path: str | os.PathLike[str], game: Game | None = None, budget: int | None = None
) -> NTupleNetwork:
    """An n-tuple network's file (of ``game``, when given); anything else is refused in one
    line naming the file. Its sizes are checked before any array is read: against the memory
    ``budget`` (default: the machine's, :func:`~qarena.budget.memory_budget`; TooLargeError
    over it), and its entries against the bytes the file gives them."""
    from qarena.games import parse_spec

    p = os.fspath(path)
    meta: dict[str, Any] = {}
    found_game: list[Game] = []

    def damaged(what: str) -> QarenaError:
        # What is wrong may repeat the file's own text (a setting's name or value): cut.
        return QarenaError(_("{file} is damaged: {what}").format(file=p, what=_cut(what, 200)))

    def expect(found: dict[str, Any]) -> dict[str, ArraySpec]:
        if found.get("kind") != KIND:
            raise QarenaError(_("{file} is not an n-tuple network").format(file=p))
        spec = found.get("game")
        if game is not None and spec != game.spec:
            raise QarenaError(
                _("{file} plays {other}, not {spec}").format(
                    file=p, other=_cut(str(spec)), spec=game.spec
                )
            )
        if game is None:
            try:
                found_game.append(parse_spec(str(spec)))
            except QarenaError as e:
                raise damaged(_("its game is not readable ({problem})").format(problem=e)) from None
        sizes = _sizes(found)
        if sizes is None:
            raise damaged(_("its sizes are not counts"))
        tuples, length, entries = sizes
        _check_load(p, tuples, length, entries, budget)
        meta.update(found)
        return {
            "tuples": ((tuples, length), np.dtype(np.int64)),
            "places": ((entries,), np.dtype(np.int64)),
            "entries": ((entries,), np.dtype(np.float32)),
        }

    data = load_policy(p, expect, squeeze={"places": PLACES_RATIO})
    played = game if game is not None else found_game[0]
    board = played.grid
    if board is None:
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
        played, layout, weights.reshape(2, layout.shape[0], k.CODES ** layout.shape[1])
    )
    net.games = net.run_start = int(meta["games"])
    settings = meta.get("settings", {"tuples": layout.shape[0], "tuple_length": layout.shape[1]})
    if not isinstance(settings, dict):
        raise damaged(_("its settings are malformed"))
    try:
        net.config = NetworkConfig.build(settings)
    except QarenaError as e:
        raise damaged(str(e)) from None
    if (net.config.tuples, net.config.tuple_length) != layout.shape:
        raise damaged(_("its settings do not match its tuples"))
    seconds = meta.get("seconds", 0.0)
    if not _real(seconds) or seconds < 0:
        raise damaged(_("its training time is not a number of seconds"))
    net.seconds = float(seconds)
    if "curve" in meta:
        try:
            net.curve = JudgedCurve.from_json(meta["curve"])
        except QarenaError as e:
            raise damaged(str(e)) from None
    return net


#: The networks shipped in the package (``qarena/data``), by game: trained by the command
#: BENCHMARKS.md gives (run 6: the defaults) and judged there.
SHIPPED = {"connect4:6x7:4": "connect4-6x7.ntuple.npz"}


def shipped_network(game: Game) -> NTupleNetwork | None:
    """The n-tuple network shipped for ``game``, or None when none is."""
    name = SHIPPED.get(game.spec)
    return None if name is None else load_shipped(name, lambda path: load_network(path, game))
