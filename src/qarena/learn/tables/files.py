"""Table learners' policy files: their metadata, writing them, reading them back (each size
checked against the budget before anything is built). ``Learner.save``/``read`` and
``learners.load_table`` come here, as ``ntuple/files.py`` is the networks' files; the registry
of kinds (``learners.py``) is given, not imported, so the learner's module needs no registry."""

from __future__ import annotations

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
from qarena.learn.curve import Curve
from qarena.learn.tables.base import ALL_HYPERPARAMETERS, LearnConfig, Learner
from qarena.policyfile import ArraySpec, encode_policy, load_policy, save_policy


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


def _config(cls: type[Learner], hyper: object) -> LearnConfig:
    if not isinstance(hyper, dict) or not set(hyper) <= set(ALL_HYPERPARAMETERS):
        raise QarenaError(
            _("its hyperparameters are not those of the {learner} learner").format(learner=cls.kind)
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
        return cls.build_config(values)
    except QarenaError as e:
        raise QarenaError(
            _("its hyperparameters are malformed ({problem})").format(problem=e)
        ) from None


def read_preset_record(value: object) -> dict[str, Any] | None:
    """A policy file's preset record (learn/presets.py), or one line saying it is malformed:
    a name, every value the preset gave (``settings``; a file written before qarena kept them
    has none) and the list of names given over it."""
    if value is None:
        return None
    if (
        isinstance(value, dict)
        and set(value) in ({"name", "overridden"}, {"name", "settings", "overridden"})
        and isinstance(value["name"], str)
        and isinstance(value["overridden"], list)
        and all(isinstance(n, str) for n in value["overridden"])
        and _preset_values(value.get("settings", {}))
    ):
        record: dict[str, Any] = {"name": value["name"]}
        if "settings" in value:
            record["settings"] = dict(value["settings"])
        record["overridden"] = list(value["overridden"])
        return record
    raise QarenaError(_("its preset record is malformed"))


def _preset_values(values: object) -> bool:
    """Whether a preset record's values are names of plain JSON values: a number, a word, a
    switch, none, or a list of numbers (rewards)."""

    def plain(v: object) -> bool:
        return v is None or isinstance(v, bool | int | float | str)

    return isinstance(values, dict) and all(
        isinstance(k, str)
        and (plain(v) or (isinstance(v, list) and all(plain(x) and x is not None for x in v)))
        for k, v in values.items()
    )


def _by_rows(arrays: dict[str, np.ndarray], codes: np.ndarray, rows: int) -> dict[str, np.ndarray]:
    """Arrays with a row per encoded position (format 1), cut down to the reachable rows."""
    out = {"rng": arrays["rng"]}
    for name, a in arrays.items():
        if name != "rng":
            axis = next(i for i, n in enumerate(a.shape) if n == rows)
            out[name] = np.take(a, codes, axis=axis)
    return out


def read_table(
    path: str | os.PathLike[str],
    classes: Mapping[str, type[Learner]],
    game: Game | None = None,
    kind: str | None = None,
) -> Learner:
    """Read a table learner's policy file back into a learner that can play or go on training:
    one of ``classes`` (the table kinds by name; ``learners.load_table`` gives them all).

    ``game`` and ``kind``, when given, are what the caller needs; a file of another game or
    learner is refused with one line saying which.
    """
    found: list[tuple[Game, type[Learner], LearnConfig, int]] = []

    def expect(meta: dict[str, Any]) -> dict[str, ArraySpec]:
        def where(what: str) -> str:
            return f"{os.fspath(path)}: {what}"

        spec, learner_kind = meta.get("game"), meta.get("learner")
        if not isinstance(spec, str) or learner_kind not in classes:
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
            config = _config(classes[learner_kind], meta.get("hyperparameters"))
        except QarenaError as e:
            raise QarenaError(where(str(e))) from None
        cls = classes[learner_kind]
        # Files of format 1 kept a row for every encoded position; later ones say how many
        # rows their tables have, which the search of the game confirms once it is built.
        rows = file_game.num_positions if meta.get("format_version") == 1 else meta.get("rows")
        if not isinstance(rows, int) or isinstance(rows, bool) or not 1 <= rows < 2**62:
            raise QarenaError(where(_("its row count is missing or out of range")))
        # The budget is checked before anything is built: a small file may name a huge game.
        check_memory(
            file_game,
            "learn",
            cls,
            MOST_OPPONENTS,
            positions=rows,
            canonical=config.canonical,
            file=os.fspath(path),
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


__all__ = ["policy_meta", "read_preset_record", "read_table", "save_table", "table_bytes"]
