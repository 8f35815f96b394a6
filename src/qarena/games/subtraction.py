"""The one-heap subtraction game: take 1..k objects; misère (last stick loses) or normal."""

from __future__ import annotations

import re
from dataclasses import dataclass

from qarena.errors import MoveError, PositionError
from qarena.games.base import Move, Position
from qarena.games.nim import HeapGame


@dataclass(frozen=True)
class Subtraction(HeapGame):
    """One heap of ``n``; a move takes 1..k. Built as a one-pile heap game with a cap."""

    @classmethod
    def make(cls, heap: int, k: int = 3, misere: bool = True) -> Subtraction:
        return cls(piles=(heap,), misere=misere, max_take=k)

    @property
    def heap(self) -> int:
        return self.piles[0]

    @property
    def k(self) -> int:
        assert self.max_take is not None
        return self.max_take

    @property
    def spec(self) -> str:
        base = f"subtraction:{self.heap}:{self.k}"
        return base if self.misere else base + ":normal"

    @property
    def title(self) -> str:
        rule = "misère" if self.misere else "normal play"
        return f"Subtraction game, heap {self.heap}, take 1..{self.k} ({rule})"

    def format_position(self, position: Position) -> str:
        return str(position[0])

    def parse_position(self, text: str) -> Position:
        if not re.fullmatch(r"\s*[0-9]{1,9}\s*", text):
            raise PositionError(
                f"position {text!r} is not a heap size; expected like '{self.heap}'"
            )
        value = int(text)
        if value > self.heap:
            raise PositionError(f"position {text!r}: the heap holds at most {self.heap}")
        return (value,)

    def format_move(self, move: Move) -> str:
        return str(self._move_component(move)[1])

    def parse_move(self, text: str) -> Move:
        if not re.fullmatch(r"\s*[0-9]{1,9}\s*", text):
            raise MoveError(
                f"move {text!r} is not a count; expected a number 1..{self.k}, like '2'"
            )
        take = int(text)
        if not 1 <= take <= self._takes[0]:
            raise MoveError(f"move {text!r}: a move takes 1..{self._takes[0]}")
        return self._make_move(0, take)
