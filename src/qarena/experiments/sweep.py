"""Sweeps: one training run for every combination of settings, each saved as a policy file,
with one table of results.

A sweep folder holds::

    sweep.json     what every run shares: the game, canonical or not, curves, games per match
    runs/*.npz     one normal policy file per run, named by its settings; its metadata carries
                   the run's row of results under "sweep"
    results.csv    one row per run, rebuilt from the run files

A run is exactly ``qarena train`` with its settings (the same learner, opponent, episodes and
seed give the same tables; an n-tuple network learns on one thread, so that it does too),
followed by ``qarena eval``'s matches against random and perfect play. Runs are
deterministic, so any backend, any number of workers and any order of finishing give the same
table, row for row, apart from the training time. The run files are the record: a run counts
as finished when its file is there, so a sweep resumes by being run again.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import itertools
import json
import math
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from qarena.agents.opponents import opponent
from qarena.agents.players import player
from qarena.agents.strategies import STRATEGIES, is_builtin, players_of
from qarena.budget import check_count, check_seed
from qarena.errors import QarenaError
from qarena.evaluate.judging import judge_player
from qarena.evaluate.report import record_against, strategy_masks
from qarena.fileio import LOCK_NAME, folder_lock, is_dir, is_file, write_atomic
from qarena.games import Game, parse_spec
from qarena.i18n import _, speaking
from qarena.learn.base import ALL_HYPERPARAMETERS, SEAT_SETTINGS, SEATS, read_rewards
from qarena.learn.learners import learner_bytes, learner_class
from qarena.learn.ntuple import KIND as NETWORK
from qarena.learn.ntuple import (
    NetworkConfig,
    NTupleNetwork,
    check_board,
    check_fits,
    default_games,
    network_bytes,
)
from qarena.learn.settings import NETWORK_NAMES, NETWORK_SETTINGS, SETTINGS
from qarena.policyfile import read_meta
from qarena.training.run import (
    JUDGED_GAMES,
    default_episodes,
    network_curve,
    new_curve,
    new_learner,
    train_network,
    train_run,
)

#: Most runs one sweep may hold (each is a policy file and a row).
MAX_RUNS = 10_000
#: Games in each seat of a run's matches against random and perfect play (as qarena eval).
SWEEP_GAMES = 1_000
#: The matches' seed: ``qarena eval FILE`` (seed 0) gives a run's numbers again.
EVAL_SEED = 0
#: The opponents each run is measured against.
MEASURED = ("random", "perfect")
#: The hyperparameter axes, in the order they appear in names and columns (the seed is an
#: axis of its own; canonical or not, what every run of a folder shares).
HYPER_AXES = tuple(n for n in ALL_HYPERPARAMETERS if n not in ("canonical", "seed"))
#: The axes only an n-tuple network has (``--learner ntuple``); it reads alpha, epsilon and
#: epsilon_end of the axes above too.
NETWORK_AXES = tuple(s.name for s in NETWORK_SETTINGS)
#: Every axis of settings, in column order.
AXES = (*HYPER_AXES, *NETWORK_AXES)
#: Settings only self-play uses: against an opponent, games start anew.
SELF_PLAY_ONLY = ("starts", "start_order")
#: The columns of results.csv.
COLUMNS = (
    "run",
    "game",
    "learner",
    *HYPER_AXES,
    *NETWORK_AXES,
    "canonical",
    "opponent",
    "seat",
    "seed",
    "episodes",
    "train_seconds",
    "steps",
    "optimality",
    "perfect_at",
    *(f"{name}_{outcome}" for name in MEASURED for outcome in ("win", "draw", "loss")),
)
#: The columns that tell runs apart.
SETTING_COLUMNS = ("learner", *AXES, "opponent", "seat", "seed")
#: Columns a results table or run file written before a sweep could train networks lacks.
LATER_COLUMNS = (*SEAT_SETTINGS, *NETWORK_AXES)
#: What a sweep folder's sweep.json says, beside its format.
FIXED = ("game", "canonical", "curve", "every", "games", "until_perfect")
SWEEP_FORMAT = "qarena-sweep"

T = TypeVar("T")

_NAME_CHARS = re.compile(r"[^A-Za-z0-9._=,:+-]")
_MAX_NAME = 180


_OPTIONS = {s.name: s.option for s in (*SETTINGS, *NETWORK_SETTINGS)}


def flag(axis: str) -> str:
    """The command-line option of an axis."""
    return _OPTIONS.get(axis) or "--" + axis.replace("_", "-")


def reads(learner: str) -> tuple[frozenset[str], dict[str, Any]]:
    """The settings ``learner`` reads (seed aside), and their defaults."""
    if learner == NETWORK:
        return frozenset(NETWORK_NAMES) - {"seed"}, NetworkConfig().to_dict()
    cls = learner_class(learner)
    return frozenset(cls.hyperparameters), cls.default_config().to_dict()


def check_setting(setting: Setting) -> None:
    """Values out of range: one line, as ``qarena train`` says it."""
    if setting.learner == NETWORK:
        config = NetworkConfig.build(setting.given)
        check_fits(config.tuples, config.tuple_length)
    else:
        learner_class(setting.learner).build_config(setting.given)


def _short(x: Any) -> str:
    """A value in a run's name: 0.5, 1, -1 (floats without a needless ``.0``)."""
    if isinstance(x, float):
        text = repr(x)
        return text.removesuffix(".0")
    if isinstance(x, tuple | list):
        return ":".join(_short(v) for v in x)
    return str(x)


