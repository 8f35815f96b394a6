"""Atomic file writes: a crash leaves the old file or the new one, never half of either, and
no stray temp file survives the next save of the same target."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterator
from typing import IO

from qarena.errors import QarenaError


def _remove_stale_temps(folder: str, name: str) -> None:
    """Delete temp files that crashed saves of the same target left behind. (A save of the same
    target running at this moment loses its temp file and fails cleanly; its writer would race
    with ours anyway.)"""
    prefix = f".{name}."
    for entry in os.listdir(folder):
        if entry.startswith(prefix) and entry.endswith(".tmp"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(folder, entry))


def _fsync_folder(folder: str) -> None:
    """Make the rename durable. Best effort: some platforms cannot open or sync a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # Windows cannot open a folder; its rename is durable enough.
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``path`` when the block ends without error: written to a temp
    file beside it, fsynced, renamed over it, and the folder fsynced so the rename survives a
    crash. On any error the temp file is removed and the error propagates (OSError as is)."""
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    name = os.path.basename(target)
    _remove_stale_temps(folder, name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
        try:
            # os.open rather than mkstemp: mode 0o666 lets the umask decide, as for any file.
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        # Never let a failed cleanup hide the error that caused it.
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; an I/O error becomes one QarenaError line."""
    try:
        with atomic_open(path) as f:
            f.write(data)
    except OSError as e:
        raise QarenaError(f"cannot write {os.fspath(path)}: {e.strerror or e}") from None
