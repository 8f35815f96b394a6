"""The one declaration of the training settings.

Every place a person sets how a learner trains is derived from :data:`SETTINGS`: the options
of ``qarena train`` and ``qarena sweep``, the JSON API's training request, the Train page's
form, the keyword arguments of :func:`qarena.train` (typed: ``learn/setting_keywords.py``'s
TypedDicts, written by ``tools/settings_keywords.py``) and the training guide's table of
settings (``tools/settings_table.py``). ``tests/test_settings.py`` and
``tests/test_api_settings.py`` fail when any of them differs.
Each learner's default of each setting is its own (``Learner.defaults``); the bounds here are
what :class:`~qarena.learn.base.LearnConfig` checks. Texts are marked for translation and
translated where they are shown.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, TypeVar

import numpy as np

from qarena.budget import check_count, whole
from qarena.errors import QarenaError, echo_value
from qarena.i18n import _, gettext_noop, option
from qarena.learn.config import SCHEDULES, START_ORDERS, LearnConfig

Kind = Literal["float", "int", "choice", "rewards"]
_C = TypeVar("_C")


@dataclass(frozen=True)
class TrainingSetting:
    """One setting: its name (LearnConfig's field, the API's key, the keyword argument), how
    it is typed, its bounds, and its words (English; translated where shown)."""

    name: str
    kind: Kind
    help: str  # the option's help and the API field's description
    label: str  # the form's label and the policy page's row
    flag: str = ""  # the command line's, when not --name-with-dashes
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # the bound is not itself allowed: alpha is in (0, 1]
    choices: tuple[tuple[str, str], ...] = ()  # (value, words for the form)
    placeholder: str = ""  # the form's, when not "default"
    self_play_only: bool = False
    note: str = ""  # a line under the form's field
    #: The refusal of a value out of bounds, when not the kind's own (``{value}``: the value).
    refusal: str = ""

    def check(self, value: object) -> None:
        """Refuse, in one line, a value outside the declared bounds: the one check of every
        learner's config (each config's ``__post_init__`` asks it for its own settings)."""
        if self.low is None or self.high is None:
            return
        if self.kind == "int":
            if self.refusal:
                if not _whole(value) or not self.low <= value <= self.high:  # type: ignore[operator]
                    raise QarenaError(_(self.refusal).format(value=value))
                return
            check_count(self.option, value, int(self.high), int(self.low))  # type: ignore[arg-type]
            return
        fits = _is_number(value) and math.isfinite(value)  # type: ignore[arg-type]
        if fits and self.low_open:
            fits = self.low < value <= self.high  # type: ignore[operator]
        elif fits:
            fits = self.low <= value <= self.high  # type: ignore[operator]
        if not fits:
            message = self.refusal or (
                gettext_noop("{name} must be in (0, 1], not {value}")
                if self.low_open
                else gettext_noop("{name} must be in [0, 1], not {value}")
            )
            raise QarenaError(_(message).format(name=self.option[2:], value=value))

    @property
    def option(self) -> str:
        """The command line's flag: ``--epsilon-end``."""
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def keyword(self) -> str:
        """The command line's name as a keyword: ``epsilon_schedule`` for
        ``--epsilon-schedule``, ``lambda`` for ``--lambda``."""
        return self.option[2:].replace("-", "_")

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(v for v, _ in self.choices)

    @property
    def bounds(self) -> str:
        """The bounds as a reader writes them: ``(0, 1]``; empty when unbounded."""
        if self.low is None or self.high is None:
            return ""
        if self.kind == "int":
            high = "2**63 - 1" if self.high == 2**63 - 1 else f"{self.high:g}"
            return f"whole numbers {self.low:g} to {high}"
        return f"{'(' if self.low_open else '['}{self.low:g}, {self.high:g}]"


