"""Shared fixtures: the specs every conformance test runs over, running a script compiled and
as plain Python (``run_script``), and the real-browser harness.

The browser tests (marker ``browser``) run the web app under uvicorn on a free loopback port
and drive it with Playwright through the system Chromium (Debian's ``chromium``; ``make test``
installs it when it can). Missing Chromium, Playwright or ``qarena.web`` skips them with the
reason, except under CI (``CI`` set), where it fails them: a broken install must not pass.
On a failed test each page's screenshot and HTML go to ``test-artifacts/`` (or
``$QARENA_TEST_ARTIFACTS``) and the report names the files.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest


#: A spread of every registered game: misère and normal, one pile and many, square and not.
def at(tables: Any, table: Any, position: tuple[int, ...]) -> dict[int, float]:
    """A ``[row, move]`` table's entries for ``position``'s legal moves, by the position's own
    move ids (read through its class's row and frame)."""
    row, frame = tables.frame(position)
    return {m: float(table[row, f]) for m, f in frame.items()}


#: ``run_script(script, *args, jit=True)``: the standard output of ``python -c script args``.
RunScript = Callable[..., str]


@pytest.fixture(scope="session")
def run_script() -> RunScript:
    """Run a script in a fresh interpreter, compiled (``jit=True``) or with numba switched off
    (``NUMBA_DISABLE_JIT=1``: the pure-Python path every kernel must also give): the one
    harness of the tests that hold the two paths to the same results."""

    def run(script: str, *args: str, jit: bool = True) -> str:
        env = {**os.environ, "NUMBA_DISABLE_JIT": "0" if jit else "1"}
        done = subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env,
            check=True,
        )  # fmt: skip
        return done.stdout

    return run


