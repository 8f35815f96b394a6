"""The pages' forms: their defaults, and what people type into them, read strictly."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, create_model

from qarena.agents.spec_players import refuse_code
from qarena.agents.thinking import is_thinking
from qarena.errors import QarenaError
from qarena.games.registry import Field, menus
from qarena.i18n import _, gettext_noop
from qarena.learn.settings import ALL_SETTINGS
from qarena.learn.tables.base import NUMBER, read_rewards

_INT = re.compile(r"[0-9]+")


class HomeForm(BaseModel):
    """The home page's form: a game to play, and who starts. The fields of each game's menu
    (``qarena.games.registry.Menu``: piles, rows...) come as extra fields, by their names."""

    model_config = ConfigDict(extra="allow")

    kind: str = "nim"
    rule: str = "misere"
    spec: str = ""
    opponent: str = "trained"
    first: str = "human"

    def value(self, field: Field) -> str:
        """What was typed in a game's field (its default when the form lacks it)."""
        given = (self.model_extra or {}).get(field.name, field.default)
        return given if isinstance(given, str) else field.default


def home_defaults() -> dict[str, str]:
    """The home form as it first shows: every registered game's fields at their defaults."""
    values = HomeForm().model_dump()
    for menu in menus().values():
        values |= {f.name: f.default for f in menu.fields}
    return values


def home_values(form: HomeForm) -> dict[str, str]:
    """The home form's values, to show it again: every game's field, typed or default."""
    values = home_defaults() | form.model_dump()
    for menu in menus().values():
        values |= {f.name: form.value(f) for f in menu.fields}
    return values


class _TrainFormBase(BaseModel):
    """The training page's form: every option of ``qarena train`` but the files (the training
    settings from their one declaration, ``qarena.learn.settings``); empty fields take the
    learner's defaults. A learner kind registered after import sends its own settings as
    extra fields, read by the declaration as the others are."""

    model_config = ConfigDict(extra="allow")

    game: str = "nim"
    learner: str = "q"
    episodes: str = ""
    opponent: str = "self"
    seat: str = "both"
    until_perfect: str = ""  # a checkbox: "on" when ticked, absent otherwise
    # "yes": one position per symmetry; "no": every position; "": the default (one per
    # symmetry, or a preset's own table)
    canonical: str = ""
    preset: str = ""  # a write-up's method (qarena train --preset); "" none

    def body(self) -> dict[str, Any]:
        """The fields as the API's training request takes them, numbers read strictly."""
        if self.canonical not in ("", "yes", "no"):
            raise QarenaError(
                _("positions learned are 'yes' (one per symmetry) or 'no', not {value!r}").format(
                    value=self.canonical
                )
            )
        body: dict[str, Any] = {
            "game": self.game.strip(),
            "learner": self.learner,
            "episodes": form_number(self.episodes, _("episodes"), int),
            "opponent": self.opponent,
            "seat": self.seat,
            "until_perfect": bool(self.until_perfect),
        }
        if self.canonical:
            body["canonical"] = self.canonical == "yes"
        if self.preset:
            body["preset"] = self.preset
            # The form always sends its selects: left at their defaults they are the preset's.
            for name, default in (("learner", "q"), ("opponent", "self"), ("seat", "both")):
                if body[name] == default:
                    del body[name]
        typed_in = {**(self.model_extra or {}), **dict(self)}
        for setting in ALL_SETTINGS:
            text = str(typed_in.get(setting.name, ""))
            what = setting.name.replace("_", "-")  # as LearnConfig names it when it refuses
            if setting.kind == "rewards":
                body[setting.name] = form_rewards(text)
            elif setting.kind == "choice":
                body[setting.name] = text or None
            else:
                body[setting.name] = form_number(
                    text, what, int if setting.kind == "int" else float
                )
        return body


if TYPE_CHECKING:
    TrainForm = _TrainFormBase
else:
    TrainForm = create_model(
        "TrainForm",
        __base__=_TrainFormBase,
        __doc__=_TrainFormBase.__doc__,
        **{s.name: (str, "") for s in ALL_SETTINGS},
    )


TRAIN_DEFAULTS = TrainForm(game="nim:3,5,7").model_dump()


#: A whole number typed wrong: ``what`` is the field in words.
_WHOLE = gettext_noop("{what} must be a whole number written with the digits 0-9, not {text!r}")


