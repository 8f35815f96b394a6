"""A training run set up and checked, nothing trained yet (:func:`plan_run`): the learner, new
or resumed, whom it plays, its length, its curve and its threads, and what its kind refuses."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from qarena.agents.players import PlayerLike
from qarena.budget import check_checks
from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.i18n import _, option
from qarena.judging.family import family_of
from qarena.learn.curve import MAX_POINTS, Curve
from qarena.learn.family import Trainable
from qarena.learn.learners import learner_class, table_class
from qarena.learn.tables.base import SEATS, Learner, Opponent
from qarena.training.loop import Progress, RunResult, train_run

__all__ = [
    "RunPlan",
    "check_versus",
    "new_curve",
    "new_learner",
    "new_table",
    "plan_run",
]

L = TypeVar("L", bound=Trainable)


def check_versus(self_play: bool, seat: str, given: Mapping[str, Any]) -> None:
    """Refuse settings that do not fit whom the learner plays, in the command line's words:
    a seat other than both in self-play; exploring starts (``given``'s ``starts`` and
    ``start_order``) against an opponent."""
    if seat not in SEATS:
        raise QarenaError(
            _("unknown seat {seat!r}; expected {names}").format(seat=seat, names=", ".join(SEATS))
        )
    if self_play and seat != "both":
        raise QarenaError(
            _("{seat} applies only against an {opponent}; self-play takes both").format(
                seat=option("--seat"), opponent=option("--opponent")
            )
        )
    if not self_play:
        for name in ("starts", "start_order"):
            if given.get(name):  # as the command line reads them: 0 starts fits any run
                flag = "--" + name.replace("_", "-")
                raise QarenaError(
                    _("{flag} applies to self-play; against an {opponent} games start anew").format(
                        flag=option(flag), opponent=option("--opponent")
                    )
                )


def _every(step: int) -> str:
    """The curve's spacing as its reader sets it: ``--every 100``, ``every=100``."""
    return option(f"--every {step}", f"every={step}")


def new_learner(
    game: Game, kind: str, given: Mapping[str, Any], canonical: bool = True
) -> Trainable:
    """A fresh learner of ``kind`` with the learner's defaults for ``game`` and the settings
    ``given`` (None: not given): what ``qarena train`` and every run of a sweep start from."""
    return _fresh(learner_class(kind), game, given, canonical)


def _fresh(cls: type[L], game: Game, given: Mapping[str, Any], canonical: bool) -> L:
    base = cls.default_config(game) if canonical else cls.default_config(game, canonical=False)
    return cls.create(game, cls.build_config(given, base))


def new_table(game: Game, kind: str, given: Mapping[str, Any], canonical: bool = True) -> Learner:
    """:func:`new_learner` for what measures a learner by its tables (a sweep's records, the
    matrix, a game trained on the spot): ``kind`` must be a table learner."""
    return _fresh(table_class(kind), game, given, canonical)


