"""Presets: one name for every setting of a write-up qarena grew from.

A preset names the learner, the training settings (those of :mod:`qarena.learn.settings`, as
the write-up effectively applies them), whom the learner trains against and in which seat,
and how many episodes, for the game the write-up plays. ``qarena train SPEC --preset NAME``,
``qarena sweep``, :func:`qarena.train`, :func:`qarena.sweep`, the JSON API and the Train page
read them from here. What a run is given explicitly wins over the preset; the run's record
keeps the preset's name, every value it gives and what was overridden (:meth:`Preset.apply`).

A preset trains the write-up's own kind of table: one entry per position, since none of the
write-ups merged mirror images or orderings of heaps into one entry (``canonical`` False); qarena's
merged tables are asked for explicitly (``--canonical``), an override the record keeps. Each
value carries the lines of the write-up it comes from (:class:`Source`, ``qarena presets NAME``).

What a preset is (:class:`Preset`, :class:`Source`) is in ``learn/preset_types.py``, the
write-ups' presets themselves (:data:`PRESETS`, data) in ``learn/writeup_presets.py``; this
module finds them by name, applies them to a run and says them as options, text and JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from qarena.errors import QarenaError, echo
from qarena.i18n import _
from qarena.learn.learners import LEARNERS, TABLE_LEARNERS, learner_class
from qarena.learn.preset_types import LANGUAGES, Preset, Source
from qarena.learn.settings import BY_NAME as SETTING_BY_NAME
from qarena.learn.writeup_presets import PRESETS

#: What a run is given besides the training settings, and qarena's own defaults of them
#: (``canonical``: one table entry per symmetry class).
RUN_DEFAULTS: dict[str, Any] = {
    "learner": "q",
    "opponent": "self",
    "seat": "both",
    "canonical": True,
}


#: The presets by name.
BY_NAME: dict[str, Preset] = {p.name: p for p in PRESETS}


def preset(name: str) -> Preset:
    """The preset ``name``, or one line listing the presets."""
    found = BY_NAME.get(name) if isinstance(name, str) else None
    if found is None:
        raise QarenaError(
            _("unknown preset {name!r}; expected one of {names}").format(
                name=echo(name) if isinstance(name, str) else name,
                names=", ".join(BY_NAME),
            )
        )
    return found


def resolve(
    name: str | None,
    spec: str,
    run: Mapping[str, Any],
    given: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    """A run's learner, opponent, seat, episodes and kind of table (``run``, its
    ``canonical``) and its settings (``given``; None: not given) with preset ``name`` (None:
    no preset) beneath them, and the record of the preset the run keeps; without a preset,
    qarena's defaults fill ``run``."""
    if name is None:
        filled = {k: (RUN_DEFAULTS.get(k) if v is None else v) for k, v in run.items()}
        return filled, dict(given), None
    p = preset(name)
    p.check_game(spec)
    kind = run.get("learner") or p.learner
    # A kind without tables (a network) has none of the table learners' settings but α and ε.
    if kind in _known_learners() and kind not in TABLE_LEARNERS:
        raise QarenaError(
            _("preset {name} is for table learners, not {learner}").format(
                name=p.name, learner=kind
            )
        )
    uses = tuple(learner_class(kind).hyperparameters) if kind in _known_learners() else None
    return p.apply(run, given, uses)


def canonical_of(name: str | None, canonical: bool | None) -> bool:
    """A run's kind of table: ``canonical`` where given, else preset ``name``'s (the
    write-up's own), else qarena's merged one. A sweep's runs share it."""
    if canonical is not None:
        return canonical
    return bool(RUN_DEFAULTS["canonical"]) if name is None else preset(name).canonical


def _known_learners() -> tuple[str, ...]:
    return tuple(LEARNERS)


def help_text() -> str:
    """The presets with their sources, as ``qarena train --help`` lists them."""
    return "; ".join(f"{p.name} ({p.source_text})" for p in PRESETS)


