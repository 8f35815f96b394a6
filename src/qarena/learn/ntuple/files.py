"""n-tuple network files: sparse (only the table entries in use), read with every size
checked before any array is, and the network shipped for classic Connect Four."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from qarena.budget import format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import Game
from qarena.i18n import _
from qarena.kernels import ntuple as k
from qarena.learn.curve import Curve
from qarena.learn.ntuple.config import (
    KIND,
    MAX_LENGTH,
    MAX_TUPLES,
    MOST_GAMES,
    PLACES_RATIO,
    NetworkConfig,
    _cut,
    _real,
    _tables,
    load_bytes,
)
from qarena.learn.ntuple.network import NTupleNetwork
from qarena.policyfile import (
    ArraySpec,
    encode_policy,
    load_policy,
    load_shipped,
    read_meta,
    save_policy,
)


def is_network(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an n-tuple network's file (by its metadata alone; False for any
    file that is not one of qarena's, whose loader then says what is wrong)."""
    try:
        return read_meta(path).get("kind") == KIND
    except QarenaError:
        return False


def save_network(
    path: str | os.PathLike[str],
    net: NTupleNetwork,
    inputs: Iterable[str | os.PathLike[str]] = (),
    extra: Mapping[str, Any] | None = None,
) -> None:
    """The network in qarena's array file (the one safe writer; ``inputs``, files the command
    read, are never overwritten): its tuples, its settings, its curve, and only the table
    entries that are not zero (most are never reached), as their places and values."""
    arrays, meta = _contents(net)
    save_policy(os.fspath(path), arrays, {**meta, **(extra or {})}, inputs)


def network_bytes(net: NTupleNetwork, extra: Mapping[str, Any] | None = None) -> bytes:
    """The network's file as bytes, ``extra`` added to its metadata (a sweep's run)."""
    arrays, meta = _contents(net)
    return encode_policy(arrays, {**meta, **(extra or {})})


def _contents(net: NTupleNetwork) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    flat = net.weights.reshape(-1)
    places = np.flatnonzero(flat).astype(np.int64)
    arrays = {"tuples": net.tuples.astype(np.int64), "places": places, "entries": flat[places]}
    meta = {
        "kind": KIND,
        "game": net.game.spec,
        "tuples": int(net.tuples.shape[0]),
        "length": int(net.tuples.shape[1]),
        "entries": int(places.size),
        "games": net.games,
        "settings": net.config.to_dict(),
        "seconds": round(net.seconds, 3),
        **({"curve": net.curve.to_json()} if net.curve is not None else {}),
    }
    return arrays, meta


def _sizes(meta: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """A network file's tuples, their length and its entries, as its metadata says; None
    unless they (and its games) are counts a network can have."""
    tuples, length, entries = meta.get("tuples"), meta.get("length"), meta.get("entries")
    games = meta.get("games")
    sizes = (tuples, length, entries, games)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in sizes):
        return None
    assert isinstance(tuples, int) and isinstance(length, int) and isinstance(entries, int)
    assert isinstance(games, int)
    if not (0 < tuples <= MAX_TUPLES and 0 < length <= MAX_LENGTH):
        return None
    if not 0 <= entries <= _tables(tuples, length) or not 0 <= games <= MOST_GAMES:
        return None
    return tuples, length, entries


def _check_load(p: str, tuples: int, length: int, entries: int, budget: int | None) -> None:
    """Refuse a network file whose sizes need more memory than ``budget`` (default: the
    machine's) to load: the whole cost, from its sizes alone, before any array is read."""
    most = memory_budget() if budget is None else budget
    need = load_bytes(tuples, length, entries)
    if need > most:
        raise TooLargeError(
            _(
                "{file} is a network of {tuples:,} tuples of {length} cells with {entries:,} "
                "entries: loading it needs {need}, more than the {budget} it may take here"
            ).format(
                file=p,
                tuples=tuples,
                length=length,
                entries=entries,
                need=format_bytes(need),
                budget=format_bytes(most),
            )
        )


