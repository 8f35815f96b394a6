"""Strategy agents: random, perfect (from the solver), and the closed-form rules people use."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from operator import xor

import numpy as np

from qarena.errors import QarenaError
from qarena.games.base import Game, Move, Position
from qarena.games.nim import HeapGame, Nim
from qarena.games.subtraction import Subtraction
from qarena.solve.solver import Solution, solve


def _legal(game: Game, position: Position) -> list[Move]:
    moves = game.legal_moves(position)
    if not moves:
        raise QarenaError(f"{game.format_position(position)} is finished; there is no move to make")
    return moves


@dataclass
class RandomAgent:
    """Uniform among legal moves."""

    game: Game
    seed: int | None = None
    name: str = "random"
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def act(self, position: Position) -> Move:
        moves = _legal(self.game, position)
        return moves[int(self.rng.integers(len(moves)))]


@dataclass
class PerfectAgent:
    """Uniform among the moves that keep the position's game-theoretic value."""

    game: Game
    seed: int | None = None
    name: str = "perfect"
    rng: np.random.Generator = field(init=False, repr=False)
    solution: Solution = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.solution = solve(self.game)

    def act(self, position: Position) -> Move:
        _legal(self.game, position)
        moves = self.solution.optimal_moves(position)
        return moves[int(self.rng.integers(len(moves)))]


def _take_from_largest(game: HeapGame, position: Position) -> Move:
    """Take one object from the largest pile: no winning move exists, so hold out."""
    pile = max(range(len(position)), key=lambda i: (position[i], -i))
    return game.move_for(pile, 1)


@dataclass
class BoutonAgent:
    """Bouton's rule for nim: leave a nim-sum of zero; in misère play, when only piles of one
    would remain, leave an odd number of them instead. No table, no search."""

    game: Game
    name: str = "bouton"

    def __post_init__(self) -> None:
        if not isinstance(self.game, Nim):
            raise QarenaError(f"the bouton agent plays nim, not {self.game.spec}")

    def act(self, position: Position) -> Move:
        game = self.game
        assert isinstance(game, Nim)
        _legal(game, position)
        big = [i for i, h in enumerate(position) if h >= 2]
        ones = sum(1 for h in position if h == 1)
        if game.misere and len(big) == 1:
            # The last big pile decides the endgame: leave an odd number of single objects.
            i = big[0]
            take = position[i] - 1 if ones % 2 == 0 else position[i]
            return game.move_for(i, take)
        if game.misere and not big:
            return game.move_for(position.index(1), 1)
        total = reduce(xor, position, 0)
        if total == 0:
            return _take_from_largest(game, position)
        i = next(i for i, h in enumerate(position) if h ^ total < h)
        return game.move_for(i, position[i] - (position[i] ^ total))


@dataclass
class SubtractionRuleAgent:
    """The subtraction game's rule: normal play leaves a multiple of k+1, misère one more."""

    game: Game
    name: str = "subtraction"

    def __post_init__(self) -> None:
        if not isinstance(self.game, Subtraction):
            raise QarenaError(f"the subtraction-rule agent plays subtraction, not {self.game.spec}")

    def act(self, position: Position) -> Move:
        game = self.game
        assert isinstance(game, Subtraction)
        _legal(game, position)
        heap, k = position[0], game.k
        take = (heap - 1 if game.misere else heap) % (k + 1)
        return game.move_for(0, take if take > 0 else 1)


#: The "pole positions" of the 3-5-7 matchstick game, as multisets of non-empty piles.
POLE_POSITIONS: tuple[tuple[int, ...], ...] = ((1, 1, 1), (1, 2, 3), (2, 4, 6), (1, 4, 5))


def is_pole_position(position: Position) -> bool:
    """1-1-1, 1-2-3, 2-4-6, 1-4-5, or exactly two equal piles left (pile order irrelevant)."""
    left = tuple(sorted(h for h in position if h))
    return left in POLE_POSITIONS or (len(left) == 2 and left[0] == left[1])


@dataclass
class PolesAgent:
    """The human "pole positions" heuristic: leave a pole position when possible, otherwise take
    a single match (from the largest pile). A known imperfect strategy, kept to measure against."""

    game: Game
    name: str = "poles"

    def __post_init__(self) -> None:
        if not isinstance(self.game, Nim):
            raise QarenaError(f"the poles agent plays nim, not {self.game.spec}")

    def act(self, position: Position) -> Move:
        game = self.game
        assert isinstance(game, Nim)
        for move in _legal(game, position):
            if is_pole_position(game._apply_unchecked(position, move)):
                return move
        return _take_from_largest(game, position)


STRATEGIES = ("random", "perfect", "bouton", "subtraction", "poles")


def make_agent(
    name: str, game: Game, seed: int | None = None
) -> RandomAgent | PerfectAgent | (BoutonAgent | SubtractionRuleAgent | PolesAgent):
    """A strategy agent by name: random, perfect, bouton, subtraction or poles."""
    if name == "random":
        return RandomAgent(game, seed)
    if name == "perfect":
        return PerfectAgent(game, seed)
    if name == "bouton":
        return BoutonAgent(game)
    if name == "subtraction":
        return SubtractionRuleAgent(game)
    if name == "poles":
        return PolesAgent(game)
    raise QarenaError(f"unknown agent {name!r}; expected one of {', '.join(STRATEGIES)}")
