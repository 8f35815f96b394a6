"""Sweeps: one training run for every combination of settings (``grid.py``), each saved as a
policy file in the sweep's folder (``folder.py``), with one table of results.

A run is exactly ``qarena train`` with its settings (the same learner, opponent, episodes and
seed give the same tables; an n-tuple network learns on one thread, so that it does too),
followed by ``qarena eval``'s matches against random and perfect play. Runs are
deterministic, so any backend, any number of workers and any order of finishing give the same
table, row for row, apart from the training time.
"""

from __future__ import annotations

import importlib
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from qarena.agents.strategies import is_builtin
from qarena.errors import QarenaError, echo
from qarena.experiments.folder import MEASURED, RunOutput, RunRow, Shares, cell, run_meta
from qarena.experiments.grid import AXES, SELF_PLAY_ONLY, Fixed, Setting, opponent_label
from qarena.fileio import is_file, write_atomic
from qarena.games import Game, parse_spec
from qarena.games.base import Move, Position
from qarena.i18n import _, option, speaking
from qarena.judging.family import Measured, family_of
from qarena.learn.family import Trainable
from qarena.learn.learners import adopt, learner_bytes, learner_class
from qarena.policyfile import read_meta
from qarena.training.run import RunResult, plan_run

#: The matches' seed: ``qarena eval FILE`` (seed 0) gives a run's numbers again.
EVAL_SEED = 0


@dataclass(frozen=True)
class Task:
    """What a worker needs for one run: plain data, so it crosses to another process or
    machine. A policy file opponent travels as its bytes."""

    fixed: Fixed
    setting: Setting
    threads: int = 0  # compiled loops' threads in the worker (0: numba's default)
    opponent_file: bytes | None = None
    language: str = "en"  # the language of the worker's messages: the sweep's own
    #: Where its learner kind is defined when it is not one of qarena's own (a test's toy
    #: learner): a spawned worker knows only the kinds registered as qarena is imported, so
    #: it imports this module by name and registers the kind (``learners.adopt``).
    learner_from: tuple[str, str] | None = None


def run_task(task: Task) -> RunOutput:
    """Train and measure one run; its policy file comes back as bytes, written by the caller.
    Its messages (an error) are in the task's language."""
    with speaking(task.language):
        if task.learner_from is not None:
            adopt(task.setting.learner, task.learner_from)
        # The folder's kind of table, where it is not the preset's, is an override to record.
        return _run_task(replace(task, setting=task.setting.under(task.fixed.canonical)))


def _run_task(task: Task) -> RunOutput:
    if task.threads:
        import numba

        most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
        numba.set_num_threads(min(task.threads, most))
    setting = task.setting
    fixed = task.fixed
    game = parse_spec(fixed.game)
    with tempfile.TemporaryDirectory(prefix="qarena-sweep-") as tmp:
        name = setting.opponent
        if task.opponent_file is not None:
            # The file travels as bytes (a Ray node may not see this disk); loading takes a path.
            name = os.path.join(tmp, os.path.basename(setting.opponent))
            write_atomic(name, task.opponent_file)
        # qarena train's set-up, on one thread (the same settings learn the same network).
        plan = plan_run(
            game,
            setting.learner,
            setting.given,
            # A network reads the board as it is: the folder's tables (a preset's own, beside
            # it) are its table learners'.
            canonical=fixed.canonical or not learner_class(setting.learner).takes("--no-canonical"),
            opponent=name,
            seat=setting.seat,
            episodes=setting.episodes,
            until_perfect=fixed.until_perfect,
            curve=fixed.curve,
            every=fixed.every,
            workers=1,
            preset=setting.record,
        )
    learner = plan.learner
    family = family_of(learner)
    ties = fixed.ties is not None and family.break_ties_first(learner, tie_order(fixed.ties))
    result = plan.run()
    measured = family.measure(
        learner,
        optimality=result.optimality,
        perfect_at=result.perfect_at,
        curve=plan.curve,
        games=fixed.games,
        seed=EVAL_SEED,
        names=MEASURED,
        canonical=fixed.canonical,
        opponent=setting.opponent,
        seat=setting.seat,
        preset=(setting.preset or "", setting.overridden),
    )
    return _row(task, learner, result, measured, ties)


def tie_order(name: str) -> Callable[[Game, Position], Iterable[Move]]:
    """The function ``qarena.module:name`` that orders a position's moves for
    :attr:`Fixed.ties`; only qarena's own modules are imported (a sweep's folder names it)."""
    module, _sep, attr = name.partition(":")
    found = None
    if module == "qarena" or module.startswith("qarena."):
        try:
            found = getattr(importlib.import_module(module), attr, None)
        except ImportError:
            found = None
    if not callable(found):
        raise QarenaError(_("{name} names no order of moves in qarena").format(name=echo(name)))
    return found  # type: ignore[no-any-return]


def _row(
    task: Task, learner: Trainable, result: RunResult, measured: Measured, ties: bool
) -> RunOutput:
    """A run's row and file: its learner measured as its family measures it (``qarena eval``'s
    judging), the tie order it trained with named in its file (``ties``)."""
    setting, fixed = task.setting, task.fixed
    shown = set(measured.shown)
    if setting.opponent != "self":
        shown -= set(SELF_PLAY_ONLY)
    row = RunRow(
        run=setting.name,
        game=fixed.game,
        learner=setting.learner,
        settings=_settings(learner.config.to_dict(), shown),
        canonical=measured.canonical,
        opponent=opponent_label(setting.opponent),
        seat=measured.seat,
        seed=setting.seed,
        episodes=result.episodes,
        train_seconds=result.seconds,
        steps=result.steps,
        optimality=measured.optimality,
        perfect_at=measured.perfect_at,
        against={name: Shares(**measured.against[name]) for name in MEASURED},
        preset=measured.preset,
        overridden=measured.overridden,
        unbeaten=measured.unbeaten,
    )
    meta = run_meta(setting, row)
    if ties:  # not in the learner's own settings: its file says it here
        meta["ties"] = fixed.ties
    return RunOutput(setting.name, learner_bytes(learner, meta), row)


def _settings(config: Mapping[str, Any], used: set[str]) -> dict[str, str]:
    """The run's value of each axis as results.csv writes it; blank where its learner lacks
    the setting."""
    return {axis: cell(config[axis]) if axis in used else "" for axis in AXES}


def opponent_file(game: Game, name: str) -> bytes | None:
    """A policy file opponent's bytes, to send to each run (None for a built-in player or
    self-play); checked to be of this game."""
    if name == "self" or is_builtin(name) or not is_file(name):
        return None
    meta = read_meta(name)
    if meta.get("game") != game.spec:
        raise QarenaError(
            _("{opponent} {name} is a policy for {other}, not {spec}").format(
                opponent=option("--opponent"), name=name, other=meta.get("game"), spec=game.spec
            )
        )
    try:
        return Path(name).read_bytes()
    except OSError as e:
        raise QarenaError(
            _("cannot read {file}: {problem}").format(file=name, problem=e.strerror or e)
        ) from None
