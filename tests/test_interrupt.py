"""Ctrl-C stops every long command within a second, with exit 130, one line and no traceback.

Each command is started as a real process, given time to get into its long part, then sent a
real SIGINT; the clock runs from the signal to the process's exit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qarena.games import parse_spec
from qarena.learn.learners import load_learner
from qarena.learn.ntuple.files import load_network
from tests.conftest import default_sigint

pytestmark = pytest.mark.slow

QARENA = [sys.executable, "-m", "qarena"]
#: Allowed from SIGINT to exit. The target is 1 s (RELIABILITY.md measures it); a test on a
#: shared machine allows more, and still fails a command that goes on for minutes.
WITHIN = 5.0


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("interrupt") / "nim.npz"
    subprocess.run([*QARENA, "train", "nim:2,6,7,8", "-o", str(path)], check=True, timeout=120)
    return path


def _interrupt(argv: list[str], cwd: Path, wait: float) -> tuple[float, str]:
    """Run ``argv``, wait ``wait`` seconds, send SIGINT, and return (seconds from the signal
    to the exit, stderr)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [*QARENA, *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=default_sigint,  # noqa: PLW1509 - only resets a signal, takes no lock
    )
    try:
        # Long enough to be past start-up (imports, compiled kernels, solving) and into the
        # long part of the command, which takes minutes at these sizes.
        time.sleep(wait)
        proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        _, stderr = proc.communicate(timeout=30)
        return time.monotonic() - t0, stderr
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "{policy}", "--games", "100000000"],
        ["compete", "{policy}", "{policy}", "--games", "100000000"],
        ["matrix", "nim:1,2,3,4,5,6,7", "--episodes", "1000000000"],
    ],
    ids=["eval", "compete", "matrix"],
)
def test_ctrl_c_stops_within_a_second(argv: list[str], policy: Path, tmp_path: Path) -> None:
    args = [a.format(policy=policy) for a in argv]
    before = policy.read_bytes()
    seconds, stderr = _interrupt(args, tmp_path, wait=6.0)
    assert seconds < WITHIN, f"took {seconds:.2f} s to stop; stderr: {stderr}"
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == "stopped."
    assert policy.read_bytes() == before
    assert os.listdir(tmp_path) == []


def test_train_stops_within_a_second_and_saves(tmp_path: Path) -> None:
    out = tmp_path / "long.npz"
    argv = ["train", "nim:1,2,3,4,5,6,7", "--episodes", "1000000000", "-o", str(out)]
    seconds, stderr = _interrupt(argv, tmp_path, wait=6.0)
    assert seconds < WITHIN, f"took {seconds:.2f} s to stop and save; stderr: {stderr}"
    assert "interrupted after" in stderr and "Traceback" not in stderr
    assert 0 < load_learner(out).episodes < 1_000_000_000
    assert os.listdir(tmp_path) == ["long.npz"]


