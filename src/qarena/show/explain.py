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
from typing import cast

import numpy as np

from qarena.agents.base import OpponentPlayer
from qarena.agents.players import PlayerLike, player
from qarena.errors import QarenaError
from qarena.exact import Exact, Solution, oracle
from qarena.exact.space import GameTables
from qarena.games.base import DRAW, LOSS, WIN, Game, Move, Position, Theory, mixed_radix_arrays

# The heap theories live with their games; named here for callers and tests.
from qarena.games.nim import NimExplanation, explain_nim, nim_sum
from qarena.games.subtraction import SubtractionExplanation, explain_subtraction
from qarena.i18n import _
from qarena.learn.family import Trainable

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
    #: Whether the solver enumerated every position (else it searched those on the line).
    exhaustive: bool = True

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.position)


Explanation = Theory | SearchExplanation


def principal_variation(solution: Exact, position: Position) -> tuple[Move, ...]:
    """Best play from ``position`` to the end: the winner takes the fastest win, the loser the
    slowest loss, a draw the first optimal move in move order (deterministic)."""
    game = solution.game
    line: list[Move] = []
    pos = position
    best_moves = getattr(solution, "best_moves", None)
    while not game.is_terminal(pos):
        if best_moves is not None:  # a search solution scores moves by how soon they win
            line.append(best_moves(pos)[0])
            pos = game.apply(pos, line[-1])
            continue
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


def explain_search(solution: Exact, position: Position) -> SearchExplanation:
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
        exhaustive=isinstance(solution, Solution),
    )


def has_theory(game: Game) -> bool:
    """True when the game explains its positions by a closed-form rule, without the solver."""
    return game.theory(game.start()) is not None


def explain(game: Game, position: Position, solution: Exact | None = None) -> Explanation:
    """Explain ``position``: by the game's theory where it has one, by search otherwise
    (solving ``game`` if no solution is given)."""
    theory = game.theory(position)
    if theory is not None:
        return theory
    return explain_search(solution if solution is not None else oracle(game), position)


@dataclass(frozen=True)
class PolicyChoice:
    """One move greedy play may pick: the learner's value of it and the solver's."""

    move: Move
    learned: float
    value: int  # what the move leaves the mover, by the solver
    #: The learned value in a sentence, in the learner's own words (``learned value +0.81``).
    learned_text: str = ""


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


def judge_policy(learner: Trainable, solution: Exact, position: Position) -> PolicyVerdict:
    """The learner's greedy moves at ``position`` (those of its highest value, as the player
    it plays as picks among them) and whether each keeps the solver's value."""
    game = learner.game
    if game.is_terminal(position):
        raise QarenaError(
            _("the game is over in {position}: the agent has no move to make").format(
                position=game.format_position(position)
            )
        )
    verdicts = solution.move_values(position)  # raises PositionError if unreachable
    agent = player(cast("PlayerLike", learner))
    # Every learner's player tells the moves it picks among.
    assert isinstance(agent, OpponentPlayer)
    values = agent.values(position) or {}
    return PolicyVerdict(
        kind=learner.kind,
        episodes=learner.episodes,
        value=max(verdicts.values()),
        choices=tuple(
            PolicyChoice(m, values[m], verdicts[m], learner.describe_value(values[m]))
            for m in agent.choices(position)
        ),
    )


#: Rows whose sort keys :func:`losing_positions` computes at once, in bounded memory.
KEY_CHUNK = 1 << 16


@dataclass(frozen=True)
class LosingPositions:
    """The positions lost for the player to move with best play (value LOSS), as rows of
    ``tables``: one per symmetry class with canonical tables, one per position without.

    ``rows`` are the first of them in order (positions compared as tuples of their components,
    as ``3 5 7`` sorts after ``1 4 5``); ``losing_rows`` counts every lost row and ``losing``
    the positions they stand for; ``terminal_rows`` / ``terminal`` the same for finished games
    (a position where play is over is lost when the player to move has lost).
    """

    tables: GameTables
    rows: tuple[int, ...]
    losing_rows: int
    losing: int
    terminal_rows: int
    terminal: int

    @property
    def more(self) -> int:
        """Lost rows beyond those listed."""
        return self.losing_rows - len(self.rows)


def _tuple_keys(tables: GameTables, rows: np.ndarray) -> np.ndarray:
    """A key per row that orders positions as tuples do: the code read with the first
    component most significant (codes put it least), which fits int64 as codes do."""
    radix, weight = mixed_radix_arrays(tables.game.radix)
    reverse = mixed_radix_arrays(tables.game.radix[::-1])[1][::-1]
    keys = np.empty(rows.size, dtype=np.int64)
    for first in range(0, rows.size, KEY_CHUNK):
        codes = tables.codes[rows[first : first + KEY_CHUNK]]
        keys[first : first + KEY_CHUNK] = ((codes[:, None] // weight) % radix) @ reverse
    return keys


def losing_positions(tables: GameTables, limit: int) -> LosingPositions:
    """The rows of ``tables`` lost for the player to move, the first ``limit`` of them in
    order (at most one key per lost row is held, far less than the tables themselves)."""
    lost = np.flatnonzero(tables.value == LOSS)
    over = ~tables.live[lost]
    keys = _tuple_keys(tables, lost)
    # The first ``limit`` keys, then only those sorted (keys are distinct, as codes are).
    first = np.argpartition(keys, limit)[:limit] if limit < keys.size else np.arange(keys.size)
    first = first[np.argsort(keys[first])]
    return LosingPositions(
        tables=tables,
        rows=tuple(int(r) for r in lost[first]),
        losing_rows=int(lost.size),
        losing=int(tables.orbit[lost].sum()),
        terminal_rows=int(over.sum()),
        terminal=int(tables.orbit[lost[over]].sum()),
    )


__all__ = [
    "Explanation",
    "LosingPositions",
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
    "losing_positions",
    "nim_sum",
    "principal_variation",
]