def _digits(text: str, what: str) -> str:
    """A whole number typed in a form, checked to be ASCII digits: Python's int() would also
    read "३" (Devanagari three) and other scripts' digits."""
    text = text.strip()
    if not _INT.fullmatch(text):
        raise QarenaError(_(_WHOLE).format(what=what, text=text))
    return text


#: The home menu's classic Connect Four, played against perfect play.
CLASSIC = "connect4:6x7"


#: The home menu's classic Connect Four against a player that thinks: alpha-beta over the
#: network that comes with qarena (``web.thinking.PRESETS``).
CLASSIC_THINKING = "alphabeta:4:network"


def opponent_of(form: HomeForm) -> str:
    """Whom the home form asks to play: "trained", "strongest" or "perfect", or a thinking
    player's spec (the menu's presets, ``mcts:1000``; the server checks any spec sent); for
    classic Connect Four, which no table learns, perfect play at its strongest,
    ("classic-network") the n-tuple network that comes with qarena, or ("classic-thinking")
    alpha-beta over it."""
    if form.kind == "classic":
        return "strongest"
    if form.kind == "classic-network":
        return "network"
    if form.kind == "classic-thinking":
        return CLASSIC_THINKING
    refuse_code(form.opponent)  # a file's own code (connectx:FILE) never runs here
    if form.opponent not in ("trained", "strongest", "perfect") and not is_thinking(form.opponent):
        raise QarenaError(
            _(
                "the opponent is 'trained', 'strongest', 'perfect' or a thinking player (like "
                "mcts:1000), not {opponent!r}"
            ).format(opponent=form.opponent[:100])
        )
    return form.opponent


#: The home menu's ways to play beyond the registered games' menus.
OTHER_KINDS = ("classic", "classic-network", "classic-thinking", "spec")


def game_spec(form: HomeForm) -> str:
    """The game spec the home form describes: a registered game's menu fills in its spec from
    the fields, read strictly; the rest is the registry's to check, as on the command line."""
    kind = form.kind
    if form.rule not in ("misere", "normal"):
        raise QarenaError(
            _("the rule is 'misere' or 'normal', not {rule!r}").format(rule=form.rule)
        )
    if kind in ("classic", "classic-network", "classic-thinking"):
        return CLASSIC
    if kind == "spec":  # any registered game, read by the registry like the command line's
        if not form.spec.strip():
            raise QarenaError(_("give the game's spec, e.g. nim:3,5,7"))
        return form.spec.strip()
    menu = menus().get(kind)
    if menu is None:
        raise QarenaError(
            _("unknown game {kind!r}; expected {kinds}").format(
                kind=kind, kinds=", ".join([*menus(), *OTHER_KINDS])
            )
        )
    values = {f.name: _field(f, form.value(f)) for f in menu.fields}
    return menu.spec(values | {"rule": form.rule})


def _field(field: Field, text: str) -> str:
    """A menu field's text read strictly: a whole number, or whole numbers with commas."""
    what = _(field.what or field.label)
    if field.kind == "number":
        return _digits(text, what)
    numbers = [_digits(p, what) for p in text.replace(",", " ").split()]
    if not numbers:
        raise QarenaError(
            _("{what}: give at least one whole number, e.g. {example}").format(
                what=_(field.label), example=field.default
            )
        )
    return ",".join(numbers)


def form_number(text: str, what: str, kind: type[int] | type[float]) -> Any:
    """A number typed in a form (None when empty), in ASCII digits only: int() and float()
    would also read other scripts' digits, and float() reads "nan" and "inf"."""
    text = text.strip()
    if not text:
        return None
    if kind is int:
        if len(text) > 20 or not _INT.fullmatch(text):
            raise QarenaError(_(_WHOLE).format(what=what, text=text))
        return int(text)
    if len(text) > 40 or not NUMBER.fullmatch(text):
        raise QarenaError(
            _("{what} must be a number such as 0.5, not {text!r}").format(what=what, text=text)
        )
    return float(text)


def form_rewards(text: str) -> tuple[float, float, float] | None:
    """Rewards typed as WIN,DRAW,LOSS (None when empty), read as the command line's --rewards
    and refused in its words."""
    if not text.strip():
        return None
    rewards = read_rewards(text)
    if rewards is not None:
        return rewards
    raise QarenaError(
        _("--rewards must be three numbers WIN,DRAW,LOSS like 1,0,-1, not {text!r}").format(
            text=text
        )
    )
