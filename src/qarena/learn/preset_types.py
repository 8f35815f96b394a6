"""What a preset is: :class:`Preset`, one write-up's method (its game, learner, settings, whom it
trains against, in which seat, how long and its kind of table) and how it goes under a run's
options (:meth:`Preset.apply`); :class:`Source`, the lines of the write-up a value comes from.
The write-ups' presets themselves are data, in ``learn/writeup_presets.py``; ``learn/presets.py``
is where train, sweep, the API and the Train page find and apply them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from qarena.errors import QarenaError
from qarena.i18n import _, gettext_noop

#: The write-ups' languages, marked for translation.
LANGUAGES = (gettext_noop("German"), gettext_noop("English"), gettext_noop("Russian"))


class Source(NamedTuple):
    """Where a write-up gives one of its preset's values: ``setting`` (a training setting's
    name, or game, learner, opponent, seat, episodes, canonical), the write-up's ``lines``
    (none: it gives no value), the value as it writes it on those lines (a few characters
    each, which a test finds there), and a ``note`` where qarena's reading is an
    interpretation (English; translated where shown)."""

    setting: str
    lines: tuple[int, ...]
    written: tuple[str, ...] = ()
    note: str = ""

    @property
    def where(self) -> str:
        """``line 290``, ``lines 360–361``, ``lines 233, 235–236`` (empty without lines)."""
        if not self.lines:
            return ""
        runs: list[list[int]] = []
        for n in self.lines:
            if runs and n == runs[-1][-1] + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        parts = [str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs]
        if len(self.lines) == 1:
            return _("line {number}").format(number=parts[0])
        return _("lines {numbers}").format(numbers=", ".join(parts))


@dataclass(frozen=True)
class Preset:
    """One write-up's method: its source, the game it plays and every setting it uses.

    ``settings`` holds training settings by their declared names (:data:`settings.NAMES`);
    ``episodes`` None means the write-up gives no number (the run's length is then qarena's
    default for the game, as without a preset). ``canonical`` says whether the write-up
    merged symmetric positions into one table entry (none did); ``sources`` where the
    write-up gives each value."""

    name: str
    source: str  # the write-up's file number in the seeds qarena grew from
    title: str  # the write-up's own title, in its language
    language: str  # English, one of LANGUAGES; translated where shown
    game: str  # the game spec the write-up plays
    learner: str
    description: str  # English; translated where shown
    settings: tuple[tuple[str, Any], ...] = ()
    opponent: str = "self"
    seat: str = "both"
    episodes: int | None = None
    notes: tuple[str, ...] = field(default=())
    canonical: bool = False
    sources: tuple[Source, ...] = ()

    @property
    def values(self) -> dict[str, Any]:
        return dict(self.settings)

    @property
    def run_values(self) -> dict[str, Any]:
        """What it gives a run besides the training settings."""
        return {
            "learner": self.learner,
            "opponent": self.opponent,
            "seat": self.seat,
            "episodes": self.episodes,
            "canonical": self.canonical,
        }

    def record_values(self) -> dict[str, Any]:
        """Every value it gives, as a run's record keeps them (JSON: lists, not tuples)."""
        values = {**self.run_values, **self.values}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}

    @property
    def family(self) -> str:
        return self.game.split(":")[0]

    @property
    def source_text(self) -> str:
        """``write-up 000, "Advanced Nim" (German)`` as the help lists it, translated."""
        return _('write-up {number}, "{title}" ({language})').format(
            number=self.source, title=self.title, language=_(self.language)
        )

    def check_game(self, spec: str) -> None:
        """A preset applies to its game, and to other boards of the same game (the term paper
        plays any piles); another game is refused in one line."""
        if spec.split(":", maxsplit=1)[0] != self.family:
            raise QarenaError(
                _("preset {name} is for {game}, not {spec}").format(
                    name=self.name, game=self.game, spec=spec
                )
            )

    def apply(
        self,
        run: Mapping[str, Any],
        given: Mapping[str, Any],
        uses: tuple[str, ...] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """The run's options and settings with this preset under what was given explicitly
        (None: not given), and the record of it: ``{"name", "settings", "overridden"}``,
        settings being every value the preset gives (:meth:`record_values`) and overridden
        the names given explicitly that differ from the preset's value.

        ``run`` holds learner, opponent, seat, episodes and canonical (its kind of table);
        ``uses`` (the chosen learner's settings) drops the preset's settings another learner,
        given explicitly, does not use.
        """
        mine = self.run_values
        overridden: list[str] = []
        out_run: dict[str, Any] = {}
        for key, value in run.items():
            if value is None:
                out_run[key] = mine.get(key)
            else:
                out_run[key] = value
                if key in mine and value != mine[key]:
                    overridden.append(key)
        if run.get("seat") is None and out_run.get("opponent") == "self":
            out_run["seat"] = "both"  # self-play takes both seats, whatever the preset's was
        out_given: dict[str, Any] = dict(given)
        for key, value in self.settings:
            if given.get(key) is None:
                if uses is None or key in uses:
                    out_given[key] = value
            elif _differs(given[key], value):
                overridden.append(key)
        record = {"name": self.name, "settings": self.record_values(), "overridden": overridden}
        return out_run, out_given, record


def _differs(a: object, b: object) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return [float(x) for x in a] != [float(x) for x in b]
    return a != b


__all__ = ["LANGUAGES", "Preset", "Source"]