SETTINGS: tuple[TrainingSetting, ...] = (
    TrainingSetting(
        "alpha",
        "float",
        gettext_noop("Learning rate in (0, 1]."),
        gettext_noop("α learning rate"),
        low=0,
        high=1,
        low_open=True,
    ),
    TrainingSetting(
        "gamma",
        "float",
        gettext_noop("Discount in [0, 1]."),
        gettext_noop("γ discount"),
        low=0,
        high=1,
        refusal=gettext_noop("gamma must be in [0, 1], not {value}"),
    ),
    TrainingSetting(
        "epsilon",
        "float",
        gettext_noop("Exploration rate at the start, in [0, 1]."),
        gettext_noop("ε exploration at the start"),
        low=0,
        high=1,
    ),
    TrainingSetting(
        "epsilon_end",
        "float",
        gettext_noop("Exploration rate at the end of the run."),
        gettext_noop("ε exploration at the end"),
        low=0,
        high=1,
    ),
    TrainingSetting(
        "schedule",
        "choice",
        gettext_noop("constant, linear or exp."),
        gettext_noop("ε schedule"),
        flag="--epsilon-schedule",
        choices=(
            ("linear", gettext_noop("linear")),
            ("exp", gettext_noop("exponential")),
            ("constant", gettext_noop("constant")),
        ),
    ),
    TrainingSetting(
        "rewards",
        "rewards",
        gettext_noop("Rewards for win, draw, loss, e.g. 1,0,-1 or 100,0,-100."),
        gettext_noop("rewards for win / draw / loss"),
        placeholder="1,0,-1",
    ),
    TrainingSetting(
        "initial",
        "float",
        gettext_noop("Initial value of every table entry (default 0)."),
        gettext_noop("initial value"),
        placeholder="0",
    ),
    TrainingSetting(
        "seed",
        "int",
        gettext_noop("Random seed."),
        gettext_noop("seed"),
        low=0,
        high=2**63 - 1,
        placeholder="0",
        refusal=gettext_noop("seed must be a whole number from 0 to 2**63 - 1, not {value}"),
    ),
    TrainingSetting(
        "starts",
        "float",
        gettext_noop(
            "Exploring starts: the share of self-play episodes that begin at a position "
            "the learner plays on rather than at the start (default: the learner's)."
        ),
        gettext_noop("exploring starts: share"),
        low=0,
        high=1,
        refusal=gettext_noop("starts must be a share in [0, 1], not {value}"),
        self_play_only=True,
        note=gettext_noop(
            "self-play only: the share of episodes that begin at a position the agent plays "
            "on, 0 to 1"
        ),
    ),
    TrainingSetting(
        "start_order",
        "choice",
        gettext_noop(
            "sweep: exploring starts take every (position, move) in turn, each position "
            "after those it leads to; uniform: a position drawn at random, its move by "
            "epsilon-greedy play (default: the learner's)."
        ),
        gettext_noop("exploring starts: order"),
        choices=(
            ("sweep", gettext_noop("sweep: every position and move in turn")),
            ("uniform", gettext_noop("uniform: positions at random")),
        ),
        self_play_only=True,
    ),
    TrainingSetting(
        "alpha_second",
        "float",
        gettext_noop(
            "In self-play, the second player's learning rate (default: --alpha's): two "
            "agents learning against each other, each at its own rates (afterstate, seat-q, "
            "game-backup)."
        ),
        gettext_noop("α learning rate of the second player"),
        low=0,
        high=1,
        low_open=True,
    ),
    TrainingSetting(
        "epsilon_second",
        "float",
        gettext_noop(
            "In self-play, the second player's exploration at the start (default: "
            "--epsilon's); it ends at --epsilon-end as the first player's does."
        ),
        gettext_noop("ε exploration of the second player at the start"),
        low=0,
        high=1,
    ),
)

#: The settings only an n-tuple network has (``--learner ntuple``; ``NetworkConfig``'s fields
#: besides those above). It also reads ``alpha`` (where ``alpha_end`` takes over from a
#: table learner's schedule), ``epsilon``, ``epsilon_end`` and ``seed``.
NETWORK_SETTINGS: tuple[TrainingSetting, ...] = (
    TrainingSetting(
        "tuples",
        "int",
        gettext_noop("n-tuple network: how many tuples (random walks over the board)."),
        gettext_noop("tuples"),
        low=1,
        high=1_000,
    ),
    TrainingSetting(
        "tuple_length",
        "int",
        gettext_noop("n-tuple network: cells per tuple (a table of 4^L entries each)."),
        gettext_noop("cells per tuple"),
        low=1,
        high=10,
    ),
    TrainingSetting(
        "alpha_end",
        "float",
        gettext_noop(
            "n-tuple network: the learning rate at the end of the run; it decays "
            "exponentially from --alpha."
        ),
        gettext_noop("α learning rate at the end"),
        low=0,
        high=1,
        low_open=True,
    ),
    TrainingSetting(
        "lam",
        "float",
        gettext_noop("n-tuple network: λ of TD(λ), how far back each move's error reaches."),
        gettext_noop("λ eligibility trace"),
        flag="--lambda",
        low=0,
        high=1,
    ),
    TrainingSetting(
        "opening",
        "int",
        gettext_noop(
            "n-tuple network and AlphaZero: each game of self-play opens with 0 to this many "
            "random moves (uniformly many) it does not learn from, so it learns across the board."
        ),
        gettext_noop("random opening: most moves"),
        low=0,
        high=100,
    ),
)

