"""The learners by name, every kind (tables and networks: ``learn/family.py``'s protocol), and
saving and loading them: :func:`load_learner` reads any learner's file by the kind it names."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import numpy as np

from qarena import __version__
from qarena.budget import MOST_OPPONENTS, check_memory
from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.games.spec import parse_spec
from qarena.i18n import _
from qarena.learn.afterstate import AfterstateLearner
from qarena.learn.base import ALL_HYPERPARAMETERS, LearnConfig, Learner
from qarena.learn.curve import Curve
from qarena.learn.family import Trainable
from qarena.learn.gamebackup import GameBackupLearner
from qarena.learn.matchbox import EliminationLearner, MatchboxLearner
from qarena.learn.ntuple import NTupleNetwork
from qarena.learn.qlearning import NaiveQLearner, QLearner, SeatQLearner
from qarena.policyfile import ArraySpec, encode_policy, load_policy, read_meta, save_policy

#: The table learners (``learn/base.py``), by name: a value for every position.
TABLE_LEARNERS: dict[str, type[Learner]] = {
    cls.kind: cls
    for cls in (
        QLearner,
        AfterstateLearner,
        MatchboxLearner,
        SeatQLearner,
        NaiveQLearner,
        EliminationLearner,
        GameBackupLearner,
    )
}
#: Every learner kind by name: a new one is a module meeting ``family.Trainable`` and a line
#: here (or :func:`register`, as a test's toy learner does).
LEARNERS: dict[str, type[Trainable]] = {**TABLE_LEARNERS, NTupleNetwork.kind: NTupleNetwork}


def register(cls: type[Trainable]) -> type[Trainable]:
    """Add a learner kind to :data:`LEARNERS` (and, a table learner, to
    :data:`TABLE_LEARNERS`); returns it, so it serves as a class decorator."""
    LEARNERS[cls.kind] = cls
    if issubclass(cls, Learner):
        TABLE_LEARNERS[cls.kind] = cls
    return cls


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


def policy_meta(learner: Learner, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a policy file says about its learner (and ``extra`` keys, such as a sweep's row)."""
    meta = {
        "game": learner.game.spec,
        "learner": learner.kind,
        "hyperparameters": learner.hyperparameter_values(),
        "episodes": learner.episodes,
        "steps": learner.steps,
        "seed": learner.config.seed,
        "rows": learner.tables.rows,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "qarena": __version__,
    }
    if learner.curve is not None:
        meta["curve"] = learner.curve.to_json()
    if learner.preset is not None:
        meta["preset"] = learner.preset
    return {**meta, **(extra or {})}


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


def save_table(
    path: str | os.PathLike[str],
    learner: Learner,
    inputs: Iterable[str | os.PathLike[str]] = (),
    extra: Mapping[str, Any] | None = None,
) -> None:
    """A table learner's policy file (:meth:`Learner.save`)."""
    save_policy(path, learner.arrays(), policy_meta(learner, extra), inputs)


def table_bytes(learner: Learner, extra: Mapping[str, Any] | None = None) -> bytes:
    """A table learner's policy file as bytes (:meth:`Learner.to_bytes`)."""
    return encode_policy(learner.arrays(), policy_meta(learner, extra))


def _config(kind: str, hyper: object) -> LearnConfig:
    if not isinstance(hyper, dict) or not set(hyper) <= set(ALL_HYPERPARAMETERS):
        raise QarenaError(
            _("its hyperparameters are not those of the {learner} learner").format(learner=kind)
        )
    values = dict(hyper)
    if "rewards" in values:
        rewards = values["rewards"]
        if not isinstance(rewards, list) or not all(
            isinstance(r, int | float) and not isinstance(r, bool) for r in rewards
        ):
            raise QarenaError(_("its rewards are not three numbers"))
        values["rewards"] = tuple(float(r) for r in rewards)
    try:
        return TABLE_LEARNERS[kind].build_config(values)
    except QarenaError as e:
        raise QarenaError(
            _("its hyperparameters are malformed ({problem})").format(problem=e)
        ) from None


def read_preset_record(value: object) -> dict[str, Any] | None:
    """A policy file's preset record (learn/presets.py), or one line saying it is malformed:
    a name and the list of settings given over it."""
    if value is None:
        return None
    if (
        isinstance(value, dict)
        and set(value) == {"name", "overridden"}
        and isinstance(value["name"], str)
        and isinstance(value["overridden"], list)
        and all(isinstance(n, str) for n in value["overridden"])
    ):
        return {"name": value["name"], "overridden": list(value["overridden"])}
    raise QarenaError(_("its preset record is malformed"))


