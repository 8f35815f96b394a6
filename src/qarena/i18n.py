"""The language qarena speaks to a person: English, or German.

Every text a person reads (command output, error lines, web pages) goes through :func:`_` (or
:func:`ngettext`), which looks it up in the catalog of the current language. The catalogs are
gettext ``.po`` files under ``locale/`` (extracted with Babel: ``make catalogs``), compiled to
``.mo`` beside them. The current language lives in a context variable, so each web request
(and each thread) can speak its own while the command line sets one for the whole run.

Texts are written with named placeholders and formatted after translation, so a translator
can reorder them: ``_("{spec} is too large").format(spec=...)``.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
import os
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

#: The catalogs: ``locale/<language>/LC_MESSAGES/qarena.mo``.
LOCALES = Path(__file__).parent / "locale"
DOMAIN = "qarena"
#: The languages qarena speaks, each named in itself (for a language switcher).
LANGUAGES = {"en": "English", "de": "Deutsch"}
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
    return translations(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` for ``n``, in the current language."""
    return translations(_current.get()).ngettext(singular, plural, n)


def gettext_noop(message: str) -> str:
    """Marks ``message`` for the catalog where it is defined; translated where it is shown."""
    return message
