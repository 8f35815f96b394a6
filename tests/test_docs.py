"""The documentation site: the tutorial's code runs as written and prints what the page shows,
and the site builds with no warning (``mkdocs build --strict``, what ``make docs`` runs) into
pages that work from disk with no network: every link opens a file, nothing is loaded from a
server (scripts, styles, fonts), and search works (checked in headless Chromium too).

The tutorial's ``python`` blocks run in order in one namespace, in a fresh working folder (the
files they write land there); the ``text`` block right after one is what it prints. Each block
is compiled under the page's own name and line numbers, so a failure points at the line of
``docs/tutorial.md`` that broke. The build takes about a minute (the notebook runs), so its
tests are marked slow; it needs the ``docs`` extra (``pip install -e '.[docs]'``): without it
they skip, and fail under CI.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.conftest import in_ci

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"
#: A fenced block of Python: the opening fence, the code, the closing fence.
PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
#: A ```text block right after a python block: what the page shows that block prints.
SHOWN_OUTPUT = re.compile(r"\n*```text\b[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
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


def shown_outputs(path: Path) -> list[tuple[int, str, str]]:
    """Each ```python block of a page, with what the page shows it prints: the ```text block
    right after it ("" when none follows)."""
    text = path.read_text(encoding="utf-8")
    found = []
    for m in PYTHON_BLOCK.finditer(text):
        shown = SHOWN_OUTPUT.match(text, m.end())
        line = text.count("\n", 0, m.start(1)) + 1
        found.append((line, m.group(1), shown.group(1) if shown else ""))
    return found


def test_shown_outputs_are_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        '```python\nprint(1)\n```\n\n```text title="Output"\n1\n```\n\n```python\nx = 2\n```\n'
        "\nsome words\n\n```text\nnot an output\n```\n",
        encoding="utf-8",
    )
    assert shown_outputs(page) == [(2, "print(1)\n", "1\n"), (10, "x = 2\n", "")]


def test_tutorial_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every block runs, in order, and prints exactly what the page shows under it."""
    blocks = shown_outputs(TUTORIAL)
    assert len(blocks) >= 8, "the tutorial's python blocks were not found"
    assert sum(bool(shown) for _, _, shown in blocks) >= 8, "the outputs were not found"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "tutorial"}
    for line, code, shown in blocks:
        # Padded so the compiled block's line numbers are the page's.
        compiled = compile("\n" * (line - 1) + code, str(TUTORIAL), "exec")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compiled, namespace)
        assert printed.getvalue() == shown, f"the block at docs/tutorial.md:{line} printed"
    # The blocks save a policy file; it lands in the working folder, not the repository.
    assert (tmp_path / "nim.npz").is_file()
    # The page's claims, checked beyond what it prints.
    agent = namespace["agent"]
    qarena = namespace["qarena"]
    assert qarena.judge(agent).optimality.share == 1.0  # type: ignore[attr-defined]


def test_the_python_api_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = ROOT / "docs" / "guide" / "python-api.md"
    blocks = python_blocks(page)
    assert blocks, "the Python API page has no python block"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "guide"}
    for line, code in blocks:
        exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)
    assert (tmp_path / "nim.npz").is_file()
    judged = namespace["qarena"].judge(namespace["agent"])  # type: ignore[attr-defined]
    assert judged.optimality.share == 1.0  # as the comment beside it says


def test_readme_s_python_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README's tour of the notebook: its block runs, and says what it shows."""
    readme = ROOT / "README.md"
    blocks = python_blocks(readme)
    assert blocks, "README has no python block"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    for line, code in blocks:
        exec(compile("\n" * (line - 1) + code, str(readme), "exec"), namespace)
    qarena = namespace["qarena"]
    # As the comments beside them say: the agent perfect, the function judged (its first
    # legal move keeps the value somewhere, not everywhere).
    assert qarena.judge(namespace["agent"]).optimality.share == 1.0  # type: ignore[attr-defined]
    share = qarena.judge(namespace["mine"], namespace["game"]).optimality.share  # type: ignore[attr-defined]
    assert 0.0 < share < 1.0


