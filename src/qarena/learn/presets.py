"""Presets: one name for every setting of a write-up qarena grew from.

A preset names the learner, the training settings (those of :mod:`qarena.learn.settings`, as
the write-up effectively applies them), whom the learner trains against and in which seat,
and how many episodes, for the game the write-up plays. ``qarena train SPEC --preset NAME``,
``qarena sweep``, :func:`qarena.train`, :func:`qarena.sweep`, the JSON API and the Train page
read them from here. What a run is given explicitly wins over the preset; the run's record
keeps the preset's name and what was overridden (:meth:`Preset.apply`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from qarena.errors import QarenaError, echo
from qarena.i18n import _, gettext_noop

#: The write-ups' languages, marked for translation.
LANGUAGES = (gettext_noop("German"), gettext_noop("English"), gettext_noop("Russian"))

#: What a run is given besides the training settings, and qarena's own defaults of them.
RUN_DEFAULTS: dict[str, Any] = {"learner": "q", "opponent": "self", "seat": "both"}


@dataclass(frozen=True)
class Preset:
    """One write-up's method: its source, the game it plays and every setting it uses.

    ``settings`` holds training settings by their declared names (:data:`settings.NAMES`);
    ``episodes`` None means the write-up gives no number (the run's length is then qarena's
    default for the game, as without a preset)."""

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

    @property
    def values(self) -> dict[str, Any]:
        return dict(self.settings)

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
        (None: not given), and the record of it: ``{"name", "overridden"}``, overridden being
        the names given explicitly that differ from the preset's value.

        ``run`` holds learner, opponent, seat and episodes; ``uses`` (the chosen learner's
        settings) drops the preset's settings another learner, given explicitly, does not use.
        """
        mine: dict[str, Any] = {
            "learner": self.learner,
            "opponent": self.opponent,
            "seat": self.seat,
            "episodes": self.episodes,
        }
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
        record = {"name": self.name, "overridden": overridden}
        return out_run, out_given, record


def _differs(a: object, b: object) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return [float(x) for x in a] != [float(x) for x in b]
    return a != b


