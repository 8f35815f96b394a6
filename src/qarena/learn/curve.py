"""Learning curves: optimality and win shares recorded every K episodes of training.

A curve is kept in a policy file's metadata as ``{"every", "games", "columns", "points"}``, one
row of numbers per point, so a run of a few hundred points stays a few kilobytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from qarena.errors import QarenaError
from qarena.games.base import OUTCOMES
from qarena.i18n import _
from qarena.optional import need

#: The opponents a curve measures against, in the order of its columns.
CURVE_OPPONENTS = ("random", "perfect")
COLUMNS = (
    "episodes",
    "optimality",
    *(f"{name}_{outcome}" for name in CURVE_OPPONENTS for outcome in OUTCOMES),
)
#: Games per seat against each opponent at every point: shares to within about ±0.03.
CURVE_GAMES = 250
#: Points a curve may hold: keeps the metadata far below the policy file's 1 MiB limit.
MAX_POINTS = 5_000


@dataclass(frozen=True)
class CurvePoint:
    """Where the agent stood after ``episodes`` episodes in all. ``matches[name]`` holds its
    (win, draw, loss) shares against that opponent, over both seats."""

    episodes: int
    optimality: float
    matches: dict[str, tuple[float, float, float]]

    def row(self) -> list[float | int]:
        return [
            self.episodes,
            self.optimality,
            *(s for name in CURVE_OPPONENTS for s in self.matches[name]),
        ]


def early_points(every: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, … below ``every``: points that show the start of learning on a
    log axis, where points every K episodes would all crowd to the right."""
    out: list[int] = []
    scale = 1
    while True:
        for m in (1, 2, 5):
            if m * scale >= every:
                return out
            out.append(m * scale)
        scale *= 10


