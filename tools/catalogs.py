"""qarena's message catalogs: extract every text a person reads, keep each language's catalog
(German, Russian) in step with them, and compile it.

    .venv/bin/python tools/catalogs.py [--lang ru] [--fill FILE.json ...] [--check]

Texts come from three places: the source (calls of ``_``, ``ngettext`` and ``gettext_noop``
in ``src/qarena``, and ``_()`` in the web templates), the command line's help (the command and
option help texts typer builds, read from the built command tree), and typer's own words
("Usage", "Options", its error lines), and the summaries and descriptions of the web API's
OpenAPI document. Each catalog ``locale/<language>/LC_MESSAGES/qarena.po``
is rewritten with exactly those message ids, sorted, keeping the translations it has;
``--fill`` adds translations to the ``--lang`` catalog (default: German) from JSON files of
``{"English": "translation"}`` (a plural message: the list of the language's forms). Then each
is compiled to ``qarena.mo`` beside it. ``tests/test_i18n.py`` checks the committed catalogs
are what this builds, and that every message is translated.
Each language's conventions (terms, forms of address, units) are in
``locale/<language>/STYLE.md`` (Russian: ``src/qarena/locale/ru/STYLE.md``).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import babel.messages.catalog
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

# The catalogs' headers name no Babel version ("Generated-By: Babel 2.18.0"), so the files do
# not change with the Babel a machine happens to install.
babel.messages.catalog.VERSION = "(any version)"  # type: ignore[attr-defined]

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "qarena"
#: The languages with a catalog, and the header comment of each.
LANGUAGES = {"de": "German", "ru": "Russian"}


def po_path(language: str) -> Path:
    return SRC / "locale" / language / "LC_MESSAGES" / "qarena.po"


PO = po_path("de")
MO = PO.with_suffix(".mo")
FIXED_DATE = datetime(2026, 11, 21, tzinfo=UTC)
KEYWORDS: dict[str, Any] = {"_": None, "ngettext": (1, 2), "gettext_noop": None}


def _python(path: Path) -> Iterator[str | tuple[str, ...]]:
    for _lineno, message, _comments, _context in extract_from_file(
        "python", str(path), keywords=KEYWORDS
    ):
        yield message


def _templates() -> Iterator[str | tuple[str, ...]]:
    from jinja2.ext import babel_extract

    for path in sorted((SRC / "web" / "templates").glob("*.html")):
        with path.open("rb") as f:
            for _lineno, _function, message, _comments in babel_extract(
                f, list(KEYWORDS), [], {"extensions": "jinja2.ext.i18n"}
            ):
                if message is None:
                    continue  # _(variable): its texts are marked where they are declared
                # ngettext comes as (singular, plural, None): the count is no message.
                yield message if isinstance(message, str) else tuple(message[:2])


def _help_texts() -> Iterator[str]:
    """The help of every command and option, as typer builds it."""
    import typer.main

    from qarena.cli.app import app, commands, help_slots

    for command in commands(typer.main.get_command(app)):
        for holder, attr in help_slots(command):
            yield getattr(holder, attr)


def _openapi() -> Iterator[str]:
    """The API document's texts for people (its summaries and descriptions), as the app
    builds it."""
    import tempfile

    from qarena.web.app import create_app, openapi_texts

    with tempfile.TemporaryDirectory() as data:
        yield from openapi_texts(create_app(Path(data)).openapi())


def _library() -> Iterator[str | tuple[str, ...]]:
    """typer's own words, which it asks gettext for."""
    import typer

    base = Path(typer.__file__).parent
    for path in sorted([*base.glob("*.py"), *base.glob("_click/*.py")]):
        yield from _python(path)


def messages() -> list[str | tuple[str, ...]]:
    """Every message id, sorted: plain texts, and (singular, plural) pairs."""
    found: set[str | tuple[str, ...]] = set()
    for path in sorted(SRC.rglob("*.py")):
        found.update(_python(path))
    found.update(_templates())
    found.update(_help_texts())
    found.update(_openapi())
    found.update(_library())
    found.discard("")
    return sorted(found, key=lambda m: (m if isinstance(m, str) else m[0], str(m)))


def _key(message: str | tuple[str, ...]) -> str:
    return message if isinstance(message, str) else message[0]


#: Each language's plural forms: how many, and gettext's rule choosing one for a count n.
PLURALS = {
    "de": (2, "(n != 1)"),
    "ru": (3, "(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)"),
}


def build(fills: list[dict[str, Any]] | None = None, language: str = "de") -> Catalog:
    """The ``language`` catalog for today's messages, with the translations known so far."""
    po = po_path(language)
    old = _read(po, language) if po.exists() else Catalog(locale=language)
    known: dict[str, Any] = {}
    for m in old:
        if m.id and m.string and not m.fuzzy:
            known[_key(m.id)] = m.string
    for fill in fills or []:
        known.update({k: tuple(v) if isinstance(v, list) else v for k, v in fill.items()})
    catalog = Catalog(
        locale=language,
        domain="qarena",
        project="qarena",
        version=None,
        copyright_holder=None,
        msgid_bugs_address=None,
        # Fixed dates: the file changes only when its messages do.
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        last_translator=None,
        language_team=None,
        fuzzy=False,
        header_comment=f"# {LANGUAGES[language]} texts of qarena, in step with the source: "
        "tools/catalogs.py",
    )
    # The plural rule is written here, not taken from the installed Babel's CLDR data, whose
    # wording of the same rule changes between releases.
    catalog._num_plurals, catalog._plural_expr = PLURALS[language]  # type: ignore[attr-defined]
    forms = catalog.num_plurals
    for message in messages():
        string = known.get(_key(message), "" if isinstance(message, str) else ("",) * forms)
        if not isinstance(message, str) and isinstance(string, str):
            string = (string,) * forms if string else ("",) * forms
        if isinstance(message, str) and not isinstance(string, str):
            string = string[0]
        catalog.add(message, string)
    return catalog


def _read(path: Path, language: str = "de") -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=language)


def po_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, omit_header=False, no_location=True, sort_output=True)
    return buffer.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def untranslated(catalog: Catalog) -> list[str]:
    """Message ids without a translation."""
    missing = []
    for m in catalog:
        if not m.id:
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if m.fuzzy or not all(strings):
            missing.append(_key(m.id))
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fill", nargs="*", default=[], type=Path)
    parser.add_argument(
        "--lang", choices=sorted(LANGUAGES), default="de", help="The catalog --fill fills."
    )
    parser.add_argument(
        "--check", action="store_true", help="Write nothing; list what is left to translate."
    )
    args = parser.parse_args()
    fills = [json.loads(p.read_text(encoding="utf-8")) for p in args.fill]
    from qarena.fileio import write_atomic  # the project's one safe writer

    for language, name in LANGUAGES.items():
        catalog = build(fills if language == args.lang else None, language)
        if args.check:
            missing = untranslated(catalog)
            total = sum(1 for m in catalog if m.id)
            print(f"{name}: {len(missing)} of {total} messages untranslated")
            for text in missing:
                print(f"  {text!r}")
            continue
        po = po_path(language)
        po.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(po, po_bytes(catalog))
        compiled = _read(po, language)  # the catalog as a reader of the file sees it
        write_atomic(po.with_suffix(".mo"), mo_bytes(compiled))
        missing = untranslated(compiled)
        total = sum(1 for m in compiled if m.id)
        print(
            f"{total} messages, {total - len(missing)} translated into {name}; "
            f"{po.relative_to(ROOT)}"
        )
        for text in missing[:20]:
            print(f"  untranslated: {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