@pytest.fixture(autouse=True, scope="session")
def _test_client_host() -> Iterator[None]:
    """FastAPI's TestClient sends ``Host: testserver``: the apps the tests build answer to
    that name too, as ``qarena serve --allow-host testserver`` would (the middleware is
    tested with other names in tests/test_web_hardening.py). Session-wide, so apps that
    module fixtures build answer to it too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("qarena.web.middleware.LOCAL_NAMES", ("localhost", "testserver"))
        yield


SPECS = [
    "nim",
    "nim:1",
    "nim:2,2",
    "nim:1,3,5,7",
    "nim:3,5,7:normal",
    "nim:2,6,7,8",
    "subtraction",
    "subtraction:7:2:normal",
    "subtraction:2:3",
    "tictactoe",
    "tictactoe:3x4:3",
    "tictactoe:2x2",
    "tictactoe:1x5:2",
]


# ---------------------------------------------------------------------------------------------
# Browser harness

#: Where a browser test's failure leaves its screenshots.
ARTIFACTS_ENV = "QARENA_TEST_ARTIFACTS"
#: A Chromium (or Chrome) binary to use instead of the one found on PATH.
CHROMIUM_ENV = "QARENA_CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Default wait for a locator or an assertion; starting a game that trains waits longer.
TIMEOUT_MS = 5_000

_PAGES = pytest.StashKey[list[tuple[str, Any]]]()


def default_sigint() -> None:
    """For ``preexec_fn``: a child that the tests send Ctrl-C gets SIGINT's default disposition.
    A suite started from a shell that ignores SIGINT (a background job, ``trap "" INT``) would
    otherwise pass the ignored signal on, and the Ctrl-C tests would test the shell."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> NoReturn:
    """Skip for a missing browser-test prerequisite; under CI, fail instead."""
    if in_ci():
        pytest.fail(f"browser tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def kaggle_environments() -> Any:
    """Kaggle's ConnectX client (``make dev`` installs it): skipped without it, failed under CI,
    where it must be there."""
    try:
        import kaggle_environments as found
    except ImportError as e:
        if in_ci():
            pytest.fail(f"kaggle-environments is not installed under CI ({e})", pytrace=False)
        pytest.skip(f"kaggle-environments is not installed ({e})")
    return found


def chromium_path() -> str | None:
    if path := os.environ.get(CHROMIUM_ENV):
        return path
    for name in CHROMIUM_NAMES:
        if found := shutil.which(name):
            return found
    return None


@pytest.fixture(scope="session")
def web_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The web app's data directory (trained agents, games), fresh for the test session."""
    return tmp_path_factory.mktemp("web-data")


@pytest.fixture(scope="session")
def web_app(web_data_dir: Path) -> Any:
    """The ASGI app under test."""
    missing = ""
    try:
        from qarena.web.app import create_app
    except ImportError as e:
        missing = str(e)
    if missing:
        unavailable(f"the web app does not import ({missing})")
    return create_app(web_data_dir)


@pytest.fixture(scope="session")
def live_server(web_app: Any) -> Iterator[str]:
    """The app served by uvicorn on a free loopback port; yields its base URL."""
    missing = ""
    try:
        import uvicorn
    except ImportError as e:
        missing = str(e)
    if missing:
        unavailable(f"uvicorn is not installed ({missing})")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    host, port = sock.getsockname()
    server = uvicorn.Server(
        uvicorn.Config(web_app, host=host, port=port, log_level="warning", lifespan="auto")
    )
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="web-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive():
            sock.close()
            pytest.fail("the web server stopped while starting; see the log above")
        if time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            pytest.fail("the web server did not start within 30 s")
        time.sleep(0.05)
    with socket.create_connection((host, port), timeout=5):
        pass
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session: the system one, else Playwright's own if any."""
    missing = ""
    try:
        from playwright.sync_api import Error, expect, sync_playwright
    except ImportError as e:
        missing = str(e)
    if missing:
        unavailable(f"playwright is not installed ({missing}); pip install -e '.[dev]'")
    executable = chromium_path()
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as p:
        failure = ""
        try:
            # Root (as in CI) needs --no-sandbox; it changes nothing the tests look at.
            launched = p.chromium.launch(
                executable_path=executable, headless=True, args=["--no-sandbox"]
            )
        except Error as e:
            failure = (str(e).strip() or repr(e)).splitlines()[0]
        if failure:
            where = executable or "no chromium on PATH, and Playwright's own browser"
            unavailable(
                f"cannot launch Chromium ({where}): {failure}; "
                "install it with `apt-get install chromium` (make test does when root)"
            )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def new_page(
    request: pytest.FixtureRequest, browser: Any, live_server: str
) -> Iterator[Callable[[], Any]]:
    """Makes pages, each in a context of its own (own cookies), at the live server's base URL."""
    contexts: list[Any] = []
    pages = request.node.stash.setdefault(_PAGES, [])

    def make() -> Any:
        context = browser.new_context(base_url=live_server, viewport={"width": 1200, "height": 900})
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        pages.append((f"{len(pages) + 1}", page))
        return page

    yield make
    pages.clear()
    for context in contexts:
        with contextlib.suppress(Exception):
            context.close()


@pytest.fixture
def page(new_page: Callable[[], Any]) -> Any:
    """A fresh page in a fresh browser context."""
    return new_page()


def _artifacts_dir(config: pytest.Config) -> Path:
    return Path(os.environ.get(ARTIFACTS_ENV) or config.rootpath / "test-artifacts")


def _save_pages(item: pytest.Item, report: pytest.TestReport) -> None:
    pages = item.stash.get(_PAGES, [])
    if not pages:
        return
    out = _artifacts_dir(item.config)
    out.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^\w.-]+", "_", item.name)
    saved = []
    for label, page in pages:
        name = stem if len(pages) == 1 else f"{stem}-{label}"
        try:
            page.screenshot(path=str(out / f"{name}.png"), full_page=True, timeout=TIMEOUT_MS)
            (out / f"{name}.html").write_text(page.content(), encoding="utf-8")
            saved.append(f"{out / name}.png (.html beside it; the page was at {page.url})")
        except Exception as e:
            saved.append(f"{out / name}.png could not be saved: {e}")
    report.sections.append(("browser pages", "\n".join(saved)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed browser test leaves a screenshot of each page it opened, taken at once."""
    report: pytest.TestReport = yield
    if report.when == "call" and report.failed:
        _save_pages(item, report)
    return report
