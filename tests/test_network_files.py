"""n-tuple network files held to the memory budget before any of their arrays is read (issue
35): small files that declare huge tables or entries are refused in one line, as table policy
files are; long echoes of a file's text are cut; a network's game count cannot overflow."""

from __future__ import annotations

import html
import io
import json
import os
import re
import resource
import subprocess
import sys
import time
import tracemalloc
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import qarena
from qarena.errors import QarenaError, TooLargeError
from qarena.games import parse_spec
from qarena.learn.ntuple import config as ntuple_config
from qarena.learn.ntuple import files as ntuple_file
from qarena.learn.ntuple.config import MOST_GAMES, load_bytes
from qarena.learn.ntuple.files import load_network, save_network
from qarena.learn.ntuple.network import NTupleNetwork, random_walk_tuples
from qarena.policyfile import FORMAT, FORMAT_VERSION, save_policy
from tests.test_web_serve import serve

SPEC = "connect4:4x4:4"


def _layout(tuples: int, length: int, spec: str = SPEC) -> np.ndarray:
    board = parse_spec(spec).grid
    assert board is not None
    return random_walk_tuples(board, tuples, length, 0)


def network_file(
    path: Path, tuples: int, length: int, entries: int, spec: str = SPEC, **meta: Any
) -> Path:
    """A well-formed network file (its checksum right) of ``tuples`` × ``length`` with
    ``entries`` nonzero entries: a few KB on disk whatever tables it declares."""
    rng = np.random.default_rng(1)
    places = np.sort(rng.choice(2 * tuples * 4**length, entries, replace=False)).astype(np.int64)
    arrays = {
        "tuples": _layout(tuples, length, spec),
        "places": places,
        "entries": rng.uniform(0.1, 1, entries).astype(np.float32),
    }
    settings = {"tuples": tuples, "tuple_length": length}
    base = {"kind": "ntuple", "game": spec, "tuples": tuples, "length": length,
            "entries": entries, "games": 0, "settings": settings}  # fmt: skip
    save_policy(path, arrays, {**base, **meta})
    return path


def zeros_file(path: Path, tuples: int, length: int, entries: int) -> Path:
    """A network file whose ``places`` and ``entries`` members are deflated zeros: about
    1/1000 of what they declare, written a chunk at a time (its checksum is not right; a
    loader that reads the arrays finds that out only after allocating them)."""
    meta = {"kind": "ntuple", "game": SPEC, "tuples": tuples, "length": length,
            "entries": entries, "games": 0, "format": FORMAT, "format_version": FORMAT_VERSION,
            "sha256": "0" * 64}  # fmt: skip
    blob = json.dumps(meta).encode()
    chunk = bytes(1 << 22)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        for name, dtype in (("entries", np.float32), ("places", np.int64)):
            header = io.BytesIO()
            np.lib.format.write_array_header_2_0(
                header, {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": (entries,)}
            )
            with zf.open(name + ".npy", "w", force_zip64=True) as m:
                m.write(header.getvalue())
                left = entries * np.dtype(dtype).itemsize
                while left:
                    m.write(chunk[: min(left, len(chunk))])
                    left -= min(left, len(chunk))
        with zf.open("meta.npy", "w") as m:
            np.lib.format.write_array(m, np.frombuffer(blob, np.uint8))
        with zf.open("tuples.npy", "w") as m:
            np.lib.format.write_array(m, _layout(tuples, length))
    return path


def refused(load: Callable[[], object]) -> tuple[QarenaError, int]:
    """The error ``load`` raises and the most it allocated (bytes traced) before it."""
    tracemalloc.start()
    try:
        with pytest.raises(QarenaError) as info:
            load()
        return info.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_file_claiming_more_entries_than_its_bytes_hold_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's file declared 300 million entries in 3.5 MB (the arrays 3.6 GB as read,
    18 s before "checksum does not match"). Its places, distinct rising numbers, cannot
    deflate that far: refused from the zip's directory, whatever the memory budget."""
    path = zeros_file(tmp_path / "zeros.npz", 20, 10, 20_000_000)
    assert path.stat().st_size < 400_000  # 240 MB of arrays declared
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", str(10**12))  # the budget would hold it
    error, peak = refused(lambda: load_network(path))
    message = str(error)
    assert str(path) in message and "'places'" in message and "\n" not in message
    assert "does not compress that much" in message
    assert peak < 2**20


def test_a_network_over_the_memory_budget_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """300 tuples of 10 cells hold 2.5 GB of tables, from a file of a few hundred KB: the
    loader allocated them whatever QARENA_MEMORY_LIMIT said. Now the sizes are held to the
    budget first (TooLargeError, one line naming the file)."""
    path = network_file(tmp_path / "big.npz", 300, 10, 2_000)
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "500000000")
    error, peak = refused(lambda: load_network(path))
    assert isinstance(error, TooLargeError)
    message = str(error)
    assert str(path) in message and "2.5 GB" in message and "500.0 MB" in message
    assert "\n" not in message
    assert peak < 2**20
    # A budget given by the caller (the web app's) is held to the same way.
    monkeypatch.delenv("QARENA_MEMORY_LIMIT")
    error, peak = refused(lambda: load_network(path, budget=100_000_000))
    assert isinstance(error, TooLargeError) and "100.0 MB" in str(error) and peak < 2**20


