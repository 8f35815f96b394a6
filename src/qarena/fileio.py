"""Atomic file writes: a crash leaves the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import tempfile

from qarena.errors import QarenaError


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, fsync it, rename it over ``path``, and
    fsync the folder so the rename itself survives a crash."""
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise QarenaError(f"cannot write {target}: {e.strerror or e}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
