"""The languages qarena speaks: choosing one, and catalogs in step with the source.

The catalogs are built by ``tools/catalogs.py`` (Babel's extraction over the source, the
command line's help texts and typer's own words); the committed ``.po`` and ``.mo`` must be
exactly what it builds, so no text is missing from them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from qarena.cli import run
from qarena.i18n import best_match, check_language, language, speaking

ROOT = Path(__file__).resolve().parents[1]


def _tools() -> object:
    pytest.importorskip("babel")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import catalogs
    finally:
        sys.path.pop(0)
    return catalogs


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-US,en;q=0.9,de;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,de;q=0.5", "de"),
        ("fr-FR", "en"),
        ("", "en"),
        (None, "en"),
        ("de;q=0, en;q=0.1", "en"),
        ("*", "en"),
        ("de;q=abc", "en"),
        ("ru-RU,ru;q=0.9,en-US;q=0.8", "ru"),
        ("uk-UA,ru;q=0.8,de;q=0.5", "ru"),
        ("en;q=0.5,ru;q=0.6", "ru"),
    ],
)
def test_accept_language_picks_the_best_we_speak(header: str | None, chosen: str) -> None:
    assert best_match(header) == chosen


def test_language_codes() -> None:
    assert check_language("de_DE") == check_language("DE") == check_language("de-AT") == "de"
    assert check_language("ru_RU") == check_language("RU") == check_language("ru-UA") == "ru"
    with speaking("de"):
        assert language() == "de"
    assert language() == "en"


def test_an_unknown_language_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--lang", "xx", "solve", "nim"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown language 'xx'" in err
    assert run(["solve", "nim", "--lang"]) == 2
    assert "--lang needs a language" in capsys.readouterr().err


@pytest.mark.parametrize("code", ["de", "ru"])
def test_the_catalog_is_in_step_with_the_source(code: str) -> None:
    catalogs = _tools()
    path = catalogs.po_path(code)  # type: ignore[attr-defined]
    built = catalogs.build(None, code)  # type: ignore[attr-defined]
    assert catalogs.po_bytes(built) == path.read_bytes(), "run: make catalogs"  # type: ignore[attr-defined]
    compiled = catalogs._read(path, code)  # type: ignore[attr-defined]
    assert catalogs.mo_bytes(compiled) == path.with_suffix(".mo").read_bytes()  # type: ignore[attr-defined]


@pytest.mark.parametrize("code", ["de", "ru"])
def test_every_message_has_its_translation(code: str) -> None:
    catalogs = _tools()
    compiled = catalogs._read(catalogs.po_path(code), code)  # type: ignore[attr-defined]
    assert catalogs.untranslated(compiled) == []  # type: ignore[attr-defined]
    assert sum(1 for m in compiled if m.id) > 1000
    # Russian has three plural forms (1, 2-4, 5-20), German two.
    forms = {m.string if isinstance(m.string, str) else len(m.string) for m in compiled if m.id}
    assert {f for f in forms if isinstance(f, int)} == {3 if code == "ru" else 2}


def test_translations_keep_every_placeholder() -> None:
    """A translation that drops or renames a placeholder would fail at run time (KeyError) or
    lose a number: every one keeps the English text's named placeholders."""
    import re

    catalogs = _tools()
    names = re.compile(r"\{([a-z_]+)[^{}]*\}")
    for code in ("de", "ru"):
        for m in catalogs._read(catalogs.po_path(code), code):  # type: ignore[attr-defined]
            if not m.id:
                continue
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            wanted = set(names.findall(ids[-1]))
            for string in strings:
                # A plural's singular may leave out its count, as "one" says it.
                assert set(names.findall(string)) <= wanted, (code, m.id, string)
                if len(strings) == 1:
                    assert set(names.findall(string)) == wanted, (code, m.id, string)


def test_numbers_are_written_as_the_language_writes_them() -> None:
    """Babel's German symbols: a dot between thousands, a comma before decimals, a space
    before the percent sign; English is Python's format as it is; text stays text."""
    from qarena.i18n import _, number, speaking

    cases = [(3000, ","), (0.881, ".1%"), (0.5, ""), (1234567.25, ",.2f"), (12, "")]
    assert [number(v, s) for v, s in cases] == ["3,000", "88.1%", "0.5", "1,234,567.25", "12"]
    with speaking("de"):
        assert [number(v, s) for v, s in cases] == [
            "3.000",
            "88,1\xa0%",
            "0,5",
            "1.234.567,25",
            "12",
        ]
        assert number("nim:3,5,7") == "nim:3,5,7"
        assert number(True) == "True"
        # A translated text's format writes its numbers so, and leaves its text alone.
        shown = _("episodes must be from 1 to {most:,}, not {count}").format(
            most=10_000, count="1,5"
        )
        assert "10.000" in shown and "1,5" in shown
    with speaking("ru"):
        # Babel's Russian symbols: a no-break space between thousands, a comma before decimals.
        assert [number(v, s) for v, s in cases] == [
            "3\xa0000",
            "88,1\xa0%",
            "0,5",
            "1\xa0234\xa0567,25",
            "12",
        ]
