"""``qarena matrix``'s rows: a table learner trained against one player, then its record in
each seat against each judge; the report shares it, so the command it prints gives its numbers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from qarena.agents.opponents import opponent as opponent_of
from qarena.games.base import Game
from qarena.judging.evaluation import record_against
from qarena.learn.learners import table_class
from qarena.learn.tables.base import Learner, default_episodes
from qarena.show.matches import SeatRecords
from qarena.training.loop import train_run

__all__ = ["MatrixRow", "matrix_row"]


@dataclass(frozen=True)
class MatrixRow:
    """One row of ``qarena matrix``: an agent trained against one player, and its record in
    each seat against each judge."""

    episodes: int
    optimality: float
    records: dict[str, SeatRecords]
    learner: Learner


def matrix_row(  # noqa: PLR0913 - the matrix's settings, by keyword
    game: Game,
    kind: str,
    trainer: str,
    judges: Mapping[str, Any],
    *,
    episodes: int | None,
    games: int,
    seed: int,
    seat: str = "both",
    status: Callable[[int], AbstractContextManager[Any]] | None = None,
) -> MatrixRow:
    """A fresh ``kind`` learner (seeded ``seed``) trained against ``trainer`` (``self``, or a
    player learnt from in ``seat``; self-play takes both seats), then ``games`` games in each
    seat against each judge (by name, its move mask). ``qarena matrix`` and the report share
    it, so the command the report prints gives the report's numbers."""
    cls = table_class(kind)
    learner = cls(game, cls.default_config(seed=seed))
    n = episodes or default_episodes(learner, trainer == "self")
    with status(n) if status is not None else nullcontext():
        opp = opponent_of(learner.tables, trainer)
        run = train_run(learner, n, opp, "both" if trainer == "self" else seat)
        records = record_against(learner, judges, games, seed)
    return MatrixRow(n, run.exact.share, records, learner)
