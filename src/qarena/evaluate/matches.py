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

from qarena.errors import QarenaError
from qarena.kernels.play import play_matches
from qarena.kernels.rng import seed_state

if TYPE_CHECKING:
    from qarena.games.base import Game
    from qarena.solve.space import GameTables

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
class SeatRecords:
    """An agent's record against one opponent, moving first and moving second."""

    first: Record
    second: Record

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
    return ("random", "perfect", *game.rule_players)


#: Games per call of the match kernel: well under a second on any game the tables fit.
SERIES_CHUNK = 20_000


def _check_agent(tables: GameTables, mask: np.ndarray, who: str) -> None:
    """Every position an agent may face must leave it a legal move to pick."""
    if mask.shape != tables.legal.shape or mask.dtype != np.bool_:
        raise QarenaError(f"{who} does not fit the tables of {tables.game.spec}")
    if not np.all((mask & tables.legal)[tables.live].any(axis=1)) or np.any(mask & ~tables.legal):
        raise QarenaError(f"{who} has no legal move to play in some position")


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
    if games < 1:
        raise QarenaError(f"the number of games must be at least 1, not {games}")
    _check_agent(tables, first, "the first agent")
    _check_agent(tables, second, "the second agent")
    record = np.zeros(3, dtype=np.int64)
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
        )
    return Record(int(record[0]), int(record[1]), int(record[2]))


def both_seats(
    tables: GameTables,
    agent: np.ndarray,
    opponent: np.ndarray,
    games: int,
    seed: int,
    label: str = "",
) -> SeatRecords:
    """The agent's record against ``opponent``: ``games`` games first, ``games`` second."""
    first = play_series(tables, agent, opponent, games, seed, label + "/first")
    second = play_series(tables, opponent, agent, games, seed, label + "/second").flipped()
    return SeatRecords(first, second)
