"""Policy files: round trip, atomic saves, and a clear QarenaError for every kind of bad file."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qarena import policyfile
from qarena.errors import QarenaError
from qarena.fileio import check_target
from qarena.policyfile import (
    FORMAT,
    FORMAT_VERSION,
    ArraySpec,
    load_policy,
    save_policy,
)

_rng = np.random.default_rng(7)
ARRAYS: dict[str, np.ndarray] = {
    "q": _rng.standard_normal((3, 4)),
    "legal": _rng.random((3, 4)) < 0.5,
    "small": np.array([-128, -1, 0, 1, 127], dtype=np.int8),
    "counts": np.array([0, 1, 2**40, 2**63, 2**64 - 1, 5], dtype=np.uint64),
}
META: dict[str, Any] = {
    "game": "nim:3,5,7",
    "learner": "qlearning",
    "hyperparameters": {"alpha": 0.1, "gamma": 1.0, "epsilon": [0.3, 0.01]},
    "episodes": 40_000,
    "seed": 1,
    "created": "2024-01-01T00:00:00Z",
    "qarena": "0.1.0",
}


def expect_all(meta: dict[str, Any]) -> dict[str, ArraySpec]:
    return {name: (a.shape, a.dtype) for name, a in ARRAYS.items()}


def spec_sha(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> str:
    """The checksum as the format describes it, written independently of the module."""
    h = hashlib.sha256(json.dumps(meta, sort_keys=True, separators=(",", ":")).encode() + b"\n")
    for name in sorted(arrays):
        a = arrays[name]
        h.update(json.dumps([name, a.dtype.str, list(a.shape)], separators=(",", ":")).encode())
        h.update(b"\n" + a.tobytes(order="C"))
    return h.hexdigest()


def craft(
    path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any], *, sha: bool = True
) -> None:
    """Write a file by hand with plain np.savez (pickling allowed), bypassing save's checks."""
    meta = dict(meta)
    meta.setdefault("format", FORMAT)
    meta.setdefault("format_version", FORMAT_VERSION)
    if sha:
        meta["sha256"] = spec_sha(meta, arrays)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as f:  # a file object, so numpy does not append ".npz"
        np.savez(f, meta=blob, **arrays)


def refused(path: Path, *words: str, expect: Any = expect_all) -> str:
    with pytest.raises(QarenaError) as info:
        load_policy(path, expect)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return message


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "agent.policy"
    save_policy(path, ARRAYS, META)
    return path


# --- round trip and format -------------------------------------------------------------------


def test_round_trip(saved: Path) -> None:
    data = load_policy(str(saved), expect_all)
    assert set(data.arrays) == set(ARRAYS)
    for name, a in ARRAYS.items():
        got = data.arrays[name]
        assert got.dtype == a.dtype and got.shape == a.shape
        np.testing.assert_array_equal(got, a)
        assert got.flags.writeable
    for key, value in META.items():
        assert data.meta[key] == value
    assert data.meta["format"] == FORMAT and data.meta["format_version"] == FORMAT_VERSION
    body = {k: v for k, v in data.meta.items() if k != "sha256"}
    assert data.meta["sha256"] == spec_sha(body, ARRAYS)
    # Exactly the name asked for: no ".npz" appended, nothing else left in the folder.
    assert os.listdir(saved.parent) == [saved.name]


def test_is_a_plain_npz(saved: Path) -> None:
    with np.load(saved, allow_pickle=False) as z:
        assert set(z.files) == {*ARRAYS, "meta"}
        np.testing.assert_array_equal(z["q"], ARRAYS["q"])
        meta = json.loads(z["meta"].tobytes().decode("utf-8"))
    assert meta["format"] == FORMAT and meta["format_version"] == FORMAT_VERSION
    assert len(meta["sha256"]) == 64


def test_save_overrides_format_and_normalises_layout(tmp_path: Path) -> None:
    path = tmp_path / "p"
    arrays = {
        "f": np.asfortranarray(ARRAYS["q"]),
        "be": ARRAYS["q"].astype(">f8"),
        "scalar": np.array(2.5),
    }
    save_policy(path, arrays, {"format": "bogus", "format_version": 99, "sha256": "x"})
    specs: dict[str, ArraySpec] = {
        "f": ((3, 4), np.dtype(np.float64)),
        "be": ((3, 4), np.dtype(np.float64)),
        "scalar": ((), np.dtype(np.float64)),
    }
    data = load_policy(path, lambda meta: specs)
    assert data.meta["format"] == FORMAT and data.meta["format_version"] == FORMAT_VERSION
    np.testing.assert_array_equal(data.arrays["f"], ARRAYS["q"])
    np.testing.assert_array_equal(data.arrays["be"], ARRAYS["q"])
    assert data.arrays["scalar"].shape == () and data.arrays["scalar"] == 2.5