#: The settings only the AlphaZero learner has (``--learner alphazero``; ``AlphaZeroConfig``'s
#: fields besides those above). It also reads ``alpha`` (Adam's step size), ``opening`` and
#: ``seed``.
ALPHAZERO_SETTINGS: tuple[TrainingSetting, ...] = (
    TrainingSetting(
        "channels",
        "int",
        gettext_noop("AlphaZero: channels of each convolution of its residual network."),
        gettext_noop("channels"),
        low=1,
        high=256,
    ),
    TrainingSetting(
        "blocks",
        "int",
        gettext_noop("AlphaZero: residual blocks of its network."),
        gettext_noop("residual blocks"),
        low=0,
        high=20,
    ),
    TrainingSetting(
        "simulations",
        "int",
        gettext_noop("AlphaZero: search simulations for each move of self-play."),
        gettext_noop("simulations a move"),
        low=1,
        high=10_000,
    ),
)

#: The settings only a kind beside the table learners has: the n-tuple network's and
#: AlphaZero's.
KIND_SETTINGS: tuple[TrainingSetting, ...] = (*NETWORK_SETTINGS, *ALPHAZERO_SETTINGS)
#: Every setting of every learner kind: the table learners' and those only a network has.
ALL_SETTINGS: tuple[TrainingSetting, ...] = (*SETTINGS, *KIND_SETTINGS)
#: The settings by name.
BY_NAME = {s.name: s for s in SETTINGS}
_ALL_BY_NAME = {s.name: s for s in ALL_SETTINGS}
#: Their names, in the declaration's order (the order every form and table shows them in).
NAMES = tuple(BY_NAME)
#: The command line's names as keywords, where they differ from the declared name:
#: ``epsilon_schedule`` is ``schedule``; ``lambda`` (a Python word, so only through
#: ``**{"lambda": 0.5}``) is ``lam``. The Python API takes either.
KEYWORDS = {s.keyword: s.name for s in ALL_SETTINGS if s.keyword != s.name}
#: The settings an n-tuple network reads: its own, and these of the table learners'.
NETWORK_NAMES = ("alpha", "epsilon", "epsilon_end", "seed", *(s.name for s in NETWORK_SETTINGS))
#: The settings the AlphaZero learner reads: its own, and these of the others'.
ALPHAZERO_NAMES = ("alpha", "opening", "seed", *(s.name for s in ALPHAZERO_SETTINGS))

# The declaration covers LearnConfig exactly, but ``canonical`` (a flag of its own,
# --no-canonical, that also decides the game's tables).
assert set(NAMES) == {f.name for f in fields(LearnConfig)} - {"canonical"}
assert set(BY_NAME["schedule"].values) == set(SCHEDULES)
assert set(BY_NAME["start_order"].values) == set(START_ORDERS)


def typed(name: str, value: object) -> object:
    """A setting's value as its declaration types it, or a one-line refusal naming the
    setting and what it takes: what Python callers and files pass is checked here once (the
    command line's and the web's values are typed already). A whole number is not a bool;
    a number is an int or a float, not a bool or a text; a choice is a text; rewards are
    three numbers. Names not declared here are left as they are (``build_config`` refuses
    them by name)."""
    setting = _ALL_BY_NAME.get(name)
    if setting is None or value is None:
        return value
    kind = setting.kind
    if kind == "int":
        return whole(name, value)
    if kind == "float":
        if _is_number(value):
            return float(value)  # type: ignore[arg-type]
        raise QarenaError(_("{name} must be a number, not {value}").format(
            name=name, value=echo_value(value)))  # fmt: skip
    if kind == "choice":
        if isinstance(value, str):
            return value
        raise QarenaError(
            _("{name} must be one of {names}, not {value}").format(
                name=name, names=", ".join(setting.values), value=echo_value(value)
            )
        )
    if isinstance(value, list | tuple) and len(value) == 3 and all(map(_is_number, value)):
        return tuple(float(v) for v in value)
    raise QarenaError(
        _("rewards are three numbers WIN,DRAW,LOSS, not {value}").format(value=echo_value(value))
    )


def setting(name: str) -> TrainingSetting:
    """The declaration of setting ``name``, of any learner kind."""
    return _ALL_BY_NAME[name]


def check_config(config: object, names: tuple[str, ...]) -> None:
    """Refuse a config whose settings ``names`` fall outside their declared bounds, in the
    order they are declared: what every learner kind's config checks on creation."""
    for name in names:
        declared = _ALL_BY_NAME.get(name)
        value = getattr(config, name)
        # A setting whose default is None (the second player's: "the first player's") may be.
        if declared is not None and not (value is None and getattr(type(config), name) is None):
            declared.check(value)