def _by_rows(arrays: dict[str, np.ndarray], codes: np.ndarray, rows: int) -> dict[str, np.ndarray]:
    """Arrays with a row per encoded position (format 1), cut down to the reachable rows."""
    out = {"rng": arrays["rng"]}
    for name, a in arrays.items():
        if name != "rng":
            axis = next(i for i, n in enumerate(a.shape) if n == rows)
            out[name] = np.take(a, codes, axis=axis)
    return out


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
    """Read a table learner's policy file back into a learner that can play or go on training.

    ``game`` and ``kind``, when given, are what the caller needs; a file of another game or
    learner is refused with one line saying which.
    """
    found: list[tuple[Game, type[Learner], LearnConfig, int]] = []

    def expect(meta: dict[str, Any]) -> dict[str, ArraySpec]:
        def where(what: str) -> str:
            return f"{os.fspath(path)}: {what}"

        spec, learner_kind = meta.get("game"), meta.get("learner")
        if not isinstance(spec, str) or learner_kind not in TABLE_LEARNERS:
            raise QarenaError(where(_("its metadata does not name a game and a known learner")))
        assert isinstance(learner_kind, str)
        try:
            file_game = parse_spec(spec)
        except QarenaError as e:
            raise QarenaError(
                where(_("its game is not readable ({problem})").format(problem=e))
            ) from None
        if game is not None and file_game.spec != game.spec:
            raise QarenaError(
                where(
                    _("it is a policy for {game}, not {spec}").format(
                        game=file_game.spec, spec=game.spec
                    )
                )
            )
        if kind is not None and learner_kind != kind:
            raise QarenaError(
                where(
                    _("it was trained with --learner {kind}, not --learner {wanted}").format(
                        kind=learner_kind, wanted=kind
                    )
                )
            )
        for key in ("episodes", "steps"):
            value = meta.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
                raise QarenaError(
                    where(_("its {key} count is missing or out of range").format(key=key))
                )
        try:
            config = _config(learner_kind, meta.get("hyperparameters"))
        except QarenaError as e:
            raise QarenaError(where(str(e))) from None
        cls = TABLE_LEARNERS[learner_kind]
        # Files of format 1 kept a row for every encoded position; later ones say how many
        # rows their tables have, which the search of the game confirms once it is built.
        rows = file_game.num_positions if meta.get("format_version") == 1 else meta.get("rows")
        if not isinstance(rows, int) or isinstance(rows, bool) or not 1 <= rows < 2**62:
            raise QarenaError(where(_("its row count is missing or out of range")))
        # The budget is checked before anything is built: a small file may name a huge game.
        check_memory(
            file_game, "learn", cls, MOST_OPPONENTS, positions=rows, canonical=config.canonical
        )
        found.append((file_game, cls, config, rows))
        return cls.array_specs(file_game, config, rows)

    data = load_policy(path, expect)
    file_game, cls, config, rows = found[0]
    learner = cls(file_game, config)
    arrays = data.arrays
    if data.meta.get("format_version") == 1:
        arrays = _by_rows(arrays, learner.tables.codes, rows)
    elif rows != learner.tables.rows:
        raise QarenaError(
            _(
                "{file}: its tables have {rows:,} rows, but {spec} has {positions:,} positions "
                "to learn"
            ).format(
                file=os.fspath(path),
                rows=rows,
                spec=file_game.spec,
                positions=learner.tables.rows,
            )
        )
    rng = arrays["rng"]
    if not np.all((rng >= 0) & (rng <= 0xFFFFFFFF)) or not rng.any():
        raise QarenaError(
            _("{file}: its generator state is not valid").format(file=os.fspath(path))
        )
    try:
        learner.restore(arrays, int(data.meta["episodes"]), int(data.meta["steps"]))
        if "curve" in data.meta:
            learner.curve = Curve.from_json(data.meta["curve"], cls.curve_columns())
        learner.preset = read_preset_record(data.meta.get("preset"))
    except QarenaError as e:
        raise QarenaError(f"{os.fspath(path)}: {e}") from None
    return learner
