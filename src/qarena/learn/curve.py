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


#: An n-tuple network's early points start here: fewer games teach it little.
EARLY_FROM = 1_000
#: The columns of a curve judged along perfect-play games (an n-tuple network's): games
#: learned, seconds of training, optimality along perfect-play games, and the win, draw and
#: loss shares moving first against perfect play.
JUDGED_COLUMNS = ("games", "seconds", "optimality", "perfect_win", "perfect_draw", "perfect_loss")
#: The same with optimality from varied openings too (``varied``: the shipped judging set of
#: positions after random openings, ``qarena.judging.sets``), where the game has that set
#: (classic Connect Four): a network is judged off its main line as well as on it.
VARIED_COLUMNS = (*JUDGED_COLUMNS[:3], "varied", *JUDGED_COLUMNS[3:])
#: The same with optimality over all decision positions too (``uniform``: a sample drawn
#: uniformly from all of them, each judged exactly), where the game's tables fit (small
#: boards): the measure a table learner's curve records, so that the two can be drawn side
#: by side.
UNIFORM_COLUMNS = (*JUDGED_COLUMNS[:3], "uniform", *JUDGED_COLUMNS[3:])
#: The curves judged along perfect play, with or without one of the extra columns.
JUDGED_KINDS = (JUDGED_COLUMNS, VARIED_COLUMNS, UNIFORM_COLUMNS)
#: Columns a curve on a board whose tables are enumerated ends with: 1 where no opponent who
#: knows the learner's moves can beat it from the start moving first (second), else 0 (the
#: best reply, ``judging/best_reply.py``): weak solution strength over training, beside
#: optimality (strong). Older files' curves without them are still read.
UNBEATEN = ("unbeaten_first", "unbeaten_second")
#: The kinds of curve by their columns: a table learner's (optimality over every position,
#: matches in both seats against each of CURVE_OPPONENTS) and those judged along perfect play,
#: each with or without :data:`UNBEATEN`. Each learner kind says which it records
#: (``curve_columns``); files of all are read.
KNOWN_COLUMNS = tuple(kind + extra for kind in (COLUMNS, *JUDGED_KINDS) for extra in ((), UNBEATEN))


def with_unbeaten(columns: tuple[str, ...]) -> tuple[str, ...]:
    """``columns`` with :data:`UNBEATEN` at the end (once)."""
    return columns if has_unbeaten(columns) else (*columns, *UNBEATEN)


def has_unbeaten(columns: tuple[str, ...]) -> bool:
    """Do ``columns`` record whether the learner is unbeaten from the start?"""
    return columns[-len(UNBEATEN) :] == UNBEATEN


def base_columns(columns: tuple[str, ...]) -> tuple[str, ...]:
    """``columns`` without :data:`UNBEATEN`: the kind of curve they are."""
    return columns[: -len(UNBEATEN)] if has_unbeaten(columns) else columns


