"""Why a position is won or lost: the closed-form theory where there is one, search otherwise.

Nim follows Bouton (1901): in normal play the player to move loses exactly when the nim-sum
(the XOR of the piles) is zero. Misère play obeys the same rule while two or more piles have
two or more objects; once at most one such pile remains, the aim is to leave an odd number of
piles of one. The one-heap subtraction game (take 1..k) is periodic with period k+1. Boards
have no closed form, so their explanation is the solver's value and a principal variation.

Each game holds its own theory (``Game.theory``); the heap explanations are computed from the
theory alone, never from the solver or the strategy agents, so that tests can hold the two
independent accounts against each other.
Nothing here prints: the command line words these facts.
"""

from __future__ import annotations

from dataclasses import dataclass

from qarena.errors import QarenaError
from qarena.games.base import DRAW, LOSS, WIN, Game, Move, Position, Theory

# The heap theories live with their games; named here for callers and tests.
from qarena.games.nim import NimExplanation, explain_nim, nim_sum
from qarena.games.subtraction import SubtractionExplanation, explain_subtraction
from qarena.learn.base import Learner
from qarena.solve.solver import Solution, solve

#: The rule an explanation applies: ``search`` for the solver's, else the game's theory's
#: (``bouton``, ``misere-exception``, ``subtraction``...).
Rule = str


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


Explanation = Theory | SearchExplanation


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
    """True when the game explains its positions by a closed-form rule, without the solver."""
    return game.theory(game.start()) is not None


def explain(game: Game, position: Position, solution: Solution | None = None) -> Explanation:
    """Explain ``position``: by the game's theory where it has one, by search otherwise
    (solving ``game`` if no solution is given)."""
    theory = game.theory(position)
    if theory is not None:
        return theory
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
    row, frame = learner.tables.frame(position)
    values = learner.table_values()[row]
    best = learner.best_moves()[row]
    choices = tuple(
        PolicyChoice(m, float(values[f]), verdicts[m]) for m, f in frame.items() if best[f]
    )
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
    "Theory",
    "explain",
    "explain_nim",
    "explain_search",
    "explain_subtraction",
    "has_theory",
    "judge_policy",
    "nim_sum",
    "principal_variation",
]
