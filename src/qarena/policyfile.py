"""Policy files for trained agents: one ``.npz`` of named arrays plus JSON metadata, saved
atomically and checked in full on load.

The file is the zip layout of ``np.savez_compressed``: one ``<name>.npy`` member per array and a
``meta.npy`` member holding the UTF-8 bytes of a JSON object as a 1-D ``uint8`` array. Nothing is
ever pickled. The metadata carries ``format``, ``format_version`` and ``sha256``, the hex SHA-256
of the canonical metadata JSON without ``sha256`` followed by a newline, then, for each array in
sorted-name order, the JSON ``[name, dtype.str, shape]`` (compact separators), a newline and the
array's C-order bytes.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import math
import os
import re
import stat
import struct
import threading
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from qarena.errors import QarenaError, echo
from qarena.fileio import atomic_open
from qarena.i18n import _

FORMAT = "qarena-policy"
#: 2: tables have a row per reachable position (per class, with canonical positions on), in
#: code order. 1: a row per encoded position; still read, and converted on loading.
FORMAT_VERSION = 2

#: Largest metadata member (uncompressed) a loader accepts, so a hostile file cannot make it
#: inflate an arbitrary amount of JSON.
MAX_META_BYTES = 1 << 20

#: Longest npy header a loader reads: qarena writes about 128 bytes. numpy refuses headers
#: over 10,000 bytes, but only once it has read them, and a version-2 header may claim 4 GB
#: (a small deflated member can inflate to that much).
MAX_HEADER_BYTES = 4096
#: Most members a policy file may have (metadata and a few tables), and the largest zip
#: directory a loader parses: zipfile reads the whole directory when it opens a file, so a
#: hostile one of a million entries costs hundreds of MB before any check.
MAX_MEMBERS = 64
MAX_DIRECTORY_BYTES = 64 * 1024

#: Expected shape and dtype of one array.
ArraySpec = tuple[tuple[int, ...], np.dtype[Any]]

_META = "meta"
_SUFFIX = ".npy"
# Array kinds that can be stored: bool, signed and unsigned integers, floats, complex.
_KINDS = "biufc"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")

# What zipfile, zlib and numpy's npy reader raise on damaged input. NotImplementedError (an
# unknown compression method) and the "encrypted" error are RuntimeErrors.
_DAMAGED_TYPES = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    ValueError,
    RuntimeError,
    struct.error,
    OverflowError,
    KeyError,
    IndexError,
    # numpy reads an npy header with the tokenizer and ast.literal_eval: damaged headers
    # raise these, and a header naming a strange dtype, TypeError.
    SyntaxError,
    tokenize.TokenError,
    RecursionError,
    TypeError,
)


def _damaged(e: Exception) -> bool:
    """Whether an error while reading the zip means damaged content rather than failed I/O:
    a corrupt offset makes zipfile seek before the start (EINVAL), and a corrupt compression
    method can pick bz2, whose decoder raises OSError without an errno."""
    if isinstance(e, QarenaError):
        return False  # our own message already; QarenaError is a ValueError
    if isinstance(e, OSError):
        return e.errno in (None, errno.EINVAL)
    return isinstance(e, _DAMAGED_TYPES)


@dataclass(frozen=True)
class PolicyData:
    """What a policy file holds: its metadata (with ``sha256``) and its arrays, writable."""

    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]


def _canonical(meta: Mapping[str, Any]) -> bytes:
    return json.dumps(meta, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def _digest(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> str:
    """The checksum described in the module docstring; ``meta`` must not hold ``sha256``."""
    h = hashlib.sha256(_canonical(meta))
    h.update(b"\n")
    for name in sorted(arrays):
        a = np.asarray(arrays[name], order="C")  # keeps 0-d arrays 0-d
        h.update(json.dumps([name, a.dtype.str, list(a.shape)], separators=(",", ":")).encode())
        h.update(b"\n")
        # A flat byte view hashes the data without copying it.
        h.update(a.reshape(-1).view(np.uint8).data)
    return h.hexdigest()


def _all_finite(a: np.ndarray) -> bool:
    return a.dtype.kind not in "fc" or bool(np.isfinite(a).all())


def _prepare(
    p: str, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]
) -> tuple[dict[str, np.ndarray], bytes]:
    """Validate and normalise what save writes, so the loader will accept it."""
    out: dict[str, np.ndarray] = {}
    for name, a in arrays.items():
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name == _META:
            raise QarenaError(
                _(
                    "cannot save policy to {file}: bad array name {name!r} (letters, digits, "
                    "'_', '.', '-'; not {meta!r})"
                ).format(file=p, name=name, meta=_META)
            )
        if not isinstance(a, np.ndarray):
            raise QarenaError(
                _("cannot save policy to {file}: {name!r} is not a numpy array").format(
                    file=p, name=name
                )
            )
        if a.dtype.kind not in _KINDS:
            raise QarenaError(
                _(
                    "cannot save policy to {file}: array {name!r} has dtype {dtype}; only bool, "
                    "integer, float and complex arrays can be stored"
                ).format(file=p, name=name, dtype=a.dtype)
            )
        if not _all_finite(a):
            raise QarenaError(
                _(
                    "cannot save policy to {file}: array {name!r} contains NaN or infinite values"
                ).format(file=p, name=name)
            )
        # Native byte order and C order: what a loader on this machine expects, header and hash.
        out[name] = np.asarray(a, dtype=a.dtype.newbyteorder("="), order="C")
    try:
        # A JSON round trip gives exactly what a loader will see (e.g. tuples become lists).
        clean = json.loads(json.dumps(dict(meta), allow_nan=False))
    except (TypeError, ValueError) as e:
        raise QarenaError(
            _("cannot save policy to {file}: metadata is not plain JSON ({problem})").format(
                file=p, problem=e
            )
        ) from e
    clean.pop("sha256", None)
    clean["format"] = FORMAT
    clean["format_version"] = FORMAT_VERSION
    clean["sha256"] = _digest({k: v for k, v in clean.items() if k != "sha256"}, out)
    blob = _canonical(clean)
    if len(blob) > MAX_META_BYTES:
        raise QarenaError(
            _("cannot save policy to {file}: metadata is {size} bytes; the limit is 1 MiB").format(
                file=p, size=len(blob)
            )
        )
    return out, blob


def _write_npz(f: IO[bytes], arrays: Mapping[str, np.ndarray], blob: bytes) -> None:
    # The same zip layout np.savez_compressed writes, done by hand so that allow_pickle=False
    # holds on every supported numpy (savez's allow_pickle keyword is recent) and array names
    # cannot clash with savez's own parameters.
    members = {**arrays, _META: np.frombuffer(blob, dtype=np.uint8)}
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        for name in sorted(members):
            info = zipfile.ZipInfo(name + _SUFFIX)  # dated 1980: the same arrays, the same bytes
            info.compress_type = (
                zipfile.ZIP_STORED if _incompressible(members[name]) else zipfile.ZIP_DEFLATED
            )
            with zf.open(info, "w", force_zip64=True) as m:
                np.lib.format.write_array(m, members[name], allow_pickle=False)


#: Arrays from this size on are stored as they are when a sample of them does not compress.
_STORE_FROM = 1 << 20
_SAMPLE = 1 << 16


def _incompressible(array: np.ndarray) -> bool:
    """Whether ``array`` is large and a sample of it shrinks by less than a fifth under zlib:
    a network's trained weights, which deflate would spend seconds on to save almost nothing
    (95 MB of them took 9.5 s to shrink by 9%), so that a stopped run's save is quick."""
    if array.nbytes < _STORE_FROM:
        return False
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    # Slices from across the array: its start may be unlike the rest (a network's first
    # layers are small, its batch norms' statistics ones and zeros).
    step = flat.size // 16
    sample = b"".join(flat[i * step : i * step + _SAMPLE // 16].tobytes() for i in range(16))
    return len(zlib.compress(sample, 1)) > 0.8 * len(sample)


def save_policy(
    path: str | os.PathLike[str],
    arrays: Mapping[str, np.ndarray],
    meta: Mapping[str, Any],
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> None:
    """Write ``arrays`` and ``meta`` to ``path`` through the one safe writer (qarena.fileio):
    readers see the old file or the new one, never a part. Raises QarenaError (and writes
    nothing) on bad input, a refused target or I/O errors."""
    p = os.fspath(path)
    out, blob = _prepare(p, arrays, meta)
    try:
        with atomic_open(p, inputs) as f:
            _write_npz(f, out, blob)
    except OSError as e:
        raise QarenaError(
            _("cannot write policy file {file}: {reason}").format(file=p, reason=e.strerror or e)
        ) from e


def encode_policy(arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> bytes:
    """The bytes :func:`save_policy` would write, for a caller that writes them elsewhere (a
    sweep's worker hands its run to the process that owns the folder)."""
    out, blob = _prepare("memory", arrays, meta)
    buffer = io.BytesIO()
    _write_npz(buffer, out, blob)
    return buffer.getvalue()


#: numpy reads npy headers with ast.literal_eval, and CPython 3.11's parser is not safe to run
#: in several threads at once ("AST constructor recursion depth mismatch"): the web app loads
#: policies in worker threads, so header reads take turns.
_HEADER_LOCK = threading.Lock()


def _header(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo
) -> tuple[tuple[int, ...], bool, np.dtype[Any], int]:
    """Shape, Fortran order, dtype and header length of a member, reading only its header,
    whose length is checked before any of it is read."""
    with _HEADER_LOCK, zf.open(info) as m:
        version = np.lib.format.read_magic(m)
        if version == (1, 0):
            length_format, read_header = "<H", np.lib.format.read_array_header_1_0
        elif version == (2, 0):
            length_format, read_header = "<I", np.lib.format.read_array_header_2_0
        else:
            raise ValueError(f"unsupported npy version {version}")
        raw = m.read(struct.calcsize(length_format))
        if len(raw) != struct.calcsize(length_format):
            raise ValueError("truncated npy header")
        (length,) = struct.unpack(length_format, raw)
        if length > MAX_HEADER_BYTES:
            raise ValueError(f"an npy header of {length} bytes")
        shape, fortran, dtype = read_header(io.BytesIO(raw + m.read(length)))
        return shape, fortran, dtype, m.tell()


def _check_directory(p: str, fh: IO[bytes]) -> None:
    """Refuse a zip whose directory is larger than a policy file's could be, from its end
    record alone, before zipfile parses the directory."""
    end = zipfile._EndRecData(fh)  # type: ignore[attr-defined]  # reads the end record only
    if end is None:
        raise zipfile.BadZipFile("no end of central directory")
    entries, size = end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]
    if entries > MAX_MEMBERS or size > MAX_DIRECTORY_BYTES:
        raise QarenaError(
            _(
                "{file} is not a qarena policy file (its zip directory lists {count:,} members "
                "in {size:,} bytes; a policy file has at most {most})"
            ).format(file=p, count=entries, size=size, most=MAX_MEMBERS)
        )
    fh.seek(0)


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    with _HEADER_LOCK, zf.open(info) as m:
        a = np.lib.format.read_array(m, allow_pickle=False)
        # Reading to the end makes zipfile compare the CRC; leftover bytes mean a bad member.
        if m.read(1):
            raise ValueError("data after the array")
    return a


def _read_meta(p: str, zf: zipfile.ZipFile, members: Mapping[str, zipfile.ZipInfo]) -> Any:
    info = members.get(_META)
    if info is None:
        raise QarenaError(
            _("{file} is not a qarena policy file (it has no metadata)").format(file=p)
        )
    if info.file_size > MAX_META_BYTES:
        raise QarenaError(
            _(
                "{file} is not a qarena policy file (metadata is too large: {size} bytes, the "
                "limit is 1 MiB)"
            ).format(file=p, size=info.file_size)
        )
    shape, _fortran, dtype, hlen = _header(zf, info)
    if dtype != np.dtype(np.uint8) or len(shape) != 1 or info.file_size != hlen + shape[0]:
        raise QarenaError(
            _("{file} is not a qarena policy file (metadata is not a byte array)").format(file=p)
        )
    raw = _read_member(zf, info)
    try:
        return json.loads(raw.tobytes().decode("utf-8"), parse_constant=_no_constant)
    except ValueError as e:
        raise QarenaError(
            _("{file} is not a qarena policy file (metadata is not JSON)").format(file=p)
        ) from e


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_meta(p: str, meta: Any) -> dict[str, Any]:
    if not isinstance(meta, dict):
        raise QarenaError(
            _("{file} is not a qarena policy file (metadata is not a JSON object)").format(file=p)
        )
    if meta.get("format") != FORMAT:
        raise QarenaError(
            _("{file} is not a qarena policy file (format is {format!r})").format(
                file=p, format=meta.get("format")
            )
        )
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise QarenaError(
            _("{file} has an unknown format version {version!r}").format(file=p, version=version)
        )
    if version > FORMAT_VERSION:
        raise QarenaError(
            _(
                "{file} was written by a newer qarena (format version {version}); this one "
                "reads version {ours}"
            ).format(file=p, version=version, ours=FORMAT_VERSION)
        )
    sha = meta.get("sha256")
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise QarenaError(
            _("{file} is not a qarena policy file (it has no valid checksum)").format(file=p)
        )
    return meta


def _names(items: list[str]) -> str:
    return ", ".join(repr(n) for n in sorted(items))


def _specs(raw: Mapping[str, ArraySpec]) -> dict[str, ArraySpec]:
    """Normalise what ``expect`` returned; a dtype that cannot be stored is the caller's bug."""
    out: dict[str, ArraySpec] = {}
    for name, (shape, dtype) in raw.items():
        dt = np.dtype(dtype)
        if dt.kind not in _KINDS:
            raise TypeError(f"expect() asked for {name!r} with dtype {dt}, which cannot be stored")
        out[name] = (tuple(int(n) for n in shape), dt)
    return out


def _check_headers(
    p: str,
    zf: zipfile.ZipFile,
    members: Mapping[str, zipfile.ZipInfo],
    specs: Mapping[str, ArraySpec],
    squeeze: Mapping[str, int],
) -> None:
    """Check every array's header against ``specs`` before any array data is read, so the
    loader never allocates more than the expected arrays (and never meets an object array);
    an array named in ``squeeze`` must not take less than 1/ratio of its bytes on disk."""
    have = set(members) - {_META}
    missing = [n for n in specs if n not in have]
    if missing:
        raise QarenaError(_("{file} lacks array(s) {names}").format(file=p, names=_names(missing)))
    extra = [n for n in have if n not in specs]
    if extra:
        raise QarenaError(
            _("{file} has unexpected array(s) {names}").format(file=p, names=_names(extra))
        )
    for name, (want_shape, want_dtype) in specs.items():
        info = members[name]
        shape, fortran, dtype, hlen = _header(zf, info)
        if dtype != want_dtype:
            raise QarenaError(
                _("{file}: array {name!r} has dtype {dtype}, expected {expected}").format(
                    file=p, name=name, dtype=dtype, expected=want_dtype
                )
            )
        if shape != want_shape:
            raise QarenaError(
                _("{file}: array {name!r} has shape {shape}, expected {expected}").format(
                    file=p, name=name, shape=shape, expected=want_shape
                )
            )
        if fortran and len(shape) > 1:
            raise QarenaError(
                _("{file}: array {name!r} is not stored in C order").format(file=p, name=name)
            )
        if info.file_size != hlen + math.prod(shape) * dtype.itemsize:
            raise QarenaError(
                _("{file} is corrupted (array {name!r} has the wrong size)").format(
                    file=p, name=name
                )
            )
        ratio = squeeze.get(name)
        if ratio is not None and info.file_size > ratio * info.compress_size:
            raise QarenaError(
                _(
                    "{file} is corrupted (array {name!r} claims {size:,} bytes but takes "
                    "{stored:,} on disk; such an array does not compress that much)"
                ).format(file=p, name=name, size=info.file_size, stored=info.compress_size)
            )


def _open_members(p: str, zf: zipfile.ZipFile, size: int) -> dict[str, zipfile.ZipInfo]:
    members: dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        base = info.filename.removesuffix(_SUFFIX)
        if info.filename == base or base in members:
            raise QarenaError(
                _("{file} is not a qarena policy file (unexpected member {name!r})").format(
                    file=p, name=info.filename
                )
            )
        # zipfile reads a member until its deflated stream ends, whatever the directory says
        # it takes: a member that claims more than the whole file lies about its size.
        if info.compress_size > size:
            raise QarenaError(
                _("{file} is corrupted (a member claims to be larger than the file)").format(file=p)
            )
        members[base] = info
    return members


@contextlib.contextmanager
def _opened(p: str) -> Iterator[tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo], dict[str, Any]]]:
    """The policy file's zip, its members and its checked metadata, while the block runs. Any
    problem opening it or reading it, in the block too, is one line naming the file."""
    try:
        st = os.stat(p)
        if not stat.S_ISREG(st.st_mode):
            raise QarenaError(
                _("no such policy file: {file} (it is not a regular file)").format(file=p)
            )
        with open(p, "rb") as fh:
            try:
                _check_directory(p, fh)
                zf = zipfile.ZipFile(fh)
            except QarenaError:
                raise
            except Exception as e:
                if not _damaged(e):
                    raise
                raise QarenaError(
                    _("{file} is not a qarena policy file (truncated or not a .npz)").format(file=p)
                ) from e
            with zf:
                try:
                    members = _open_members(p, zf, os.fstat(fh.fileno()).st_size)
                    meta = _check_meta(p, _read_meta(p, zf, members))
                except Exception as e:
                    if not _damaged(e):
                        raise
                    raise QarenaError(
                        _("{file} is corrupted (metadata unreadable)").format(file=p)
                    ) from e
                yield zf, members, meta
    except FileNotFoundError as e:
        raise QarenaError(_("no such policy file: {file}").format(file=p)) from e
    except OSError as e:
        # A name too long to be a file's may be 100,000 characters of a person's text: cut.
        shown = echo(p) if e.errno == errno.ENAMETOOLONG else p
        raise QarenaError(
            _("cannot read policy file {file}: {reason}").format(file=shown, reason=e.strerror or e)
        ) from e


def read_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A policy file's metadata alone, its format checked but not its arrays or checksum: for
    listing many files cheaply. Whatever is then loaded goes through :func:`load_policy`."""
    with _opened(os.fspath(path)) as (_zf, _members, meta):
        return meta


def load_policy(
    path: str | os.PathLike[str],
    expect: Callable[[dict[str, Any]], Mapping[str, ArraySpec]],
    squeeze: Mapping[str, int] | None = None,
) -> PolicyData:
    """Read and verify a policy file. ``expect(meta)`` names the arrays the file must hold,
    with exact shapes and dtypes (it may raise QarenaError, e.g. for another game). An array
    named in ``squeeze`` is one no compression shrinks by more than the ratio given (a list
    of distinct numbers, say): one that claims more bytes than that is refused before it is
    read. Any problem with the file raises QarenaError with one line naming the file."""
    p = os.fspath(path)
    with _opened(p) as (zf, members, meta):
        specs = _specs(expect(meta))
        try:
            _check_headers(p, zf, members, specs, squeeze or {})
            arrays = {name: _read_member(zf, members[name]) for name in specs}
        except Exception as e:
            if not _damaged(e):
                raise
            raise QarenaError(
                _("{file} is corrupted ({problem})").format(file=p, problem=_brief(e))
            ) from e
    for name, a in arrays.items():
        if not _all_finite(a):
            raise QarenaError(
                _("{file}: array {name!r} contains NaN or infinite values").format(
                    file=p, name=name
                )
            )
    body = {k: v for k, v in meta.items() if k != "sha256"}
    try:
        ok = _digest(body, arrays) == meta["sha256"]
    except ValueError:  # a JSON number such as 1e999 reads as inf, which has no canonical form
        ok = False
    if not ok:
        raise QarenaError(
            _("{file}: checksum does not match: the file was altered or corrupted").format(file=p)
        )
    return PolicyData(meta=meta, arrays=arrays)


def _brief(e: BaseException) -> str:
    """A one-line reason from a zipfile/numpy error."""
    if isinstance(e, zipfile.BadZipFile) and "CRC" in str(e):
        return _("bad CRC in an array")
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:120]


_T = TypeVar("_T")


def load_shipped(name: str, load: Callable[[Path], _T]) -> _T | None:
    """A file that comes with qarena (``qarena/data/NAME``: a network, an opening book), read
    by ``load``; None when the package lacks it."""
    path = resources.files("qarena") / "data" / name
    if not path.is_file():
        return None
    with resources.as_file(path) as real:
        return load(real)
