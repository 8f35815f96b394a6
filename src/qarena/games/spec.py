"""Game specs: one short text names a game everywhere (CLI, files, web, API).

``nim`` = ``nim:3,5,7`` (misère), ``nim:3,5,7:normal``; ``subtraction`` = ``subtraction:12:3``
(misère), ``subtraction:12:3:normal``; ``tictactoe`` = ``tictactoe:3x3:3``, ``tictactoe:4x4:4``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from qarena.budget import MAX_HEAP, MAX_PILES, MAX_SIDE, MAX_SPEC_CHARS
from qarena.errors import SpecError
from qarena.games.base import Game
from qarena.games.nim import Nim
from qarena.games.subtraction import Subtraction
from qarena.games.tictactoe import TicTacToe

FORMS = (
    "nim[:PILES[:misere|normal]] like 'nim:3,5,7', "
    "subtraction[:HEAP[:K[:misere|normal]]] like 'subtraction:12:3', "
    "tictactoe[:ROWSxCOLS[:K]] like 'tictactoe:4x4:4'"
)

# ASCII digits only: int() reads other scripts' digits too, and "nim:३,५" is not a spec.
_INT = re.compile(r"[0-9]{1,9}")


def _rule(text: str, part: str) -> bool:
    """True for misère, False for normal play."""
    if part in ("misere", "misère"):
        return True
    if part == "normal":
        return False
    raise SpecError(f"{text!r}: play is 'misere' or 'normal', not {part!r}")


def _positive(text: str, part: str, what: str, form: str, most: int = MAX_HEAP) -> int:
    if not _INT.fullmatch(part) or not 1 <= int(part) <= most:
        raise SpecError(
            f"{text!r}: {what} must be a whole number from 1 to {most:,}, not {part!r}; {form}"
        )
    return int(part)


@lru_cache(maxsize=64)
def parse_spec(text: str) -> Game:
    """The game a spec names; raises SpecError with the expected forms otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"empty game spec; expected {FORMS}")
    if len(text) > MAX_SPEC_CHARS:
        raise SpecError(
            f"the game spec is {len(text):,} characters long; at most {MAX_SPEC_CHARS} are read"
        )
    name, *rest = text.strip().lower().split(":")
    if name == "nim":
        return _nim(text, rest)
    if name == "subtraction":
        return _subtraction(text, rest)
    if name in ("tictactoe", "tic-tac-toe"):
        return _tictactoe(text, rest)
    raise SpecError(f"unknown game {name!r} in {text!r}; expected {FORMS}")


def _nim(text: str, rest: list[str]) -> Game:
    form = "expected like 'nim:3,5,7' or 'nim:3,5,7:normal'"
    if len(rest) > 2:
        raise SpecError(f"{text!r} has too many parts; {form}")
    if not rest:
        return Nim(piles=(3, 5, 7))
    parts = rest[0].split(",")
    if len(parts) > MAX_PILES:
        raise SpecError(f"{text[:40]!r}…: {len(parts):,} piles; at most {MAX_PILES} are played")
    piles = tuple(_positive(text, p, "each pile", form) for p in parts)
    misere = _rule(text, rest[1]) if len(rest) == 2 else True
    return Nim(piles=piles, misere=misere)


def _subtraction(text: str, rest: list[str]) -> Game:
    form = "expected like 'subtraction:12:3' (heap 12, take 1..3) or 'subtraction:12:3:normal'"
    if len(rest) > 3:
        raise SpecError(f"{text!r} has too many parts; {form}")
    heap = _positive(text, rest[0], "the heap", form) if rest else 12
    k = _positive(text, rest[1], "the largest take", form) if len(rest) > 1 else 3
    misere = _rule(text, rest[2]) if len(rest) > 2 else True
    return Subtraction.make(heap, k, misere)


def _tictactoe(text: str, rest: list[str]) -> Game:
    form = "expected like 'tictactoe:3x3:3' (rows x columns : k in a row)"
    if len(rest) > 2:
        raise SpecError(f"{text!r} has too many parts; {form}")
    if not rest:
        return TicTacToe()
    m = re.fullmatch(r"([0-9]{1,4})x([0-9]{1,4})", rest[0])
    if not m:
        raise SpecError(f"{text!r}: the board size {rest[0]!r} is not ROWSxCOLS; {form}")
    rows, cols = int(m.group(1)), int(m.group(2))
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise SpecError(
            f"{text!r}: a board has 1 to {MAX_SIDE} rows and columns, not {rows}x{cols}; {form}"
        )
    # Without k, a full row of the shorter side wins: 3x3 -> 3, 4x4 -> 4.
    k = (
        _positive(text, rest[1], "k", form, max(rows, cols))
        if len(rest) == 2
        else max(min(rows, cols), 1)
    )
    return TicTacToe(rows=rows, cols=cols, k=k)
