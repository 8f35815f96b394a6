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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from qarena.errors import QarenaError, echo
from qarena.i18n import _, gettext_noop

#: The write-ups' languages, marked for translation.
LANGUAGES = (gettext_noop("German"), gettext_noop("English"), gettext_noop("Russian"))

#: What a run is given besides the training settings, and qarena's own defaults of them
#: (``canonical``: one table entry per symmetry class).
RUN_DEFAULTS: dict[str, Any] = {
    "learner": "q",
    "opponent": "self",
    "seat": "both",
    "canonical": True,
}


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

# Where qarena's reading of a write-up is an interpretation: the notes ``qarena presets NAME``
# shows beside the lines. Each write-up's lines follow, one per value; ``written`` is the value
# as the write-up writes it there (tests/test_presets.py finds it on each line cited).
_NO_DISCOUNT = gettext_noop("no discount factor in its update: γ 1")
_CONSTANT = gettext_noop("ε never changes while it trains")
_NO_DRAWS = gettext_noop("nim has no draws: the draw's reward is never paid")
_OPENING = gettext_noop("every game from the start position: no exploring starts")
_NO_COUNT = gettext_noop("the write-up gives no number of games: qarena's default")
_SEAT_Q = gettext_noop(
    "one table for both players; a move is updated when its player is next to move, toward "
    "the best value there (qarena's seat-q)"
)
_BY_POSITION = gettext_noop(
    "keyed by the piles as they lie: one entry per position (qarena's merged table: --canonical)"
)

