"""A sweep's settings: what its runs vary (:class:`Setting`, the :class:`Grid` of every
combination, for table learners and n-tuple networks alike) and what they share
(:class:`Fixed`); the command line's lists read into them, and each run and the whole sweep
written back as the command that gives them."""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from qarena.agents.strategies import STRATEGIES, players_of
from qarena.budget import check_seed
from qarena.errors import QarenaError
from qarena.experiments.lists import distinct, split_list
from qarena.fileio import is_file
from qarena.games import Game, parse_spec
from qarena.i18n import _, option
from qarena.judging.family import family_of
from qarena.learn.learners import learner_class
from qarena.learn.presets import preset as preset_named
from qarena.learn.settings import (
    ALL_SETTINGS,
    ALPHAZERO_SETTINGS,
    KIND_SETTINGS,
    Declared,
    registered_settings,
)
from qarena.learn.tables.base import ALL_HYPERPARAMETERS, SEATS

#: Most runs one sweep may hold (each is a policy file and a row).
MAX_RUNS = 10_000


#: Games in each seat of a run's matches against random and perfect play (as qarena eval).
SWEEP_GAMES = 1_000


#: The hyperparameter axes, in the order they appear in names and columns (the seed is an
#: axis of its own; canonical or not, what every run of a folder shares).
HYPER_AXES = tuple(n for n in ALL_HYPERPARAMETERS if n not in ("canonical", "seed"))


#: The axes only the kinds beside the table learners have: an n-tuple network's
#: (``--learner ntuple``; it reads alpha, epsilon and epsilon_end of the axes above too),
#: AlphaZero's (:data:`ALPHAZERO_AXES`) and any registered kind's own (read from the
#: declaration when used, so a kind registered after import has its axes).
NETWORK_AXES: Sequence[str] = Declared(lambda: tuple(s.name for s in KIND_SETTINGS))
#: The axes only the AlphaZero learner has (it reads alpha and opening too).
ALPHAZERO_AXES = tuple(s.name for s in ALPHAZERO_SETTINGS)
#: The axes of the kinds registered from outside qarena (their own settings).
REGISTERED_AXES: Sequence[str] = Declared(lambda: tuple(s.name for s in registered_settings()))


#: Every axis of settings, in column order.
AXES: Sequence[str] = Declared(lambda: (*HYPER_AXES, *NETWORK_AXES))


#: Settings only self-play uses: against an opponent, games start anew.
SELF_PLAY_ONLY = ("starts", "start_order")


#: What a sweep folder's sweep.json says, beside its format.
FIXED = ("game", "canonical", "curve", "every", "games", "until_perfect", "ties")


SWEEP_FORMAT = "qarena-sweep"


_NAME_CHARS = re.compile(r"[^A-Za-z0-9._=,:+-]")


_MAX_NAME = 180


def flag(axis: str) -> str:
    """The command-line option of an axis."""
    options = {s.name: s.option for s in ALL_SETTINGS}
    return options.get(axis) or "--" + axis.replace("_", "-")


def reads(learner: str, game: Game) -> tuple[frozenset[str], dict[str, Any]]:
    """The settings ``learner`` reads (seed aside), and their defaults for ``game``."""
    cls = learner_class(learner)
    return frozenset(cls.hyperparameters) - {"seed"}, cls.default_config(game).to_dict()


def check_setting(setting: Setting, game: Game) -> None:
    """Values out of range: one line, as ``qarena train`` says it."""
    cls = learner_class(setting.learner)
    cls.check_fits(cls.build_config(setting.given, cls.default_config(game)))


def _short(x: Any) -> str:
    """A value in a run's name: 0.5, 1, -1 (floats without a needless ``.0``)."""
    if isinstance(x, float):
        text = repr(x)
        return text.removesuffix(".0")
    if isinstance(x, tuple | list):
        return ":".join(_short(v) for v in x)
    return str(x)