@dataclass
class Curve:
    """Points every ``every`` episodes (of the learner's total), and with ``early`` also at
    :func:`early_points` before the first of them."""

    every: int
    games: int = CURVE_GAMES
    points: list[CurvePoint] = field(default_factory=list)
    early: bool = False

    def __repr__(self) -> str:
        last = f", last at {self.points[-1].episodes:,} episodes" if self.points else ""
        return f"Curve({len(self.points)} points, one every {self.every:,} episodes{last})"

    def due(self, episodes: int) -> bool:
        """Is a point due at this total episode count?"""
        return episodes % self.every == 0 or (self.early and episodes in early_points(self.every))

    def next_after(self, episodes: int) -> int:
        """The next total episode count at which a point is due."""
        later = [e for e in early_points(self.every) if e > episodes] if self.early else []
        return min([(episodes // self.every + 1) * self.every, *later])

    def to_pandas(self) -> Any:
        """The points as a pandas DataFrame, one row per point: episodes, optimality, and the
        win, draw and loss shares against each opponent (``random_win``…); pandas must be
        installed."""
        pd = need("pandas", "pandas")
        return pd.DataFrame([p.row() for p in self.points], columns=list(COLUMNS))

    def to_json(self) -> dict[str, Any]:
        return _json(self, COLUMNS)

    @classmethod
    def from_json(cls, data: object) -> Curve:
        """A curve read back from metadata; anything malformed is refused with one line."""
        every, games, early, rows = _header(data, COLUMNS)
        points: list[CurvePoint] = []
        for row in rows:
            if not (isinstance(row, list) and len(row) == len(COLUMNS)) or not _count(row[0]):
                raise QarenaError(_("its learning curve has a malformed point"))
            shares = row[1:]
            if not all(_share(s) for s in shares):
                raise QarenaError(_("its learning curve has a share outside [0, 1]"))
            if points and row[0] <= points[-1].episodes:
                raise QarenaError(_("its learning curve's episodes do not increase"))
            matches = {
                name: (float(shares[1 + 3 * i]), float(shares[2 + 3 * i]), float(shares[3 + 3 * i]))
                for i, name in enumerate(CURVE_OPPONENTS)
            }
            points.append(CurvePoint(int(row[0]), float(shares[0]), matches))
        return cls(every, games, points, early)


def _count(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 1


def _share(x: object) -> bool:
    return (
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and 0 <= x <= 1
    )


#: An n-tuple network's early points start here: fewer games teach it little.
EARLY_FROM = 1_000
#: The columns of an n-tuple network's curve: games learned, seconds of training, optimality
#: along perfect-play games, and the win, draw and loss shares moving first against perfect play.
JUDGED_COLUMNS = ("games", "seconds", "optimality", "perfect_win", "perfect_draw", "perfect_loss")


@dataclass(frozen=True)
class JudgedPoint:
    """Where a network stood after ``games`` games of self-play and ``seconds`` of training:
    the share of positions along perfect-play games where its move keeps the value, and its
    (win, draw, loss) shares moving first against perfect play."""

    games: int
    seconds: float
    optimality: float
    record: tuple[float, float, float]

    def row(self) -> list[float | int]:
        return [self.games, round(self.seconds, 3), self.optimality, *self.record]


@dataclass
class JudgedCurve:
    """An n-tuple network's learning curve: a point every ``every`` games, each judged by
    ``games`` games of perfect play and as many against it."""

    every: int
    games: int
    points: list[JudgedPoint] = field(default_factory=list)
    #: Points also at 1,000, 2,000, 5,000, 10,000, … games, before the first of every K.
    early: bool = False

    def __repr__(self) -> str:
        last = f", last at {self.points[-1].games:,} games" if self.points else ""
        return f"JudgedCurve({len(self.points)} points, one every {self.every:,} games{last})"

    def _early(self) -> list[int]:
        return [e for e in early_points(self.every) if e >= EARLY_FROM] if self.early else []

    def due(self, games: int) -> bool:
        """Is a point due at this count of games?"""
        return games % self.every == 0 or games in self._early()

    def next_after(self, games: int) -> int:
        """The next count of games at which a point is due."""
        later = [e for e in self._early() if e > games]
        return min([(games // self.every + 1) * self.every, *later])

    def to_pandas(self) -> Any:
        """The points as a pandas DataFrame, one row per point; pandas must be installed."""
        pd = need("pandas", "pandas")
        return pd.DataFrame([p.row() for p in self.points], columns=list(JUDGED_COLUMNS))

    def to_json(self) -> dict[str, Any]:
        return _json(self, JUDGED_COLUMNS)

    @classmethod
    def from_json(cls, data: object) -> JudgedCurve:
        """A curve read back from metadata; anything malformed is refused with one line."""
        every, games, early, rows = _header(data, JUDGED_COLUMNS)
        points: list[JudgedPoint] = []
        for row in rows:
            if not (isinstance(row, list) and len(row) == len(JUDGED_COLUMNS)):
                raise QarenaError(_("its learning curve has a malformed point"))
            seconds = row[1]
            if not _count(row[0]) or not (_number(seconds) and seconds >= 0):
                raise QarenaError(_("its learning curve has a malformed point"))
            if not all(_share(s) for s in row[2:]):
                raise QarenaError(_("its learning curve has a share outside [0, 1]"))
            if points and row[0] <= points[-1].games:
                raise QarenaError(_("its learning curve's episodes do not increase"))
            points.append(
                JudgedPoint(
                    int(row[0]),
                    float(seconds),
                    float(row[2]),
                    (float(row[3]), float(row[4]), float(row[5])),
                )
            )
        return cls(every, games, points, early)


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _json(curve: Curve | JudgedCurve, columns: tuple[str, ...]) -> dict[str, Any]:
    """A curve as metadata: its settings, its columns and a row per point."""
    return {
        "every": curve.every,
        "early": curve.early,
        "games": curve.games,
        "columns": list(columns),
        "points": [p.row() for p in curve.points],
    }


def _header(data: object, columns: tuple[str, ...]) -> tuple[int, int, bool, list[Any]]:
    """A curve's settings and rows read back from metadata, checked (one line if not):
    ``every``, ``games``, ``early`` and the points' rows, not yet read."""
    if not isinstance(data, dict) or data.get("columns") != list(columns):
        raise QarenaError(_("its learning curve is not in a form this qarena reads"))
    every, games, rows = data.get("every"), data.get("games"), data.get("points")
    early = data.get("early", False)
    if (
        not _count(every)
        or not _count(games)
        or not isinstance(rows, list)
        or not isinstance(early, bool)
    ):
        raise QarenaError(_("its learning curve is malformed"))
    if len(rows) > MAX_POINTS:
        raise QarenaError(
            _("its learning curve has more than {most:,} points").format(most=MAX_POINTS)
        )
    assert isinstance(every, int) and isinstance(games, int)
    return every, games, early, rows
