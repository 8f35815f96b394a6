"""An n-tuple network's settings and sizes: :class:`NetworkConfig` (its bounds are the
declaration's, ``learn/settings.py``), a game's defaults, and what its tables take in memory.
Apart from the model (``network.py``) and its files (``files.py``), as the table
learners' settings (``tables.config.LearnConfig``) are apart from each learner."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from qarena.budget import format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import BoardGrid, Game
from qarena.i18n import _
from qarena.kernels import ntuple as k

#: What an n-tuple network's file says it is, and its learner's name.
KIND = "ntuple"
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


@dataclass(frozen=True)
class NetworkConfig:
    """How a network is shaped and learns: ``tuples`` random walks of ``tuple_length`` cells
    (seeded by ``seed``, as is its self-play); α decays exponentially from ``alpha`` to
    ``alpha_end`` over a run, a step on the sum of the tables' entries shared among them; ε
    falls linearly from ``epsilon`` to ``epsilon_end``; ``lam`` is TD(λ)'s λ; each game of
    self-play opens with 0 to ``opening`` random moves (uniformly many) it does not learn from."""

    tuples: int = 70
    tuple_length: int = 8
    alpha: float = 0.5
    alpha_end: float = 0.3
    epsilon: float = 0.2
    epsilon_end: float = 0.2
    lam: float = 0.8
    opening: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        from qarena.learn.settings import check_config  # the declaration reads KIND here

        for name in ("tuples", "tuple_length"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise QarenaError(_("training settings are malformed ({problem})").format(
                    problem=name))  # fmt: skip
        # The bounds are the declaration's (learn/settings.py), as for every learner kind.
        check_config(self, tuple(f.name for f in fields(self)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def build(cls, given: Mapping[str, Any], base: NetworkConfig | None = None) -> NetworkConfig:
        """``base`` (default: the defaults) with the settings given (None: not given); a
        setting a network does not use is refused in the command line's words."""
        from qarena.learn.settings import build_config  # the declaration imports this module

        return build_config(cls, given, base, KIND)


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
#: ... and games of self-play opening with up to this many random moves: self-play alone
#: rarely reaches the boards after a person's odd opening (BENCHMARKS.md, issue 40).
BIG_OPENING = 12
#: ... and this many games: with random openings the varied openings' figure still rises past
#: four million (about 40 minutes on two cores; BENCHMARKS.md, issue 40).
BIG_GAMES = 8_000_000


def _big(game: Game) -> bool:
    """Whether ``game``'s board is big enough for the big boards' defaults (BIG_*)."""
    return len(game.start()) >= BIG_BOARD


def default_config(game: Game) -> NetworkConfig:
    """The settings a network for ``game`` learns with unless told: :class:`NetworkConfig`'s,
    with 200 tuples and random openings of up to 12 moves on boards of 42 cells or more."""
    if _big(game):
        return NetworkConfig(tuples=BIG_TUPLES, opening=BIG_OPENING)
    return NetworkConfig()


def default_games(game: Game) -> int:
    """Games of self-play a network learns by default: 2,000 · 2^(cells/2), at most four
    million (45,000 for tic-tac-toe's 9 cells), and :data:`BIG_GAMES` on boards of 42 cells or
    more (classic Connect Four)."""
    if _big(game):
        return BIG_GAMES
    return int(min(4_000_000, round(2_000 * 2 ** (len(game.start()) / 2), -3)))