def cell(x: Any) -> str:
    """A value in results.csv: floats exactly (``repr``), rewards as ``1.0,0.0,-1.0``."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, tuple | list):
        return ",".join(cell(v) for v in x)
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

    @property
    def given(self) -> dict[str, Any]:
        """The settings as ``qarena train`` takes them (None: not given)."""
        return {**dict(self.hyper), "seed": self.seed}

    @property
    def name(self) -> str:
        """The run's file name without ``.npz``: the learner and each setting that is not the
        default, e.g. ``q,alpha=0.5,vs=random,seed=3``; the same settings, the same name."""
        parts = [self.learner, *(f"{k}={_short(v)}" for k, v in self.hyper)]
        if self.opponent != "self":
            parts.append(f"vs={_opponent_label(self.opponent)}")
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
        if self.learner != "q":
            words += ["--learner", self.learner]
        for k, v in self.hyper:
            value = ",".join(_short(x) for x in v) if k == "rewards" else _short(v)
            words += [flag(k), value]
        if self.opponent != "self":
            words += ["--opponent", self.opponent]
            if self.seat != "both":
                words += ["--seat", self.seat]
        if self.episodes is not None:
            words += ["--episodes", str(self.episodes)]
        words += ["--seed", str(self.seed)]
        if self.learner == NETWORK:
            words += ["--workers", "1"]  # one thread: the same seed, the same network
        if not canonical and self.learner != NETWORK:
            words.append("--no-canonical")
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
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Setting:
        hyper = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in d["hyper"])
        return cls(d["learner"], hyper, d["opponent"], d["seat"], d["episodes"], d["seed"])


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z0-9._/=:,+-]+", word) else "'" + word + "'"


def _opponent_label(name: str) -> str:
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

    def settings(self, game: Game) -> list[Setting]:
        """Every run, checked, in grid order. A setting a run cannot use (a hyperparameter
        its learner lacks; exploring starts or a seat where they do not apply) is left out of
        that run, and runs that come out the same are one run. A setting that no run can use
        is refused, as ``qarena train`` refuses it."""
        self._check(game)
        axes = [a for a in AXES if a in self.values]
        runs: dict[Setting, None] = {}
        for learner in self.learners:
            names, defaults = reads(learner)
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
                if learner == NETWORK and not self_play:
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
                )
                check_setting(setting)
                runs[setting] = None
        if len(runs) > MAX_RUNS:
            raise QarenaError(
                _("the sweep has {count:,} runs; at most {most:,}").format(
                    count=len(runs), most=MAX_RUNS
                )
            )
        return list(runs)

    def check_fixed(self, fixed: Fixed) -> None:
        """Refuse what a network cannot share with the table learners' runs, in one line."""
        if NETWORK not in self.learners:
            return
        for name, used in (
            ("--no-canonical", not fixed.canonical),
            ("--until-perfect", fixed.until_perfect),
        ):
            if used:
                raise QarenaError(
                    _(
                        "{flag} does not apply to an n-tuple network, which learns by self-play "
                        "and is judged along perfect-play games (--curve)"
                    ).format(flag=name)
                )

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
        read = [reads(k)[0] for k in self.learners]
        for axis in self.values:
            if not any(axis in names for names in read):
                kinds = " or ".join(self.learners)
                raise QarenaError(
                    _("{flag} does not apply to the {kinds} learner").format(
                        flag=flag(axis), kinds=kinds
                    )
                )
        named = ("self", *STRATEGIES, *game.rule_players)
        for name in self.opponents:
            if name in STRATEGIES and name not in players_of(game):
                raise QarenaError(
                    _("--opponent {name} does not play {spec}").format(name=name, spec=game.spec)
                )
            if name not in named and not is_file(name):
                if game.rule_players:
                    text = _(
                        "unknown opponent {name!r}; expected self, random, perfect, {rules}, or a "
                        "policy file"
                    )
                else:
                    text = _(
                        "unknown opponent {name!r}; expected self, random, perfect, or a policy "
                        "file"
                    )
                raise QarenaError(text.format(name=name, rules=", ".join(game.rule_players)))
        self_play = "self" in self.opponents
        if NETWORK in self.learners:
            check_board(game)
            if not self_play:
                raise QarenaError(
                    _(
                        "{flag} does not apply to an n-tuple network, which learns by self-play "
                        "and is judged along perfect-play games (--curve)"
                    ).format(flag="--opponent")
                )
        if not self_play and any(a in self.values for a in SELF_PLAY_ONLY):
            axis = next(a for a in SELF_PLAY_ONLY if a in self.values)
            raise QarenaError(
                _("{flag} applies to self-play; against an --opponent games start anew").format(
                    flag=flag(axis)
                )
            )
        if self.seats != ("both",) and self.opponents == ("self",):
            raise QarenaError(_("--seat applies only against an --opponent; self-play takes both"))
        for seat in self.seats:
            if seat not in SEATS:
                raise QarenaError(
                    _("unknown seat {seat!r}; expected {seats}").format(
                        seat=seat, seats=", ".join(SEATS)
                    )
                )


