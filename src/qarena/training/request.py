"""A front end's request for a run (:func:`request_run`) made a checked :class:`RunRequest`:
a preset filling what was not given and the learner kind's own refusals, what ``qarena
train``, ``qarena.train`` and the web's Train API share; the bounds of a run's counts and time."""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from qarena.agents.players import PlayerLike
from qarena.budget import MAX_EPISODES, check_count, check_seed
from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.i18n import _, option
from qarena.judging.family import family_of
from qarena.learn.family import Trainable
from qarena.learn.learners import LEARNERS, learner_class
from qarena.learn.presets import resolve as resolve_preset
from qarena.learn.settings import KIND_SETTINGS
from qarena.training.plan import RunPlan, _check_kind, plan_run

__all__ = [
    "BACKENDS",
    "MAX_MINUTES",
    "RunRequest",
    "check_backend",
    "check_counts",
    "check_minutes",
    "request_run",
]


def check_counts(
    episodes: int | None,
    check_every: int | None = None,
    every: int | None = None,
    workers: int | None = None,
) -> None:
    """Refuse a run's counts out of their bounds, each named as its reader names it
    (``--episodes``, or ``episodes`` from Python)."""
    if episodes is not None:
        check_count("--episodes", episodes, MAX_EPISODES)
    if check_every is not None:
        check_count("--check-every", check_every, MAX_EPISODES)
    if every is not None:
        check_count("--every", every, MAX_EPISODES)
    if workers is not None:
        check_count("--workers", workers, len(os.sched_getaffinity(0)) * 4)


#: The longest time budget a run takes: a week.
MAX_MINUTES = 7 * 24 * 60


def check_minutes(minutes: object, name: str = "--minutes") -> None:
    """Refuse a time budget that is not a number of minutes above 0 and at most a week."""
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, int | float)
        or not 0 < minutes <= MAX_MINUTES
    ):
        raise QarenaError(
            _("{flag} must be a number of minutes above 0 and at most {most:,}, not {value}")
            .format(flag=option(name), most=MAX_MINUTES, value=str(minutes)[:40])
        )  # fmt: skip


@dataclass
class RunRequest:
    """A run as a front end asks for it, its preset applied and every choice of its learner
    kind made and checked (:func:`request_run`), nothing built yet. ``qarena train``,
    ``qarena.train`` and the web's Train API all go through it; each adds only what is its
    own (files and progress; a callback; stored policies, the job queue, time limits and the
    memory a run is admitted against)."""

    game: Game
    kind: str
    given: dict[str, Any]
    opponent: PlayerLike = "self"
    seat: str = "both"
    episodes: int | None = None
    #: The preset's record, kept in the learner's file (None: no preset).
    preset: dict[str, Any] | None = None
    canonical: bool = True
    until_perfect: bool = False
    check_every: int | None = None
    curve: bool = False
    every: int | None = None
    workers: int | None = None
    #: Where its games are played (``--backend``): "local", or "ray" at ``ray_address``.
    backend: str = "local"
    ray_address: str | None = None
    #: Its time budget in minutes of wall time (``--minutes``; None: its episodes only).
    minutes: float | None = None
    #: Whether ``canonical`` was asked for (else a preset's or the default: a resumed
    #: learner keeps its own kind of table).
    canonical_given: bool = False

    @property
    def learner(self) -> type[Trainable]:
        """The learner kind it trains."""
        return learner_class(self.kind)

    @property
    def self_play(self) -> bool:
        return isinstance(self.opponent, str) and self.opponent == "self"

    @property
    def tables(self) -> bool:
        """Whether the run builds the game's tables (a learner judged over every position):
        what a bound on a game's size holds a run to; a learner judged along play learns a
        game of any size (its model, not the game's tables, takes the memory)."""
        return family_of(self.learner).tables

    def config(self) -> Any:
        """The learner's settings, its defaults for the game with those given, checked by the
        kind's declaration, with the kind's checks of the game and of its model's size: before
        anything is allocated."""
        cls = self.learner
        cls.check_game(self.game)
        base = (
            cls.default_config(self.game)
            if self.canonical
            else cls.default_config(self.game, canonical=False)
        )
        config = cls.build_config(self.given, base)
        cls.check_fits(config, self.game)
        return config

    def curve_refused(self) -> str | None:
        """Why its curve cannot be judged in bounded time, as a clause (None when it can): a
        learner judged along play, on a board where that has no bound
        (``judging.family.judging_refused``)."""
        return family_of(self.learner).curve_refused(self.game)

    def memory(self, config: Any, curve: bool) -> tuple[int, int]:
        """Bytes the run takes while it trains (the game's tables, the learner's own, its
        working arrays and the move masks of its opponent and its curve's; or its model), and
        bytes judging its curve along play takes (one per board and process: runs of one board
        share it)."""
        return family_of(self.learner).memory(self.learner, self.game, config, curve)

    def total(self, config: Any) -> int:
        """The episodes the run trains: those asked for, else the kind's default for the game
        (known from the game, or from a fresh learner)."""
        if self.episodes is not None:
            return self.episodes
        cls = self.learner
        known = cls.default_length(self.game)
        if known is not None:
            return known
        return int(cls.create(self.game, config).default_episodes(self.self_play))

    def plan(
        self,
        *,
        resume: Trainable | None = None,
        resumed_from: str | None = None,
        opponent: PlayerLike | None = None,
        episodes: int | None = None,
        workers: int | None = None,
        most_games: int | None = None,
        most_points: int | None = None,
    ) -> RunPlan:
        """The run set up (:func:`plan_run`): with ``resume`` going on from that learner,
        against ``opponent`` when given (the player its opponent's name stands for, as the web
        loads a stored policy), for ``episodes`` when given, on ``workers`` threads when given
        (for a learner that runs on threads), and with a live view's lighter curve
        (``most_games``, ``most_points``)."""
        canonical, preset = self.canonical, self.preset
        if resume is not None and not self.canonical_given:
            canonical = bool(getattr(resume.config, "canonical", canonical))
            over = list((preset or {}).get("overridden") or [])
            if preset is not None and canonical != self.canonical and "canonical" not in over:
                # The file's kind of table, not the preset's: said as an override.
                preset = {**preset, "overridden": [*over, "canonical"]}
        return plan_run(
            self.game,
            self.kind,
            self.given,
            canonical=canonical,
            resume=resume,
            resumed_from=resumed_from,
            opponent=self.opponent if opponent is None else opponent,
            seat=self.seat,
            episodes=self.episodes if episodes is None else episodes,
            until_perfect=self.until_perfect,
            check_every=self.check_every,
            curve=self.curve,
            every=self.every,
            workers=self.workers if workers is None else workers,
            preset=preset,
            most_games=most_games,
            most_points=most_points,
            backend=self.backend,
            ray_address=self.ray_address,
            minutes=self.minutes,
        )