def test_save_replaces_an_older_file(saved: Path) -> None:
    save_policy(saved, {**ARRAYS, "q": ARRAYS["q"] + 1}, META)
    np.testing.assert_array_equal(load_policy(saved, expect_all).arrays["q"], ARRAYS["q"] + 1)


# --- atomic saves ----------------------------------------------------------------------------


class _Boom(Exception):
    pass


@pytest.mark.parametrize(
    ("error", "caught"), [(OSError(errno.EIO, "Input/output error"), QarenaError), (_Boom(), _Boom)]
)
def test_failed_replace_keeps_old_file(
    saved: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, caught: type[Exception]
) -> None:
    before = saved.read_bytes()

    def fail(*args: object) -> None:
        raise error

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(caught):
        save_policy(saved, {**ARRAYS, "q": ARRAYS["q"] * 2}, META)
    monkeypatch.undo()
    assert saved.read_bytes() == before
    assert os.listdir(saved.parent) == [saved.name]


def test_failed_fsync_is_one_line_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    path = tmp_path / "agent.policy"
    with pytest.raises(QarenaError, match="No space left on device") as info:
        save_policy(path, ARRAYS, META)
    assert str(path) in str(info.value)
    assert os.listdir(tmp_path) == []


def test_stray_temp_files_are_removed(tmp_path: Path) -> None:
    """Temp files whose writer is gone are removed by any later save into the folder; a live
    writer's (locked) temp file and files that are not ours stay."""
    import fcntl

    path = tmp_path / "agent.policy"
    (tmp_path / ".agent.policy.0123456789abcdef.qarena-tmp").write_bytes(b"half a file")
    (tmp_path / ".other.policy.0123456789abcdef.qarena-tmp").write_bytes(b"another target's")
    (tmp_path / ".notes.0123456789abcdef.tmp").write_bytes(b"another program's")
    (tmp_path / ".notes.abc.tmp").write_bytes(b"not ours")
    live = tmp_path / ".busy.policy.fedcba9876543210.qarena-tmp"
    with open(live, "wb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        save_policy(path, ARRAYS, META)
        kept = [".notes.0123456789abcdef.tmp", ".notes.abc.tmp", live.name, path.name]
        assert sorted(os.listdir(tmp_path)) == sorted(kept)


# --- refusals on load ------------------------------------------------------------------------


def test_missing_file_and_folder(tmp_path: Path) -> None:
    refused(tmp_path / "nope.policy", "no such policy file", "nope.policy")
    refused(tmp_path, "no such policy file")


def test_empty_and_foreign_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    refused(empty, "not a qarena policy file", "truncated or not a .npz", "empty")
    text = tmp_path / "text"
    text.write_text("just some text\n" * 20)
    refused(text, "not a qarena policy file")


def test_truncated_files(saved: Path, tmp_path: Path) -> None:
    data = saved.read_bytes()
    for cut in (10, 100, len(data) // 2, len(data) - 22, len(data) - 10, len(data) - 1):
        path = tmp_path / f"cut{cut}"
        path.write_bytes(data[:cut])
        refused(path, "not a qarena policy file", str(path))


def _payloads(data: bytes) -> dict[str, range]:
    """Byte ranges of each member's compressed data inside the zip."""
    out = {}
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            start = info.header_offset
            name_len = int.from_bytes(data[start + 26 : start + 28], "little")
            extra_len = int.from_bytes(data[start + 28 : start + 30], "little")
            begin = start + 30 + name_len + extra_len
            out[info.filename] = range(begin, begin + info.compress_size)
    return out


def test_single_bit_flips(saved: Path, tmp_path: Path) -> None:
    data = saved.read_bytes()
    good = load_policy(saved, expect_all)
    payloads = _payloads(data)
    assert set(payloads) == {f"{n}.npy" for n in [*ARRAYS, "meta"]}
    # A deflate stream ends with an end-of-block code (up to 15 bits) and padding, which the
    # reader need not decode once it has the member's full size; every other byte counts.
    must_raise = {i for r in payloads.values() for i in r[:-3]}
    path = tmp_path / "flipped"
    loaded_anyway = 0
    for offset in range(len(data)):
        damaged = bytearray(data)
        damaged[offset] ^= 1 << (offset % 8)
        path.write_bytes(bytes(damaged))
        try:
            got = load_policy(path, expect_all)
        except QarenaError as e:
            assert "\n" not in str(e) and str(path) in str(e)
            continue
        assert offset not in must_raise, f"flip at {offset} inside a payload was not detected"
        loaded_anyway += 1
        assert got.meta == good.meta
        for name in ARRAYS:
            np.testing.assert_array_equal(got.arrays[name], good.arrays[name])
    # Most flips outside payloads (names, sizes, offsets, CRCs) are caught too.
    assert loaded_anyway < len(data) - len(must_raise)


def test_wrong_shape_and_dtype(saved: Path) -> None:
    def shape(meta: dict[str, Any]) -> dict[str, ArraySpec]:
        return {**expect_all(meta), "q": ((4, 3), np.dtype(np.float64))}

    def dtype(meta: dict[str, Any]) -> dict[str, ArraySpec]:
        return {**expect_all(meta), "small": ((5,), np.dtype(np.int16))}

    refused(saved, "'q'", "shape (3, 4)", "expected (4, 3)", expect=shape)
    refused(saved, "'small'", "dtype int8", "expected int16", expect=dtype)


def test_extra_and_missing_arrays(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    save_policy(extra, {**ARRAYS, "bonus": np.zeros(2)}, META)
    refused(extra, "unexpected array", "'bonus'")
    missing = tmp_path / "missing"
    save_policy(missing, {k: v for k, v in ARRAYS.items() if k != "counts"}, META)
    refused(missing, "lacks array", "'counts'")


def test_expect_may_refuse(saved: Path) -> None:
    def other_game(meta: dict[str, Any]) -> dict[str, ArraySpec]:
        raise QarenaError(f"policy is for {meta['game']}, not tictactoe")

    refused(saved, "policy is for nim:3,5,7, not tictactoe", expect=other_game)


_unpickled: list[str] = []


def _trap() -> int:
    _unpickled.append("ran")
    return 0


class _Trap:
    """Unpickling this object records that it happened."""

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_trap, ())


def test_object_arrays_are_never_unpickled(tmp_path: Path) -> None:
    _unpickled.clear()
    trap = np.array([_Trap(), _Trap()], dtype=object)
    as_array = tmp_path / "object-array"
    craft(as_array, {**ARRAYS, "q": trap}, {**META, "sha256": "0" * 64}, sha=False)
    refused(as_array, "'q'", "dtype object")
    as_meta = tmp_path / "object-meta"
    with open(as_meta, "wb") as f:
        np.savez(f, meta=trap, **ARRAYS)
    refused(as_meta, "not a qarena policy file", "metadata")
    assert _unpickled == []
    # The trap is real: a loader that allows pickles would have run it.
    with np.load(as_array, allow_pickle=True) as z:
        z["q"]
    assert _unpickled == ["ran", "ran"]


def test_non_finite_values_with_a_valid_checksum(tmp_path: Path) -> None:
    for bad in (np.nan, np.inf, -np.inf):
        q = ARRAYS["q"].copy()
        q[1, 2] = bad
        path = tmp_path / f"bad{bad}"
        craft(path, {**ARRAYS, "q": q}, META)
        refused(path, "'q'", "NaN or infinite")


def test_checksum_mismatch(tmp_path: Path) -> None:
    full = {**META, "format": FORMAT, "format_version": FORMAT_VERSION}
    good_sha = spec_sha(full, ARRAYS)
    # Every file below is a well-formed zip with good CRCs; only the checksum tells.
    path = tmp_path / "edited-meta"
    craft(path, ARRAYS, {**full, "episodes": 1, "sha256": good_sha}, sha=False)
    refused(path, "checksum does not match")
    path = tmp_path / "edited-array"
    q = ARRAYS["q"].copy()
    q[0, 0] += 1e-12
    craft(path, {**ARRAYS, "q": q}, {**full, "sha256": good_sha}, sha=False)
    refused(path, "checksum does not match")
    path = tmp_path / "no-checksum"
    craft(path, ARRAYS, full, sha=False)
    refused(path, "checksum")
    path = tmp_path / "control"
    craft(path, ARRAYS, {**full, "sha256": good_sha}, sha=False)
    load_policy(path, expect_all)


def test_format_and_version(tmp_path: Path) -> None:
    newer = tmp_path / "newer"
    craft(newer, ARRAYS, {**META, "format_version": FORMAT_VERSION + 1})
    refused(
        newer,
        f"newer qarena (format version {FORMAT_VERSION + 1})",
        f"this one reads version {FORMAT_VERSION}",
    )
    other = tmp_path / "other"
    craft(other, ARRAYS, {**META, "format": "something-else"})
    refused(other, "not a qarena policy file", "something-else")
    plain = tmp_path / "plain.npz"
    with open(plain, "wb") as f:
        np.savez_compressed(f, **ARRAYS)
    refused(plain, "not a qarena policy file", "no metadata")


def test_meta_too_big(tmp_path: Path) -> None:
    path = tmp_path / "big"
    with open(path, "wb") as f:
        np.savez_compressed(f, meta=np.zeros((1 << 20) + 1, dtype=np.uint8), **ARRAYS)
    assert path.stat().st_size < 10_000  # small on disk, large once inflated
    refused(path, "metadata is too large", "1 MiB")


def test_unreadable_file_is_one_line(saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(saved))

    monkeypatch.setattr(policyfile, "open", denied, raising=False)
    refused(saved, "cannot read policy file", "Permission denied", str(saved))


# --- refusals on save ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (np.array([1.0, np.nan]), ["'x'", "NaN or infinite"]),
        (np.array([[np.inf]], dtype=np.float32), ["'x'", "NaN or infinite"]),
        (np.array([1 + 0j, complex(0, np.nan)]), ["'x'", "NaN or infinite"]),
        (np.array([1, "a"], dtype=object), ["'x'", "dtype object"]),
        (np.array(["a", "b"]), ["'x'", "dtype <U1"]),
    ],
)
def test_save_refuses_bad_arrays(tmp_path: Path, bad: np.ndarray, words: list[str]) -> None:
    path = tmp_path / "agent.policy"
    with pytest.raises(QarenaError) as info:
        save_policy(path, {**ARRAYS, "x": bad}, META)
    for word in words:
        assert word in str(info.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["meta", "", "a/b", "../up", ".hidden"])