@dataclass(frozen=True)
class CurvePoint:
    """Where the agent stood after ``episodes`` episodes (games) in all: its ``optimality``
    (a share of positions where its move keeps the value), ``matches[name]`` its (win, draw,
    loss) shares against that opponent, ``seconds`` of training so far where its curve
    records them (None where not), ``varied``, its optimality on positions after varied
    openings, and ``uniform``, on a uniform sample of all decision positions, where its curve
    records them (None where not); ``unbeaten``, whether no opponent who knows its moves can
    beat it from the start, moving first and moving second, where its curve records it."""

    episodes: int
    optimality: float
    matches: dict[str, tuple[float, float, float]]
    seconds: float | None = None
    varied: float | None = None
    uniform: float | None = None
    unbeaten: tuple[bool, bool] | None = None

    @property
    def everywhere(self) -> float:
        """Its optimality over all decision positions: exact for a table learner's point,
        estimated from a uniform sample for a network's where recorded (else along play)."""
        return self.uniform if self.uniform is not None else self.optimality

    @property
    def games(self) -> int:
        """Its count in a network's words: games of self-play."""
        return self.episodes

    @property
    def record(self) -> tuple[float, float, float]:
        """Its (win, draw, loss) shares against perfect play."""
        return self.matches["perfect"]

    def row(self, columns: tuple[str, ...] = COLUMNS) -> list[float | int]:
        """The point as a row of ``columns``."""
        out: list[float | int] = []
        for column in columns:
            if column in ("episodes", "games"):
                out.append(self.episodes)
            elif column == "seconds":
                out.append(round(self.seconds or 0.0, 3))
            elif column == "optimality":
                out.append(self.optimality)
            elif column == "varied":
                out.append(self.varied if self.varied is not None else 0.0)
            elif column == "uniform":
                out.append(self.uniform if self.uniform is not None else 0.0)
            elif column in UNBEATEN:
                seats = self.unbeaten or (False, False)
                out.append(int(seats[UNBEATEN.index(column)]))
            else:
                name, outcome = column.rsplit("_", 1)
                out.append(self.matches[name][OUTCOMES.index(outcome)])
        return out


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
    :func:`early_points` before the first of them; each point measured by ``games`` games
    per opponent. ``columns`` say what a point holds (:data:`COLUMNS`, a table learner's;
    :data:`JUDGED_COLUMNS`, judged along perfect-play games, whose early points start at
    :data:`EARLY_FROM` games)."""

    every: int
    games: int = CURVE_GAMES
    points: list[CurvePoint] = field(default_factory=list)
    early: bool = False
    columns: tuple[str, ...] = COLUMNS

    def __repr__(self) -> str:
        last = f", last at {self.points[-1].episodes:,} {self.unit}" if self.points else ""
        return f"Curve({len(self.points)} points, one every {self.every:,} {self.unit}{last})"

    @property
    def unit(self) -> str:
        """What its first column counts, as data: "episodes" or "games"."""
        return self.columns[0]

    @property
    def judged(self) -> bool:
        """Is it judged along perfect-play games (rather than over every position)?"""
        return base_columns(self.columns) in JUDGED_KINDS

    @property
    def everywhere(self) -> bool:
        """Does each point hold optimality over all decision positions (a table learner's
        curve, or a network's with its uniform sample), to be drawn beside others?"""
        return not self.judged or base_columns(self.columns) == UNIFORM_COLUMNS

    @property
    def unbeaten(self) -> bool:
        """Does each point hold whether the learner is unbeaten from the start in each seat?"""
        return has_unbeaten(self.columns)

    def _early(self) -> list[int]:
        if not self.early:
            return []
        least = EARLY_FROM if self.judged else 1
        return [e for e in early_points(self.every) if e >= least]

    def due(self, episodes: int) -> bool:
        """Is a point due at this total episode count?"""
        return episodes % self.every == 0 or episodes in self._early()

    def next_after(self, episodes: int) -> int:
        """The next total episode count at which a point is due."""
        later = [e for e in self._early() if e > episodes]
        return min([(episodes // self.every + 1) * self.every, *later])

    def unbeaten_since(self) -> dict[str, int | None] | None:
        """For each seat ("first", "second"), the episodes from whose point on every point is
        unbeaten from the start in that seat (None: beaten at the last point); None where the
        curve does not record it."""
        if not self.unbeaten or not self.points:
            return None
        since: dict[str, int | None] = {}
        for i, seat in enumerate(("first", "second")):
            found: int | None = None
            for point in reversed(self.points):
                if point.unbeaten is None or not point.unbeaten[i]:
                    break
                found = point.episodes
            since[seat] = found
        return since

    def to_pandas(self) -> Any:
        """The points as a pandas DataFrame, one row per point: its columns (episodes,
        optimality, the win, draw and loss shares against each opponent, ``random_win``…, and
        where recorded ``unbeaten_first`` and ``unbeaten_second``, 1 where no opponent can beat
        it from the start in that seat); pandas must be installed."""
        pd = need("pandas", "pandas")
        return pd.DataFrame([p.row(self.columns) for p in self.points], columns=list(self.columns))

    def to_json(self) -> dict[str, Any]:
        """The curve as metadata: its settings, its columns and a row per point."""
        return {
            "every": self.every,
            "early": self.early,
            "games": self.games,
            "columns": list(self.columns),
            "points": [p.row(self.columns) for p in self.points],
        }

    @classmethod
    def from_json(cls, data: object, columns: tuple[str, ...] | None = None) -> Curve:
        """A curve read back from metadata, of either kind (or of ``columns`` only, a learner
        kind's own); anything malformed is refused with one line."""
        found = _columns(data)
        # A curve judged along play is read with or without an extra column, and any curve
        # with or without the unbeaten columns (older files have none).
        judged = JUDGED_KINDS
        kind, wanted = base_columns(found), None if columns is None else base_columns(columns)
        if wanted is not None and kind != wanted and not (kind in judged and wanted in judged):
            raise QarenaError(_("its learning curve is not in a form this qarena reads"))
        columns = found
        every, games, early, rows = _header(data)
        points: list[CurvePoint] = []
        for row in rows:
            point = _point(row, columns)
            if points and point.episodes <= points[-1].episodes:
                raise QarenaError(_("its learning curve's episodes do not increase"))
            points.append(point)
        return cls(every, games, points, early, columns)


def _columns(data: object) -> tuple[str, ...]:
    if isinstance(data, dict):
        for columns in KNOWN_COLUMNS:
            if data.get("columns") == list(columns):
                return columns
    raise QarenaError(_("its learning curve is not in a form this qarena reads"))


def _point(row: object, columns: tuple[str, ...]) -> CurvePoint:
    """One row read back as a point, checked: a count, seconds where the columns have them,
    and shares."""
    if not (isinstance(row, list) and len(row) == len(columns)) or not _count(row[0]):
        raise QarenaError(_("its learning curve has a malformed point"))
    seconds: float | None = None
    rest = list(zip(columns[1:], row[1:], strict=True))
    if columns[1] == "seconds":
        value = row[1]
        if not (_number(value) and value >= 0):
            raise QarenaError(_("its learning curve has a malformed point"))
        seconds = float(value)
        rest = rest[1:]
    if not all(_share(s) for _name, s in rest):
        raise QarenaError(_("its learning curve has a share outside [0, 1]"))
    shares = dict(rest)
    unbeaten = None
    if has_unbeaten(columns):
        if any(shares[c] not in (0, 1) for c in UNBEATEN):
            raise QarenaError(_("its learning curve has a malformed point"))
        first, second = (shares[c] == 1 for c in UNBEATEN)
        unbeaten = (first, second)
    matches: dict[str, tuple[float, float, float]] = {}
    for column in columns:
        if column.count("_") and column.rsplit("_", 1)[1] in OUTCOMES:
            name = column.rsplit("_", 1)[0]
            matches[name] = tuple(float(shares[f"{name}_{o}"]) for o in OUTCOMES)  # type: ignore[assignment]
    varied = float(shares["varied"]) if "varied" in shares else None
    uniform = float(shares["uniform"]) if "uniform" in shares else None
    return CurvePoint(
        int(row[0]), float(shares["optimality"]), matches, seconds, varied, uniform, unbeaten
    )


def _count(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 1


def _share(x: object) -> bool:
    return (
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and 0 <= x <= 1
    )


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _header(data: object) -> tuple[int, int, bool, list[Any]]:
    """A curve's settings and rows read back from metadata, checked (one line if not):
    ``every``, ``games``, ``early`` and the points' rows, not yet read."""
    assert isinstance(data, dict)
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
