"""The language qarena speaks to a person: English, or German.

Every text a person reads (command output, error lines, web pages) goes through :func:`_` (or
:func:`ngettext`), which looks it up in the catalog of the current language. The catalogs are
gettext ``.po`` files under ``locale/`` (extracted with Babel: ``make catalogs``), compiled to
``.mo`` beside them. The current language lives in a context variable, so each web request
(and each thread) can speak its own while the command line sets one for the whole run.

Texts are written with named placeholders and formatted after translation, so a translator
can reorder them: ``_("{spec} is too large").format(spec=...)``. In a language other than
English, a translated text's ``format`` writes the numbers it is given as that language does
(Babel's symbols: ``3.000`` and ``88,1 %`` in German), whatever their format specification
says; :func:`number` does the same for a number shown on its own. Text given as text — a spec
``nim:3,5,7``, a move, a position, a file name — is never changed, nor is anything in English.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
import numbers
import os
import string
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.numbers import get_decimal_symbol, get_group_symbol

#: The catalogs: ``locale/<language>/LC_MESSAGES/qarena.mo``.
LOCALES = Path(__file__).parent / "locale"
DOMAIN = "qarena"
#: The languages qarena speaks, each named in itself (for a language switcher).
LANGUAGES = {"en": "English", "de": "Deutsch", "ru": "Русский"}
DEFAULT = "en"
#: The environment variable that chooses the command line's language (``--lang`` wins).
ENV = "QARENA_LANG"

_current: contextvars.ContextVar[str] = contextvars.ContextVar("qarena_language", default=DEFAULT)


@lru_cache(maxsize=len(LANGUAGES))
def translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` (English is the texts themselves)."""
    if language == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALES, languages=[language], fallback=True)


def language() -> str:
    """The language texts are in now."""
    return _current.get()


@contextlib.contextmanager
def speaking(code: str) -> Iterator[None]:
    """Speak ``code`` while the block runs."""
    token = _current.set(check_language(code))
    try:
        yield
    finally:
        _current.reset(token)


def check_language(code: str) -> str:
    """``code`` if qarena speaks it (``de``, ``de_DE`` and ``DE`` are German)."""
    base = code.strip().replace("-", "_").split("_")[0].lower()
    if base not in LANGUAGES:
        from qarena.errors import QarenaError  # errors may use _ too: imported when needed

        names = ", ".join(f"{k} ({v})" for k, v in LANGUAGES.items())
        raise QarenaError(
            _("unknown language {code!r}; qarena speaks {names}").format(code=code, names=names)
        )
    return base


def from_environment() -> str:
    """The language ``QARENA_LANG`` names, else English; an unknown one is refused."""
    value = os.environ.get(ENV, "").strip()
    return check_language(value) if value else DEFAULT


def best_match(accept_language: str | None) -> str:
    """The language a browser's ``Accept-Language`` header prefers among ours (English when
    none of them is asked for): ``de-DE,de;q=0.9,en;q=0.8`` is German."""
    choices: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "")[:1000].split(",")[:50]):
        tag, _sep, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        base = tag.strip().replace("-", "_").split("_")[0].lower()
        if base in LANGUAGES and quality > 0:
            choices.append((-quality, i, base))
    return min(choices)[2] if choices else DEFAULT