@dataclass(frozen=True)
class Built:
    """The site ``mkdocs build --strict`` built, and what it said."""

    site: Path
    returncode: int
    log: str


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The site, built once for the module's tests (about a minute: the notebook runs)."""
    missing = [name for name in DOCS_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        reason = f"{', '.join(missing)} not installed; pip install -e '.[docs]'"
        if in_ci():
            pytest.fail(f"the documentation cannot be built under CI: {reason}", pytrace=False)
        pytest.skip(reason)
    site = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", site],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    return Built(site, done.returncode, done.stdout + done.stderr)


@pytest.mark.slow
def test_site_builds_without_warnings(built: Built) -> None:
    site, log = built.site, built.log
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    # The notebook's kernel warns that it talks to the build over local TCP: not the docs'.
    warnings = [x for x in log.splitlines() if "WARNING" in x and "[IPKernelApp]" not in x]
    assert not warnings, log
    pages = ("index.html", "notebook.html", "tutorial.html", "cli.html", "web.html")
    # The guide: README's manual, a page per task.
    guide = [f"guide/{p.stem}.html" for p in sorted((ROOT / "docs" / "guide").glob("*.md"))]
    assert len(guide) >= 12
    for page in (*pages, *guide, "reference/games.html", "reference/api.html"):
        assert (site / page).is_file(), f"{page} was not built"
    assert broken_links(site) == []


@pytest.mark.slow
def test_site_needs_no_network(built: Built) -> None:
    """Every page's scripts, styles, fonts and images are files of the site: nothing it loads
    comes from a server (links to other sites, followed by a click, are fine)."""
    assert built.returncode == 0, built.log
    site = built.site
    assert outside_resources(site) == []
    # The search index as a script (the offline plugin's), the JSON the worker reads from a
    # server beside it; both hold every page.
    text = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    prefix = "var __index = "
    assert text.startswith(prefix)
    index = json.loads(text[len(prefix) :])
    assert index == json.loads((site / "search" / "search_index.json").read_text("utf-8"))
    found = {doc["location"].partition("#")[0] for doc in index["docs"]}
    assert {"index.html", "tutorial.html", "notebook.html", "reference/api.html"} <= found
    # The vendored shim that runs the search worker from file:// is the one each page loads.
    for page in ("index.html", "reference/api.html", "404.html"):
        links = _Links()
        links.feed((site / page).read_text(encoding="utf-8"))
        shims = [x for x in links.scripts if x.endswith("assets/iframe-worker/shim.js")]
        assert len(shims) == 1, (page, links.scripts)
        assert (site / page).parent.joinpath(shims[0]).resolve().is_file()


@pytest.mark.slow
@pytest.mark.browser
def test_site_works_offline_in_chromium(built: Built, browser: Any) -> None:
    """Every page opened from disk with the network cut: nothing is fetched from a server, no
    script fails, and search finds the tutorial."""
    assert built.returncode == 0, built.log
    site = built.site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    outside: list[str] = []

    def cut(route: Any) -> None:
        outside.append(route.request.url)
        route.abort()

    try:
        context.route(re.compile(r"^(?!file:).*"), cut)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for html in sorted(site.rglob("*.html")):
            page.goto(html.as_uri(), wait_until="load")
        assert outside == []
        assert errors == []
        page.goto((site / "reference" / "api.html").as_uri(), wait_until="load")
        # The search box is shown only once its worker has started.
        page.locator("input.md-search__input").fill("until_perfect")
        results = page.locator(".md-search-result__item a")
        results.first.wait_for(timeout=10_000)
        targets = {
            unquote(urlsplit(x).path) for x in results.evaluate_all("a => a.map(e => e.href)")
        }
        assert str(site / "tutorial.html") in targets, targets
        assert outside == [] and errors == []
    finally:
        context.close()


#: ``<link rel=…>`` whose ``href`` the browser fetches as the page loads.
LOADED_LINKS = {"stylesheet", "preconnect", "preload", "prefetch", "modulepreload", "icon",
                "dns-prefetch", "manifest"}  # fmt: skip
#: A URL in code or CSS.
URL = re.compile(r"""(?:https?:)?//[^\s"'`)<>]+""")
#: What a script fetches when it loads another: a script, a style sheet, a font.
FETCHED = re.compile(r"(\.m?js|\.css|\.woff2?|\.ttf|/shim)(\?|$)|fonts\.googleapis|/dist/")
#: The notebook template's Mermaid loader imports Mermaid from cdnjs, but only on a page with
#: a Mermaid diagram; the notebook has none (checked).
MERMAID = "https://cdnjs.cloudflare.com/ajax/libs/mermaid"


class _Links(HTMLParser):
    """Every ``href`` and ``src`` of a page; and what it loads: ``src`` of any element, ``href``
    of loaded ``<link>``s, inline scripts and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.loaded: list[str] = []
        self.scripts: list[str] = []
        self.code: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [v for k, v in attrs if k in ("href", "src") and v]
        given = dict(attrs)
        if src := given.get("src"):
            self.loaded.append(src)
            if tag == "script":
                self.scripts.append(src)
        rels = set((given.get("rel") or "").lower().split())
        if tag == "link" and rels & LOADED_LINKS and (href := given.get("href")):
            self.loaded.append(href)
        if style := given.get("style"):
            self.code.append(style)
        self._in = tag if tag in ("script", "style") and not given.get("src") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            self.code.append(data)


def outside_resources(site: Path) -> list[tuple[str, str]]:
    """What the built pages load from a server: ``(file, url)`` for each script, style sheet,
    font or image a page (or a style sheet of the site) fetches by URL, or that an inline
    script loads."""
    found = []
    for page in sorted(site.rglob("*.html")):
        links = _Links()
        text = page.read_text(encoding="utf-8")
        links.feed(text)
        name = str(page.relative_to(site))
        found += [(name, x) for x in links.loaded if urlsplit(x).netloc or urlsplit(x).scheme
                  not in ("", "data")]  # fmt: skip
        for code in links.code:
            for url in URL.findall(code):
                if not FETCHED.search(url):
                    continue
                if url.startswith(MERMAID) and 'class="jp-Mermaid' not in text:
                    continue
                found.append((name, url))
    for sheet in sorted(site.rglob("*.css")):
        for ref in re.findall(
            r"url\(\s*['\"]?([^'\")]+)|@import\s+['\"]([^'\"]+)", sheet.read_text("utf-8")
        ):
            url = "".join(ref)
            if URL.fullmatch(url):
                found.append((str(sheet.relative_to(site)), url))
    return found


def broken_links(site: Path) -> list[tuple[str, str]]:
    """Links of the built pages that do not open a file from disk (``file://``): a link to a
    folder opens a directory listing there. ``404.html`` too: the site's hook
    (``docs/relative_404.py``) makes its links relative to it."""
    broken = []
    for page in sorted(site.rglob("*.html")):
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


def test_outside_resources_are_found(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<script src="https://unpkg.com/iframe-worker/shim"></script>'
        '<script src="assets/bundle.js"></script>'
        '<link rel="preconnect" href="https://fonts.gstatic.com">'
        '<link rel="stylesheet" href="//cdn.example.org/x.css">'
        '<link rel="icon" href="data:image/png;base64,AAAA">'
        '<script>s.src = "https://unpkg.com/@jupyter-widgets/html-manager@*/dist/embed-amd.js"'
        "</script>"
        '<script type="module">import("https://cdnjs.cloudflare.com/ajax/libs/mermaid/1/m.mjs")'
        "</script>"
        '<style>@font-face { src: url("https://fonts.gstatic.com/r.woff2") }</style>'
        '<a href="https://example.org/page.js">a page elsewhere, to click</a>'
        '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
        encoding="utf-8",
    )
    (tmp_path / "s.css").write_text(
        "@import 'https://fonts.googleapis.com/css?family=Roboto'; "
        ".x { background: url(img/x.png) } .y { background: url(data:image/png;base64,AA) }",
        encoding="utf-8",
    )
    assert outside_resources(tmp_path) == [
        ("a.html", "https://unpkg.com/iframe-worker/shim"),
        ("a.html", "https://fonts.gstatic.com"),
        ("a.html", "//cdn.example.org/x.css"),
        ("a.html", "https://unpkg.com/@jupyter-widgets/html-manager@*/dist/embed-amd.js"),
        ("a.html", "https://fonts.gstatic.com/r.woff2"),
        ("s.css", "https://fonts.googleapis.com/css?family=Roboto"),
    ]
    # The Mermaid loader counts where a page has a diagram for it to load Mermaid for.
    page = tmp_path / "a.html"
    page.write_text(page.read_text("utf-8") + '<div class="jp-Mermaid"></div>', "utf-8")
    assert ("a.html", "https://cdnjs.cloudflare.com/ajax/libs/mermaid/1/m.mjs") in (
        outside_resources(tmp_path)
    )