# --- parsing the command line's lists ---------------------------------------------------------


def split_list(flag_name: str, text: str) -> list[str]:
    """``a,b,c`` as a list of non-empty items."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise QarenaError(
            _("{flag} takes a comma-separated list like a,b, not {text!r}").format(
                flag=flag_name, text=text
            )
        )
    return items


def parse_floats(flag_name: str, text: str) -> tuple[float, ...]:
    values = []
    for item in split_list(flag_name, text):
        try:
            x = float(item)
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            raise QarenaError(
                _("{flag} takes numbers like 0.1,0.5, not {item!r}").format(
                    flag=flag_name, item=item
                )
            )
        values.append(x)
    return _distinct(values)


def parse_ints(flag_name: str, text: str, most: int) -> tuple[int, ...]:
    values = []
    for item in split_list(flag_name, text):
        if not re.fullmatch(r"[0-9_]{1,40}", item):
            raise QarenaError(
                _("{flag} takes whole numbers like 1000,10000, not {item!r}").format(
                    flag=flag_name, item=item
                )
            )
        value = int(item)
        check_count(flag_name, value, most)
        values.append(value)
    return _distinct(values)


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
    return _distinct(seeds)


def parse_rewards(texts: Sequence[str]) -> tuple[tuple[float, float, float], ...]:
    """Reward triples, one per ``--rewards`` or separated by ``;``: ``1,0,-1;100,0,-100``."""
    triples = []
    for text in texts:
        for part in text.split(";"):
            values = read_rewards(part)
            if values is None:
                raise QarenaError(
                    _(
                        "--rewards takes triples WIN,DRAW,LOSS like 1,0,-1 (several separated "
                        "by ';' or given as more --rewards), not {part!r}"
                    ).format(part=part)
                )
            triples.append(values)
    return _distinct(triples)


def parse_names(flag_name: str, text: str, known: Iterable[str] | None = None) -> tuple[str, ...]:
    items = split_list(flag_name, text)
    if known is not None:
        allowed = tuple(known)
        for item in items:
            if item not in allowed:
                raise QarenaError(
                    _("{flag}: unknown {item!r}; expected {names}").format(
                        flag=flag_name, item=item, names=", ".join(allowed)
                    )
                )
    return _distinct(items)


def _distinct(values: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys(values))


# --- one run ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """What a worker needs for one run: plain data, so it crosses to another process or
    machine. A policy file opponent travels as its bytes."""

    fixed: Fixed
    setting: Setting
    threads: int = 0  # compiled loops' threads in the worker (0: numba's default)
    opponent_file: bytes | None = None
    language: str = "en"  # the language of the worker's messages: the sweep's own


@dataclass(frozen=True)
class RunOutput:
    name: str
    policy: bytes  # the run's policy file
    row: dict[str, str]


def run_task(task: Task) -> RunOutput:
    """Train and measure one run; its policy file comes back as bytes, written by the caller.
    Its messages (an error) are in the task's language."""
    with speaking(task.language):
        return _run_task(task)