def load_network(
    path: str | os.PathLike[str], game: Game | None = None, budget: int | None = None
) -> NTupleNetwork:
    """An n-tuple network's file (of ``game``, when given); anything else is refused in one
    line naming the file. Its sizes are checked before any array is read: against the memory
    ``budget`` (default: the machine's, :func:`~qarena.budget.memory_budget`; TooLargeError
    over it), and its entries against the bytes the file gives them."""
    from qarena.games import parse_spec

    p = os.fspath(path)
    meta: dict[str, Any] = {}
    found_game: list[Game] = []

    def damaged(what: str) -> QarenaError:
        # What is wrong may repeat the file's own text (a setting's name or value): cut.
        return QarenaError(_("{file} is damaged: {what}").format(file=p, what=_cut(what, 200)))

    def expect(found: dict[str, Any]) -> dict[str, ArraySpec]:
        if found.get("kind") != KIND:
            raise QarenaError(_("{file} is not an n-tuple network").format(file=p))
        spec = found.get("game")
        if game is not None and spec != game.spec:
            raise QarenaError(
                _("{file} plays {other}, not {spec}").format(
                    file=p, other=_cut(str(spec)), spec=game.spec
                )
            )
        if game is None:
            try:
                found_game.append(parse_spec(str(spec)))
            except QarenaError as e:
                raise damaged(_("its game is not readable ({problem})").format(problem=e)) from None
        sizes = _sizes(found)
        if sizes is None:
            raise damaged(_("its sizes are not counts"))
        tuples, length, entries = sizes
        _check_load(p, tuples, length, entries, budget)
        meta.update(found)
        return {
            "tuples": ((tuples, length), np.dtype(np.int64)),
            "places": ((entries,), np.dtype(np.int64)),
            "entries": ((entries,), np.dtype(np.float32)),
        }

    data = load_policy(p, expect, squeeze={"places": PLACES_RATIO})
    played = game if game is not None else found_game[0]
    board = played.grid
    if board is None:
        raise damaged(_("its game is not a board"))
    layout, places = data.arrays["tuples"], data.arrays["places"]
    if layout.min() < 0 or layout.max() >= board.cells:
        raise damaged(_("a tuple's cell is off the board"))
    if any(len(set(row)) != layout.shape[1] for row in layout.tolist()):
        raise damaged(_("a tuple holds a cell twice"))
    size = 2 * layout.shape[0] * k.CODES ** layout.shape[1]
    if places.size and (places[0] < 0 or places[-1] >= size or (places[1:] <= places[:-1]).any()):
        raise damaged(_("its entries' places are not in order"))
    weights = np.zeros(size, dtype=np.float32)
    weights[places] = data.arrays["entries"]
    net = NTupleNetwork(
        played, layout, weights.reshape(2, layout.shape[0], k.CODES ** layout.shape[1])
    )
    net.games = net.run_start = int(meta["games"])
    settings = meta.get("settings", {"tuples": layout.shape[0], "tuple_length": layout.shape[1]})
    if not isinstance(settings, dict):
        raise damaged(_("its settings are malformed"))
    try:
        net.config = NetworkConfig.build(settings)
    except QarenaError as e:
        raise damaged(str(e)) from None
    if (net.config.tuples, net.config.tuple_length) != layout.shape:
        raise damaged(_("its settings do not match its tuples"))
    seconds = meta.get("seconds", 0.0)
    if not _real(seconds) or seconds < 0:
        raise damaged(_("its training time is not a number of seconds"))
    net.seconds = float(seconds)
    if "curve" in meta:
        try:
            net.curve = Curve.from_json(meta["curve"], NTupleNetwork.curve_columns())
        except QarenaError as e:
            raise damaged(str(e)) from None
    return net


#: The networks shipped in the package (``qarena/data``), by game: trained by the command
#: BENCHMARKS.md gives (run 6: the defaults) and judged there.
SHIPPED = {"connect4:6x7:4": "connect4-6x7.ntuple.npz"}


def shipped_network(game: Game) -> NTupleNetwork | None:
    """The n-tuple network shipped for ``game``, or None when none is."""
    name = SHIPPED.get(game.spec)
    return None if name is None else load_shipped(name, lambda path: load_network(path, game))
