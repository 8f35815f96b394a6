"""The learners by name, every kind (tables and networks: ``learn/family.py``'s protocol), and
saving and loading them: :func:`load_learner` reads any learner's file by the kind it names."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from typing import Any

from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.i18n import _
from qarena.learn.alphazero.learner import AlphaZeroLearner
from qarena.learn.family import Trainable
from qarena.learn.ntuple.network import NTupleNetwork
from qarena.learn.settings import declare, withdraw
from qarena.learn.tables.afterstate import AfterstateLearner
from qarena.learn.tables.base import LearnConfig, Learner
from qarena.learn.tables.files import read_table
from qarena.learn.tables.gamebackup import GameBackupLearner
from qarena.learn.tables.matchbox import (
    ChainEliminationLearner,
    EliminationLearner,
    MatchboxLearner,
)
from qarena.learn.tables.qlearning import NaiveQLearner, QLearner, SeatQLearner
from qarena.policyfile import read_meta

#: The table learners (``learn/tables/``), by name: a value for every position.
TABLE_LEARNERS: dict[str, type[Learner]] = {
    cls.kind: cls
    for cls in (
        QLearner,
        AfterstateLearner,
        MatchboxLearner,
        SeatQLearner,
        NaiveQLearner,
        EliminationLearner,
        ChainEliminationLearner,
        GameBackupLearner,
    )
}
#: Every learner kind by name: a new one is a module meeting ``family.Trainable`` and a line
#: here (or :func:`register`, as a test's toy learner does).
LEARNERS: dict[str, type[Trainable]] = {
    **TABLE_LEARNERS,
    NTupleNetwork.kind: NTupleNetwork,
    AlphaZeroLearner.kind: AlphaZeroLearner,
}


def register(cls: type[Trainable]) -> type[Trainable]:
    """Add a learner kind to :data:`LEARNERS` (and, a table learner, to
    :data:`TABLE_LEARNERS`), and its own ``settings`` to the declaration of the training
    settings (every front end's options and fields follow); returns it, so it serves as a
    class decorator. :func:`unregister` undoes it."""
    declare(cls.settings)
    LEARNERS[cls.kind] = cls
    if issubclass(cls, Learner):
        TABLE_LEARNERS[cls.kind] = cls
    return cls


def unregister(kind: str) -> None:
    """Take the learner kind ``kind`` out again, with its own settings (a test's toy)."""
    cls = LEARNERS.pop(kind, None)
    TABLE_LEARNERS.pop(kind, None)
    if cls is not None:
        withdraw(s.name for s in cls.settings)


def origin(kind: str) -> tuple[str, str] | None:
    """Where the kind ``kind`` is defined, when it was registered from outside qarena (a
    test's toy learner, a user's module): its module's name and its class's qualified name,
    so that another process (a sweep's spawned worker) can register it too (:func:`adopt`).
    None for qarena's own kinds, which every process registers as it imports this module."""
    cls = LEARNERS.get(kind)
    if cls is None or cls.__module__.partition(".")[0] == "qarena":
        return None
    return cls.__module__, cls.__qualname__


def adopt(kind: str, where: tuple[str, str]) -> None:
    """Register the kind ``kind`` defined at ``where`` (:func:`origin`'s answer in another
    process) unless this process knows it already. Its module is imported by its name, as
    any import is (never from a file), and must hold a learner kind of that name; else one
    line says why."""
    if kind in LEARNERS:
        return
    module, qualname = where
    try:
        found: object = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as e:
        raise QarenaError(
            _(
                "the learner {kind!r} comes from {module}, which cannot be imported here "
                "({problem})"
            ).format(kind=kind, module=module, problem=e)
        ) from None
    if not (isinstance(found, type) and issubclass(found, Trainable) and found.kind == kind):
        raise QarenaError(
            _("{name} in {module} is not the learner {kind!r}").format(
                name=qualname, module=module, kind=kind
            )
        )
    register(found)


def learner_class(kind: str) -> type[Trainable]:
    """The learner kind named ``kind``; an unknown name is refused in one line."""
    try:
        return LEARNERS[kind]
    except KeyError:
        raise QarenaError(
            _("unknown learner {kind!r}; expected one of {names}").format(
                kind=kind, names=", ".join(LEARNERS)
            )
        ) from None


def table_class(kind: str) -> type[Learner]:
    """The table learner named ``kind``, for what needs its tables (one line if not one)."""
    cls = learner_class(kind)
    if not issubclass(cls, Learner):
        raise QarenaError(
            _("unknown learner {kind!r}; expected one of {names}").format(
                kind=kind, names=", ".join(TABLE_LEARNERS)
            )
        )
    return cls


def make_learner(kind: str, game: Game, config: LearnConfig | None = None) -> Learner:
    """A fresh table learner; ``config`` defaults to the learner's own defaults."""
    cls = table_class(kind)
    return cls(game, config or cls.default_config())


def new_learner(kind: str, game: Game, given: Mapping[str, Any] | None = None) -> Trainable:
    """A fresh learner of any kind: its defaults for ``game`` with the settings ``given``
    (None: not given) checked by the learner's declaration."""
    cls = learner_class(kind)
    return cls.create(game, cls.build_config(given or {}, cls.default_config(game)))


def save_learner(
    path: str | os.PathLike[str],
    learner: Trainable,
    inputs: Iterable[str | os.PathLike[str]] = (),
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write any learner to its file, atomically; ``inputs`` (files the command read) are
    never overwritten; ``extra`` keys join its metadata (as for :func:`policy_meta`)."""
    learner.save(path, inputs, extra)


def learner_bytes(learner: Trainable, extra: Mapping[str, Any] | None = None) -> bytes:
    """The file of any learner as bytes, ``extra`` added to its metadata."""
    return learner.to_bytes(extra)


def load_learner(
    path: str | os.PathLike[str],
    game: Game | None = None,
    kind: str | None = None,
    budget: int | None = None,
) -> Trainable:
    """Read any learner's file back (the kind it names reads it): a learner that can play or
    go on training. ``game`` and ``kind``, when given, are what the caller needs; a file of
    another game or learner is refused with one line saying which. ``budget`` bounds the
    memory a network's file may take (default: the machine's)."""
    try:
        meta = read_meta(path)
    except QarenaError:
        meta = {}  # the table learners' reader says what is wrong with the file
    found = Trainable.file_kind(meta)
    cls = LEARNERS.get(found) if found is not None else None
    if cls is None or issubclass(cls, Learner):
        return load_table(path, game, kind)
    if kind is not None and found != kind:
        raise QarenaError(
            f"{os.fspath(path)}: "
            + _("it was trained with --learner {kind}, not --learner {wanted}").format(
                kind=found, wanted=kind
            )
        )
    return cls.read(path, meta, game, budget)


def load_table(
    path: str | os.PathLike[str], game: Game | None = None, kind: str | None = None
) -> Learner:
    """Read a table learner's policy file (of any table kind registered here) back into a
    learner that can play or go on training (``tables.files.read_table``)."""
    return read_table(path, TABLE_LEARNERS, game, kind)
