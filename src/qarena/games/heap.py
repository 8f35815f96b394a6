"""Heap games: piles of objects, a move takes some from one pile. The shared base of nim and
the subtraction game (one pile with a cap on each take); each names and words itself."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from qarena.errors import MoveError, PositionError, SpecError, echo
from qarena.games.base import LOSS, WIN, Game, GameArrays, Move, Position, Theory
from qarena.games.base import mixed_radix_arrays as _mixed_radix_arrays
from qarena.i18n import _, ngettext, number

# A move id table with more entries than this is no game a table learner can hold.
MAX_MOVES = 1_000_000


@dataclass(frozen=True)
class HeapGame(Game):
    """Piles of objects; a move takes 1..max_take (or any number) from one pile."""

    piles: tuple[int, ...]
    misere: bool = True
    max_take: int | None = None

    impartial = True

    def __post_init__(self) -> None:
        if not self.piles or any(p < 1 for p in self.piles):
            raise SpecError(_("every pile must start with at least 1 object"))
        if self.max_take is not None and self.max_take < 1:
            raise SpecError(_("a move must be allowed to take at least 1 object"))
        if sum(self._takes) > MAX_MOVES:
            raise SpecError(
                _("{spec} has more than {count:,} distinct moves").format(
                    spec=self.spec, count=MAX_MOVES
                )
            )

    # --- identity -------------------------------------------------------------------
    @property
    def spec(self) -> str:  # pragma: no cover - subclasses name themselves
        raise NotImplementedError

    @property
    def radix(self) -> tuple[int, ...]:
        return tuple(p + 1 for p in self.piles)

    @cached_property
    def _takes(self) -> tuple[int, ...]:
        """How many different counts can be taken from each pile."""
        cap = self.max_take
        return tuple(p if cap is None else min(p, cap) for p in self.piles)

    @cached_property
    def _offsets(self) -> tuple[int, ...]:
        out, acc = [], 0
        for t in self._takes:
            out.append(acc)
            acc += t
        return tuple(out)

    @property
    def num_moves(self) -> int:
        return sum(self._takes)

    @property
    def max_plies(self) -> int:
        return sum(self.piles)

    # --- rules ----------------------------------------------------------------------
    def start(self) -> Position:
        return self.piles

    def to_move(self, position: Position) -> int | None:
        return None

    def legal_moves(self, position: Position) -> list[Move]:
        self._check_position(position)
        cap = self.max_take
        return [
            off + t - 1
            for off, h in zip(self._offsets, position, strict=True)
            for t in range(1, (h if cap is None else min(h, cap)) + 1)
        ]

    def _apply_unchecked(self, position: Position, move: Move) -> Position:
        pile, take = self._move_component(move)
        out = list(position)
        out[pile] -= take
        return tuple(out)

    def is_terminal(self, position: Position) -> bool:
        self._check_position(position)
        return not any(position)

    def result(self, position: Position) -> int:
        if not self.is_terminal(position):
            raise PositionError(
                _("{position} is not a finished game").format(
                    position=self.format_position(position)
                )
            )
        # The opponent took the last object: in misère play that loses, in normal play it wins.
        return WIN if self.misere else LOSS

    # --- moves as (pile, count) ----------------------------------------------------------
    def _move_component(self, move: Move) -> tuple[int, int]:
        if not 0 <= move < self.num_moves:
            raise MoveError(
                _("move id {move} is outside 0..{last}").format(move=move, last=self.num_moves - 1)
            )
        pile = 0
        while pile + 1 < len(self._offsets) and self._offsets[pile + 1] <= move:
            pile += 1
        return pile, move - self._offsets[pile] + 1

    def _make_move(self, component: int, detail: int) -> Move:
        return self._offsets[component] + detail - 1

    def take_from_largest(self, position: Position) -> Move:
        """Take one object from the largest pile: no winning move exists, so hold out."""
        pile = max(range(len(position)), key=lambda i: (position[i], -i))
        return self.move_for(pile, 1)

    def move_for(self, pile: int, take: int) -> Move:
        """The move id that takes ``take`` objects from pile ``pile`` (0-based)."""
        if not 0 <= pile < len(self.piles):
            raise MoveError(
                _("there is no pile {pile}; piles are 1..{count}").format(
                    pile=pile + 1, count=len(self.piles)
                )
            )
        if not 1 <= take <= self._takes[pile]:
            raise MoveError(
                _("cannot take {take} from pile {pile}: a move takes 1..{most}").format(
                    take=take, pile=pile + 1, most=self._takes[pile]
                )
            )
        return self._make_move(pile, take)

    # --- symmetry -------------------------------------------------------------------
    @cached_property
    def _pile_rank(self) -> tuple[int, ...]:
        """Piles ordered by starting size, so a sorted position always fits the encoding."""
        return tuple(sorted(range(len(self.piles)), key=lambda i: (self.piles[i], i)))

    def _canonical_perm(self, position: Position) -> tuple[int, ...]:
        # The j-th smallest pile goes to the j-th smallest starting pile: equal play, same code
        # for every ordering of the same pile sizes.
        by_size = sorted(range(len(position)), key=lambda i: (position[i], i))
        perm = [0] * len(position)
        for slot, src in zip(self._pile_rank, by_size, strict=True):
            perm[slot] = src
        return tuple(perm)

    def images(self, position: Position) -> tuple[Position, ...]:
        # Every order of the same pile sizes in which each pile holds no more than it started
        # with: the positions the class merges, each once.
        caps = self.piles
        found: list[Position] = []

        def place(slot: int, left: list[int], made: list[int]) -> None:
            if slot == len(caps):
                found.append(tuple(made))
                return
            for size in sorted(set(left)):
                if size <= caps[slot]:
                    rest = list(left)
                    rest.remove(size)
                    place(slot + 1, rest, [*made, size])

        place(0, list(position), [])
        return tuple(found)

    def canonical_perms(self, digits: np.ndarray) -> np.ndarray:
        # A stable sort orders equal piles by index, as the key (size, index) does.
        by_size = np.argsort(digits, axis=1, kind="stable")
        perm = np.empty(digits.shape, dtype=np.int64)
        perm[:, list(self._pile_rank)] = by_size
        return perm

    # --- array form -----------------------------------------------------------------
    def arrays(self) -> GameArrays:
        radix, weight = _mixed_radix_arrays(self.radix)
        comp = np.repeat(np.arange(len(self.piles), dtype=np.int64), self._takes)
        take = np.concatenate([np.arange(1, t + 1, dtype=np.int64) for t in self._takes])
        return GameArrays(
            board=False,
            misere=self.misere,
            num_positions=self.num_positions,
            num_moves=self.num_moves,
            start=self.encode(self.start()),
            radix=radix,
            weight=weight,
            move_comp=comp,
            move_take=take,
            lines=np.zeros((0, 1), dtype=np.int64),
            rank=np.asarray(self._pile_rank, dtype=np.int64),
        )

    # --- words (nim's; the subtraction game overrides) --------------------------------
    layout = "piles"

    def click_help(self) -> str:
        return _("Click a match to take it and every match to its right in that pile.")

    def rules_text(self) -> str:
        if self.misere:
            return _(
                "Take one or more matches from a single pile. Whoever takes the last match loses."
            )
        return _("Take one or more matches from a single pile. Whoever takes the last match wins.")

    def move_help(self, position: Position) -> str:
        example = self.format_move(self.legal_moves(position)[0])
        pile, take = example.split(":")
        return _(
            "Moves: PILE:COUNT takes COUNT matches from pile PILE; for example {example} "
            "takes {take} from pile {pile}."
        ).format(example=example, take=take, pile=pile)

    def move_words(self, move: Move) -> str:
        pile, take = self._move_component(move)
        return _("takes {take} from pile {pile} ({move})").format(
            take=take, pile=pile + 1, move=self.format_move(move)
        )

    def illegal_words(self, position: Position, move: Move) -> str:
        pile, take = self._move_component(move)
        left = position[pile]
        if left == 0:
            return _("Pile {pile} is empty.").format(pile=pile + 1)
        return _("Pile {pile} has only {left}; you cannot take {take}.").format(
            pile=pile + 1, left=left, take=take
        )

    def ending_words(self, position: Position, last_mover: str, addressed: bool = False) -> str:
        if addressed:
            return _("You took the last match.")
        return _("{player} took the last match.").format(player=last_mover)

    # --- text forms (overridden by the subtraction game) ----------------------------
    def format_position(self, position: Position) -> str:
        return " ".join(str(p) for p in position)

    def parse_position(self, text: str) -> Position:
        example = " ".join(str(p) for p in self.piles)
        parts = text.split()
        if not parts or not all(re.fullmatch(r"[0-9]{1,9}", p) for p in parts):
            raise PositionError(
                _(
                    "position {text!r} is not pile sizes separated by spaces, like {example!r}"
                ).format(text=echo(text), example=example)
            )
        values = tuple(int(p) for p in parts)
        if len(values) != len(self.piles):
            raise PositionError(
                ngettext(
                    "position {text!r} has {count} pile but {spec} has {piles}; expected pile "
                    "sizes like {example!r}",
                    "position {text!r} has {count} piles but {spec} has {piles}; expected pile "
                    "sizes like {example!r}",
                    len(values),
                ).format(
                    text=echo(text),
                    count=len(values),
                    spec=self.spec,
                    piles=len(self.piles),
                    example=example,
                )
            )
        for i, (v, p) in enumerate(zip(values, self.piles, strict=True)):
            if v > p:
                raise PositionError(
                    _("position {text!r}: pile {pile} holds at most {most} in {spec}").format(
                        text=echo(text), pile=i + 1, most=p, spec=self.spec
                    )
                )
        return values

    def format_move(self, move: Move) -> str:
        pile, take = self._move_component(move)
        return f"{pile + 1}:{take}"

    def parse_move(self, text: str) -> Move:
        m = re.fullmatch(r"\s*([0-9]{1,9})\s*:\s*([0-9]{1,9})\s*", text)
        if not m:
            raise MoveError(
                _(
                    "move {text!r} is not PILE:COUNT; expected like '3:2' (take 2 from pile 3)"
                ).format(text=echo(text))
            )
        return self.move_for(int(m.group(1)) - 1, int(m.group(2)))


# --- theory shared by heap games ------------------------------------------------------------


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{number(n, ',')} {word if n == 1 else many or word + 's'}"


def pile_and_take(game: Game, position: Position, move: Move) -> tuple[int, int]:
    """The pile a heap move takes from (0-based) and how many, read off what it leaves."""
    after = game.apply(position, move)
    pile = next(i for i, (a, b) in enumerate(zip(position, after, strict=True)) if a != b)
    return pile, position[pile] - after[pile]


def over_sentence(misere: bool, what: str) -> str:
    """Why a finished heap game has its value; ``what`` says what is left ("No objects are
    left"), already in words for people."""
    if misere:
        return _(
            "{what}: the opponent took the last object, which loses in misère play, "
            "so the player to move has won."
        ).format(what=what)
    return _(
        "{what}: the opponent took the last object, which wins in normal play, "
        "so the player to move has lost."
    ).format(what=what)


class HeapTheory(Theory):
    """Theory of a heap game: winning moves are told as takes."""

    @property
    def over(self) -> bool:
        return not any(self.position)

    def describe_move(self, move: Move) -> str:
        """``3:2  take 2 from pile 3, leaving 3 5 5``: the move, and what it leaves."""
        game, position = self.game, self.position
        pile, take = pile_and_take(game, position, move)
        after = game.format_position(game.apply(position, move))
        if len(position) > 1:
            return _("{move}  take {take} from pile {pile}, leaving {position}").format(
                move=game.format_move(move), take=take, pile=pile + 1, position=after
            )
        return _("{move}  take {take}, leaving {position}").format(
            move=game.format_move(move), take=take, position=after
        )


__all__ = ["MAX_MOVES", "HeapGame", "HeapTheory", "over_sentence", "pile_and_take", "plural"]
