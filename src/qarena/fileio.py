"""The one writer for every file qarena writes (policies, CSV, plots, reports).

What it guarantees, whoever runs it (root included):

- **Only regular files are replaced.** An existing target that is a device, a named pipe, a
  socket or a folder is refused with one line, and left untouched.
- **Symbolic links are refused, not followed.** A link at the target path could point anywhere
  (a system file, another user's file), so qarena never writes through one: name the file the
  link points to instead. Links in the folders *above* the target are fine.
- **Inputs are never overwritten.** A command passes the files it reads; a target that is the
  same file as one of them (by device and inode, so links and hard links count) is refused.
- **Atomic.** Data goes to a temp file beside the target, is fsynced, renamed over the target,
  and the folder is fsynced: a crash leaves the old file or the new one, never half of either.
- **A replaced file keeps its permissions** (and, written by root, its owner).
- **No temp file outlives its writer for long.** Each temp file is locked (``flock``) by the
  process writing it; any later write into the same folder, and the web app's start, remove
  every temp file of ours whose writer is gone (a kill -9, a power cut).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO

from qarena.errors import QarenaError
from qarena.i18n import _, gettext_noop

try:  # POSIX: a writer's lock tells a live temp file from a dead writer's
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

PathLike = str | os.PathLike[str]

#: Temp files end with this, so the cleaner never touches anything that is not ours: a name
#: like ``.notes.0123456789abcdef.tmp`` is some other program's, whoever wrote it.
TEMP_SUFFIX = ".qarena-tmp"
_TEMP = re.compile(r"\..*\.[0-9a-f]{16}" + re.escape(TEMP_SUFFIX), re.DOTALL)
#: Without flock (Windows), a temp file this old is taken as abandoned.
_STALE_SECONDS = 3600.0
#: Longest part of the target's name kept in a temp file's name (names are at most 255 bytes).
_NAME_PART = 80
#: A file that cannot be written, and why (the system's words).
_CANNOT_WRITE = gettext_noop("cannot write {path}: {reason}")


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return _("a folder")
    if stat.S_ISLNK(mode):
        return _("a symbolic link")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return _("a device")
    if stat.S_ISFIFO(mode):
        return _("a named pipe")
    if stat.S_ISSOCK(mode):
        return _("a socket")
    return _("not a regular file")


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def is_file(path: PathLike) -> bool:
    """Whether ``path`` names an existing regular file (following links); False for anything
    that cannot name one, such as a name too long or with a NUL in it."""
    try:
        return stat.S_ISREG(os.stat(os.fspath(path)).st_mode)
    except (OSError, ValueError):
        return False


def is_dir(path: PathLike) -> bool:
    """Whether ``path`` names an existing folder; False for anything that cannot name one."""
    try:
        return stat.S_ISDIR(os.stat(os.fspath(path)).st_mode)
    except (OSError, ValueError):
        return False


def open_to_read(path: PathLike) -> IO[bytes]:
    """``path`` opened to read, in binary. A named pipe is refused in one line rather than
    read: reading one waits for a writer, for ever if none comes (policy files refuse it as
    not a regular file). A folder raises IsADirectoryError and a file that cannot be opened
    OSError, as ``open`` does; a device such as /dev/zero is read, its reader bounding what
    it takes."""
    p = os.fspath(path)
    # O_NONBLOCK: opening a named pipe to read would itself wait for its writer.
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), p)
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            raise QarenaError(
                _("cannot read {path}: it is {kind}, not a regular file").format(
                    path=p, kind=_kind(mode)
                )
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_target(path: PathLike, inputs: Iterable[PathLike] = ()) -> None:
    """Raise QarenaError unless qarena may write ``path``: call it before long work, so a bad
    ``--out`` is refused before anything is computed. ``inputs`` are the files the command
    reads; writing over one of them is refused."""
    p = os.fspath(path)
    if not p or not os.path.basename(p) or p.endswith(os.sep):
        raise QarenaError(_("cannot write {path!r}: it names no file").format(path=p))
    try:
        st: os.stat_result | None = os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):
        st = None  # the folder checks below say what is wrong
    except OSError as e:  # a name too long, no permission, …
        raise QarenaError(_(_CANNOT_WRITE).format(path=p, reason=e.strerror or e)) from None
    if st is not None:
        kind = _kind(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            raise QarenaError(
                _(
                    "cannot write {path}: it is a symbolic link, and qarena does not write "
                    "through links; name the file it points to"
                ).format(path=p)
            )
        if kind is not None:
            raise QarenaError(
                _(
                    "cannot write {path}: it is {kind}, not a regular file; qarena only replaces "
                    "regular files"
                ).format(path=p, kind=kind)
            )
        for given in inputs:
            try:
                source = os.stat(os.fspath(given))
            except OSError:
                continue
            if _same_file(st, source):
                raise QarenaError(
                    _(
                        "cannot write {path}: it is one of the files this command reads "
                        "({input}); write to another file"
                    ).format(path=p, input=os.fspath(given))
                )
    folder = os.path.dirname(os.path.abspath(p))
    try:
        fst = os.stat(folder)
    except FileNotFoundError:
        raise QarenaError(
            _("cannot write {path}: folder {folder} does not exist").format(path=p, folder=folder)
        ) from None
    except OSError as e:
        raise QarenaError(_(_CANNOT_WRITE).format(path=p, reason=e.strerror or e)) from None
    if not stat.S_ISDIR(fst.st_mode):
        raise QarenaError(
            _("cannot write {path}: {folder} is not a folder").format(path=p, folder=folder)
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise QarenaError(
            _("cannot write {path}: folder {folder} is not writable").format(path=p, folder=folder)
        )


def _lock(fd: int, blocking: bool) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except OSError as e:
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _abandoned(folder: str, entry: str) -> bool:
    """Remove ``entry`` if it is a temp file whose writer is gone; True if it was removed."""
    path = os.path.join(folder, entry)
    try:
        # O_NONBLOCK: a named pipe planted under our name must not hang the cleaner.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False  # gone already, a link, or not ours to open
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return False
        if fcntl is None and time.time() - st.st_mtime < _STALE_SECONDS:
            return False
        if not _lock(fd, blocking=False):
            return False  # its writer is alive
        # Still the same file under that name? Then it is ours to remove.
        with contextlib.suppress(OSError):
            if _same_file(os.lstat(path), st):
                os.unlink(path)
                return True
        return False
    finally:
        os.close(fd)


#: The lock file a command holds in a folder it works in for a while (a sweep's).
LOCK_NAME = ".qarena-lock"


@contextlib.contextmanager
def folder_lock(folder: PathLike, holder: str, advice: str | None = None) -> Iterator[None]:
    """Hold ``folder``'s lock while the block runs, so that a second ``holder`` (say, "sweep")
    started on the same folder is refused with one line instead of working beside the first;
    ``advice`` says what to do then (default: wait for the first to finish). The lock goes
    with the process: a killed command leaves nothing locked."""
    f = os.fspath(folder)
    path = os.path.join(f, LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as e:
        raise QarenaError(
            _("cannot lock {folder}: {reason}").format(folder=f, reason=e.strerror or e)
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise QarenaError(
                _("cannot lock {folder}: {path} is not a regular file").format(folder=f, path=path)
            )
        if not _lock(fd, blocking=False):
            raise QarenaError(
                _("{folder} is in use by another {holder}; {advice}").format(
                    folder=f, holder=holder, advice=advice or _("wait for it to finish")
                )
            )
        yield
    finally:
        os.close(fd)


def remove_stale_temps(folder: PathLike) -> int:
    """Remove the temp files that dead writers left in ``folder``; returns how many."""
    f = os.fspath(folder)
    try:
        entries = os.listdir(f)
    except OSError:
        return 0
    removed = 0
    for entry in entries:
        if _TEMP.fullmatch(entry) and _abandoned(f, entry):
            removed += 1
    return removed


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


def _create_temp(folder: str, name: str) -> tuple[str, int]:
    """A new temp file beside the target, open and locked by us."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(folder, f".{name[:_NAME_PART]}.{secrets.token_hex(8)}{TEMP_SUFFIX}")
        try:
            # os.open rather than mkstemp: mode 0o666 lets the umask decide, as for any file.
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        _lock(fd, blocking=True)
        # A cleaner that took the file between our create and our lock has unlinked it.
        if os.fstat(fd).st_nlink > 0:
            return tmp, fd
        os.close(fd)