def _value_text(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ",".join(_value_text(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


#: The order a preset's values are listed in: the game, the learner, its settings, whom it
#: plays, how long, and its kind of table.
_RUN_FIRST = ("game", "learner")
_RUN_LAST = ("opponent", "seat", "episodes", "canonical")


def option_text(name: str, value: Any) -> str:
    """A preset's value as the option of ``qarena train`` that gives it: ``--alpha 0.1``,
    ``--no-canonical``, ``--episodes 100000``; the game as its spec; ``--episodes`` alone
    where the write-up gives no number."""
    if name == "game":
        return str(value)
    if name == "canonical":
        return "--canonical" if value else "--no-canonical"
    if name == "episodes" and value is None:
        return "--episodes"
    flag = SETTING_BY_NAME[name].option if name in SETTING_BY_NAME else "--" + name
    return f"{flag} {_value_text(value)}"


def _listed(values: Mapping[str, Any]) -> list[str]:
    """The names of ``values`` in listing order (any unknown name last)."""
    first = [k for k in _RUN_FIRST if k in values]
    last = [k for k in _RUN_LAST if k in values]
    return first + [k for k in values if k not in (*first, *last)] + last


@dataclass(frozen=True)
class SourceRow:
    """One value of a preset as ``qarena presets NAME`` lists it."""

    setting: str
    option: str  # as qarena train takes it (the game: its spec)
    where: str  # "000 line 290"; empty where the write-up gives none
    lines: tuple[int, ...]
    note: str  # translated; empty where nothing is interpreted


def source_rows(p: Preset) -> list[SourceRow]:
    """Every value of ``p`` (self-play's seat aside) with where its write-up gives it."""
    values = {"game": p.game, **p.run_values, **p.values}
    if p.opponent == "self":
        del values["seat"]  # self-play takes both seats
    found = {src.setting: src for src in p.sources}
    rows = []
    for name in _listed(values):
        src = found.get(name)
        where = f"{p.source} {src.where}" if src is not None and src.lines else ""
        rows.append(
            SourceRow(
                name,
                option_text(name, values[name]),
                where,
                src.lines if src is not None else (),
                _(src.note) if src is not None and src.note else "",
            )
        )
    return rows


def to_json(p: Preset, detail: bool = False) -> dict[str, Any]:
    """A preset as ``qarena presets --json`` prints it; ``detail``: with its description and
    every value's source (``qarena presets NAME --json``)."""
    out: dict[str, Any] = {
        "name": p.name,
        "source": p.source,
        "title": p.title,
        "language": p.language,
        "game": p.game,
        "learner": p.learner,
        "opponent": p.opponent,
        "seat": p.seat,
        "episodes": p.episodes,
        "canonical": p.canonical,
    }
    if detail:
        out["description"] = _(p.description)
        out["settings"] = {k: v for k, v in p.record_values().items() if k in p.values}
        out["sources"] = [
            {
                "setting": row.setting,
                "option": row.option,
                "lines": list(row.lines),
                "where": row.where,
                "note": row.note,
            }
            for row in source_rows(p)
        ]
    return out


def markdown_table() -> str:
    """The training guide's table of the presets (``docs/guide/training.md``), derived from
    :data:`PRESETS` (``tools/settings_table.py`` writes it; a test holds the page to it): each
    setting as the option that gives it, and the kind of table (``--no-canonical``: the
    write-up's own, one entry per position)."""
    lines = [
        "| preset | write-up | game | learner | opponent, seat | episodes | settings |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in PRESETS:
        options = " ".join(option_text(k, v) for k, v in (*p.settings, ("canonical", p.canonical)))
        against = "self" if p.opponent == "self" else f"{p.opponent}, {p.seat}"
        episodes = "default" if p.episodes is None else f"{p.episodes:,}"
        lines.append(
            f"| `{p.name}` | {p.source}, {p.title} ({p.language}) | `{p.game}` | `{p.learner}` "
            f"| {against} | {episodes} | `{options}` |"
        )
    return "\n".join(lines) + "\n"


def record_text(record: Mapping[str, Any] | None) -> str:
    """A run's preset as its summary shows it: ``advanced-nim (overridden: alpha)``, then
    every value the preset gave as its option (``: --learner seat-q --alpha 0.1 …
    --no-canonical``; a record written before qarena kept them has only the first part)."""
    if not record:
        return ""
    over = record.get("overridden") or []
    head = str(record.get("name"))
    if over:
        head = _("{name} (overridden: {names})").format(
            name=head, names=", ".join(str(n) for n in over)
        )
    values = record.get("settings")
    if not isinstance(values, Mapping) or not values:
        return head
    shown = dict(values)
    if shown.get("opponent") == "self":
        shown.pop("opponent")
        shown.pop("seat", None)  # self-play takes both seats
    if shown.get("episodes", 0) is None:
        shown.pop("episodes")
    return head + ": " + " ".join(option_text(k, shown[k]) for k in _listed(shown))


__all__ = [
    "BY_NAME",
    "LANGUAGES",
    "PRESETS",
    "RUN_DEFAULTS",
    "Preset",
    "Source",
    "SourceRow",
    "canonical_of",
    "help_text",
    "markdown_table",
    "option_text",
    "preset",
    "record_text",
    "resolve",
    "source_rows",
    "to_json",
]
