"""AlphaZero networks' files: qarena's one array file (``policyfile``: JSON metadata and
arrays in an ``.npz`` under a SHA-256, never pickled), the network's shape and every size
checked before any array is read, and before PyTorch is imported."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from qarena.budget import format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import BoardGrid, Game
from qarena.i18n import _
from qarena.learn.az_net import Moments, PolicyValueNet, check_shape, move_count, param_count
from qarena.policyfile import ArraySpec, encode_policy, load_policy, save_policy

#: What an AlphaZero network's file says it is, and its learner's name.
KIND = "alphazero"
#: What loading a network takes besides its flat weights: the PyTorch module holds a second
#: copy, and its gradients and Adam's two moments three more while it learns.
COPIES = 5
#: Longest part of a file's own text repeated in an error.
_ECHO = 80


#: The most positions a file's replay buffer may hold.
MOST_BUFFER = 1_000_000
#: The replay buffer's arrays, in a file beside the weights: its boards, movers, the
#: search's visit shares and the results, the latest positions last.
BUFFER_ARRAYS = ("boards", "movers", "policy", "value")


#: The most steps Adam's state in a file may count (a float's exact integers).
MOST_STEPS = 2**53


@dataclass
class LoadedNet:
    """A network's file read back: its game, the network, its replay buffer's arrays (empty
    when the file keeps none), Adam's state where it keeps that, and the rest of its
    metadata."""

    game: Game
    net: PolicyValueNet
    meta: dict[str, Any]
    buffer: dict[str, np.ndarray]
    moments: Moments | None = None


def _contents(
    game: Game,
    net: PolicyValueNet,
    extra: Mapping[str, Any] | None,
    buffer: Mapping[str, np.ndarray] | None = None,
    moments: Moments | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    learned = moments is not None and moments.steps > 0
    meta = {
        **(extra or {}),
        "kind": KIND,
        "game": game.spec,
        "channels": net.channels,
        "blocks": net.blocks,
        "weights": int(net.weights.size),
        "buffer": 0 if not buffer else int(buffer["value"].shape[0]),
        "adam_steps": moments.steps if moments is not None and learned else 0,
    }
    arrays = {"weights": net.weights}
    for name in BUFFER_ARRAYS if buffer else ():
        arrays["buffer_" + name] = buffer[name]  # type: ignore[index]
    if moments is not None and learned:
        arrays["adam_first"], arrays["adam_second"] = moments.first, moments.second
    return arrays, meta


def _buffer_specs(grid: BoardGrid, size: int) -> dict[str, ArraySpec]:
    """The replay buffer's arrays of ``size`` positions, as a file holds them."""
    moves = move_count(grid)
    return {
        "buffer_boards": ((size, grid.cells), np.dtype(np.int8)),
        "buffer_movers": ((size,), np.dtype(np.int8)),
        "buffer_policy": ((size, moves), np.dtype(np.float32)),
        "buffer_value": ((size,), np.dtype(np.float32)),
    }


def buffer_bytes(grid: BoardGrid, size: int) -> int:
    """Bytes a replay buffer of ``size`` positions takes."""
    return sum(
        math.prod(shape) * dtype.itemsize for shape, dtype in _buffer_specs(grid, size).values()
    )


def save_net(
    path: str | os.PathLike[str],
    game: Game,
    net: PolicyValueNet,
    extra: Mapping[str, Any] | None = None,
    inputs: Iterable[str | os.PathLike[str]] = (),
    buffer: Mapping[str, np.ndarray] | None = None,
    moments: Moments | None = None,
) -> None:
    """The network in qarena's array file (the one safe writer; ``inputs``, files the command
    read, are never overwritten), ``extra`` added to its metadata, with its replay
    ``buffer``'s arrays (:data:`BUFFER_ARRAYS`) and Adam's ``moments`` when given."""
    arrays, meta = _contents(game, net, extra, buffer, moments)
    save_policy(os.fspath(path), arrays, meta, inputs)


def net_bytes(
    game: Game,
    net: PolicyValueNet,
    extra: Mapping[str, Any] | None = None,
    buffer: Mapping[str, np.ndarray] | None = None,
    moments: Moments | None = None,
) -> bytes:
    """The network's file as bytes."""
    arrays, meta = _contents(game, net, extra, buffer, moments)
    return encode_policy(arrays, meta)