def _keep_mode(fd: int, target: str) -> None:
    """A replaced file keeps its permission bits (a private file stays private) and, when root
    writes it, its owner."""
    try:
        old = os.lstat(target)
    except OSError:
        return  # a new file: the umask decides, as for any file
    if not stat.S_ISREG(old.st_mode):
        return
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        with contextlib.suppress(OSError):
            os.fchown(fd, old.st_uid, old.st_gid)


@contextlib.contextmanager
def atomic_open(
    path: PathLike,
    inputs: Iterable[PathLike] = (),
    verify: Callable[[str], None] | None = None,
) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``path`` when the block ends without error (see the module
    docstring for what is refused). On any error the temp file is removed and the error
    propagates: QarenaError for a refused target, OSError as is. ``verify``, when given, is
    called with the temp file's path once it is complete and synced, before the rename: what
    it raises leaves the target as it was (a file received from elsewhere is checked in full
    before it takes its name)."""
    target = os.fspath(path)
    sources = [os.fspath(i) for i in inputs]
    check_target(target, sources)
    folder = os.path.dirname(os.path.abspath(target))
    name = os.path.basename(target)
    remove_stale_temps(folder)
    tmp, fd = _create_temp(folder, name)
    try:
        _keep_mode(fd, target)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
            if verify is not None:
                verify(tmp)
            # Check again just before the rename: the target may have changed meanwhile.
            check_target(target, sources)
            os.replace(tmp, target)
    except BaseException:
        # Never let a failed cleanup hide the error that caused it.
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def write_atomic(path: PathLike, data: bytes, inputs: Iterable[PathLike] = ()) -> None:
    """Write ``data`` to ``path`` through :func:`atomic_open`; any failure is one QarenaError
    line and leaves the target as it was."""
    try:
        with atomic_open(path, inputs) as f:
            f.write(data)
    except OSError as e:
        raise QarenaError(
            _(_CANNOT_WRITE).format(path=os.fspath(path), reason=e.strerror or e)
        ) from None
