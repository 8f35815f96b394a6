"""The one writer: what it refuses (and leaves untouched), and the temp files it reclaims."""

from __future__ import annotations

import fcntl
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qarena.errors import QarenaError
from qarena.fileio import TEMP_SUFFIX, atomic_open, remove_stale_temps, write_atomic


def _refused(target: Path, match: str, inputs: tuple[Path, ...] = ()) -> None:
    with pytest.raises(QarenaError, match=match) as info:
        write_atomic(target, b"new", inputs)
    assert "\n" not in str(info.value)
    assert not [p for p in os.listdir(target.parent) if p.endswith(TEMP_SUFFIX)]


def test_writes_a_regular_file_and_replaces_one(tmp_path: Path) -> None:
    target = tmp_path / "a.csv"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert os.listdir(tmp_path) == ["a.csv"]


def test_refuses_a_named_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _refused(fifo, "is a named pipe, not a regular file")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_refuses_a_socket(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        _refused(path, "is a socket")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_refuses_a_folder(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    _refused(tmp_path / "d", "is a folder")


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_refuses_a_device_node(tmp_path: Path) -> None:
    # Our own node with the null device's numbers: the system's is never put at risk.
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    _refused(node, "is a device, not a regular file")
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def test_refuses_the_system_null_device() -> None:
    # Checked before anything is opened: safe to ask even as root.
    with pytest.raises(QarenaError, match="is a device"):
        write_atomic("/dev/null", b"x")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_refuses_a_symbolic_link_and_its_target_is_untouched(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"precious")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    _refused(link, "symbolic link")
    assert link.is_symlink() and real.read_bytes() == b"precious"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    _refused(dangling, "symbolic link")
    assert not (tmp_path / "nowhere").exists()


def test_links_in_the_folders_above_are_fine(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    write_atomic(tmp_path / "alias" / "a.txt", b"ok")
    assert (tmp_path / "real" / "a.txt").read_bytes() == b"ok"


def test_refuses_an_input_by_any_name(tmp_path: Path) -> None:
    source = tmp_path / "p.npz"
    source.write_bytes(b"policy")
    _refused(source, "one of the files this command reads", (source,))
    hard = tmp_path / "hard.npz"
    os.link(source, hard)
    _refused(hard, "one of the files this command reads", (source,))
    via_link = tmp_path / "via.npz"
    via_link.symlink_to(source)
    _refused(source, "one of the files this command reads", (via_link,))
    assert source.read_bytes() == b"policy"


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_open(target) as f:
        f.write(b"half")
        raise RuntimeError("boom")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["a.txt"]


def test_a_killed_writers_temp_file_is_reclaimed(tmp_path: Path) -> None:
    """kill -9 in the middle of a write leaves a temp file; the next write into the folder, of
    any target, removes it, while a live writer's temp file stays."""
    script = (
        "import sys, time\n"
        "from qarena.fileio import atomic_open\n"
        "with atomic_open(sys.argv[1]) as f:\n"
        "    f.write(b'x' * 1000)\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "big.npz")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
        temps = [p for p in os.listdir(tmp_path) if p.endswith(TEMP_SUFFIX)]
        assert len(temps) == 1
        assert remove_stale_temps(tmp_path) == 0  # its writer is alive: kept
        proc.kill()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert os.listdir(tmp_path) == temps  # the kill left it, and no target
    write_atomic(tmp_path / "other.csv", b"a,b\n")
    assert os.listdir(tmp_path) == ["other.csv"]


def test_the_cleaner_ignores_what_is_not_ours(tmp_path: Path) -> None:
    names = [
        ".notes.tmp",
        "data.qarena-tmp",
        ".x.0123.qarena-tmp",
        ".y.0123456789abcdef.txt",
        # Other programs' temp files under a pattern qarena once used: never ours to remove.
        ".notes.0123456789abcdef.tmp",
        ".report.pdf.fedcba9876543210.tmp",
    ]
    for name in names:
        (tmp_path / name).write_bytes(b"keep")
    # A named pipe under our pattern must not hang the cleaner, nor be removed.
    os.mkfifo(tmp_path / f".p.0123456789abcdef{TEMP_SUFFIX}")
    t0 = time.monotonic()
    assert remove_stale_temps(tmp_path) == 0
    assert time.monotonic() - t0 < 5
    assert len(os.listdir(tmp_path)) == len(names) + 1


def test_a_live_lock_is_respected(tmp_path: Path) -> None:
    live = tmp_path / f".a.npz.0123456789abcdef{TEMP_SUFFIX}"
    with open(live, "wb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        assert remove_stale_temps(tmp_path) == 0
    assert remove_stale_temps(tmp_path) == 1
    assert not live.exists()


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "private.npz"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_atomic(target, b"new")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600 and target.read_bytes() == b"new"


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_root_keeps_the_owner_of_a_replaced_file(tmp_path: Path) -> None:
    target = tmp_path / "users.csv"
    target.write_bytes(b"old")
    os.chown(target, 1234, 5678)
    write_atomic(target, b"new")
    st = os.stat(target)
    assert (st.st_uid, st.st_gid) == (1234, 5678)


def test_verify_checks_the_complete_temp_file_before_the_rename(tmp_path: Path) -> None:
    target = tmp_path / "received.bin"
    target.write_bytes(b"old")
    seen: list[bytes] = []

    def refuse(tmp: str) -> None:
        seen.append(Path(tmp).read_bytes())
        assert Path(tmp).parent == tmp_path and Path(tmp).name.endswith(TEMP_SUFFIX)
        raise QarenaError("not what was expected")

    with (
        pytest.raises(QarenaError, match="not what was expected"),
        atomic_open(target, verify=refuse) as f,
    ):
        f.write(b"new")
    assert seen == [b"new"]  # the whole file, written and synced
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["received.bin"]
    with atomic_open(target, verify=lambda tmp: seen.append(Path(tmp).read_bytes())) as f:
        f.write(b"newer")
    assert target.read_bytes() == b"newer" and seen[-1] == b"newer"


def test_a_named_pipe_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 54: a named pipe given as --positions or --openings (or a judging set) waited
    for a writer for ever; policy files already refused one. Now the command ends at once
    with one line, exit 2, as for a policy file; a device is still read (its reader bounds
    it) and a regular file as before."""
    from qarena.cli import run
    from qarena.fileio import open_to_read
    from qarena.judging.sets import read_set

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for argv in (
        ["eval", "random", "--game", "connect4", "--positions", str(fifo)],
        ["compete", "random", "random", "--game", "connect4", "--openings", str(fifo)],
        ["eval", str(fifo), "--game", "connect4"],
    ):
        started = time.monotonic()
        assert run(argv) == 2
        err = capsys.readouterr().err.strip()
        assert time.monotonic() - started < 10
        assert "\n" not in err and str(fifo) in err and "not a regular file" in err, err
    with pytest.raises(QarenaError, match="it is a named pipe, not a regular file"):
        read_set(fifo)
    with open_to_read("/dev/null") as f:
        assert f.read() == b""
    (tmp_path / "a.txt").write_bytes(b"line\n")
    with open_to_read(tmp_path / "a.txt") as f:
        assert f.read() == b"line\n"
    with pytest.raises(IsADirectoryError):
        open_to_read(tmp_path)