@dataclass(frozen=True)
class Setting:
    """One run's settings: the learner, the hyperparameters given that differ from its
    defaults (in :data:`HYPER_AXES` order), whom it trains against, how long, and its seed."""

    learner: str
    hyper: tuple[tuple[str, Any], ...]
    opponent: str = "self"
    seat: str = "both"
    episodes: int | None = None  # None: the learner's default for the game
    seed: int = 0
    #: The preset the run starts from (learn/presets.py) and what its values override.
    preset: str | None = None
    overridden: tuple[str, ...] = ()

    @property
    def record(self) -> dict[str, Any] | None:
        """The preset's record a run's policy file keeps (None: no preset): its name, every
        value it gives, and what the run overrode (:meth:`Preset.apply`'s)."""
        if self.preset is None:
            return None
        return {
            "name": self.preset,
            "settings": preset_named(self.preset).record_values(),
            "overridden": list(self.overridden),
        }

    def under(self, canonical: bool) -> Setting:
        """The setting as a run of a folder whose tables are ``canonical`` (what every run of
        it shares) records it: that kind of table overrides its preset's where they differ."""
        if (
            self.preset is None
            or "canonical" in self.overridden
            or canonical == preset_named(self.preset).canonical
        ):
            return self
        return replace(self, overridden=(*self.overridden, "canonical"))

    @property
    def given(self) -> dict[str, Any]:
        """The settings as ``qarena train`` takes them (None: not given)."""
        return {**dict(self.hyper), "seed": self.seed}

    @property
    def name(self) -> str:
        """The run's file name without ``.npz``: the learner and each setting that is not the
        default, e.g. ``q,alpha=0.5,vs=random,seed=3``; the same settings, the same name."""
        parts = [self.learner, *(f"{k}={_short(v)}" for k, v in self.hyper)]
        if self.preset is not None:
            parts.insert(0, f"preset={self.preset}")
        if self.opponent != "self":
            parts.append(f"vs={opponent_label(self.opponent)}")
            if self.seat != "both":
                parts.append(f"seat={self.seat}")
        if self.episodes is not None:
            parts.append(f"episodes={self.episodes}")
        parts.append(f"seed={self.seed}")
        name = _NAME_CHARS.sub("_", ",".join(parts))
        if len(name) > _MAX_NAME:
            digest = hashlib.sha256(name.encode()).hexdigest()[:12]
            name = f"{name[: _MAX_NAME - 13]}~{digest}"
        return name

    def command(
        self, spec: str, out: str, canonical: bool = True, until_perfect: bool = False
    ) -> str:
        """The ``qarena train`` command that gives this run's policy file."""
        words = ["qarena", "train", spec, "--out", out]
        preset = self.preset is not None  # over a preset, every choice is written out
        if preset:
            words += ["--preset", str(self.preset)]
        if self.learner != "q" or preset:
            words += ["--learner", self.learner]
        for k, v in self.hyper:
            value = ",".join(_short(x) for x in v) if k == "rewards" else _short(v)
            words += [flag(k), value]
        if self.opponent != "self" or preset:
            words += ["--opponent", self.opponent]
            if self.seat != "both" or (preset and self.opponent != "self"):
                words += ["--seat", self.seat]
        if self.episodes is not None:
            words += ["--episodes", str(self.episodes)]
        words += ["--seed", str(self.seed)]
        cls = learner_class(self.learner)
        words += cls.reproducible_options()  # one thread: the same seed, the same network
        if not canonical and cls.takes("--no-canonical"):
            words.append("--no-canonical")
        elif canonical and preset and not preset_named(str(self.preset)).canonical:
            words.append("--canonical")  # over the preset's own table, one entry per position
        if until_perfect:
            words.append("--until-perfect")
        return " ".join(_quote(w) for w in words)

    def to_json(self) -> dict[str, Any]:
        return {
            "learner": self.learner,
            "hyper": [[k, list(v) if isinstance(v, tuple) else v] for k, v in self.hyper],
            "opponent": self.opponent,
            "seat": self.seat,
            "episodes": self.episodes,
            "seed": self.seed,
            **({"preset": self.record} if self.preset is not None else {}),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Setting:
        hyper = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in d["hyper"])
        record = d.get("preset") or {}
        return cls(
            d["learner"],
            hyper,
            d["opponent"],
            d["seat"],
            d["episodes"],
            d["seed"],
            record.get("name"),
            tuple(record.get("overridden", ())),
        )


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z0-9._/=:,+-]+", word) else "'" + word + "'"