def load_bytes(weights: int) -> int:
    """Bytes a network of ``weights`` numbers takes loaded and learning."""
    return COPIES * 4 * weights


def load_net(
    path: str | os.PathLike[str], game: Game | None = None, budget: int | None = None
) -> LoadedNet:
    """An AlphaZero network's file (of ``game``, when given); anything else is refused in one
    line naming the file. Its game, its shape and what it takes in memory (against ``budget``,
    default the machine's; TooLargeError over it) are checked from its metadata alone, before
    any array is read."""
    from qarena.games import parse_spec

    p = os.fspath(path)
    found_game: list[Game] = []

    def damaged(what: str) -> QarenaError:
        return QarenaError(_("{file} is damaged: {what}").format(file=p, what=what[:200]))

    def expect(meta: dict[str, Any]) -> dict[str, ArraySpec]:
        if meta.get("kind") != KIND:
            raise QarenaError(_("{file} is not an AlphaZero network").format(file=p))
        spec = meta.get("game")
        if game is not None and spec != game.spec:
            raise QarenaError(
                _("{file} plays {other}, not {spec}").format(
                    file=p, other=str(spec)[:_ECHO], spec=game.spec
                )
            )
        try:
            played = game if game is not None else parse_spec(str(spec))
        except QarenaError as e:
            raise damaged(_("its game is not readable ({problem})").format(problem=e)) from None
        if played.grid is None:
            raise damaged(_("its game is not a board"))
        try:
            channels, blocks = check_shape(meta.get("channels"), meta.get("blocks"))
        except QarenaError as e:
            raise damaged(str(e)) from None
        weights = param_count(played.grid, channels, blocks)
        if meta.get("weights") != weights:
            raise damaged(_("its count of weights does not match its shape"))
        kept = meta.get("buffer", 0)
        if not isinstance(kept, int) or isinstance(kept, bool) or not 0 <= kept <= MOST_BUFFER:
            raise damaged(_("its replay buffer's size is not a count of positions"))
        steps = meta.get("adam_steps", 0)  # files from before it was kept have none
        if not isinstance(steps, int) or isinstance(steps, bool) or not 0 <= steps <= MOST_STEPS:
            raise damaged(_("its optimizer's count of steps is not a count"))
        most = memory_budget() if budget is None else budget
        # Adam's moments, where kept, are read as two arrays of the weights' size besides.
        need = load_bytes(weights) + buffer_bytes(played.grid, kept) + (8 * weights if steps else 0)
        if need > most:
            raise TooLargeError(
                _(
                    "{file} is a network of {weights:,} weights: loading it needs {need}, more "
                    "than the {budget} it may take here"
                ).format(
                    file=p, weights=weights, need=format_bytes(need), budget=format_bytes(most)
                )
            )
        found_game.append(played)
        specs: dict[str, ArraySpec] = {"weights": ((weights,), np.dtype(np.float32))}
        if kept:
            specs.update(_buffer_specs(played.grid, kept))
        if steps:
            specs["adam_first"] = specs["adam_second"] = ((weights,), np.dtype(np.float32))
        return specs

    data = load_policy(p, expect)
    played = found_game[0]
    assert played.grid is not None  # expect refused a game without a board
    meta = data.meta
    net = PolicyValueNet(played.grid, int(meta["channels"]), int(meta["blocks"]),
                         data.arrays["weights"])  # fmt: skip
    buffer = {
        name: data.arrays["buffer_" + name]
        for name in BUFFER_ARRAYS
        if "buffer_" + name in data.arrays
    }
    moments = None
    if meta.get("adam_steps", 0):
        first, second = data.arrays["adam_first"], data.arrays["adam_second"]
        # The arrays are finite (the file's reader refuses others); Adam takes a root of these.
        if not (second >= 0).all():
            raise damaged(_("its optimizer's second moments are negative"))
        moments = Moments(first, second, int(meta["adam_steps"]))
    return LoadedNet(played, net, meta, buffer, moments)


__all__ = [
    "BUFFER_ARRAYS",
    "KIND",
    "MOST_BUFFER",
    "LoadedNet",
    "buffer_bytes",
    "load_bytes",
    "load_net",
    "net_bytes",
    "save_net",
]
