"""The pages' forms: their defaults, and what people type into them, read strictly."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from qarena.errors import QarenaError

_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class HomeForm(BaseModel):
    """The home page's form: a game to play, and who starts."""

    kind: str = "nim"
    piles: str = "3,5,7"
    heap: str = "12"
    take: str = "3"
    rows: str = "3"
    cols: str = "3"
    k: str = "3"
    rule: str = "misere"
    spec: str = ""
    first: str = "human"


class TrainForm(BaseModel):
    """The training page's form; empty fields take the learner's defaults."""

    game: str = "nim"
    learner: str = "q"
    episodes: str = ""
    alpha: str = ""
    gamma: str = ""
    epsilon: str = ""
    epsilon_end: str = ""
    schedule: str = ""
    opponent: str = "self"


HOME_DEFAULTS = HomeForm().model_dump()
TRAIN_DEFAULTS = TrainForm(game="nim:3,5,7").model_dump()


def _digits(text: str, what: str) -> str:
    """A whole number typed in a form, checked to be ASCII digits: Python's int() would also
    read "३" (Devanagari three) and other scripts' digits."""
    text = text.strip()
    if not _INT.fullmatch(text):
        raise QarenaError(
            f"{what} must be a whole number written with the digits 0-9, not {text!r}"
        )
    return text


def game_spec(form: HomeForm) -> str:
    """The game spec the home form describes."""
    kind, normal = form.kind, form.rule == "normal"
    if form.rule not in ("misere", "normal"):
        raise QarenaError(f"the rule is 'misere' or 'normal', not {form.rule!r}")
    if kind == "nim":
        piles = [_digits(p, "each pile") for p in form.piles.replace(",", " ").split()]
        if not piles:
            raise QarenaError("give the piles, e.g. 3,5,7")
        return f"nim:{','.join(piles)}" + (":normal" if normal else "")
    if kind == "subtraction":
        heap, take = _digits(form.heap, "the heap"), _digits(form.take, "the largest take")
        return f"subtraction:{heap}:{take}" + (":normal" if normal else "")
    if kind == "tictactoe":
        rows, cols = _digits(form.rows, "rows"), _digits(form.cols, "columns")
        return f"tictactoe:{rows}x{cols}:{_digits(form.k, 'in a row to win')}"
    if kind == "spec":  # any registered game, read by the registry like the command line's
        if not form.spec.strip():
            raise QarenaError("give the game's spec, e.g. nim:3,5,7")
        return form.spec.strip()
    raise QarenaError(f"unknown game {kind!r}; expected nim, subtraction, tictactoe or spec")


def form_number(text: str, what: str, kind: type[int] | type[float]) -> Any:
    """A number typed in a form (None when empty), in ASCII digits only: int() and float()
    would also read other scripts' digits, and float() reads "nan" and "inf"."""
    text = text.strip()
    if not text:
        return None
    if kind is int:
        if len(text) > 20 or not _INT.fullmatch(text):
            raise QarenaError(
                f"{what} must be a whole number written with the digits 0-9, not {text!r}"
            )
        return int(text)
    if len(text) > 40 or not _FLOAT.fullmatch(text):
        raise QarenaError(f"{what} must be a number such as 0.5, not {text!r}")
    return float(text)
