"""Nim: players take any number of objects from one pile; misère (last object loses) or normal."""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import xor
from typing import Any

from qarena.budget import MAX_PILES
from qarena.errors import SpecError
from qarena.games.base import LOSS, WIN, Game, Move, Position, TheoryTable
from qarena.games.heap import (
    MAX_MOVES,
    HeapGame,
    HeapTheory,
    over_sentence,
    pile_and_take,
)
from qarena.games.registry import Field, Menu, positive_part, register, rule_part
from qarena.i18n import _, gettext_noop, ngettext


@dataclass(frozen=True)
class Nim(HeapGame):
    """Nim with any piles; misère by default, as in the classic matchstick game."""

    @property
    def spec(self) -> str:
        base = "nim:" + ",".join(str(p) for p in self.piles)
        return base if self.misere else base + ":normal"

    @property
    def title(self) -> str:
        piles = "-".join(str(p) for p in self.piles)
        if self.misere:
            return _("Nim {piles} (misère)").format(piles=piles)
        return _("Nim {piles} (normal play)").format(piles=piles)

    def theory(self, position: Position) -> NimExplanation:
        return explain_nim(self, position)

    # --- rule-based players -----------------------------------------------------------
    rule_players = ("bouton", "poles", "poles-strict")

    def rule_move(self, name: str, position: Position) -> Move:
        if name == "bouton":
            return self._bouton(position)
        if name == "poles":
            return self._poles(position, watchful=True)
        if name == "poles-strict":
            return self._poles(position, watchful=False)
        return super().rule_move(name, position)

    def _bouton(self, position: Position) -> Move:
        """Bouton's rule: leave a nim-sum of zero; in misère play, when only piles of one
        would remain, leave an odd number of them instead."""
        big = [i for i, h in enumerate(position) if h >= 2]
        ones = sum(1 for h in position if h == 1)
        if self.misere and len(big) == 1:
            # The last big pile decides the endgame: leave an odd number of single objects.
            i = big[0]
            take = position[i] - 1 if ones % 2 == 0 else position[i]
            return self.move_for(i, take)
        if self.misere and not big:
            return self.move_for(position.index(1), 1)
        total = nim_sum(position)
        if total == 0:
            return self.take_from_largest(position)
        i = next(i for i, h in enumerate(position) if h ^ total < h)
        return self.move_for(i, position[i] - (position[i] ^ total))

    def _poles(self, position: Position, watchful: bool) -> Move:
        """Leave a pole position when possible, else take one match from the largest pile.

        ``watchful`` is the strategy as the term paper means a person to play it: watch the
        endgame. Take a win that is there at once (in misère play, leave the opponent the
        last match; in normal play, take it), and in misère play never leave two piles of
        one, the "two equal piles" that loses there. Without it, the rule as a list of
        positions: at ``0 0 5`` it takes one match where taking four wins."""
        moves = self.legal_moves(position)
        if watchful:
            for move in moves:
                after = self._apply_unchecked(position, move)
                if sum(after) == (1 if self.misere else 0):
                    return move
        for move in moves:
            after = self._apply_unchecked(position, move)
            if is_pole_position(after) and not (
                watchful and self.misere and sorted(h for h in after if h) == [1, 1]
            ):
                return move
        return self.take_from_largest(position)


def nim_sum(piles: Position) -> int:
    """The XOR of the pile sizes."""
    return reduce(xor, piles, 0)


#: The "pole positions" of the 3-5-7 matchstick game, as multisets of non-empty piles.
POLE_POSITIONS: tuple[tuple[int, ...], ...] = ((1, 1, 1), (1, 2, 3), (2, 4, 6), (1, 4, 5))


def is_pole_position(position: Position) -> bool:
    """1-1-1, 1-2-3, 2-4-6, 1-4-5, or exactly two equal piles left (pile order irrelevant)."""
    left = tuple(sorted(h for h in position if h))
    return left in POLE_POSITIONS or (len(left) == 2 and left[0] == left[1])


# --- theory: Bouton (1901) ------------------------------------------------------------------