#: The course's Q-learning (002's notebook and 004's solution share its code): learning rate
#: 0.5, ε 0.1 throughout, no discount, rewards 1 and -1, every game from the opening.
_COURSE: tuple[tuple[str, Any], ...] = (
    ("alpha", 0.5),
    ("gamma", 1.0),
    ("epsilon", 0.1),
    ("epsilon_end", 0.1),
    ("schedule", "constant"),
    ("rewards", (1.0, 0.0, -1.0)),
    ("initial", 0.0),
    ("starts", 0.0),
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "advanced-nim",
        "000",
        "Advanced Nim",
        "German",
        "nim:3,5,7",
        "seat-q",
        gettext_noop(
            "The term paper's Q-learning on 3-5-7 nim (misère): one table for both players, "
            "learning rate 0.1, discount 0.8, ε 0.1 throughout, rewards 100 and -100, "
            "100,000 games of self-play."
        ),
        (
            ("alpha", 0.1),
            ("gamma", 0.8),
            ("epsilon", 0.1),
            ("epsilon_end", 0.1),
            ("schedule", "constant"),
            ("rewards", (100.0, 0.0, -100.0)),
            ("initial", 0.0),
            ("starts", 0.0),
        ),
        episodes=100_000,
    ),
    Preset(
        "nimm12-first",
        "001",
        "Nimm-Spiel (erste Version)",
        "German",
        "subtraction:12:3",
        "elimination",
        gettext_noop(
            "The 12-stick write-up's first version: after a lost game the last move is "
            "taken out, moves are picked at random among the rest, no exploration; it moves "
            "first and trains against random play (the write-up gives no number of games: "
            "qarena's default)."
        ),
        (("epsilon", 0.0), ("epsilon_end", 0.0), ("schedule", "constant"), ("starts", 0.0)),
        opponent="random",
        seat="first",
    ),
    Preset(
        "nimm12-better",
        "001",
        "Nimm-Spiel (bessere KI)",
        "German",
        "subtraction:12:3",
        "matchbox",
        gettext_noop(
            "The 12-stick write-up's better version: losing moves taken out, and a position "
            "whose moves all lose takes the move before it along (qarena's matchbox learner, "
            "which also plays a known win first); it moves first and trains against random "
            "play (the write-up gives no number of games: qarena's default)."
        ),
        (("epsilon", 0.0), ("epsilon_end", 0.0), ("schedule", "constant"), ("starts", 0.0)),
        opponent="random",
        seat="first",
    ),
    Preset(
        "course-notebook",
        "002",
        "Nim AI Explanation: Reinforcement Learning",
        "English",
        "nim:1,3,5,7",
        "seat-q",
        gettext_noop(
            "The course notebook's Q-learning on 1-3-5-7 nim (misère, as its code plays): "
            "learning rate 0.5, ε 0.1 throughout, no discount, rewards 1 and -1, "
            "10,000 games of self-play."
        ),
        _COURSE,
        episodes=10_000,
    ),
    Preset(
        "tictactoe-blog",
        "003",
        "Q-Learning Teil 2",
        "German",
        "tictactoe:3x3:3",
        # The blog's own rule: every position of a game backed up at its end.
        "game-backup",
        gettext_noop(
            "The tic-tac-toe blog's two agents: steps 0.099 and 0.08 (its 0.1 times α 0.99 "
            "and 0.8), ε 0.5 and 0.2 throughout, no discount, rewards 1, 0.5, 0, every value "
            "0.25 at first, 50,000 games against each other, learned by the blog's own rule "
            "(game-backup: every position of a game backed up at its end)."
        ),
        (
            ("alpha", 0.099),
            ("alpha_second", 0.08),
            ("gamma", 1.0),
            ("epsilon", 0.5),
            ("epsilon_second", 0.2),
            ("epsilon_end", 0.5),
            ("schedule", "constant"),
            ("rewards", (1.0, 0.5, 0.0)),
            ("initial", 0.25),
            ("starts", 0.0),
        ),
        episodes=50_000,
    ),
    Preset(
        "cs50-nim",
        "004",
        "Решение задания 42 (nim.py)",
        "Russian",
        "nim:1,3,5,7",
        "seat-q",
        gettext_noop(
            "The course assignment's NimAI on 1-3-5-7 nim (misère): learning rate 0.5, "
            "ε 0.1 throughout, no discount, rewards 1 and -1, self-play (the write-up gives "
            "no number of games: qarena's default)."
        ),
        _COURSE,
    ),
)

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
    """A run's learner, opponent, seat and episodes (``run``) and its settings (``given``;
    None: not given) with preset ``name`` (None: no preset) beneath them, and the record of
    the preset the run keeps; without a preset, qarena's defaults fill ``run``."""
    if name is None:
        filled = {k: (RUN_DEFAULTS.get(k) if v is None else v) for k, v in run.items()}
        return filled, dict(given), None
    p = preset(name)
    p.check_game(spec)
    # The registry imports the settings' module, which imports this one.
    from qarena.learn.learners import TABLE_LEARNERS, learner_class

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


def _known_learners() -> tuple[str, ...]:
    from qarena.learn.learners import LEARNERS

    return tuple(LEARNERS)


def help_text() -> str:
    """The presets with their sources, as ``qarena train --help`` lists them."""
    return "; ".join(f"{p.name} ({p.source_text})" for p in PRESETS)


def _value_text(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(_value_text(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def markdown_table() -> str:
    """The training guide's table of the presets (``docs/guide/training.md``), derived from
    :data:`PRESETS` (``tools/settings_table.py`` writes it; a test holds the page to it): each
    setting as the option that gives it."""
    from qarena.learn.settings import BY_NAME as SETTING_BY_NAME

    lines = [
        "| preset | write-up | game | learner | opponent, seat | episodes | settings |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in PRESETS:
        options = " ".join(f"{SETTING_BY_NAME[k].option} {_value_text(v)}" for k, v in p.settings)
        against = "self" if p.opponent == "self" else f"{p.opponent}, {p.seat}"
        episodes = "default" if p.episodes is None else f"{p.episodes:,}"
        lines.append(
            f"| `{p.name}` | {p.source}, {p.title} ({p.language}) | `{p.game}` | `{p.learner}` "
            f"| {against} | {episodes} | `{options}` |"
        )
    return "\n".join(lines) + "\n"


def record_text(record: Mapping[str, Any] | None) -> str:
    """A run's preset as its summary shows it: ``advanced-nim (overridden: alpha)``."""
    if not record:
        return ""
    over = record.get("overridden") or []
    if not over:
        return str(record.get("name"))
    return _("{name} (overridden: {names})").format(
        name=record.get("name"), names=", ".join(str(n) for n in over)
    )


__all__ = [
    "BY_NAME",
    "PRESETS",
    "RUN_DEFAULTS",
    "Preset",
    "help_text",
    "markdown_table",
    "preset",
    "record_text",
    "resolve",
]
