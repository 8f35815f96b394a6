"""Matches: agents given as the moves they pick among, played against each other in both seats.

Every agent here is a mask ``[code, move]`` over the game's plain tables: a trained agent's
greedy moves (``Learner.best_moves``), or a strategy's choices (``learn.opponents``). Games are
played by a compiled kernel, so thousands take milliseconds.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from qarena.agents.strategies import judges_of
from qarena.errors import QarenaError
from qarena.i18n import _, gettext_noop
from qarena.kernels.play import play_matches
from qarena.kernels.rng import seed_state

if TYPE_CHECKING:
    from qarena.exact.space import GameTables
    from qarena.games.base import Game

SEAT_ORDERS = ("first", "second")


@dataclass(frozen=True)
class Record:
    """Wins, draws and losses of one side over a series of games."""

    win: int
    draw: int
    loss: int

    @property
    def games(self) -> int:
        return self.win + self.draw + self.loss

    def shares(self) -> dict[str, float]:
        """``{"win": x, "draw": y, "loss": z}``, shares of the games played."""
        n = self.games or 1
        return {"win": self.win / n, "draw": self.draw / n, "loss": self.loss / n}

    def flipped(self) -> Record:
        """The same games seen from the other side."""
        return Record(self.loss, self.draw, self.win)

    def __add__(self, other: Record) -> Record:
        return Record(self.win + other.win, self.draw + other.draw, self.loss + other.loss)


@dataclass(frozen=True)
class Lengths:
    """How long the games of a series lasted: ``counts[p]`` games took ``p`` plies."""

    counts: tuple[int, ...]

    @property
    def games(self) -> int:
        return sum(self.counts)

    def histogram(self) -> dict[int, int]:
        """``{plies: games}`` for every length some game had, shortest first."""
        return {p: n for p, n in enumerate(self.counts) if n}

    @property
    def shortest(self) -> int:
        """The fewest plies a game took (0 when no game was played)."""
        return min(self.histogram(), default=0)

    @property
    def longest(self) -> int:
        return max(self.histogram(), default=0)

    @property
    def mean(self) -> float:
        return sum(p * n for p, n in enumerate(self.counts)) / (self.games or 1)

    def __add__(self, other: Lengths) -> Lengths:
        a, b = self.counts, other.counts
        if len(a) < len(b):
            a, b = b, a
        return Lengths(tuple(n + (b[p] if p < len(b) else 0) for p, n in enumerate(a)))


@dataclass(frozen=True)
class SeatLengths:
    """How long an agent's games against one opponent lasted, moving first and second."""

    first: Lengths
    second: Lengths

    @property
    def total(self) -> Lengths:
        return self.first + self.second

    def to_json(self) -> dict[str, dict[str, int]]:
        """``{"first": {"plies": games, ...}, "second": {...}}`` (JSON keys are text)."""
        return {
            seat: {str(p): n for p, n in lengths.histogram().items()}
            for seat, lengths in (("first", self.first), ("second", self.second))
        }


@dataclass(frozen=True)
class SeatRecords:
    """An agent's record against one opponent, moving first and moving second; ``lengths``
    when the series were asked to count how long the games lasted."""

    first: Record
    second: Record
    lengths: SeatLengths | None = None

    def shares(self) -> dict[str, dict[str, float]]:
        return {"first": self.first.shares(), "second": self.second.shares()}

    @property
    def total(self) -> Record:
        """Both seats together."""
        return self.first + self.second


def evaluation_opponents(game: Game) -> tuple[str, ...]:
    """The strategies an agent of ``game`` is measured against: random and perfect always, and
    the game's own closed-form rules (bouton and pole positions for nim, the modulus rule for
    the subtraction game)."""
    return judges_of(game)


#: Games per call of the match kernel: well under a second on any game the tables fit.
SERIES_CHUNK = 20_000


#: What is wrong with the agent of each seat: its mask does not fit, or leaves it no move.
_MISFITS = {
    "first": (
        gettext_noop("the first agent does not fit the tables of {spec}"),
        gettext_noop("the first agent has no legal move to play in some position"),
    ),
    "second": (
        gettext_noop("the second agent does not fit the tables of {spec}"),
        gettext_noop("the second agent has no legal move to play in some position"),
    ),
}


def _check_agent(tables: GameTables, mask: np.ndarray, seat: str) -> None:
    """Every position an agent may face must leave it a legal move to pick; ``seat`` is the
    agent's, first or second."""
    misfit, stuck = _MISFITS[seat]
    if mask.shape != tables.legal.shape or mask.dtype != np.bool_:
        raise QarenaError(_(misfit).format(spec=tables.game.spec))
    if not np.all((mask & tables.legal)[tables.live].any(axis=1)) or np.any(mask & ~tables.legal):
        raise QarenaError(_(stuck))


def _stream(seed: int, label: str) -> np.ndarray:
    """A generator for one series, fixed by the seed and the series' name, so adding an
    opponent to an evaluation does not change the games against the others."""
    return seed_state((seed * 0x9E3779B97F4A7C15 + zlib.crc32(label.encode())) % 2**64)


def play_series(
    tables: GameTables,
    first: np.ndarray,
    second: np.ndarray,
    games: int,
    seed: int,
    label: str = "",
) -> Record:
    """``games`` games of the agent ``first`` (moving first) against ``second``; the record
    is the first seat's."""
    return play_series_lengths(tables, first, second, games, seed, label)[0]


def play_series_lengths(
    tables: GameTables,
    first: np.ndarray,
    second: np.ndarray,
    games: int,
    seed: int,
    label: str = "",
) -> tuple[Record, Lengths]:
    """As :func:`play_series`, and how many plies each game lasted (the same games: counting
    them draws nothing from the generator)."""
    if games < 1:
        raise QarenaError(
            _("the number of games must be at least 1, not {games}").format(games=games)
        )
    _check_agent(tables, first, "first")
    _check_agent(tables, second, "second")
    record = np.zeros(3, dtype=np.int64)
    # No game lasts longer than the game's bound, which the solver holds to MAX_PLIES.
    lengths = np.zeros(tables.game.max_plies + 1, dtype=np.int64)
    rng = _stream(seed, label)
    # In chunks, so Ctrl-C is heard between them; the generator carries on from chunk to
    # chunk, so the games are those of one long call.
    for start in range(0, games, SERIES_CHUNK):
        play_matches(
            tables.nxt,
            tables.result,
            tables.start,
            first,
            second,
            min(SERIES_CHUNK, games - start),
            rng,
            record,
            lengths,
        )
    assert int(lengths.sum()) == games, "a game outlasted the game's bound on plies"
    win, draw, loss = (int(n) for n in record)
    return Record(win, draw, loss), Lengths(tuple(int(n) for n in lengths))


def both_seats(
    tables: GameTables,
    agent: np.ndarray,
    opponent: np.ndarray,
    games: int,
    seed: int,
    label: str = "",
    lengths: bool = False,
) -> SeatRecords:
    """The agent's record against ``opponent``: ``games`` games first, ``games`` second; with
    ``lengths``, how long they lasted too (the records are the same either way)."""
    first, first_lengths = play_series_lengths(
        tables, agent, opponent, games, seed, label + "/first"
    )
    second, second_lengths = play_series_lengths(
        tables, opponent, agent, games, seed, label + "/second"
    )
    seats = SeatLengths(first_lengths, second_lengths) if lengths else None
    return SeatRecords(first, second.flipped(), seats)