def _run_task(task: Task) -> RunOutput:
    if task.setting.learner == NETWORK:
        return _run_network(task)
    if task.threads:
        import numba

        most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
        numba.set_num_threads(min(task.threads, most))
    setting = task.setting
    fixed = task.fixed
    game = parse_spec(fixed.game)
    learner = new_learner(game, setting.learner, setting.given, fixed.canonical)
    with tempfile.TemporaryDirectory(prefix="qarena-sweep-") as tmp:
        name = setting.opponent
        if task.opponent_file is not None:
            # The file travels as bytes (a Ray node may not see this disk); loading takes a path.
            name = os.path.join(tmp, os.path.basename(setting.opponent))
            write_atomic(name, task.opponent_file)
        opp = opponent(learner.tables, name)
    total = setting.episodes or default_episodes(learner, opp.self_play)
    curve = new_curve(learner, total, fixed.every) if fixed.curve else None
    result = train_run(
        learner, total, opp, setting.seat, until_perfect=fixed.until_perfect, curve=curve
    )
    records = record_against(
        learner, strategy_masks(learner.tables, MEASURED), fixed.games, EVAL_SEED
    )
    perfect_at = result.perfect_at
    if curve is not None and perfect_at is None:
        perfect_at = next((p.episodes for p in curve.points if p.optimality == 1.0), None)
    config = learner.config.to_dict()
    used = set(learner.hyperparameters)
    if setting.opponent != "self":
        used -= set(SELF_PLAY_ONLY)
    row = _row(config, used, setting, task, result.episodes, result.seconds, result.steps)
    row["optimality"] = cell(result.optimality.share)
    row["perfect_at"] = cell(perfect_at)
    for name, seats in records.items():
        for outcome, share in seats.total.shares().items():
            row[f"{name}_{outcome}"] = cell(share)
    meta = {"sweep": {"setting": setting.to_json(), "row": row}}
    return RunOutput(setting.name, learner_bytes(learner, meta), row)


