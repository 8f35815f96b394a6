"""The one-heap subtraction game: take 1..k objects; misère (last stick loses) or normal."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from qarena.errors import MoveError, PositionError, SpecError, echo
from qarena.games.base import LOSS, WIN, Game, Move, Position, TheoryTable
from qarena.games.heap import HeapGame, HeapTheory, over_sentence, pile_and_take
from qarena.games.registry import Field, Menu, positive_part, register, rule_part
from qarena.i18n import _, gettext_noop


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
        if self.misere:
            return _("Subtraction game, heap {heap}, take 1..{k} (misère)").format(
                heap=self.heap, k=self.k
            )
        return _("Subtraction game, heap {heap}, take 1..{k} (normal play)").format(
            heap=self.heap, k=self.k
        )

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

    def click_help(self) -> str:
        return _("Click a match to take it and every match to its right (1 to {most}).").format(
            most=self.k
        )

    def rules_text(self) -> str:
        if self.misere:
            return _(
                "Take 1 to {k} matches from the heap. Whoever takes the last match loses."
            ).format(k=self.k)
        return _("Take 1 to {k} matches from the heap. Whoever takes the last match wins.").format(
            k=self.k
        )

    def move_help(self, position: Position) -> str:
        example = self.format_move(self.legal_moves(position)[0])
        return _("Moves: how many matches to take, 1 to {k}; for example {example}.").format(
            k=self.k, example=example
        )

    def move_words(self, move: Move) -> str:
        return _("takes {move}").format(move=self.format_move(move))

    def illegal_words(self, position: Position, move: Move) -> str:
        return _("There are only {left} left; take 1 to {most}.").format(
            left=position[0], most=min(position[0], self.k)
        )

    # --- text forms -----------------------------------------------------------------
    def format_position(self, position: Position) -> str:
        return str(position[0])

    def parse_position(self, text: str) -> Position:
        if not re.fullmatch(r"\s*[0-9]{1,9}\s*", text):
            raise PositionError(
                _("position {text!r} is not a heap size; expected like '{heap}'").format(
                    text=echo(text), heap=self.heap
                )
            )
        value = int(text)
        if value > self.heap:
            raise PositionError(
                _("position {text!r}: the heap holds at most {heap}").format(
                    text=echo(text), heap=self.heap
                )
            )
        return (value,)

    def format_move(self, move: Move) -> str:
        return str(self._move_component(move)[1])

    def parse_move(self, text: str) -> Move:
        if not re.fullmatch(r"\s*[0-9]{1,9}\s*", text):
            raise MoveError(
                _("move {text!r} is not a count; expected a number 1..{k}, like '2'").format(
                    text=echo(text), k=self.k
                )
            )
        take = int(text)
        if not 1 <= take <= self._takes[0]:
            raise MoveError(
                _("move {text!r}: a move takes 1..{most}").format(
                    text=echo(text), most=self._takes[0]
                )
            )
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
                (_("heap"), str(self.heap)),
                (_("a move takes"), f"1..{self.k}"),
                ("k + 1", str(self.period)),
                (f"{self.heap} mod {self.period}", str(self.remainder)),
            ),
        )

    def sentences(self) -> list[str]:
        if self.over:
            return [over_sentence(self.game.misere, _("The heap is empty"))]
        n, k, p, r = self.heap, self.k, self.period, self.remainder
        if self.game.misere:
            rule = _(
                "Misère play: the player to move loses exactly when the heap is one more than "
                "a multiple of {p} (1, {p1}, {p2}, …): whatever they take, 1 to {k}, the opponent "
                "takes the rest of {p}, until only the last object is left for them."
            ).format(p=p, p1=p + 1, p2=2 * p + 1, k=k)
        else:
            rule = _(
                "Normal play: the player to move loses exactly when the heap is a multiple of "
                "{p} (0, {p}, {p2}, …): whatever they take, 1 to {k}, the opponent takes the "
                "rest of {p}, and takes the last object."
            ).format(p=p, p2=2 * p, k=k)
        if self.value == LOSS:
            return [
                rule,
                _("{n} mod {p} = {r}: loss for the player to move.").format(n=n, p=p, r=r),
            ]
        (move,) = self.winning_moves
        take = pile_and_take(self.game, self.position, move)[1]
        return [
            rule,
            _(
                "{n} mod {p} = {r}, not {losing}: win for the player to move, by taking {take} "
                "to leave {left}."
            ).format(n=n, p=p, r=r, losing=self.losing_remainder, take=take, left=n - take),
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
    form = _("expected like 'subtraction:12:3' (heap 12, take 1..3) or 'subtraction:12:3:normal'")
    if len(rest) > 3:
        raise SpecError(_("{text!r} has too many parts; {form}").format(text=text, form=form))
    heap = positive_part(text, rest[0], _("the heap"), form) if rest else 12
    k = positive_part(text, rest[1], _("the largest take"), form) if len(rest) > 1 else 3
    misere = rule_part(text, rest[2]) if len(rest) > 2 else True
    return Subtraction.make(heap, k, misere)


register(
    "subtraction",
    _parse,
    form=gettext_noop("subtraction[:HEAP[:K[:misere|normal]]] like 'subtraction:12:3'"),
    menu=Menu(
        title=gettext_noop("Subtraction game"),
        fields=(
            Field("heap", gettext_noop("Heap"), "12", what=gettext_noop("the heap")),
            Field("take", gettext_noop("Largest take"), "3", what=gettext_noop("the largest take")),
        ),
        spec=lambda v: (
            f"subtraction:{v['heap']}:{v['take']}" + (":normal" if v["rule"] == "normal" else "")
        ),
        rule=True,
    ),
)