def opponent_label(name: str) -> str:
    if name == "self" or name in STRATEGIES:
        return name
    # A policy file: its stem, and a hash of where it is, so two files of one name differ.
    where = hashlib.sha256(os.path.abspath(name).encode()).hexdigest()[:6]
    return f"{Path(name).stem}-{where}"


@dataclass(frozen=True)
class Grid:
    """The values of every axis; runs are their combinations, the last axis (seed) fastest."""

    learners: tuple[str, ...]
    values: Mapping[str, tuple[Any, ...]]  # hyperparameter axes given
    opponents: tuple[str, ...] = ("self",)
    seats: tuple[str, ...] = ("both",)
    episodes: tuple[int | None, ...] = (None,)
    seeds: tuple[int, ...] = (0,)
    #: The preset beneath the axes (:func:`with_preset` fills the axes not given from it).
    preset: str | None = None

    def settings(self, game: Game) -> list[Setting]:
        """Every run, checked, in grid order. A setting a run cannot use (a hyperparameter
        its learner lacks; exploring starts or a seat where they do not apply) is left out of
        that run, and runs that come out the same are one run. A setting that no run can use
        is refused, as ``qarena train`` refuses it."""
        self._check(game)
        axes = [a for a in AXES if a in self.values]
        runs: dict[Setting, None] = {}
        for learner in self.learners:
            names, defaults = reads(learner, game)
            combos = itertools.product(
                *(self.values[a] for a in axes),
                self.opponents,
                self.seats,
                self.episodes,
                self.seeds,
            )
            for combo in combos:
                *hyper_values, opp, seat, episodes, seed = combo
                self_play = opp == "self"
                if not self_play and not learner_class(learner).takes("--opponent"):
                    continue  # a network learns by self-play alone
                hyper = []
                for axis, value in zip(axes, hyper_values, strict=True):
                    if axis not in names or (axis in SELF_PLAY_ONLY and not self_play):
                        continue
                    default = defaults[axis]
                    if axis == "rewards":
                        default = tuple(default)
                    if value != default:
                        hyper.append((axis, value))
                setting = Setting(
                    learner,
                    tuple(hyper),
                    opp,
                    "both" if self_play else seat,
                    episodes,
                    seed,
                    self.preset,
                    self._overridden(
                        {
                            "learner": learner,
                            "opponent": opp,
                            "seat": seat,
                            "episodes": episodes,
                            **{a: v for a, v in zip(axes, hyper_values, strict=True) if a in names},
                        }
                    ),
                )
                check_setting(setting, game)
                runs[setting] = None
        if len(runs) > MAX_RUNS:
            raise QarenaError(
                _("the sweep has {count:,} runs; at most {most:,}").format(
                    count=len(runs), most=MAX_RUNS
                )
            )
        return list(runs)

    def _overridden(self, run: Mapping[str, Any]) -> tuple[str, ...]:
        """The names of a run's values that differ from its preset's (none without one)."""
        if self.preset is None:
            return ()
        p = preset_named(self.preset)
        mine: dict[str, Any] = {"learner": p.learner, "opponent": p.opponent, "seat": p.seat}
        mine |= {"episodes": p.episodes, **p.values}
        out = []
        for key, value in run.items():
            if key not in mine:
                continue
            theirs = mine[key]
            if key == "rewards" and theirs is not None:
                theirs = tuple(float(x) for x in theirs)
            if key == "seat" and run["opponent"] == "self":
                continue  # self-play takes both seats whatever the preset says
            if value != theirs:
                out.append(key)
        return tuple(out)

    def check_fixed(self, fixed: Fixed) -> None:
        """Refuse what a network cannot share with the table learners' runs, in one line."""
        kinds = [learner_class(k) for k in self.learners]
        # A preset's own table is its table learners'; a network beside them reads the board
        # as it is, whatever the folder's tables.
        own = self.preset is not None and fixed.canonical == preset_named(self.preset).canonical
        for cls in kinds:
            cls.refuse_unused(
                (
                    ("--no-canonical", not fixed.canonical and not own),
                    ("--until-perfect", fixed.until_perfect),
                )
            )
        if fixed.curve:
            game = parse_spec(fixed.game)
            for cls in kinds:
                family_of(cls).check_curve(game)  # before any run: no bound there

    def _check(self, game: Game) -> None:
        total = math.prod(
            [
                len(self.learners),
                *(len(v) for v in self.values.values()),
                len(self.opponents),
                len(self.seats),
                len(self.episodes),
                len(self.seeds),
            ]
        )
        if total > MAX_RUNS:
            shown = f"{total:,}" if total < 10**30 else _("a number that large")
            raise QarenaError(
                _("the sweep has {count} combinations; at most {most:,} runs").format(
                    count=shown, most=MAX_RUNS
                )
            )
        read = [reads(k, game)[0] for k in self.learners]
        for axis in self.values:
            if not any(axis in names for names in read):
                kinds = " or ".join(self.learners)
                raise QarenaError(
                    _("{flag} does not apply to the {kinds} learner").format(
                        flag=option(flag(axis), axis), kinds=kinds
                    )
                )
        named = ("self", *STRATEGIES, *game.rule_players)
        for name in self.opponents:
            if name in STRATEGIES and name not in players_of(game):
                raise QarenaError(
                    _("{opponent} {name} does not play {spec}").format(
                        opponent=option("--opponent"), name=name, spec=game.spec
                    )
                )
            if name not in named and not is_file(name):
                if game.rule_players:
                    text = _(
                        "unknown opponent {name!r}; expected self, random, perfect, strongest, "
                        "{rules}, or a policy file"
                    )
                else:
                    text = _(
                        "unknown opponent {name!r}; expected self, random, perfect, strongest, or "
                        "a policy file"
                    )
                raise QarenaError(text.format(name=name, rules=", ".join(game.rule_players)))
        self_play = "self" in self.opponents
        for cls in (learner_class(k) for k in self.learners):
            cls.check_game(game)
            cls.refuse_unused((("--opponent", not self_play),))
        if not self_play and any(a in self.values for a in SELF_PLAY_ONLY):
            axis = next(a for a in SELF_PLAY_ONLY if a in self.values)
            raise QarenaError(
                _("{flag} applies to self-play; against an {opponent} games start anew").format(
                    flag=option(flag(axis), axis), opponent=option("--opponent")
                )
            )
        if self.seats != ("both",) and self.opponents == ("self",):
            raise QarenaError(
                _("{seat} applies only against an {opponent}; self-play takes both").format(
                    seat=option("--seat"), opponent=option("--opponent")
                )
            )
        for seat in self.seats:
            if seat not in SEATS:
                raise QarenaError(
                    _("unknown seat {seat!r}; expected {seats}").format(
                        seat=seat, seats=", ".join(SEATS)
                    )
                )