def _run_network(task: Task) -> RunOutput:
    """A network's run: ``qarena train --learner ntuple`` on one thread (so the same settings
    learn the same network), then judged as ``qarena eval`` judges it."""
    setting, fixed = task.setting, task.fixed
    game = parse_spec(fixed.game)
    net = NTupleNetwork.from_config(game, NetworkConfig.build(setting.given))
    total = setting.episodes or default_games(game)
    curve = network_curve(net, total, fixed.every, JUDGED_GAMES) if fixed.curve else None
    result = train_network(net, total, curve=curve)
    evaluation = judge_player(player(net, game), fixed.games, EVAL_SEED)
    used = set(NETWORK_NAMES) - {"seed"}
    config = net.config.to_dict()
    row = _row(config, used, setting, task, result.games, result.seconds, result.steps)
    row["canonical"] = ""  # a network reads the board as it is, its mirror image summed in
    row["optimality"] = cell(evaluation.optimality.share)
    row["perfect_at"] = ""
    for name in MEASURED:
        for outcome, share in evaluation.matches[name].total.shares().items():
            row[f"{name}_{outcome}"] = cell(share)
    meta = {"sweep": {"setting": setting.to_json(), "row": row}}
    return RunOutput(setting.name, network_bytes(net, meta), row)


def _row(
    config: Mapping[str, Any],
    used: set[str],
    setting: Setting,
    task: Task,
    episodes: int,
    seconds: float,
    steps: int,
) -> dict[str, str]:
    row = {"run": setting.name, "game": task.fixed.game, "learner": setting.learner}
    for axis in AXES:
        row[axis] = cell(config[axis]) if axis in used else ""
    row["canonical"] = cell(task.fixed.canonical)
    row["opponent"] = _opponent_label(setting.opponent)
    row["seat"] = "" if setting.opponent == "self" else setting.seat
    row["seed"] = str(setting.seed)
    row["episodes"] = str(episodes)
    row["train_seconds"] = f"{seconds:.6f}"
    row["steps"] = str(steps)
    return row


def opponent_file(game: Game, name: str) -> bytes | None:
    """A policy file opponent's bytes, to send to each run (None for a built-in player or
    self-play); checked to be of this game."""
    if name == "self" or is_builtin(name) or not is_file(name):
        return None
    meta = read_meta(name)
    if meta.get("game") != game.spec:
        raise QarenaError(
            _("--opponent {name} is a policy for {other}, not {spec}").format(
                name=name, other=meta.get("game"), spec=game.spec
            )
        )
    try:
        return Path(name).read_bytes()
    except OSError as e:
        raise QarenaError(
            _("cannot read {file}: {problem}").format(file=name, problem=e.strerror or e)
        ) from None


# --- the folder -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixed:
    """What every run of a sweep folder shares."""

    game: str
    canonical: bool = True
    curve: bool = False
    every: int | None = None
    games: int = SWEEP_GAMES
    until_perfect: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"format": SWEEP_FORMAT, "format_version": 1, **self.__dict__}


