"""The one declaration of the training settings.

Every place a person sets how a learner trains is derived from :data:`SETTINGS`: the options
of ``qarena train`` and ``qarena sweep``, the JSON API's training request, the Train page's
form, the keyword arguments of :func:`qarena.train` (typed: ``learn/setting_keywords.py``'s
TypedDicts, written by ``tools/settings_keywords.py``) and the training guide's table of
settings (``tools/settings_table.py``). ``tests/test_settings.py`` and
``tests/test_api_settings.py`` fail when any of them differs.
Each learner's default of each setting is its own (``Learner.defaults``); the bounds here are
what :class:`~qarena.learn.tables.base.LearnConfig` checks. Texts are marked for translation and
translated where they are shown.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, TypeVar, overload

import numpy as np

from qarena.budget import check_count, whole
from qarena.errors import QarenaError, echo_value
from qarena.i18n import _, gettext_noop, option
from qarena.learn.tables.config import SCHEDULES, START_ORDERS, LearnConfig

Kind = Literal["float", "int", "choice", "rewards"]
_C = TypeVar("_C")
_T = TypeVar("_T")


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

#: The settings only a built-in kind beside the table learners has: the n-tuple network's and
#: AlphaZero's.
BUILT_IN_KIND_SETTINGS: tuple[TrainingSetting, ...] = (*NETWORK_SETTINGS, *ALPHAZERO_SETTINGS)
#: The settings of learner kinds registered from outside qarena (``learners.register``: a
#: kind's own ``settings``), by name, in the order they were declared.
_DECLARED: dict[str, TrainingSetting] = {}
#: What is told when a kind's settings are declared or withdrawn: the command line rebuilds
#: its options from the declaration.
_WATCHERS: list[Callable[[], None]] = []


class Declared(Sequence[_T]):
    """A tuple read from the declaration each time it is read, so a learner kind registered
    after this module was imported (its own settings) is in it: every option, form field,
    sweep axis and column derived from it by iterating at the time they are needed."""

    def __init__(self, make: Callable[[], tuple[_T, ...]]) -> None:
        self._make = make

    @overload
    def __getitem__(self, index: int) -> _T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[_T, ...]: ...
    def __getitem__(self, index: int | slice) -> _T | tuple[_T, ...]:
        return self._make()[index]

    def __len__(self) -> int:
        return len(self._make())

    def __iter__(self) -> Iterator[_T]:
        return iter(self._make())

    def __repr__(self) -> str:
        return repr(self._make())

    # Equal to the tuple it reads as, either way round (``tuple(x) == COLUMNS``).
    def __eq__(self, other: object) -> bool:
        return self._make() == (tuple(other) if isinstance(other, Declared) else other)

    __hash__ = None  # type: ignore[assignment]  # it changes as kinds are registered


def registered_settings() -> tuple[TrainingSetting, ...]:
    """The settings of the learner kinds registered from outside qarena, their own."""
    return tuple(_DECLARED.values())


#: The settings only a kind beside the table learners has: the n-tuple network's, AlphaZero's
#: and those of any kind registered since (its own ``settings``).
KIND_SETTINGS: Sequence[TrainingSetting] = Declared(
    lambda: (*BUILT_IN_KIND_SETTINGS, *_DECLARED.values())
)
#: Every setting of every learner kind: the table learners' and those only another kind has.
ALL_SETTINGS: Sequence[TrainingSetting] = Declared(lambda: (*SETTINGS, *KIND_SETTINGS))
#: The settings by name.
BY_NAME = {s.name: s for s in SETTINGS}
_ALL_BY_NAME = {s.name: s for s in (*SETTINGS, *BUILT_IN_KIND_SETTINGS)}
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


def declare(owned: Iterable[TrainingSetting]) -> None:
    """Add a registered learner kind's own settings to the declaration (the command line's
    options, the API's keywords, the Train form's fields, a sweep's axes and columns follow).
    A name already declared otherwise is refused in one line: one name, one setting."""
    owned = tuple(owned)
    for s in owned:
        known = _ALL_BY_NAME.get(s.name)
        if known is not None and known != s:
            raise QarenaError(
                _("the setting {name!r} is declared already by another learner").format(name=s.name)
            )
    for s in owned:
        _DECLARED[s.name] = _ALL_BY_NAME[s.name] = s
        if s.keyword != s.name:
            KEYWORDS[s.keyword] = s.name
    _tell()


def withdraw(names: Iterable[str]) -> None:
    """Take a registered kind's own settings out of the declaration again (a test's toy
    learner, after the test); built-in settings stay."""
    for name in names:
        s = _DECLARED.pop(name, None)
        if s is not None:
            del _ALL_BY_NAME[name]
            KEYWORDS.pop(s.keyword, None)
    _tell()


def watch(callback: Callable[[], None]) -> None:
    """Call ``callback`` whenever settings are declared or withdrawn."""
    _WATCHERS.append(callback)


def _tell() -> None:
    for callback in _WATCHERS:
        callback()


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


__all__ = [
    "ALL_SETTINGS",
    "ALPHAZERO_NAMES",
    "ALPHAZERO_SETTINGS",
    "BUILT_IN_KIND_SETTINGS",
    "BY_NAME",
    "KEYWORDS",
    "KIND_SETTINGS",
    "NAMES",
    "NETWORK_NAMES",
    "NETWORK_SETTINGS",
    "SETTINGS",
    "Declared",
    "Kind",
    "TrainingSetting",
    "build_config",
    "check_config",
    "declare",
    "registered_settings",
    "setting",
    "typed",
    "watch",
    "withdraw",
]