def with_preset(
    name: str | None,
    game: Game,
    learners: tuple[str, ...] | None,
    values: Mapping[str, tuple[Any, ...]],
    opponents: tuple[str, ...] | None,
    seats: tuple[str, ...] | None,
    episodes: tuple[int | None, ...] | None,
    seeds: tuple[int, ...],
) -> Grid:
    """The grid of the axes given, preset ``name`` (None: none) filling each axis not given
    with its one value; without a preset, qarena's defaults fill them. A preset's setting no
    learner of the sweep reads is left out (another learner was asked for)."""
    if name is None:
        return Grid(
            learners or ("q",),
            dict(values),
            opponents or ("self",),
            seats or ("both",),
            episodes or (None,),
            seeds,
        )
    p = preset_named(name)
    p.check_game(game.spec)
    learners = learners or (p.learner,)
    opponents = opponents or (p.opponent,)
    read = set().union(*(reads(k, game)[0] for k in learners))
    if "self" not in opponents:
        read -= set(SELF_PLAY_ONLY)  # against an opponent games start anew
    filled = dict(values)
    for key, value in p.settings:
        if key not in filled and key in read:
            filled[key] = (tuple(float(x) for x in value) if key == "rewards" else value,)
    return Grid(
        learners,
        filled,
        opponents,
        seats or ((p.seat,) if opponents != ("self",) else ("both",)),
        episodes or (p.episodes,),
        seeds,
        name,
    )


