"""qarena: reinforcement learning for combinatorial games, judged by exact solutions.

The calls a notebook needs are here at the top (:mod:`qarena.api`): ``qarena.game``,
``board``, ``solve``, ``train``, ``load``, ``save``, ``player``, ``judge``, ``compete``,
``play``, ``sweep``, ``curves`` (learning curves side by side) and ``train_network`` (an
n-tuple network, for boards of any size): the command line's verbs (``qarena eval``'s is
``judge``; ``solution`` is ``solve``'s older name). They are imported when first used, so
``import qarena`` stays quick.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
from importlib.metadata import version as _version
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

if _TYPE_CHECKING:
    from qarena.api import (
        Board,
        Competition,
        Curves,
        Playout,
        Sweep,
        best_reply,
        board,
        compete,
        curves,
        game,
        judge,
        load,
        play,
        player,
        save,
        solution,
        solve,
        sweep,
        train,
        train_network,
    )

try:
    __version__ = _version("qarena")
except _PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

_API = (
    "Board",
    "Competition",
    "Curves",
    "Playout",
    "Sweep",
    "best_reply",
    "board",
    "compete",
    "curves",
    "judge",
    "game",
    "load",
    "play",
    "player",
    "save",
    "solution",
    "solve",
    "sweep",
    "train",
    "train_network",
)


def __getattr__(name: str) -> _Any:
    if name in _API:
        from qarena import api

        return getattr(api, name)
    raise AttributeError(f"module 'qarena' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The public namespace is the API: not typing helpers, nor every submodule imported so far
    # (those stay importable as ``qarena.<name>``).
    return sorted({*_API, "__version__"})


__all__ = [
    "Board",
    "Competition",
    "Curves",
    "Playout",
    "Sweep",
    "__version__",
    "best_reply",
    "board",
    "compete",
    "curves",
    "game",
    "judge",
    "load",
    "play",
    "player",
    "save",
    "solution",
    "solve",
    "sweep",
    "train",
    "train_network",
]