def test_save_refuses_bad_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(QarenaError, match="bad array name"):
        save_policy(tmp_path / "p", {name: np.zeros(1)}, META)
    assert os.listdir(tmp_path) == []


def test_save_refuses_bad_meta(tmp_path: Path) -> None:
    with pytest.raises(QarenaError, match="metadata is not plain JSON"):
        save_policy(tmp_path / "p", ARRAYS, {"alpha": float("nan")})
    with pytest.raises(QarenaError, match="metadata is not plain JSON"):
        save_policy(tmp_path / "p", ARRAYS, {"when": object()})
    with pytest.raises(QarenaError, match="limit is 1 MiB"):
        save_policy(tmp_path / "p", ARRAYS, {"notes": "x" * (1 << 20)})
    assert os.listdir(tmp_path) == []


# --- check_target (qarena.fileio) ----------------------------------------------------------


def test_check_writable(tmp_path: Path) -> None:
    check_target(tmp_path / "fine.policy")
    with pytest.raises(QarenaError, match=r"folder .*nope does not exist"):
        check_target(tmp_path / "nope" / "a.policy")
    with pytest.raises(QarenaError, match="is a folder"):
        check_target(tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(QarenaError, match="is not a folder"):
        check_target(tmp_path / "file" / "a.policy")
    # save checks first, so a missing folder is one clear line too
    with pytest.raises(QarenaError, match="does not exist"):
        save_policy(tmp_path / "nope" / "a.policy", ARRAYS, META)


def test_check_writable_without_permission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Simulated, so it runs as root too; the real thing is the next test.
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(QarenaError, match="is not writable"):
        check_target(tmp_path / "a.policy")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores folder permissions"
)
def test_check_writable_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(QarenaError, match="is not writable"):
            check_target(folder / "a.policy")
    finally:
        folder.chmod(0o700)


