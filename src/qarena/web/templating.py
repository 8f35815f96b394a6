"""The pages' Jinja2 templates. Texts in them go through ``_`` at render time, so each
request's page is in its own language: ``{{ _("Play") }}``, with named placeholders filled
after translation, ``{{ _("Agent for {game}").format(game=...) }}``. Texts whose words depend
on a count are made in Python (``ngettext`` in ``describe.py``), as the catalog takes only
``_()`` from templates."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Self

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import EscapeFormatter, Markup, escape

from qarena import __version__
from qarena.agents.opponents import OPPONENTS
from qarena.games.registry import menus, names
from qarena.games.words import sentence
from qarena.i18n import DEFAULT, LANGUAGES, _, is_number, language, number
from qarena.learn.learners import LEARNERS
from qarena.web.describe import (
    added_text,
    finished_text,
    learner_episodes,
    learner_title,
    no_curve_text,
    policy_label,
    policy_option,
    trained_text,
    unjudged_finished_text,
    when,
)
from qarena.web.language import current_path
from qarena.web.thinking import presets

HERE = Path(__file__).parent


class _Titles(Mapping[str, str]):
    """Learners by their title ("Q-learning"), as pages name them, in the language of the
    page being drawn."""

    def __getitem__(self, kind: str) -> str:
        if kind not in LEARNERS:
            raise KeyError(kind)
        return learner_title(kind)

    def __iter__(self) -> Iterator[str]:
        return iter(LEARNERS)

    def __len__(self) -> int:
        return len(LEARNERS)


class _NumberEscapeFormatter(EscapeFormatter):
    """Markup's formatter, writing numbers as the current language does."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if is_number(value):
            return str(self.escape(number(value, format_spec)))
        return str(super().format_field(value, format_spec))


class _LocalMarkup(Markup):
    """Markup in a language other than English: its ``format`` escapes what fills its
    placeholders, as Markup's does, and writes numbers as the language does."""

    __slots__ = ()

    def format(self, *args: Any, **kwargs: Any) -> Self:
        return self.__class__(_NumberEscapeFormatter(self.escape).vformat(self, args, kwargs))


def _markup(text: str) -> Markup:
    return Markup(text) if language() == DEFAULT else _LocalMarkup(text)


def text(message: str) -> Markup:
    """A template's own text in the current language, as the template would have it: what
    could be markup in a translation (``&``, ``<``, ``>``, ``"``) is escaped, apostrophes are
    left as they are. Its ``.format()`` escapes what fills its placeholders and writes numbers
    as the language does."""
    translated = _(message)
    for plain, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&#34;")):
        translated = translated.replace(plain, escaped)
    return _markup(translated)


def fill(text: str, **values: Any) -> Markup:
    """``text`` (a translated message, plain text) with its placeholders filled by
    ``values``, which may be markup (``Markup('<span>…</span>')``); everything else escaped,
    numbers written as the current language does."""
    return _markup(escape(text)).format(**values)


def link(href: str, text: str) -> Markup:
    """A link, for a placeholder of :func:`fill`."""
    return Markup('<a href="{}">{}</a>').format(href, text)


templates = Jinja2Templates(directory=HERE / "templates")
env = templates.env
env.globals["version"] = __version__
#: Every text of a page in the language of its request.
env.globals["_"] = text
#: Texts whose words depend on a count: their plural forms are in Python (see describe.py).
for _helper in (
    added_text,
    finished_text,
    learner_episodes,
    unjudged_finished_text,
    no_curve_text,
    policy_label,
    policy_option,
    trained_text,
):
    env.globals[_helper.__name__] = _helper
env.globals["language"] = language
#: A clause shown on its own (the oracle's reason) as a sentence: a full stop.
env.filters["sentence"] = sentence
env.globals["languages"] = LANGUAGES
#: This page as the language switcher's way back.
env.globals["here"] = current_path
env.filters["fill"] = fill
env.globals["markup"] = Markup
#: A number as the page's language writes it: ``{{ number(r.episodes, ",") }}``.
env.globals["number"] = number
env.globals["link"] = link
#: Training opponents by name: what `qarena train --opponent` takes, but policy files.
env.globals["opponents"] = list(OPPONENTS)
#: The forms of every registered game's spec, for the home page's "any game" field.
env.globals["spec_forms"] = lambda: ", ".join(f"{n}[:…]" for n in names())
env.globals["spec_example"] = "nim:3,5,7"
#: The registered games' menus, by name: the home form's games and their fields.
env.globals["game_menus"] = menus
#: The thinking players the play menu offers on every game (``web.thinking.PRESETS``).
env.globals["thinking_presets"] = lambda: presets(None)
#: Learners by their title ("Q-learning"), as pages name them.
env.globals["learner_titles"] = _Titles()
#: Stored times as people read them: ``{{ row.created|when }}``.
env.filters["when"] = when


def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status)
