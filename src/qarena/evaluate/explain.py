"""Why a position is won or lost: the closed-form theory where there is one, search otherwise.

Nim follows Bouton (1901): in normal play the player to move loses exactly when the nim-sum
(the XOR of the piles) is zero. Misère play obeys the same rule while two or more piles have
two or more objects; once at most one such pile remains, the aim is to leave an odd number of
piles of one. The one-heap subtraction game (take 1..k) is periodic with period k+1. Boards
have no closed form, so their explanation is the solver's value and a principal variation.

The heap explanations are computed from the theory alone, never from the solver or the
strategy agents, so that tests can hold the two independent accounts against each other.
Nothing here prints: the command line words these facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import xor
from typing import Literal

import numpy as np

from qarena.errors import QarenaError
from qarena.games.base import DRAW, LOSS, WIN, Game, Move, Position
from qarena.games.nim import Nim
from qarena.games.subtraction import Subtraction
from qarena.learn.base import Learner
from qarena.solve.solver import Solution, solve

Rule = Literal["bouton", "misere-exception", "subtraction", "search"]


def nim_sum(piles: Position) -> int:
    """The XOR of the pile sizes."""
    return reduce(xor, piles, 0)


@dataclass(frozen=True)
class NimExplanation:
    """Bouton's analysis of a nim position.

    ``rule`` is ``misere-exception`` when misère play has at most one pile of two or more
    (including the empty position), ``bouton`` otherwise. ``winning_moves`` are the moves that
    leave the opponent a lost position (empty when the position is lost or over).
    """

    game: Nim
    position: Position
    value: int
    rule: Rule
    nim_sum: int
    big_piles: int
    single_piles: int
    winning_moves: tuple[Move, ...]

    @property
    def over(self) -> bool:
        return not any(self.position)

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

    @property
    def optimal_moves(self) -> tuple[Move, ...]:
        """The moves that keep the value: the winning moves, or in a lost position every move
        (all of them lose against best play)."""
        if self.value == WIN:
            return self.winning_moves
        return tuple(self.game.legal_moves(self.position))


@dataclass(frozen=True)
class SubtractionExplanation:
    """The subtraction game's rule: positions repeat with period k+1."""

    game: Subtraction
    position: Position
    value: int
    winning_moves: tuple[Move, ...]
    rule: Rule = "subtraction"

    @property
    def over(self) -> bool:
        return self.heap == 0

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

    @property
    def optimal_moves(self) -> tuple[Move, ...]:
        if self.value == WIN:
            return self.winning_moves
        return tuple(self.game.legal_moves(self.position))


@dataclass(frozen=True)
class SearchExplanation:
    """The solver's account: the value, and one line of best play to the end.

    ``depth`` is the number of plies to the end when the winner hurries and the loser holds out
    (None for draws, where no side hurries); ``principal_variation`` has that many moves.
    """

    game: Game
    position: Position
    value: int
    depth: int | None
    optimal_moves: tuple[Move, ...]
    principal_variation: tuple[Move, ...]
    final: Position
    rule: Rule = "search"

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.position)


Explanation = NimExplanation | SubtractionExplanation | SearchExplanation


def explain_nim(game: Nim, position: Position) -> NimExplanation:
    """Bouton's rule, with the misère exception, for any position of ``game``."""
    moves = game.legal_moves(position)  # checks the position belongs to the game
    total = nim_sum(position)
    big = [i for i, h in enumerate(position) if h >= 2]
    ones = sum(1 for h in position if h == 1)
    winning: list[Move] = []
    if game.misere and len(big) <= 1:
        # Endgame of misère play: single objects alternate, so parity decides.
        rule: Rule = "misere-exception"
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


def explain_subtraction(game: Subtraction, position: Position) -> SubtractionExplanation:
    """The period-(k+1) rule for any position of ``game``."""
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


def principal_variation(solution: Solution, position: Position) -> tuple[Move, ...]:
    """Best play from ``position`` to the end: the winner takes the fastest win, the loser the
    slowest loss, a draw the first optimal move in move order (deterministic)."""
    game = solution.game
    line: list[Move] = []
    pos = position
    while not game.is_terminal(pos):
        moves = solution.optimal_moves(pos)
        value = solution.value_of(pos)
        depths = [solution.depth_of(game.apply(pos, m)) for m in moves]
        if value == WIN:
            choice = moves[depths.index(min(depths))]
        elif value == LOSS:
            choice = moves[depths.index(max(depths))]
        else:
            choice = moves[0]
        line.append(choice)
        pos = game.apply(pos, choice)
    return tuple(line)


def explain_search(solution: Solution, position: Position) -> SearchExplanation:
    """The solver's value, optimal moves and principal variation (raises PositionError for a
    position the start cannot reach)."""
    game = solution.game
    value = solution.value_of(position)
    line = principal_variation(solution, position)
    final = position
    for m in line:
        final = game.apply(final, m)
    return SearchExplanation(
        game=game,
        position=position,
        value=value,
        depth=None if value == DRAW else solution.depth_of(position),
        optimal_moves=tuple(solution.optimal_moves(position)),
        principal_variation=line,
        final=final,
    )


def has_theory(game: Game) -> bool:
    """True when the position can be explained by a closed-form rule, without the solver."""
    return isinstance(game, Nim | Subtraction)


def explain(game: Game, position: Position, solution: Solution | None = None) -> Explanation:
    """Explain ``position``: by theory for nim and subtraction, by search otherwise (solving
    ``game`` if no solution is given)."""
    if isinstance(game, Subtraction):
        return explain_subtraction(game, position)
    if isinstance(game, Nim):
        return explain_nim(game, position)
    return explain_search(solution if solution is not None else solve(game), position)


@dataclass(frozen=True)
class PolicyChoice:
    """One move greedy play may pick: the learner's value of it and the solver's."""

    move: Move
    learned: float
    value: int  # what the move leaves the mover, by the solver


@dataclass(frozen=True)
class PolicyVerdict:
    """What a trained agent plays at a position, judged by the solver.

    ``choices`` are all its greedy moves (tied at the top of its table); greedy play keeps the
    value only if every one of them does.
    """

    kind: str
    episodes: int
    value: int  # the position's value for the player to move
    choices: tuple[PolicyChoice, ...]

    @property
    def keeps_value(self) -> bool:
        return all(c.value == self.value for c in self.choices)


def judge_policy(learner: Learner, solution: Solution, position: Position) -> PolicyVerdict:
    """The learner's greedy moves at ``position`` and whether each keeps the solver's value."""
    game = learner.game
    if game.is_terminal(position):
        raise QarenaError(
            f"the game is over in {game.format_position(position)}: the agent has no move to make"
        )
    verdicts = solution.move_values(position)  # raises PositionError if unreachable
    code = game.encode(position)
    values = learner.table_values()[code]
    best = np.flatnonzero(learner.best_moves()[code]).tolist()
    choices = tuple(PolicyChoice(int(m), float(values[m]), verdicts[int(m)]) for m in best)
    return PolicyVerdict(
        kind=learner.kind,
        episodes=learner.episodes,
        value=max(verdicts.values()),
        choices=choices,
    )


__all__ = [
    "Explanation",
    "NimExplanation",
    "PolicyChoice",
    "PolicyVerdict",
    "Rule",
    "SearchExplanation",
    "SubtractionExplanation",
    "explain",
    "explain_nim",
    "explain_search",
    "explain_subtraction",
    "has_theory",
    "judge_policy",
    "nim_sum",
    "principal_variation",
]