# --- hostile files: refused before anything large is read ------------------------------


def _peak_bytes(path: Path) -> tuple[str, int]:
    """The refusal of loading ``path``, and the most memory Python allocated on the way."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(QarenaError) as info:
            load_policy(path, expect_all)
        return str(info.value), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_huge_npy_header_is_refused_before_it_is_read(saved: Path, tmp_path: Path) -> None:
    """A version-2 npy header may claim up to 4 GB; numpy reads all of it before its own
    limit of 10,000 bytes applies. Here a table's member of a valid policy file claims a 64 MB
    header and holds it (64 MB of spaces deflate to a few hundred KB on disk)."""
    length = 64 * 2**20
    member = b"\x93NUMPY\x02\x00" + length.to_bytes(4, "little") + b" " * length
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for info in src.infolist():
            zf.writestr(info.filename, member if info.filename == "q.npy" else src.read(info))
    assert path.stat().st_size < 2**20
    del member
    message, peak = _peak_bytes(path)
    assert str(path) in message and "\n" not in message
    assert peak < 2**20  # the header's 64 MB were never read


def test_a_zip_of_many_members_is_refused_before_its_directory_is_parsed(
    tmp_path: Path,
) -> None:
    """zipfile parses a file's whole directory when it opens it: 20,000 members cost a
    ZipInfo each. The end record says how many there are, and that is enough to refuse."""
    path = tmp_path / "many.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for i in range(20_000):
            zf.writestr(f"{i}.npy", b"")
    message, peak = _peak_bytes(path)
    assert "20,000 members" in message and str(path) in message
    assert peak < 2**20