def build_config(cls: type[_C], given: Mapping[str, Any], base: _C | None, kind: str) -> _C:
    """``base`` (default: ``cls()``, the defaults) of a kind's config dataclass ``cls`` with
    the settings ``given`` (None: not given); a setting the learner ``kind`` does not use is
    refused in the command line's words. The new config checks its bounds as it is made."""
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    for name, value in given.items():
        if value is not None and name not in names:
            flag = "--epsilon-schedule" if name == "schedule" else "--" + name.replace("_", "-")
            raise QarenaError(
                _("{flag} does not apply to the {learner} learner").format(
                    flag=option(flag, name), learner=kind
                )
            )
    chosen = {k: v for k, v in given.items() if v is not None}
    try:
        return replace(base or cls(), **chosen)  # type: ignore[type-var]
    except TypeError as e:
        raise QarenaError(
            _("training settings are malformed ({problem})").format(problem=e)
        ) from None


def _whole(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    """An int or a float (numpy's too), not a bool: True is not a learning rate."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _shown(value: object) -> str:
    if value is None:
        return "the first player's"
    if isinstance(value, list | tuple):
        return ",".join(_shown(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def defaults_text(name: str) -> str:
    """Each learner's default of setting ``name``, as the training guide's table writes it: the
    most common default, then the learners that differ, then those without the setting."""
    from qarena.learn.learners import TABLE_LEARNERS as LEARNERS  # ntuple's: added after

    uses = {
        k: cls.default_config().to_dict()[name]
        for k, cls in LEARNERS.items()
        if name in cls.hyperparameters
    }
    lacking = [k for k in LEARNERS if k not in uses]
    shown = [_shown(v) for v in uses.values()]
    common = max(shown, key=shown.count)
    others = [f"{k} {s}" for k, s in zip(uses, shown, strict=True) if s != common]
    text = common + (f" ({'; '.join(others)})" if others else "")
    if lacking:
        text += f"; not used by {', '.join(lacking)}"
    return text


def network_defaults_text(name: str) -> str:
    """An n-tuple network's default of setting ``name``, for the training guide's table."""
    from qarena.learn.ntuple_config import BIG_BOARD, BIG_OPENING, BIG_TUPLES, NetworkConfig

    text = _shown(NetworkConfig().to_dict()[name])
    big = {"tuples": BIG_TUPLES, "opening": BIG_OPENING}
    if name in big:
        text += f" ({big[name]} on boards of {BIG_BOARD} cells or more: classic Connect Four)"
    return text


def alphazero_defaults_text(name: str) -> str:
    """The AlphaZero learner's default of setting ``name``, for the training guide's table."""
    from qarena.learn.alphazero import AlphaZeroConfig

    if name == "opening":
        return "the board's cells (at most 100)"
    return _shown(AlphaZeroConfig().to_dict()[name])


def markdown_table() -> str:
    """The training guide's table of the training settings (``docs/guide/training.md``),
    derived from :data:`SETTINGS` and the learners' defaults (``tools/settings_table.py``
    writes it; a test holds the page to it)."""
    lines = [
        "| option | range | default | what it sets |",
        "|---|---|---|---|",
    ]
    for s in SETTINGS:
        if s.choices:
            span = " \\| ".join(f"`{v}`" for v in s.values)
        elif s.kind == "rewards":
            span = "three numbers W,D,L"
        else:
            span = s.bounds or "any number"
        help_text = s.help.replace("|", "\\|")
        default = defaults_text(s.name)
        if s.name in NETWORK_NAMES:
            default += f"; ntuple {network_defaults_text(s.name)}"
        if s.name in ALPHAZERO_NAMES:
            default += f"; alphazero {alphazero_defaults_text(s.name)}"
        lines.append(f"| `{s.option}` | {span} | {default} | {help_text} |")
    for s in KIND_SETTINGS:
        help_text = s.help.replace("|", "\\|")
        kinds = []
        if s.name in NETWORK_NAMES:
            kinds.append(f"ntuple {network_defaults_text(s.name)}")
        if s.name in ALPHAZERO_NAMES:
            kinds.append(f"alphazero {alphazero_defaults_text(s.name)}")
        default = "; ".join(kinds) + "; not used by the table learners"
        lines.append(f"| `{s.option}` | {s.bounds} | {default} | {help_text} |")
    return "\n".join(lines) + "\n"


__all__ = [
    "ALL_SETTINGS",
    "ALPHAZERO_NAMES",
    "ALPHAZERO_SETTINGS",
    "BY_NAME",
    "KEYWORDS",
    "KIND_SETTINGS",
    "NAMES",
    "NETWORK_NAMES",
    "NETWORK_SETTINGS",
    "SETTINGS",
    "Kind",
    "TrainingSetting",
    "build_config",
    "check_config",
    "defaults_text",
    "markdown_table",
    "setting",
    "typed",
]
