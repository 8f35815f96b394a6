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
from qarena.learn.alphazero.net import (
    Moments,
    PolicyValueNet,
    check_shape,
    layout,
    move_count,
    param_count,
)
from qarena.policyfile import ArraySpec, encode_policy, load_policy, save_policy

#: What an AlphaZero network's file says it is, and its learner's name.
KIND = "alphazero"
#: What loading a network takes besides its flat weights: the PyTorch module holds a second
#: copy, and its gradients and Adam's two moments three more while it learns.
COPIES = 5
#: Longest part of a file's own text repeated in an error.
_ECHO = 80


#: The most positions a file's replay buffer may hold: what the learner keeps
#: (``alphazero.LearningSettings.buffer``, held to this by a test); qarena writes no more.
MOST_BUFFER = 50_000
#: The replay buffer's arrays, in a file beside the weights: its boards, movers, the
#: search's visit shares and the results, the latest positions last.
BUFFER_ARRAYS = ("boards", "movers", "policy", "value")


#: The most steps Adam's state in a file may count (a float's exact integers).
MOST_STEPS = 2**53

#: How far a file's weights and Adam's moments may deflate: learned float32 numbers'
#: mantissas are noise, so such an array shrinks by about a tenth (1.05 to 1.12 measured on
#: networks trained here, of 1 to 64 channels), never eightfold. A file of zeros claiming
#: 256 channels × 20 blocks deflates a thousandfold: it is refused before it is read, as an
#: n-tuple network's list of places is (``learn.ntuple.config.PLACES_RATIO``).
WEIGHTS_RATIO = 8
#: The largest magnitude a learned weight in a file may have. Learning keeps them within a
#: few units (2.1 the largest measured); from weights of 10,000 a run still learns and saves
#: (its arithmetic stays finite), from 3e38 it overflows and its save is refused at the end.
MOST_WEIGHT = 1e4
#: The largest a batch norm's running statistic or Adam's second moment may be: learning
#: from weights of :data:`MOST_WEIGHT` took a running variance to 1.2e19 (64 channels × 3
#: blocks on Connect Four, measured) and a second moment to 4e7.
MOST_STATISTIC = 1e30
#: Adam's first moment is at most 7.27 times the root of its second, whatever its gradients
#: (β1 0.9, β2 0.999: √((1 − β1)² / (1 − β2) / (1 − β1² / β2)), by Cauchy–Schwarz); a file
#: beyond it holds no state Adam reaches, and its next steps would be unbounded.
MOMENT_RATIO = 8.0
#: Adam's ε (PyTorch's default), which its steps divide by beside the root of the second moment.
ADAM_EPS = 1e-8
#: How far a position's search shares in a file's buffer may sum from 1 (float32 sums).
SHARES_SLACK = 1e-3


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

    # Learned numbers do not deflate far: a small file claiming a large network is refused
    # before its arrays are inflated.
    squeeze = dict.fromkeys(("weights", "adam_first", "adam_second"), WEIGHTS_RATIO)
    data = load_policy(p, expect, squeeze=squeeze)
    played = found_game[0]
    assert played.grid is not None  # expect refused a game without a board
    meta = data.meta
    channels, blocks = int(meta["channels"]), int(meta["blocks"])
    weights = data.arrays["weights"]
    # Values a run could not learn from are refused now, not at its save after the run.
    problem = _weights_problem(played.grid, channels, blocks, weights)
    buffer = {
        name: data.arrays["buffer_" + name]
        for name in BUFFER_ARRAYS
        if "buffer_" + name in data.arrays
    }
    problem = problem or _buffer_problem(buffer)
    if problem is not None:
        raise damaged(problem)
    net = PolicyValueNet(played.grid, channels, blocks, weights)
    moments = None
    if meta.get("adam_steps", 0):
        first, second = data.arrays["adam_first"], data.arrays["adam_second"]
        problem = _moments_problem(first, second)
        if problem is not None:
            raise damaged(problem)
        moments = Moments(first, second, int(meta["adam_steps"]))
    return LoadedNet(played, net, meta, buffer, moments)


def _weights_problem(
    grid: BoardGrid, channels: int, blocks: int, weights: np.ndarray
) -> str | None:
    """What is wrong with a file's flat weights, or None: a learned weight beyond
    :data:`MOST_WEIGHT`, a running mean beyond :data:`MOST_STATISTIC`, a running variance
    negative or beyond it."""
    at = 0
    for name, shape in layout(grid, channels, blocks):
        part = weights[at : at + math.prod(shape)]
        at += part.size
        if name.endswith("running_var"):
            bad = (part < 0) | (part > MOST_STATISTIC)
        else:
            most = MOST_STATISTIC if name.endswith("running_mean") else MOST_WEIGHT
            bad = np.abs(part) > most
        if bad.any():
            return _("its weights hold {value:.3g} in {tensor}, beyond what learning makes").format(
                value=float(part[np.argmax(bad)]), tensor=name
            )
    return None


def _moments_problem(first: np.ndarray, second: np.ndarray) -> str | None:
    """What is wrong with Adam's moments in a file, or None."""
    # The arrays are finite (the file's reader refuses others); Adam takes a root of these.
    if not (second >= 0).all():
        return _("its optimizer's second moments are negative")
    bound = MOMENT_RATIO * (np.sqrt(second) + ADAM_EPS)
    if not ((second <= MOST_STATISTIC).all() and (np.abs(first) <= bound).all()):
        return _("its optimizer's moments are beyond any Adam reaches")
    return None


def _buffer_problem(buffer: Mapping[str, np.ndarray]) -> str | None:
    """What is wrong with a file's replay buffer, or None: each position's cells 0, 1 or 2,
    its mover 0 or 1, its search's shares from 0 to 1 summing to 1, its result from −1 to 1."""
    if not buffer:
        return None
    boards, movers = buffer["boards"], buffer["movers"]
    policy, value = buffer["policy"], buffer["value"]
    if boards.size and (boards.min() < 0 or boards.max() > 2):
        return _("its replay buffer holds a cell that is not 0, 1 or 2")
    if movers.size and (movers.min() < 0 or movers.max() > 1):
        return _("its replay buffer holds a player to move that is not 0 or 1")
    sums = policy.sum(axis=1, dtype=np.float64)
    if ((policy < 0) | (policy > 1)).any() or (np.abs(sums - 1) > SHARES_SLACK).any():
        return _("its replay buffer holds search shares that are not shares summing to 1")
    if (np.abs(value) > 1).any():
        return _("its replay buffer holds a result outside −1 to 1")
    return None


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
