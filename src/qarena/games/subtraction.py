"""The one-heap subtraction game: take 1..k objects; misère (last stick loses) or normal."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from qarena.errors import MoveError, PositionError, SpecError
from qarena.games.base import LOSS, WIN, Game, Move, Position, TheoryTable
from qarena.games.heap import HeapGame, HeapTheory, over_sentence, pile_and_take
from qarena.games.registry import positive_part, register, rule_part


@dataclass(frozen=True)
class Subtraction(HeapGame):
    """One heap of ``n``; a move takes 1..k. A one-pile heap game with a cap, sharing the
    heap base with nim (not nim itself)."""

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

    def theory(self, position: Position) -> SubtractionExplanation:
        return explain_subtraction(self, position)

    # --- rule-based players -----------------------------------------------------------
    rule_players = ("subtraction",)

    def rule_move(self, name: str, position: Position) -> Move:
        if name != "subtraction":
            return super().rule_move(name, position)
        # Normal play leaves a multiple of k+1, misère one more.
        heap, k = position[0], self.k
        take = (heap - 1 if self.misere else heap) % (k + 1)
        return self.move_for(0, take if take > 0 else 1)

    # --- words ----------------------------------------------------------------------
    layout = "heap"

    def _take_rule(self) -> str:
        return f"Take 1 to {self.k} matches from the heap."

    def move_help(self, position: Position) -> str:
        example = self.format_move(self.legal_moves(position)[0])
        return f"Moves: how many matches to take, 1 to {self.k}; for example {example}."

    def move_words(self, move: Move) -> str:
        return f"takes {self.format_move(move)}"

    def illegal_words(self, position: Position, move: Move) -> str:
        return f"There are only {position[0]} left; take 1 to {min(position[0], self.k)}."

    # --- text forms -----------------------------------------------------------------
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


# --- theory: positions repeat with period k+1 -------------------------------------------------


@dataclass(frozen=True)
class SubtractionExplanation(HeapTheory):
    """The subtraction game's rule: positions repeat with period k+1."""

    game: Subtraction
    position: Position
    value: int
    winning_moves: tuple[Move, ...]
    rule: str = "subtraction"

    @property
    def heap(self) -> int:
        return self.position[0]

    @property
    def k(self) -> int:
        return self.game.k

    @property
    def period(self) -> int:
        return self.k + 1

    @property
    def remainder(self) -> int:
        return self.heap % self.period

    @property
    def losing_remainder(self) -> int:
        """The remainder mod k+1 of the positions the player to move loses: 0, or 1 in misère."""
        return 1 if self.game.misere else 0

    def details(self) -> dict[str, Any]:
        return {
            "misere": self.game.misere,
            "heap": self.heap,
            "k": self.k,
            "period": self.period,
            "remainder": self.remainder,
            "losing_remainder": self.losing_remainder,
        }

    def table(self) -> TheoryTable:
        return TheoryTable(
            None,
            (
                ("heap", str(self.heap)),
                ("a move takes", f"1..{self.k}"),
                ("k + 1", str(self.period)),
                (f"{self.heap} mod {self.period}", str(self.remainder)),
            ),
        )

    def sentences(self) -> list[str]:
        if self.over:
            return [over_sentence(self.game.misere, "The heap is empty")]
        n, k, p, r = self.heap, self.k, self.period, self.remainder
        if self.game.misere:
            rule = (
                f"Misère play: the player to move loses exactly when the heap is one more than "
                f"a multiple of {p} (1, {p + 1}, {2 * p + 1}, …): whatever they take, 1 to {k}, "
                f"the opponent takes the rest of {p}, until only the last object is left for "
                "them."
            )
        else:
            rule = (
                f"Normal play: the player to move loses exactly when the heap is a multiple of "
                f"{p} (0, {p}, {2 * p}, …): whatever they take, 1 to {k}, the opponent takes the "
                f"rest of {p}, and takes the last object."
            )
        if self.value == LOSS:
            return [rule, f"{n} mod {p} = {r}: loss for the player to move."]
        (move,) = self.winning_moves
        take = pile_and_take(self.game, self.position, move)[1]
        return [
            rule,
            f"{n} mod {p} = {r}, not {self.losing_remainder}: win for the player to move, by "
            f"taking {take} to leave {n - take}.",
        ]


def explain_subtraction(game: Subtraction, position: Position) -> SubtractionExplanation:
    """The period-(k+1) rule for any position of ``game``, from the theory alone."""
    game.legal_moves(position)  # checks the position belongs to the game
    heap, period = position[0], game.k + 1
    # Normal play: multiples of k+1 are lost (the opponent always completes k+1).
    # Misère: one more than a multiple is lost (the player to move is left the last object).
    lost = heap % period == (1 if game.misere else 0)
    if game.misere and heap == 0:
        lost = False  # the opponent took the last object and lost
    winning: tuple[Move, ...] = ()
    if not lost and heap > 0:
        take = (heap - 1 if game.misere else heap) % period
        winning = (game.move_for(0, take),)
    return SubtractionExplanation(
        game=game, position=position, value=LOSS if lost else WIN, winning_moves=winning
    )


def _parse(text: str, rest: list[str]) -> Game:
    form = "expected like 'subtraction:12:3' (heap 12, take 1..3) or 'subtraction:12:3:normal'"
    if len(rest) > 3:
        raise SpecError(f"{text!r} has too many parts; {form}")
    heap = positive_part(text, rest[0], "the heap", form) if rest else 12
    k = positive_part(text, rest[1], "the largest take", form) if len(rest) > 1 else 3
    misere = rule_part(text, rest[2]) if len(rest) > 2 else True
    return Subtraction.make(heap, k, misere)


register(
    "subtraction",
    _parse,
    form="subtraction[:HEAP[:K[:misere|normal]]] like 'subtraction:12:3'",
)