def new_curve(
    learner: Trainable,
    total: int,
    every: int | None,
    *,
    most_games: int | None = None,
    most_points: int | None = None,
) -> Curve:
    """The curve this run of ``total`` extends: the learner's own when resumed (its spacing
    kept unless ``every`` is given), else a new one of the learner's kind. Without
    ``every``, points come every ``total / learner.curve_points`` and, before the first, at
    1, 2, 5, 10, 20, … episodes (from 1,000 games, judged along play), so a log axis shows
    how learning starts. A view that shows it live asks for a lighter one: at most
    ``most_games`` games a point and ``most_points`` points a run. Refused where judging
    along play has no bound."""
    family = family_of(learner)
    family.check_curve(learner.game)  # before anything is trained
    old = learner.curve
    if every is None and old is not None:
        every = old.every  # a resumed curve keeps its spacing
    early = old.early if old is not None else every is None
    per_run = learner.curve_points
    if most_points is not None:
        per_run = min(per_run, most_points)
    step = every or max(1, total // per_run)
    before = old.points if old is not None else []
    room = MAX_POINTS - len(before) - 1
    if room < 1:
        raise QarenaError(
            _("its learning curve is full ({most:,} points); train without {curve}").format(
                most=MAX_POINTS, curve=option("--curve")
            )
        )
    games = old.games if old is not None else learner.curve_games
    if most_games is not None:
        games = min(games, most_games)
    curve = Curve(step, games, list(before), early, family.columns(learner, old))
    start, end = learner.episodes, learner.episodes + total
    extra = sum(start < e <= end for e in curve._early())
    points = len(before) + end // step - start // step + extra + 1
    if points > MAX_POINTS:
        raise QarenaError(
            _(
                "{asked} would record {points:,} points; a curve holds at most {most:,}, so "
                "use {enough} or more"
            ).format(
                asked=_every(step), points=points, most=MAX_POINTS, enough=_every(-(-total // room))
            )
        )
    return curve


@dataclass
class RunPlan:
    """A training run set up and checked, nothing trained yet: the learner (new or resumed),
    whom it plays, how long, and what it records. ``qarena train``, ``qarena.train``, the web's
    jobs and sweeps all start from :func:`plan_run`."""

    learner: Trainable
    opponent: Opponent
    seat: str
    total: int
    until_perfect: bool = False
    check_every: int | None = None
    curve: Curve | None = None
    workers: int = 1
    #: Its time budget: training ends after this many minutes of wall time (None: none).
    minutes: float | None = None

    def run(
        self,
        on_progress: Callable[[Progress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> RunResult:
        return train_run(
            self.learner,
            self.total,
            self.opponent,
            self.seat,
            until_perfect=self.until_perfect,
            check_every=self.check_every,
            curve=self.curve,
            on_progress=on_progress,
            should_stop=should_stop,
            workers=self.workers,
            minutes=self.minutes,
        )


def plan_run(  # noqa: PLR0913 - a run's options, by keyword (qarena.train's)
    game: Game,
    kind: str,
    given: Mapping[str, Any],
    *,
    canonical: bool = True,
    resume: Trainable | None = None,
    resumed_from: str | None = None,
    opponent: PlayerLike = "self",
    seat: str = "both",
    episodes: int | None = None,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: bool = False,
    every: int | None = None,
    workers: int | None = None,
    preset: dict[str, Any] | None = None,
    most_games: int | None = None,
    most_points: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    minutes: float | None = None,
) -> RunPlan:
    """Set up a run of any learner as ``qarena train`` does: the settings ``given`` (None: the
    learner's default, or with ``resume`` that learner's own) checked against whom it plays,
    a fresh learner of ``kind`` (or ``resume``, going on; ``resumed_from`` names its file),
    the opponent (any player, or ``"self"``), the run's length (``episodes``, else scaled to
    the game), its curve (a live view's lighter one with ``most_games``/``most_points``,
    :func:`new_curve`), its threads (``workers``; default: every core, for a learner that
    runs on threads), where its games are played (``backend``, ``ray_address``), its time
    budget (``minutes``) and the ``preset`` record it keeps."""
    cls = type(resume) if resume is not None else learner_class(kind)
    self_play = isinstance(opponent, str) and opponent == "self"
    _check_kind(cls, game, given, self_play, seat, canonical, until_perfect, check_every, curve)
    if resume is not None:
        if not canonical and getattr(resume.config, "canonical", False):
            raise QarenaError(
                _("{file} learned canonical positions; --no-canonical cannot change that").format(
                    file=resumed_from or _("the learner")
                )
            )
        if resume.game.spec != game.spec:
            raise QarenaError(
                _("it is a policy for {game}, not {spec}").format(
                    game=resume.game.spec, spec=game.spec
                )
            )
        for name in cls.fixed_settings():
            value = given.get(name)
            if value is not None and value != getattr(resume.config, name):
                raise QarenaError(
                    _("{file} was made with other {flag}; a resumed network keeps its own").format(
                        file=resumed_from or _("the network"), flag="--" + name.replace("_", "-")
                    )
                )
        learner = resume
        learner.config = cls.build_config(given, learner.config)
    else:
        learner = new_learner(game, kind, given, canonical=canonical)
    opp = family_of(learner).opponent(learner, opponent)  # another refused above unless it fits
    total = episodes or learner.default_episodes(opp.self_play)
    learner.check_room(total, resumed_from)
    if check_every is not None:
        check_checks("--check-every", check_every, total)
    run_curve = (
        new_curve(learner, total, every, most_games=most_games, most_points=most_points)
        if curve
        else None
    )
    threads_ = cls.run_threads(workers, len(os.sched_getaffinity(0)))
    if preset is not None:
        learner.preset = preset
    learner.use_backend(backend, ray_address)
    return RunPlan(
        learner, opp, seat, total, until_perfect, check_every, run_curve, threads_, minutes
    )


def _check_kind(  # noqa: PLR0913 - what a kind refuses, by the run's options
    cls: type[Trainable],
    game: Game,
    given: Mapping[str, Any],
    self_play: bool,
    seat: str,
    canonical: bool,
    until_perfect: bool,
    check_every: int | None,
    curve: bool,
) -> None:
    """Refuse what the learner kind ``cls`` has no use for, in one line and before anything
    is built: a self-play learner's opponent, seat, symmetry and checks; a seat or exploring
    starts that do not fit whom it plays; a curve that cannot be judged in bounded time."""
    cls.refuse_unused(
        (
            ("--opponent", not self_play),
            ("--seat", seat != "both"),
            ("--no-canonical", not canonical),
            ("--until-perfect", until_perfect),
            ("--check-every", check_every is not None),
        )
    )
    check_versus(self_play, seat, given)
    if curve:
        family_of(cls).check_curve(game)  # before anything is built: it may have no bound