def _(message: str) -> str:
    """``message`` in the current language."""
    language = _current.get()
    return _localized(translations(language).gettext(message), language)


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` for ``n``, in the current language."""
    language = _current.get()
    return _localized(translations(language).ngettext(singular, plural, n), language)


@lru_cache(maxsize=len(LANGUAGES))
def _symbols(language: str) -> tuple[dict[int, str], str]:
    """How ``language`` writes what English writes ``,`` and ``.`` in a number, and what it
    puts for a ``%`` sign after one (from Babel's locale data)."""
    swap = {ord(","): get_group_symbol(language), ord("."): get_decimal_symbol(language)}
    pattern = Locale.parse(language).percent_formats[None].pattern
    percent = pattern[pattern.rindex("0") + 1 :] or "%"
    return swap, percent


def number(value: Any, spec: str = "") -> str:
    """``format(value, spec)`` as the current language writes numbers: ``number(3000, ",")``
    is ``3,000`` in English and ``3.000`` in German, ``number(0.881, ".1%")`` ``88.1%`` and
    ``88,1 %``. Anything but a number is formatted as it is."""
    text = format(value, spec)
    language = _current.get()
    if language == DEFAULT or not is_number(value):
        return text
    return _localize_digits(text, language)


def seconds(value: float, spec: str = "") -> str:
    """A duration of ``value`` seconds as the current language writes it: ``seconds(0.5,
    ".2f")`` is ``0.50 s`` in English and ``0,50\u00a0с`` in Russian (the unit is the catalog's
    ``"{seconds} s"``, the short unit Babel's locale data gives, after a no-break space)."""
    return _("{seconds} s").format(seconds=number(value, spec))


def is_number(value: object) -> bool:
    """Whether ``value`` is a number :func:`number` writes in the current language (not a
    bool)."""
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _localize_digits(text: str, language: str) -> str:
    swap, percent = _symbols(language)
    stripped = text.rstrip()
    if stripped.endswith("%"):
        return stripped[:-1].translate(swap) + percent + text[len(stripped) :]
    return text.translate(swap)


class _NumberFormatter(string.Formatter):
    """``str.format`` that writes numbers as the current language does."""

    def format_field(self, value: Any, format_spec: str) -> str:
        return number(value, format_spec)


_FORMATTER = _NumberFormatter()


class Localized(str):
    """A text in a language other than English: its ``format`` writes numbers as that language
    does (see :func:`number`)."""

    __slots__ = ()

    def format(self, /, *args: object, **kwargs: object) -> str:
        return _FORMATTER.vformat(self, args, kwargs)


def _localized(text: str, language: str) -> str:
    return text if language == DEFAULT else Localized(text)


def localized(text: str) -> str:
    """``text`` (already in the current language, or no words at all, like ``"{:,}"``) whose
    ``format`` writes numbers as the current language does."""
    return _localized(text, _current.get())


#: Who reads the texts: a person at the command line, who names a setting by its option
#: (``--seat``), or a Python caller, by its keyword (``seat``). The Python API sets it for the
#: length of each call (:func:`python_caller`); everywhere else (the command line, the web
#: app) texts name options.
_reader: contextvars.ContextVar[str] = contextvars.ContextVar("qarena_reader", default="cli")


@contextlib.contextmanager
def python_caller() -> Iterator[None]:
    """Name settings as Python does (keywords, :func:`option`) while the block runs."""
    token = _reader.set("python")
    try:
        yield
    finally:
        _reader.reset(token)


def from_python() -> bool:
    """Whether the texts are read by a Python caller (inside :func:`python_caller`)."""
    return _reader.get() == "python"


def option(flag: str, keyword: str | None = None) -> str:
    """A setting as its reader names it: ``flag`` at the command line (``--epsilon-end``,
    ``--game SPEC``), ``keyword`` from Python (by default the flag's name as a keyword:
    ``epsilon_end``, ``game``). Error texts take it as a placeholder, so one text serves
    both: ``_("{seat} applies only …").format(seat=option("--seat"))``."""
    if not from_python():
        return flag
    if keyword is not None:
        return keyword
    return _KEYWORDS.get(flag) or flag.split(maxsplit=1)[0].lstrip("-").replace("-", "_")


#: The options whose keyword is not their name with underscores: switches, which Python sets
#: to a value, and settings named otherwise in Python.
_KEYWORDS = {
    "--curve": "curve=True",
    "--until-perfect": "until_perfect=True",
    "--no-canonical": "canonical=False",
    "--epsilon-schedule": "schedule",
    "--lambda": "lam",
    "--game SPEC": "spec",
    "--learner ntuple": 'learner="ntuple"',
    "--backend ray": 'backend="ray"',
}


def spoken(command_line: str, python: str) -> str:
    """The one of two texts (marked with :func:`gettext_noop`) that fits the reader, where
    more differs than an option's name (commands against functions), translated."""
    return _(python if from_python() else command_line)


def gettext_noop(message: str) -> str:
    """Marks ``message`` for the catalog where it is defined; translated where it is shown."""
    return message
