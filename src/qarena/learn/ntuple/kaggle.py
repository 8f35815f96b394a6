"""An n-tuple network of Connect Four as a Kaggle ConnectX submission: one Python file that
Kaggle runs without qarena (numpy and the standard library only), made from
``connectx_agent.py`` with the network's tables (and, when asked, the opening book) embedded.

The tables are stored as only their entries in use: the gaps between their places (uint64)
and their values (float32), each byte plane apart, zlib-compressed, base64 — the places
compress to almost nothing, the values to about 86% of their bytes.
"""

from __future__ import annotations

import base64
import zlib
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from qarena.errors import QarenaError
from qarena.i18n import _

if TYPE_CHECKING:
    from qarena.learn.ntuple.network import NTupleNetwork

#: The template's lines between these two are replaced by the network's own.
BEGIN = "# qarena:begin"
END = "# qarena:end"
#: Characters a line of embedded text takes (a literal split over lines stays readable).
LINE = 96


def _pack(values: np.ndarray) -> str:
    """An array's bytes, byte planes apart, zlib-compressed, base64 (``_unpack`` in the
    template reads it back)."""
    planes = np.ascontiguousarray(values).view(np.uint8).reshape(-1, values.itemsize).T
    return base64.b64encode(zlib.compress(planes.tobytes(), 9)).decode("ascii")


def _literal(text: str) -> str:
    """A long string as a parenthesised literal of short lines."""
    lines = [text[i : i + LINE] for i in range(0, len(text), LINE)] or [""]
    return "(\n" + "".join(f'    "{line}"\n' for line in lines) + ")"


def _book_arrays(net: NTupleNetwork) -> tuple[np.ndarray, np.ndarray, int]:
    from qarena.exact.book import shipped_book

    book = shipped_book(net.game)
    if book is None:
        raise QarenaError(
            _("there is no opening book for {spec}: export it without --book").format(
                spec=net.game.spec
            )
        )
    return book.keys.astype("<u8"), book.scores.astype(np.int8), book.plies


def connectx_source(net: NTupleNetwork, book: bool = False) -> str:
    """The submission file's text for ``net`` (a network of Connect Four: its caller checks),
    with the shipped opening book of its board when ``book``."""
    grid = net.grid
    flat = net.weights.reshape(-1)
    places = np.flatnonzero(flat)
    gaps = np.diff(places, prepend=0).astype("<u8")
    entries = flat[places].astype("<f4")
    fields = [
        f"SPEC = {net.game.spec!r}",
        f"ROWS = {grid.rows}",
        f"COLUMNS = {grid.cols}",
        f"INAROW = {grid.k}",
        f"SYMMETRIES: list[list[int]] = {[list(s) for s in grid.symmetries]!r}",
        f"TUPLES = {net.tuples.shape[0]}",
        f"LENGTH = {net.tuples.shape[1]}",
        f"ENTRIES = {places.size}",
        "NETWORK = (\n    "
        + ",\n    ".join(
            _literal(_pack(a)).replace("\n", "\n    ")
            for a in (net.tuples.astype("<u2"), gaps, entries)
        )
        + ",\n)",
    ]
    if book:
        keys, scores, plies = _book_arrays(net)
        fields += [
            f"BOOK = ({_literal(_pack(keys))}, {_literal(_pack(scores))})",
            f"BOOK_PLIES = {plies}",
        ]
    else:
        fields += ['BOOK = ("", "")', "BOOK_PLIES = -1"]
    template = resources.files("qarena.learn.ntuple").joinpath("connectx_agent.py").read_text()
    head, rest = template.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    header = BEGIN + " -- written by qarena export: the network, its board and the book.\n"
    return head + header + "\n".join(fields) + "\n" + END + tail