class SweepFolder:
    """A sweep's folder: its fixed settings, its finished runs, its results table."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs = root / "runs"
        self.results = root / "results.csv"
        self.settings_file = root / "sweep.json"

    def fixed(self) -> Fixed | None:
        """The folder's fixed settings; None when there is no sweep here yet."""
        if not self.settings_file.exists():
            return None
        where = str(self.settings_file)
        if not is_file(where):
            raise QarenaError(_("{file} is not a regular file").format(file=where))
        try:
            raw = self.settings_file.read_bytes()
            data = json.loads(raw[:100_000]) if len(raw) <= 100_000 else None
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict) or data.get("format") != SWEEP_FORMAT:
            raise QarenaError(_("{file} is not a qarena sweep's settings").format(file=where))
        try:
            fixed = Fixed(**{k: data[k] for k in FIXED if k in data})
            assert isinstance(fixed.game, str) and isinstance(fixed.canonical, bool)
            assert isinstance(fixed.curve, bool) and isinstance(fixed.games, int)
            assert fixed.every is None or isinstance(fixed.every, int)
            assert isinstance(fixed.until_perfect, bool)
        except (TypeError, AssertionError):
            raise QarenaError(
                _("{file} is not a qarena sweep's settings").format(file=where)
            ) from None
        return fixed

    def open(self, fixed: Fixed) -> None:
        """Make the folder for ``fixed``, or check that the sweep in it shares them."""
        root = str(self.root)
        old = self.fixed()
        if old is None:
            self._check_no_other_files()
        if old is not None and old != fixed:
            diffs = [
                _("{setting} {old!r}, not {new!r}").format(
                    setting=k, old=getattr(old, k), new=getattr(fixed, k)
                )
                for k in FIXED
                if getattr(old, k) != getattr(fixed, k)
            ]
            raise QarenaError(
                _(
                    "{folder} holds a sweep with {differences}: resume it with the same game and "
                    "options, or give another --out"
                ).format(folder=root, differences="; ".join(diffs))
            )
        try:
            self.runs.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise QarenaError(
                _("cannot make the folder {folder}: {problem}").format(
                    folder=self.runs, problem=e.strerror or e
                )
            ) from None
        if not is_dir(str(self.runs)):
            raise QarenaError(_("{folder} is not a folder").format(folder=self.runs))
        if old is None:
            text = json.dumps(fixed.to_json(), indent=2) + "\n"
            write_atomic(self.settings_file, text.encode())

    def _check_no_other_files(self) -> None:
        """A folder with no sweep in it yet must hold nothing of anyone else's: the sweep
        writes results.csv and sweep.json there, over whatever has those names."""
        try:
            entries = sorted(os.listdir(self.root))
        except FileNotFoundError:
            return
        others = [e for e in entries if e != LOCK_NAME and not (e == "runs" and self._empty_runs())]
        if others:
            names = ", ".join(others[:3]) + ("…" if len(others) > 3 else "")
            raise QarenaError(
                _(
                    "{folder} holds files but no sweep ({names}); give --out a new or empty "
                    "folder, or the folder of a sweep to resume"
                ).format(folder=self.root, names=names)
            )

    def _empty_runs(self) -> bool:
        return is_dir(str(self.runs)) and not any(os.scandir(self.runs))

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The folder (made if new) held by this sweep while the block runs: a second sweep
        into it is refused until this one ends. A folder this sweep made is removed again if
        the sweep fails before a run is finished (a refused backend, say), so a refusal leaves
        nothing behind."""
        root = str(self.root)
        if os.path.lexists(root) and not is_dir(root):
            raise QarenaError(_("--out {folder} is not a folder").format(folder=root))
        made = not os.path.lexists(root)
        if not made and not self.settings_file.exists():
            self._check_no_other_files()  # before the lock file, too, is put there
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise QarenaError(
                _("cannot make the folder {folder}: {problem}").format(
                    folder=root, problem=e.strerror or e
                )
            ) from None
        try:
            with folder_lock(root, "sweep"):
                yield
        except BaseException:
            if made:
                self._unmake()
            raise

    def _unmake(self) -> None:
        """Remove the folder this sweep made, if it holds no finished run: only the files a
        sweep writes, and only empty folders."""
        if self.runs.is_dir() and any(self.runs.iterdir()):
            return
        for path in (self.settings_file, self.results, self.root / LOCK_NAME):
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in (self.runs, self.root):
            with contextlib.suppress(OSError):
                folder.rmdir()

    def path(self, name: str) -> Path:
        return self.runs / f"{name}.npz"

    def finished(self) -> dict[str, dict[str, str]]:
        """The row of every finished run, by name: each run file's own record. A file that is
        not a finished run of this sweep (damaged, or of another game) is left out, so the run
        is trained again."""
        rows: dict[str, dict[str, str]] = {}
        if not self.runs.is_dir():
            return rows
        for path in sorted(self.runs.glob("*.npz")):
            try:
                meta = read_meta(path)
            except QarenaError:
                continue
            sweep = meta.get("sweep")
            row = sweep.get("row") if isinstance(sweep, dict) else None
            # Runs written before some settings existed lack their columns: not set.
            if (
                isinstance(row, dict)
                and set(COLUMNS) - set(LATER_COLUMNS) <= set(row) <= set(COLUMNS)
                and all(isinstance(v, str) for v in row.values())
                and row["run"] == path.stem
                and meta.get("game") == row["game"]
            ):
                rows[path.stem] = {c: row.get(c, "") for c in COLUMNS}
        return rows

    def save(self, output: RunOutput) -> None:
        write_atomic(self.path(output.name), output.policy)

    def write_results(self, rows: Iterable[Mapping[str, str]]) -> None:
        write_atomic(self.results, results_csv(rows))


def results_csv(rows: Iterable[Mapping[str, str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return buffer.getvalue().encode()


def read_results(path: Path) -> list[dict[str, str]]:
    """results.csv back as rows (for plots and reports), checked to be one."""
    where = str(path)
    if not is_file(where):
        raise QarenaError(
            _("no results table at {file}; is it a sweep folder (qarena sweep)?").format(file=where)
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise QarenaError(
            _("cannot read {file}: {problem}").format(file=where, problem=e)
        ) from None
    reader = csv.DictReader(io.StringIO(text))
    header = tuple(reader.fieldnames or ())
    # A table written before some settings existed lacks their columns: they were not set.
    if header != COLUMNS and header != tuple(c for c in COLUMNS if c not in NETWORK_AXES):
        raise QarenaError(_("{file} is not a qarena sweep's results table").format(file=where))
    rows = list(reader)
    if any(None in row or any(v is None for v in row.values()) for row in rows):
        raise QarenaError(
            _("{file} is damaged: a row has the wrong number of cells").format(file=where)
        )
    return [{c: row.get(c, "") for c in COLUMNS} for row in rows]


def ordered_rows(
    finished: Mapping[str, dict[str, str]], settings: Sequence[Setting]
) -> list[dict[str, str]]:
    """The rows of the finished runs: this sweep's in grid order, then the folder's others (an
    earlier sweep into the same folder) by name."""
    names = [s.name for s in settings]
    ours = set(names)
    rows = [finished[n] for n in names if n in finished]
    rows += [finished[n] for n in sorted(finished) if n not in ours]
    return rows


def _seeds_text(seeds: Sequence[int]) -> str:
    """``0-4`` for a run of seeds, else ``0,3,7``."""
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(str(s) for s in seeds)


def sweep_command(grid: Grid, fixed: Fixed, out: str) -> str:
    """The ``qarena sweep`` command that runs ``grid`` with ``fixed`` into ``out``."""
    words = ["qarena", "sweep", fixed.game, "--out", out]
    if grid.learners != ("q",):
        words += ["--learner", ",".join(grid.learners)]
    for axis in AXES:
        if axis in grid.values:
            values = grid.values[axis]
            if axis == "rewards":
                text = ";".join(",".join(_short(x) for x in v) for v in values)
            else:
                text = ",".join(_short(v) for v in values)
            words += [flag(axis), text]
    if grid.opponents != ("self",):
        words += ["--opponent", ",".join(grid.opponents)]
    if grid.seats != ("both",):
        words += ["--seat", ",".join(grid.seats)]
    if grid.episodes != (None,):
        words += ["--episodes", ",".join(str(e) for e in grid.episodes)]
    if grid.seeds != (0,):
        words += ["--seeds", _seeds_text(grid.seeds)]
    if not fixed.canonical:
        words.append("--no-canonical")
    if fixed.curve:
        words.append("--curve")
    if fixed.every is not None:
        words += ["--every", str(fixed.every)]
    if fixed.until_perfect:
        words.append("--until-perfect")
    if fixed.games != SWEEP_GAMES:
        words += ["--games", str(fixed.games)]
    return " ".join(_quote(w) for w in words)