@dataclass(frozen=True)
class NimExplanation(HeapTheory):
    """Bouton's analysis of a nim position.

    ``rule`` is ``misere-exception`` when misère play has at most one pile of two or more
    (including the empty position), ``bouton`` otherwise. ``winning_moves`` are the moves that
    leave the opponent a lost position (empty when the position is lost or over).
    """

    game: Nim
    position: Position
    value: int
    rule: str
    nim_sum: int
    big_piles: int
    single_piles: int
    winning_moves: tuple[Move, ...]

    @property
    def width(self) -> int:
        """Binary digits shown per pile: enough for the largest pile, at least one."""
        return max(1, max(self.position).bit_length())

    @property
    def binary(self) -> tuple[str, ...]:
        return tuple(format(h, f"0{self.width}b") for h in self.position)

    @property
    def nim_sum_binary(self) -> str:
        return format(self.nim_sum, f"0{self.width}b")

    def details(self) -> dict[str, Any]:
        return {
            "misere": self.game.misere,
            "piles": list(self.position),
            "binary": list(self.binary),
            "nim_sum": self.nim_sum,
            "nim_sum_binary": self.nim_sum_binary,
            "big_piles": self.big_piles,
            "single_piles": self.single_piles,
        }

    def table(self) -> TheoryTable:
        rows = tuple(
            (_("pile {number}").format(number=i + 1), str(h), bits)
            for i, (h, bits) in enumerate(zip(self.position, self.binary, strict=True))
        )
        return TheoryTable(
            ("", _("objects"), _("binary")),
            rows,
            (_("nim-sum"), str(self.nim_sum), self.nim_sum_binary),
        )

    def sentences(self) -> list[str]:
        if self.over:
            return [over_sentence(self.game.misere, _("No objects are left"))]
        if self.rule == "misere-exception":
            return self._exception_sentences()
        s = self.nim_sum
        if self.game.misere:
            regime = ngettext(
                "{count} pile has more than one object, so misère play follows Bouton's rule, "
                "as normal play does: the player to move loses exactly when the nim-sum is 0.",
                "{count} piles have more than one object, so misère play follows Bouton's rule, "
                "as normal play does: the player to move loses exactly when the nim-sum is 0.",
                self.big_piles,
            ).format(count=self.big_piles)
        else:
            regime = _(
                "Normal play, Bouton's rule: the player to move loses exactly when the nim-sum "
                "is 0."
            )
        if self.value == LOSS:
            return [
                regime,
                _(
                    "The nim-sum is 0: loss for the player to move. Every move changes one pile, "
                    "so it leaves a non-zero nim-sum, which the opponent can make 0 again."
                ),
            ]
        sentences = [
            regime,
            _(
                "The nim-sum is {sum}, not 0: win for the player to move, by making it 0 — from "
                "a pile h with h XOR {sum} < h, take h − (h XOR {sum})."
            ).format(sum=s),
        ]
        if self.game.misere:
            sentences.append(
                _(
                    "Keep it 0 until a move would leave at most one pile with more than one "
                    "object; then leave an odd number of single objects instead."
                )
            )
        return sentences

    def _exception_sentences(self) -> list[str]:
        if self.big_piles == 1:
            (move,) = self.winning_moves
            pile, take = pile_and_take(self.game, self.position, move)
            emptied = take == self.position[pile]
            ones = self.single_piles + (0 if emptied else 1)
            return [
                _(
                    "Only one pile has more than one object, so the misère exception applies: "
                    "leave an odd number of single objects."
                ),
                self._cut_sentence(pile, emptied, ones),
            ]
        head = _(
            "No pile has more than one object, so the misère exception applies: the single "
            "objects go one per turn, and whoever takes the last loses."
        )
        n = self.single_piles
        if self.value == WIN:
            return [
                head,
                ngettext(
                    "{count:,} single object is an even number: win for the player to move, by "
                    "taking any one of them to leave an odd number.",
                    "{count:,} single objects is an even number: win for the player to move, by "
                    "taking any one of them to leave an odd number.",
                    n,
                ).format(count=n),
            ]
        return [
            head,
            ngettext(
                "{count:,} single object is an odd number: loss for the player to move, who will "
                "be left the last one.",
                "{count:,} single objects is an odd number: loss for the player to move, who "
                "will be left the last one.",
                n,
            ).format(count=n),
        ]

    def _cut_sentence(self, pile: int, emptied: bool, ones: int) -> str:
        """The misère exception's winning move: empty the big pile, or cut it to one, so that an
        odd number ``ones`` of single objects is left."""
        n = self.single_piles  # odd when the big pile is emptied, even when it is cut to one
        if emptied:
            text = ngettext(
                "Besides pile {pile} there is {count:,} pile of one, so empty it: that leaves "
                "{ones:,} single object, an odd number, and the opponent must take the last. "
                "Win for the player to move.",
                "Besides pile {pile} there are {count:,} piles of one, so empty it: that leaves "
                "{ones:,} single objects, an odd number, and the opponent must take the last. "
                "Win for the player to move.",
                n,
            )
        elif n == 0:
            text = _(
                "Besides pile {pile} there are 0 piles of one, so cut it to one: that leaves 1 "
                "single object, an odd number, and the opponent must take the last. Win for the "
                "player to move."
            )
        else:
            text = ngettext(
                "Besides pile {pile} there is {count:,} pile of one, so cut it to one: that "
                "leaves {ones:,} single objects, an odd number, and the opponent must take the "
                "last. Win for the player to move.",
                "Besides pile {pile} there are {count:,} piles of one, so cut it to one: that "
                "leaves {ones:,} single objects, an odd number, and the opponent must take the "
                "last. Win for the player to move.",
                n,
            )
        return text.format(pile=pile + 1, count=n, ones=ones)


