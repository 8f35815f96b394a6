"""The documentation site: the tutorial's code runs as written, and the site builds with no
warning (``mkdocs build --strict``, what ``make docs`` runs) into pages whose every link opens
a file from disk.

The tutorial's ``python`` blocks run in order in one namespace, in a fresh working folder (the
files they write land there). Each block is compiled under the page's own name and line
numbers, so a failure points at the line of ``docs/tutorial.md`` that broke. The build needs
the ``docs`` extra (``pip install -e '.[docs]'``); without it the build test skips, and fails
under CI.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.conftest import in_ci

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"
#: A fenced block of Python: the opening fence, the code, the closing fence.
PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
#: What building the site needs: MkDocs, the Material theme, mkdocstrings' Python handler.
DOCS_MODULES = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """Each ```python block of a Markdown page, in order: (line of its first code line, code)."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in PYTHON_BLOCK.finditer(text)]


def test_python_blocks_are_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# t\n\n```python\nx = 1\n```\n\n```sh\nmake docs\n```\n\n```python\ny = x + 1\n```\n",
        encoding="utf-8",
    )
    assert python_blocks(page) == [(4, "x = 1\n"), (12, "y = x + 1\n")]


def test_tutorial_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(TUTORIAL)
    assert len(blocks) >= 8, "the tutorial's python blocks were not found"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "tutorial"}
    for line, code in blocks:
        # Padded so the compiled block's line numbers are the page's.
        compiled = compile("\n" * (line - 1) + code, str(TUTORIAL), "exec")
        exec(compiled, namespace)
    # The blocks save a policy file; it lands in the working folder, not the repository.
    assert (tmp_path / "nim.npz").is_file()


def test_readme_python_api_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    start = text.index("## Python API\n")
    end = text.index("\n## ", start + 1)
    blocks = [
        (line, code) for line, code in python_blocks(readme) if start < _offset(text, line) < end
    ]
    assert blocks, "README's Python API section has no python block"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    for line, code in blocks:
        exec(compile("\n" * (line - 1) + code, str(readme), "exec"), namespace)
    assert (tmp_path / "nim.npz").is_file()
    judged = namespace["qarena"].judge(namespace["agent"])  # type: ignore[attr-defined]
    assert judged.optimality.share == 1.0  # as the comment beside it says


def _offset(text: str, line: int) -> int:
    """Where line ``line`` (1-based) of ``text`` starts."""
    return sum(len(x) + 1 for x in text.split("\n")[: line - 1])


def test_site_builds_without_warnings(tmp_path: Path) -> None:
    missing = [name for name in DOCS_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        reason = f"{', '.join(missing)} not installed; pip install -e '.[docs]'"
        if in_ci():
            pytest.fail(f"the documentation cannot be built under CI: {reason}", pytrace=False)
        pytest.skip(reason)
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", site],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    # The notebook's kernel warns that it talks to the build over local TCP: not the docs'.
    warnings = [x for x in log.splitlines() if "WARNING" in x and "[IPKernelApp]" not in x]
    assert not warnings, log
    pages = ("index.html", "notebook.html", "tutorial.html", "cli.html", "web.html")
    for page in (*pages, "reference/games.html", "reference/api.html"):
        assert (site / page).is_file(), f"{page} was not built"
    assert broken_links(site) == []


class _Links(HTMLParser):
    """Every ``href`` and ``src`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [v for k, v in attrs if k in ("href", "src") and v]


def broken_links(site: Path) -> list[tuple[str, str]]:
    """Links of the built pages that do not open a file from disk (``file://``): a link to a
    folder opens a directory listing there. ``404.html`` is left out: only a web server shows
    it, and its links are absolute, from the server's root."""
    broken = []
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":
            continue
        links = _Links()
        links.feed(page.read_text(encoding="utf-8"))
        for link in links.found:
            url = urlsplit(link)
            if url.scheme or url.netloc or not url.path:  # elsewhere, or on the same page
                continue
            if not (page.parent / unquote(url.path)).is_file():
                broken.append((str(page.relative_to(site)), link))
    return broken


def test_broken_links_are_found(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    (tmp_path / "a.html").write_text(
        '<a href="b.html#x">b</a> <a href="guide/">folder</a> <img src="gone.png">'
        '<a href="https://example.org/">out</a> <a href="#top">here</a>',
        encoding="utf-8",
    )
    (tmp_path / "b.html").write_text("<p>b</p>", encoding="utf-8")
    assert broken_links(tmp_path) == [("a.html", "guide/"), ("a.html", "gone.png")]