def parse_seeds(text: str) -> tuple[int, ...]:
    """``0-4`` (a range, both ends in), ``0,3,7``, or a mix: ``0-2,9``."""
    seeds: list[int] = []
    for item in split_list("--seeds", text):
        m = re.fullmatch(r"([0-9]{1,20})(?:-([0-9]{1,20}))?", item)
        if m is None:
            raise QarenaError(
                _("--seeds takes a range like 0-4 or a list like 0,3,7, not {item!r}").format(
                    item=item
                )
            )
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        check_seed(lo, "--seeds")
        check_seed(hi, "--seeds")
        if hi < lo:
            raise QarenaError(_("--seeds range {item} ends before it starts").format(item=item))
        if hi - lo + len(seeds) >= MAX_RUNS:
            raise QarenaError(
                _("--seeds {text} names more than {most:,} seeds").format(text=text, most=MAX_RUNS)
            )
        seeds.extend(range(lo, hi + 1))
    return distinct(seeds)


@dataclass(frozen=True)
class Fixed:
    """What every run of a sweep folder shares."""

    game: str
    canonical: bool = True
    curve: bool = False
    every: int | None = None
    games: int = SWEEP_GAMES
    until_perfect: bool = False
    #: Where its table learners' greedy steps break ties: None at random; else the first
    #: highest in the order of a function ``qarena.module:name`` gives each position's
    #: moves in (``Learner.break_ties_first``): a write-up's own rule, which the report
    #: alone sets (no command-line option names a function).
    ties: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"format": SWEEP_FORMAT, "format_version": 1, **self.__dict__}


def _seeds_text(seeds: Sequence[int]) -> str:
    """``0-4`` for a run of seeds, else ``0,3,7``."""
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(str(s) for s in seeds)


def sweep_command(grid: Grid, fixed: Fixed, out: str) -> str:  # noqa: PLR0912 - one per option
    """The ``qarena sweep`` command that runs ``grid`` with ``fixed`` into ``out``."""
    words = ["qarena", "sweep", fixed.game, "--out", out]
    if grid.preset is not None:
        words += ["--preset", grid.preset]
    preset = grid.preset is not None  # over a preset, every choice is written out
    if grid.learners != ("q",) or preset:
        words += ["--learner", ",".join(grid.learners)]
    for axis in AXES:
        if axis in grid.values:
            values = grid.values[axis]
            if axis == "rewards":
                text = ";".join(",".join(_short(x) for x in v) for v in values)
            else:
                text = ",".join(_short(v) for v in values)
            words += [flag(axis), text]
    if grid.opponents != ("self",) or preset:
        words += ["--opponent", ",".join(grid.opponents)]
    if grid.seats != ("both",) or (preset and grid.opponents != ("self",)):
        words += ["--seat", ",".join(grid.seats)]
    if grid.episodes != (None,):
        words += ["--episodes", ",".join(str(e) for e in grid.episodes)]
    if grid.seeds != (0,):
        words += ["--seeds", _seeds_text(grid.seeds)]
    if not fixed.canonical:
        words.append("--no-canonical")
    elif preset and not preset_named(str(grid.preset)).canonical:
        words.append("--canonical")  # over the preset's own table, one entry per position
    if fixed.curve:
        words.append("--curve")
    if fixed.every is not None:
        words += ["--every", str(fixed.every)]
    if fixed.until_perfect:
        words.append("--until-perfect")
    if fixed.games != SWEEP_GAMES:
        words += ["--games", str(fixed.games)]
    return " ".join(_quote(w) for w in words)