#: Where a learner's games may be played: here, or on a Ray cluster.
BACKENDS = ("local", "ray")


def check_backend(cls: type[Trainable], backend: str, ray_address: str | None) -> None:
    """Refuse, in one line, a backend that is not one, one the learner kind ``cls`` cannot
    play on, an address without Ray, or Ray not installed."""
    if backend not in BACKENDS:
        raise QarenaError(
            _("unknown backend {backend!r}; expected {backends}").format(
                backend=str(backend)[:40], backends=", ".join(BACKENDS)
            )
        )
    if ray_address is not None and backend != "ray":
        raise QarenaError(_("--ray-address applies to --backend ray"))
    if backend not in cls.backends:
        raise QarenaError(
            _("{flag} applies to {learners} only").format(
                flag=option("--backend " + backend),
                learners=_learners_of(lambda k: backend in k.backends),
            )
        )
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        raise QarenaError(_("--backend ray needs Ray; install it with: pip install 'qarena[ray]'"))


def _reads(name: str, cls: type[Trainable]) -> bool:
    return name in cls.hyperparameters


def _learners_of(reads: Callable[[type[Trainable]], bool]) -> str:
    """The learner kinds for which ``reads`` holds, as the command line names them:
    ``--learner ntuple or alphazero``."""
    kinds = [kind for kind, cls in LEARNERS.items() if reads(cls)]
    return "--learner " + _(" or ").join(kinds)


def request_run(  # noqa: PLR0913 - a run's options, by keyword (qarena.train's)
    game: Game,
    kind: str | None,
    given: Mapping[str, Any],
    *,
    preset: str | None = None,
    opponent: PlayerLike | None = None,
    seat: str | None = None,
    episodes: int | None = None,
    canonical: bool | None = None,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: bool = False,
    every: int | None = None,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    minutes: float | None = None,
) -> RunRequest:
    """A front end's request (the learner ``kind``, the settings ``given``, a ``preset``'s
    name, the opponent, seat, episodes and ``canonical``, its kind of table; None: not given)
    made a checked :class:`RunRequest`: the preset fills what was not given (the write-up's
    own table, one entry per position; qarena's defaults without one), the learner kind is
    the one named, and what it has no use for is refused in one line (another kind's
    settings, ``workers`` for a learner on one thread, a self-play learner's opponent, a seat
    or exploring starts that do not fit whom it plays, a curve that cannot be judged)."""
    canonical_given = canonical is not None
    run, settings, record = resolve_preset(
        preset,
        game.spec,
        {
            "learner": kind,
            "opponent": opponent,
            "seat": seat,
            "episodes": episodes,
            "canonical": canonical,
        },
        given,
    )
    canonical = bool(run["canonical"])
    cls = learner_class(run["learner"])
    for s in KIND_SETTINGS:
        if settings.get(s.name) is not None and s.name not in cls.hyperparameters:
            readers = _learners_of(functools.partial(_reads, s.name))
            raise QarenaError(
                _("{flag} applies to {learners} only").format(
                    flag=option(s.option), learners=readers
                )
            )
    cls.refuse_workers(workers, LEARNERS.values())
    check_backend(cls, backend, ray_address)
    if minutes is not None:
        check_minutes(minutes)
    if settings.get("seed") is not None:
        check_seed(settings["seed"])
    request = RunRequest(
        game, cls.kind, settings, run["opponent"], run["seat"], run["episodes"], record,
        canonical, until_perfect, check_every, curve, every, workers, backend, ray_address,
        minutes, canonical_given,
    )  # fmt: skip
    _check_kind(
        cls, game, settings, request.self_play, request.seat, canonical, until_perfect,
        check_every, curve,
    )  # fmt: skip
    return request
