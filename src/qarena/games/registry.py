"""The game registry: each game module registers its name, its spec parser, its spec form and
(optionally) its menu, the fields people fill in to pick one of its variants.

Spec parsing asks the registry, and the web's home page lists the menus, so a new game is one
module that calls :func:`register`; no other code names game classes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from qarena.budget import MAX_HEAP, MAX_SPEC_CHARS
from qarena.errors import SpecError
from qarena.games.base import Game
from qarena.i18n import _

#: ``parse(text, parts)``: the whole spec text (for messages) and the parts after ``name:``.
Parser = Callable[[str, list[str]], Game]


@dataclass(frozen=True)
class Field:
    """One field of a game's menu: its name in the form, what it is (``label``, marked with
    ``gettext_noop``), its default, and what it holds: a whole number (``most`` at most, when
    given) or a list of whole numbers, written with commas."""

    name: str
    label: str
    default: str
    kind: Literal["number", "numbers"] = "number"
    most: int | None = None
    what: str = ""  # in messages: "the heap", "each pile" (gettext_noop)


@dataclass(frozen=True)
class Menu:
    """How people pick a variant of a game in a form: its title, its fields, a note under them
    (both marked with ``gettext_noop``), whether it is played misère or normal (the form's
    shared "last match" choice, given to ``spec`` as ``"rule"``), and the spec that the
    fields' values, read and checked, describe."""

    title: str
    fields: tuple[Field, ...]
    spec: Callable[[Mapping[str, str]], str]
    note: str = ""
    rule: bool = False


@dataclass(frozen=True)
class Entry:
    name: str
    parse: Parser
    aliases: tuple[str, ...]
    form: str
    menu: Menu | None = None


_ENTRIES: dict[str, Entry] = {}  # by name, in registration order
_NAMES: dict[str, str] = {}  # name or alias -> name

#: Form names the menus share, which no game's field may take.
_SHARED_FIELDS = ("kind", "rule", "spec", "opponent", "first")


def register(
    name: str,
    parse: Parser,
    *,
    aliases: Iterable[str] = (),
    form: str = "",
    menu: Menu | None = None,
) -> None:
    """Make ``name`` (and ``aliases``) a spec that ``parse`` reads; ``form`` shows the spec's
    shape in error messages, e.g. ``"nim[:PILES] like 'nim:3,5,7'"`` (marked with
    ``gettext_noop``: it is translated where shown). With ``menu``, the game is offered in
    the web's home form."""
    entry = Entry(name.lower(), parse, tuple(a.lower() for a in aliases), form or name, menu)
    taken = [n for n in (entry.name, *entry.aliases) if _NAMES.get(n, entry.name) != entry.name]
    if taken:
        raise ValueError(f"game name {taken[0]!r} is already registered")
    if menu is not None:
        others = {f.name for e in _ENTRIES.values() if e.menu and e.name != entry.name
                  for f in e.menu.fields}  # fmt: skip
        clash = [f.name for f in menu.fields if f.name in others or f.name in _SHARED_FIELDS]
        if clash:
            raise ValueError(f"menu field {clash[0]!r} of {entry.name!r} is already taken")
    unregister(entry.name)
    _ENTRIES[entry.name] = entry
    for n in (entry.name, *entry.aliases):
        _NAMES[n] = entry.name
    parse_spec.cache_clear()


def unregister(name: str) -> None:
    """Forget a game (tests register throw-away games); unknown names are ignored."""
    entry = _ENTRIES.pop(name.lower(), None)
    if entry is not None:
        for n in (entry.name, *entry.aliases):
            _NAMES.pop(n, None)
        parse_spec.cache_clear()


def names() -> tuple[str, ...]:
    """The registered game names, in registration order."""
    return tuple(_ENTRIES)


def menus() -> dict[str, Menu]:
    """The games offered in a menu, by name, in registration order."""
    return {e.name: e.menu for e in _ENTRIES.values() if e.menu is not None}


def forms() -> str:
    """Every registered spec form, for error messages (in the current language)."""
    return ", ".join(_(e.form) for e in _ENTRIES.values())


@lru_cache(maxsize=64)
def parse_spec(text: str) -> Game:
    """The game a spec names; raises SpecError with the expected forms otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise SpecError(_("empty game spec; expected {forms}").format(forms=forms()))
    if len(text) > MAX_SPEC_CHARS:
        raise SpecError(
            _("the game spec is {length:,} characters long; at most {most} are read").format(
                length=len(text), most=MAX_SPEC_CHARS
            )
        )
    name, *rest = text.strip().lower().split(":")
    if name not in _NAMES:
        raise SpecError(
            _("unknown game {name!r} in {text!r}; expected {forms}").format(
                name=name, text=text, forms=forms()
            )
        )
    return _ENTRIES[_NAMES[name]].parse(text, rest)


# --- helpers for parsers ------------------------------------------------------------------

# ASCII digits only: int() reads other scripts' digits too, and "nim:३,५" is not a spec.
INT = re.compile(r"[0-9]{1,9}")


def rule_part(text: str, part: str) -> bool:
    """True for misère, False for normal play."""
    if part in ("misere", "misère"):
        return True
    if part == "normal":
        return False
    raise SpecError(
        _("{text!r}: play is 'misere' or 'normal', not {part!r}").format(text=text, part=part)
    )


def positive_part(text: str, part: str, what: str, form: str, most: int = MAX_HEAP) -> int:
    """A whole number 1..most, ASCII digits only; ``what`` names it ("each pile") and ``form``
    shows the expected spec, both in words for people."""
    if not INT.fullmatch(part) or not 1 <= int(part) <= most:
        raise SpecError(
            _(
                "{text!r}: {what} must be a whole number from 1 to {most:,}, not {part!r}; {form}"
            ).format(text=text, what=what, most=most, part=part, form=form)
        )
    return int(part)