def test_the_budget_is_what_loading_takes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The estimate the budget is held to is an upper bound of what loading allocates, and
    it is the whole test: a budget of exactly the estimate loads, a byte less does not."""
    game = parse_spec("connect4:4x5")
    net = NTupleNetwork.new(game, 20, 7, seed=1)
    net.learn(300, seed=1)
    path = tmp_path / "net.npz"
    save_network(path, net)
    entries = int(np.count_nonzero(net.weights))
    need = load_bytes(20, 7, entries)
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", str(need - 1))
    with pytest.raises(TooLargeError):
        load_network(path, game)
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", str(need))
    tracemalloc.start()
    try:
        again = load_network(path, game)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (again.weights == net.weights).all() and again.games == 300
    assert net.weights.nbytes < peak <= need


def test_the_shipped_network_loads_within_the_budgets() -> None:
    from qarena.web.store import MAX_NETWORK_BYTES

    game = parse_spec("connect4:6x7")
    net = ntuple_file.shipped_network(game)
    assert net is not None and net.config.tuples == 200
    need = load_bytes(200, 8, int(np.count_nonzero(net.weights)))
    assert (
        need < MAX_NETWORK_BYTES < ntuple_config.table_bytes(ntuple_config.NetworkConfig(1_000, 10))
    )


def _run_measured(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, int]:
    """``qarena ARGS`` in a fresh process under a 4 GB address-space cap (so a loader that
    ignores the budget fails fast instead of eating the machine), ``env`` added to its
    environment (a name given "" taken out): exit code, stderr and its peak resident size in
    bytes, from its own rusage."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))

    # The child reports its own VmHWM: ru_maxrss would keep the forked pytest process's peak
    # from before exec.
    peak_file = cwd / "peak.txt"
    report = (
        "import re, sys\n"
        "from qarena.cli.app import run\n"
        "try:\n"
        "    code = run(sys.argv[2:])\n"
        "finally:\n"
        "    status = open('/proc/self/status', encoding='ascii').read()\n"
        "    peak = re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1)\n"
        "    open(sys.argv[1], 'w', encoding='ascii').write(peak)\n"
        "sys.exit(code)\n"
    )
    with open(cwd / "err.txt", "w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", report, str(peak_file), *args],
            cwd=cwd,
            env={k: v for k, v in {**os.environ, **env}.items() if v},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=cap,  # noqa: PLW1509 - a resource limit, nothing threaded
        )
        proc.wait()
        err.seek(0)
        return proc.returncode, err.read(), int(peak_file.read_text(encoding="ascii")) * 1024


def test_the_command_line_refuses_a_network_over_the_budget_in_one_line(tmp_path: Path) -> None:
    """A 1.3 KB file declaring 1,000 tuples of 10 cells (8.4 GB of tables): under a cap, a
    40-line MemoryError traceback and exit 1 before; now exit 2, one line, and the process
    never grows past what any command starts with."""
    path = network_file(tmp_path / "huge.npz", 1_000, 10, 0)
    assert path.stat().st_size < 100_000
    # Held to QARENA_MEMORY_LIMIT; and without it, to the room the 4 GB cap leaves.
    for limit, budget in (("2000000000", "2.0 GB"), ("", "")):
        code, err, peak = _run_measured(
            ["table", path.name], {"QARENA_MEMORY_LIMIT": limit}, tmp_path
        )
        assert code == 2, err
        assert err.count("\n") == 1 and "huge.npz" in err and "8.4 GB" in err
        assert budget in err
        assert peak < 400_000_000


def test_long_text_in_a_network_file_is_cut_and_the_file_named(tmp_path: Path) -> None:
    """A game spec of 10,000 characters came back whole (a 10 KB error), or without the
    file's name; now every echo of the file's text is cut and the file is named."""
    spec = "connect4:" + "4" * 9_991
    long = network_file(tmp_path / "long.npz", 4, 3, 0, spec=SPEC, game=spec)
    for load in (lambda: load_network(long), lambda: load_network(long, parse_spec(SPEC))):
        with pytest.raises(QarenaError) as info:
            load()
        message = str(info.value)
        assert (
            str(long) in message and "\n" not in message and len(message) < 300 + len(str(long))
        ), message
    key = "x" * 10_000
    odd = network_file(tmp_path / "odd.npz", 4, 3, 0, settings={key: 1})
    with pytest.raises(QarenaError, match=r"odd\.npz is damaged") as info:
        load_network(odd)
    assert len(str(info.value)) < 300 + len(str(odd))
    code, err, _peak = _run_measured(["eval", long.name, "--game", SPEC], {}, tmp_path)
    assert code == 2 and err.count("\n") == 1 and len(err) < 300 and "long.npz" in err, err