_PAPER: tuple[Source, ...] = (
    Source("game", (35, 236), ("letzte Streichholz", "3, 5, 7"), gettext_noop("misère")),
    Source("learner", (362, 365), ("gegen sich selbst", "NimAI()"), _SEAT_Q),
    Source("alpha", (290,), ("learningrate=0.1",)),
    Source("gamma", (290,), ("discount=0.8",)),
    Source("epsilon", (290,), ("epsilon=0.1",)),
    Source("epsilon_end", (290,), ("epsilon=0.1",), _CONSTANT),
    Source("schedule", (341,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (397, 402), ("-100", "100"), _NO_DRAWS),
    Source("initial", (309,), ("Q = 0",)),
    Source("starts", (371,), ("Nim(startboard)",), _OPENING),
    Source("opponent", (362,), ("gegen sich selbst",)),
    Source("episodes", (486,), ("100000",)),
    Source(
        "canonical",
        (93, 136, 310),
        ("Dubletten", "realitätsgetreu", "tuple(state)"),
        gettext_noop(
            "it weighs sorting the piles, which would merge their orders (line 93), and keeps "
            "them as they lie: one entry per position (qarena's merged table: --canonical)"
        ),
    ),
)

_TWELVE_STICKS = Source("game", (4,), ("zwölf", "ein bis drei"))
_ONE_HEAP = Source("canonical", (4,), ("einen Haufen",), gettext_noop("one heap: nothing to merge"))
_PICKS_AT_RANDOM = gettext_noop(
    "no exploration: a move is picked at random among those not taken out"
)
_NIMM: tuple[Source, ...] = (
    Source("epsilon", (16,), ("zufälligen Zug",), _PICKS_AT_RANDOM),
    Source("epsilon_end", (16,), ("zufälligen Zug",), _PICKS_AT_RANDOM),
    Source("schedule", (16,), ("zufälligen Zug",), _PICKS_AT_RANDOM),
    Source("starts", (4,), ("zwölf",), _OPENING),
    Source(
        "opponent",
        (17, 27),
        ("trainiert mit random_move",),
        gettext_noop("the first of its four pairings of trainer and judge"),
    ),
    Source("seat", (13,), ("ersten Zug",)),
    Source("episodes", (), (), _NO_COUNT),
    _ONE_HEAP,
)

_NOTEBOOK: tuple[Source, ...] = (
    Source(
        "game",
        (41, 103),
        ("1, 3, 5, 7", "self.winner = self.player"),
        gettext_noop("misère, as its code plays it, though line 12 leaves misère aside"),
    ),
    Source("learner", (226, 229), ("against itself", "NimAI()"), _SEAT_Q),
    Source("alpha", (126,), ("alpha=0.5",)),
    Source("gamma", (168,), ("reward + future_rewards",), _NO_DISCOUNT),
    Source("epsilon", (126,), ("epsilon=0.1",)),
    Source("epsilon_end", (126,), ("epsilon=0.1",), _CONSTANT),
    Source("schedule", (216,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (260, 265), ("-1", "1"), _NO_DRAWS),
    Source("initial", (164,), ("return 0",)),
    Source("starts", (234,), ("Nim()",), _OPENING),
    Source("opponent", (226,), ("against itself",)),
    Source("episodes", (121, 221), ("10000",)),
    Source("canonical", (133, 162), ("tuple of remaining piles", "tuple(state)"), _BY_POSITION),
)

_BLOG_STEP = gettext_noop(
    "its step is 0.1·α (line 235); train() passes step_size=, which the constructor (line "
    "199) does not take: read as α, the step is 0.1 times it"
)
_BLOG: tuple[Source, ...] = (
    Source("game", (18, 19), ("ZEILEN = 3", "SPALTEN = 3")),
    Source(
        "learner",
        (233, 235, 236),
        ("reversed", "td_error"),
        gettext_noop("every position of a game moved toward the next at its end, last first"),
    ),
    Source("alpha", (199, 235, 360), ("alpha=0.1", "0.1", "0.99"), _BLOG_STEP),
    Source("alpha_second", (235, 361), ("0.1", "0.8"), _BLOG_STEP),
    Source("gamma", (235,), ("self.q[states[i + 1]]",), _NO_DISCOUNT),
    Source("epsilon", (360,), ("epsilon=0.5",)),
    Source("epsilon_second", (361,), ("epsilon=0.2",)),
    Source("epsilon_end", (360,), ("epsilon=0.5",), _CONSTANT),
    Source("schedule", (249,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (190, 191, 192), ("1", "0.5", "0")),
    Source("initial", (193,), ("0.25",)),
    Source("starts", (338,), ("Status()",), _OPENING),
    Source(
        "opponent",
        (360, 361),
        ("KI(",),
        gettext_noop("its two agents play each other: self-play, each seat with its own α and ε"),
    ),
    Source("episodes", (428, 431), ("50000",)),
    Source(
        "canonical",
        (34, 51),
        ("eindeutiger Hashwert", "hash_wert * 3"),
        gettext_noop(
            "each board its own number: mirror images apart (qarena's merged table: --canonical)"
        ),
    ),
)

_CS50: tuple[Source, ...] = (
    Source("game", (14, 76), ("1, 3, 5, 7", "self.winner = self.player"), gettext_noop("misère")),
    Source("learner", (199, 202), ("against itself", "NimAI()"), _SEAT_Q),
    Source("alpha", (81,), ("alpha=0.5",)),
    Source("gamma", (133,), ("reward + future_rewards",), _NO_DISCOUNT),
    Source("epsilon", (81,), ("epsilon=0.1",)),
    Source("epsilon_end", (81,), ("epsilon=0.1",), _CONSTANT),
    Source("schedule", (182,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (233, 239), ("-1", "1"), _NO_DRAWS),
    Source("initial", (112,), (", 0)",)),
    Source("starts", (207,), ("Nim()",), _OPENING),
    Source("opponent", (199,), ("against itself",)),
    Source("episodes", (), (), _NO_COUNT),
    Source(
        "canonical",
        (88, 112, 368),
        ("tuple of remaining piles", "tuple(state)", "по порядку"),
        _BY_POSITION,
    ),
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
        sources=_PAPER,
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
        sources=(
            _TWELVE_STICKS,
            Source("learner", (16,), ("letzten Zug",)),
            *_NIMM,
        ),
    ),
    Preset(
        "nimm12-better",
        "001",
        "Nimm-Spiel (bessere KI)",
        "German",
        "subtraction:12:3",
        "chain-elimination",
        gettext_noop(
            "The 12-stick write-up's better version: losing moves taken out, and a position "
            "whose moves all lose takes the move before it along (qarena's chain-elimination "
            "learner: matchbox without its known win played first); it moves first and trains "
            "against random play (the write-up gives no number of games: qarena's default)."
        ),
        (("epsilon", 0.0), ("epsilon_end", 0.0), ("schedule", "constant"), ("starts", 0.0)),
        opponent="random",
        seat="first",
        sources=(
            _TWELVE_STICKS,
            Source(
                "learner",
                (26,),
                ("alle Züge verlierend",),
                gettext_noop(
                    "its rule as written: qarena's matchbox would also play a known win first, "
                    "which the write-up's rule does not"
                ),
            ),
            *_NIMM,
        ),
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
        sources=_NOTEBOOK,
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
        sources=_BLOG,
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
        sources=_CS50,
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
    """A run's learner, opponent, seat, episodes and kind of table (``run``, its
    ``canonical``) and its settings (``given``; None: not given) with preset ``name`` (None:
    no preset) beneath them, and the record of the preset the run keeps; without a preset,
    qarena's defaults fill ``run``."""
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


def canonical_of(name: str | None, canonical: bool | None) -> bool:
    """A run's kind of table: ``canonical`` where given, else preset ``name``'s (the
    write-up's own), else qarena's merged one. A sweep's runs share it."""
    if canonical is not None:
        return canonical
    return bool(RUN_DEFAULTS["canonical"]) if name is None else preset(name).canonical


def _known_learners() -> tuple[str, ...]:
    from qarena.learn.learners import LEARNERS

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
    from qarena.learn.settings import BY_NAME as SETTING_BY_NAME

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