@pytest.mark.parametrize(
    ("spec", "options"),
    [
        # At 8 s the first curve point (1,000 games) is being judged by search: about a
        # minute, which Ctrl-C waited for (66 to 92 s from the signal to the exit).
        ("connect4", ["--curve", "--tuples", "4"]),
        # No curve; 10,000 games of this board (a chunk between looks at a stop) take 36 s.
        ("tictactoe:12x12:5", ["--tuples", "10"]),
    ],
    ids=["judging-a-curve-point", "a-long-chunk"],
)
def test_ctrl_c_stops_a_network_run_and_saves(
    spec: str, options: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "net.npz"
    argv = ["train", spec, "--learner", "ntuple", "--episodes", "1000000", "--tuple-length", "4"]
    seconds, stderr = _interrupt([*argv, *options, "-o", str(out)], tmp_path, wait=8.0)
    assert seconds < WITHIN, f"took {seconds:.2f} s to stop and save; stderr: {stderr}"
    assert "interrupted after" in stderr and "Traceback" not in stderr
    net = load_network(out, parse_spec(spec))
    assert 0 < net.games < 1_000_000
    if "--curve" in options:
        # Stopped while its first point was judged: the point is dropped, the games kept.
        assert net.games == 1_000 and net.curve is not None and net.curve.points == []
    assert os.listdir(tmp_path) == ["net.npz"]


@pytest.mark.parametrize("command", ["solve", "train"])
def test_ctrl_c_during_the_search_is_stopped_not_a_traceback(command: str, tmp_path: Path) -> None:
    """The search is one compiled call; Ctrl-C that reaches Python inside it (numba reports a
    SystemError) ends as any Ctrl-C does. Signals at several moments of the search, as a person
    pressing Ctrl-C would; before this was handled, about 3 in 8 gave a traceback."""
    argv = [*QARENA, command, "tictactoe:4x4:4"]
    if command == "train":
        argv += ["-o", str(tmp_path / "t.npz")]
    stopped = 0
    for i in range(8):
        proc = subprocess.Popen(
            argv,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=default_sigint,  # noqa: PLW1509 - only resets a signal, takes no lock
        )
        try:
            assert proc.stderr is not None
            assert proc.stderr.readline().startswith("Searching tictactoe:4x4:4")
            time.sleep(0.05 * i)  # into the search, which takes about a second
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert "Traceback" not in stderr and "SystemError" not in stderr
        if proc.returncode == 0:
            continue  # done before the signal came
        assert proc.returncode == 130, stderr
        assert stderr.strip().splitlines()[-1] == "stopped."
        stopped += 1
    assert stopped >= 4  # the signals did come during the search


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "connect4", "--position", "11777"],
        ["book", "connect4", "--plies", "6", "--out", "book.npz"],
        # The search for a line that beats perfect play finds none, within a minute.
        ["beat", "perfect", "--game", "connect4", "--seat", "first"],
    ],
    ids=["solve", "book", "beat"],
)
def test_ctrl_c_stops_a_search_of_classic_connect_four(argv: list[str], tmp_path: Path) -> None:
    # The threads searching are told to stop; the book's progress is saved to go on from.
    # (Scoring the moves after 11777, out of the book, takes about 11 s here.)
    seconds, stderr = _interrupt(argv, tmp_path, wait=6.0)
    assert seconds < WITHIN, f"took {seconds:.2f} s to stop; stderr: {stderr}"
    assert "Traceback" not in stderr
    if argv[0] == "book":
        assert "the same command goes on from there" in " ".join(stderr.split())
        assert os.listdir(tmp_path) == ["book.npz.partial"]
    else:
        assert stderr.strip().splitlines()[-1] == "stopped."
        assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("sig", "code", "options"),
    [
        # Issue 54: a chunk of 32 games at 10,000 simulations a move takes minutes; the stop
        # was looked at only between chunks (still running 60 s after Ctrl-C, nothing saved).
        (signal.SIGINT, 130, ["--simulations", "10000", "--workers", "2"]),
        # SIGTERM killed the run (exit -15, nothing written, leaked semaphores): it saves now.
        (signal.SIGTERM, 143, ["--simulations", "100", "--workers", "2"]),
        # A learning step of this network is seconds: it learns in pieces and looks between.
        (signal.SIGINT, 130, ["--channels", "256", "--blocks", "20", "--simulations", "2"]),
    ],
    ids=["ctrl-c-in-the-workers-games", "sigterm-with-workers", "ctrl-c-large-network"],
)
def test_a_stop_ends_an_alphazero_run_at_once_and_saves(
    sig: signal.Signals, code: int, options: list[str], tmp_path: Path
) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "az.npz"
    argv = [*QARENA, "train", "connect4", "--learner", "alphazero", "--episodes", "1000"]
    proc = subprocess.Popen(
        [*argv, *options, "-o", str(out)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=default_sigint,  # noqa: PLW1509 - only resets a signal, takes no lock
    )
    try:
        time.sleep(15.0)  # past PyTorch's import and the workers' start, into the games
        proc.send_signal(sig)
        t0 = time.monotonic()
        _, stderr = proc.communicate(timeout=60)
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert seconds < WITHIN, f"took {seconds:.2f} s to stop and save; stderr: {stderr}"
    assert proc.returncode == code, stderr
    assert "interrupted after" in stderr, stderr
    assert "Traceback" not in stderr and "leaked" not in stderr and "terminate" not in stderr
    back = load_learner(out)
    assert 0 <= back.episodes < 1000
    assert os.listdir(tmp_path) == ["az.npz"]