def test_a_network_s_game_count_cannot_pass_its_ceiling(tmp_path: Path) -> None:
    """A network with 2**62 - 1 games resumed wrote a file its own loader refused as damaged;
    now training that would pass the ceiling does not start, and the count is checked on
    reading."""
    full = network_file(tmp_path / "full.npz", 4, 3, 0, games=MOST_GAMES)
    net = load_network(full)
    assert net.games == MOST_GAMES
    out = tmp_path / "out.npz"
    code, err, _peak = _run_measured(
        ["train", SPEC, "--learner", "ntuple", "--resume", full.name, "--out", out.name,
         "--episodes", "10"],
        {}, tmp_path,
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "full.npz has learned" in err, err
    assert not out.exists()
    with pytest.raises(QarenaError, match="would pass the most a network counts"):
        qarena.train_network(SPEC, games=10, resume=net)
    assert net.games == MOST_GAMES
    with pytest.raises(QarenaError, match="would pass"):
        net.learn(1)
    over = network_file(tmp_path / "over.npz", 4, 3, 0, games=MOST_GAMES + 1)
    with pytest.raises(QarenaError, match=r"over\.npz is damaged: its sizes are not counts"):
        load_network(over)


def test_the_agent_cache_is_bounded_by_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixteen agents were kept whatever their size (two 2.5 GB networks played: 5.15 GB in
    the server); now the least recently used go once their arrays pass the cache's bytes."""
    from qarena.web import service
    from qarena.web.app import create_app

    web = create_app(tmp_path).state.web
    game = parse_spec("connect4:4x5")
    ids = [web.store.add(NTupleNetwork.new(game, 10, 6, seed=s)).id for s in range(3)]
    one = service.held_bytes(web.agent(ids[0]))
    assert one >= 2 * 10 * 4**6 * 4  # its tables at least
    assert web.agent(ids[0]) is web.agent(ids[0])  # kept
    monkeypatch.setattr(service, "AGENT_CACHE_BYTES", 2 * one)
    first = web.agent(ids[0])
    web.agent(ids[1])
    assert web.agent(ids[0]) is first  # two fit
    web.agent(ids[2])  # the third pushes out the least recently used, ids[1]
    assert web.agent(ids[0]) is first
    kept = web._agents  # what the cache holds is the fact under test
    assert list(kept) == [ids[2], ids[0]]
    assert sum(size for _agent, size in kept.values()) <= 2 * one
    # A table agent is weighed by its arrays too: its learner's and its game's tables.
    row = web.store.add(qarena.train("tictactoe", episodes=100))
    agent = web.agent(row.id)
    assert service.held_bytes(agent) >= agent.learner.tables.nxt.nbytes + agent.table.nbytes


def _upload(base: str, name: str, data: bytes) -> tuple[int, str]:
    boundary = "qarena-test-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        base + "/policies/upload",
        data=body,
        method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _peak_rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert found is not None
    return int(found.group(1)) * 1024


@pytest.mark.slow
def test_uploads_of_networks_over_the_server_s_budget_are_refused_before_they_are_read(
    tmp_path: Path,
) -> None:
    """Uploaded, the 3.5 MB file took 4.0 GB in the server (kept by its idle threads after):
    a real server now refuses each of these files in one line naming it, 422, nothing
    stored, and its peak resident size barely moves; a network within its budget is still
    taken."""
    files = {
        "zeros.npz": zeros_file(tmp_path / "zeros.npz", 20, 10, 20_000_000),
        "wide.npz": network_file(tmp_path / "wide.npz", 300, 10, 2_000),  # 2.5 GB of tables
        "huge.npz": network_file(tmp_path / "huge.npz", 1_000, 10, 0),  # 8.4 GB
        "long.npz": network_file(tmp_path / "long.npz", 4, 3, 0, game="connect4:" + "4" * 9_991),
    }
    data = tmp_path / "data"
    proc, base = serve(data)
    try:
        _upload(base, "warm.npz", b"not a policy")  # the first request's imports and compiles
        before = _peak_rss(proc.pid)
        for name, path in files.items():
            t0 = time.monotonic()
            status, page = _upload(base, name, path.read_bytes())
            assert status == 422, (name, page[-500:])
            assert time.monotonic() - t0 < 30
            found = re.search(r'<p id="upload-error"[^>]*>(.*?)</p>', page, re.S)
            assert found is not None, name
            line = html.unescape(found.group(1))
            assert "\n" not in line and name in line and str(data) not in line, line
            assert len(line) < 300, line
        assert _peak_rss(proc.pid) - before < 100_000_000
        assert sorted(p.name for p in (data / "policies").iterdir()) == []
        game = parse_spec(SPEC)
        small = NTupleNetwork.new(game, 8, 5, seed=1)
        save_network(tmp_path / "small.npz", small)
        status, _page = _upload(base, "small.npz", (tmp_path / "small.npz").read_bytes())
        assert status == 200  # the redirect to the Policies page, followed
        assert len(list((data / "policies").iterdir())) == 1
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
