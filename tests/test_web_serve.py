"""``qarena serve`` as a real process: stopping it (SIGTERM, Ctrl-C) saves what running
training jobs have learned, and it exits promptly."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import default_sigint

pytestmark = pytest.mark.slow


def qarena_command() -> list[str]:
    script = Path(sys.executable).parent / "qarena"
    return [str(script)] if script.exists() else [sys.executable, "-m", "qarena"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(base: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:  # one connection per call
        return json.loads(r.read())


def serve(data: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """A real server on ``data`` (``env`` added to its environment), once it answers."""
    port = free_port()
    proc = subprocess.Popen(
        [*qarena_command(), "serve", "--data-dir", str(data), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=None if env is None else {**os.environ, **env},
        preexec_fn=default_sigint,  # noqa: PLW1509 - only resets a signal, takes no lock
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            call(base, "GET", "/api/policies")
            return proc, base
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                out, err = proc.communicate()
                pytest.fail(f"qarena serve did not start: {err or out}")
            time.sleep(0.2)


# SIGTERM (systemd, docker stop, kill) is a request to stop: status 0. Ctrl-C may also end
# as the command line's "stopped." (130).
@pytest.mark.parametrize(("sig", "codes"), [(signal.SIGTERM, {0}), (signal.SIGINT, {0, 130})])
def test_stopping_the_server_saves_running_training(
    tmp_path: Path, sig: signal.Signals, codes: set[int]
) -> None:
    proc, base = serve(tmp_path)
    try:
        job = call(base, "POST", "/api/train", {"game": "nim:2,6,7,8", "episodes": 10_000_000})
        queued = call(base, "POST", "/api/train", {"game": "nim:2,6,7,8", "episodes": 10})
        assert job["state"] == "running"
        deadline = time.monotonic() + 30
        while call(base, "GET", f"/api/train/{job['job']}")["episodes"] == 0:
            assert time.monotonic() < deadline, "training made no progress"
            time.sleep(0.1)
        t0 = time.monotonic()
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode in codes, err
    assert took < 10, f"stopping took {took:.1f} s"
    assert "Traceback" not in err
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        rows = db.execute("SELECT id, game, episodes FROM policies").fetchall()
    # The running job saved what it learned; the second run (one of two slots, so it was
    # running too, or it finished) may be there as well, but nothing half-written is.
    long_runs = [r for r in rows if r[2] > 10]
    assert len(long_runs) == 1, rows
    policy, game, episodes = long_runs[0]
    assert game == "nim:2,6,7,8" and 0 < episodes < 10_000_000
    assert (tmp_path / "policies" / f"{policy}.npz").is_file()
    assert not list((tmp_path / "policies").glob(".*"))  # no temp files left
    assert queued["state"] in ("queued", "running")


def test_a_second_server_on_the_same_data_folder_is_refused(tmp_path: Path) -> None:
    """Two servers on one folder each kept the index in step with the files as they saw them:
    rows without files, a 500 on download. The second is refused at start, in one line; the
    first goes on serving, and once it has stopped the folder is free again."""
    proc, base = serve(tmp_path)
    try:
        second = subprocess.run(
            [*qarena_command(), "serve", "--data-dir", str(tmp_path), "--port", str(free_port())],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1 and "in use by another qarena serve" in second.stderr
        assert call(base, "GET", "/api/policies") == []
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    again, _base = serve(tmp_path)
    again.send_signal(signal.SIGTERM)
    assert again.wait(timeout=30) == 0