def explain_nim(game: Nim, position: Position) -> NimExplanation:
    """Bouton's rule, with the misère exception, for any position of ``game``; computed from
    the theory alone, never the solver, so tests can hold the two against each other."""
    moves = game.legal_moves(position)  # checks the position belongs to the game
    total = nim_sum(position)
    big = [i for i, h in enumerate(position) if h >= 2]
    ones = sum(1 for h in position if h == 1)
    winning: list[Move] = []
    if game.misere and len(big) <= 1:
        # Endgame of misère play: single objects alternate, so parity decides.
        rule = "misere-exception"
        if big:
            # Always won: the big pile can be emptied or cut to one, whichever leaves an odd
            # number of piles of one for the opponent to take turn by turn.
            i = big[0]
            take = position[i] if ones % 2 == 1 else position[i] - 1
            winning = [game.move_for(i, take)]
        elif ones % 2 == 0 and ones > 0:
            # Any single object taken leaves an odd number of them.
            winning = list(moves)
        # With an odd number of ones (or none, the opponent having taken the last) there is
        # no move to find: lost, or already won.
        value = WIN if big or ones % 2 == 0 else LOSS
    else:
        rule = "bouton"
        # Taking from pile i can leave h XOR s only when that is smaller than h.
        winning = [
            game.move_for(i, h - (h ^ total)) for i, h in enumerate(position) if h ^ total < h
        ]
        value = WIN if total else LOSS
    return NimExplanation(
        game=game,
        position=position,
        value=value,
        rule=rule,
        nim_sum=total,
        big_piles=len(big),
        single_piles=ones,
        winning_moves=tuple(winning),
    )


def _parse(text: str, rest: list[str]) -> Game:
    form = _("expected like 'nim:3,5,7' or 'nim:3,5,7:normal'")
    if len(rest) > 2:
        raise SpecError(_("{text!r} has too many parts; {form}").format(text=text, form=form))
    if not rest:
        return Nim(piles=(3, 5, 7))
    parts = rest[0].split(",")
    if len(parts) > MAX_PILES:
        raise SpecError(
            _("{text!r}…: {count:,} piles; at most {most} are played").format(
                text=text[:40], count=len(parts), most=MAX_PILES
            )
        )
    piles = tuple(positive_part(text, p, _("each pile"), form) for p in parts)
    misere = rule_part(text, rest[1]) if len(rest) == 2 else True
    return Nim(piles=piles, misere=misere)


register(
    "nim",
    _parse,
    form=gettext_noop("nim[:PILES[:misere|normal]] like 'nim:3,5,7'"),
    menu=Menu(
        title=gettext_noop("Nim"),
        fields=(
            Field(
                "piles", gettext_noop("Piles"), "3,5,7", "numbers", what=gettext_noop("each pile")
            ),
        ),
        spec=lambda v: f"nim:{v['piles']}" + (":normal" if v["rule"] == "normal" else ""),
        note=gettext_noop("Take any number of matches from one pile."),
        rule=True,
    ),
)

__all__ = [
    "MAX_MOVES",
    "POLE_POSITIONS",
    "HeapGame",
    "Nim",
    "NimExplanation",
    "explain_nim",
    "is_pole_position",
    "nim_sum",
]
