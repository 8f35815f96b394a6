"""What every player shows a person, with defaults, and the moves it picks among, written once.

The player protocol itself is :mod:`qarena.agents.base`; its defaults live here, on the layer
of games, so that a player defined lower than ``agents`` (the n-tuple network of ``learn``)
takes them as the built-in strategies and trained agents do, with nothing copied. So does
:class:`Evaluator`, what a search asks of a player's values, and :class:`ByMoveValues`, an
evaluator read from move values, which the networks of ``learn`` build on.
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

import numpy as np

from qarena.i18n import _

if TYPE_CHECKING:
    from collections.abc import Sequence

    from qarena.exact import Exact
    from qarena.exact.solver import Mover
    from qarena.exact.space import GameTables
    from qarena.games.base import Game, Move, Position


@runtime_checkable
class Evaluator(Protocol):
    """What a search asks of a value (as OpenSpiel's ``MCTSBot`` asks its ``Evaluator`` for
    ``evaluate`` and ``prior``): a position's value and priors over its moves (MCTS), each
    move's value (alpha-beta's leaves and move order), and, where it has them, a board's own
    value and the arrays a compiled search computes its values from. Made for a player by
    ``qarena.agents.evaluators.evaluator_for``; a search takes any."""

    @property
    def name(self) -> str:
        """What it scores with, as people name it (``network``, a file's name)."""
        ...

    @property
    def gives_priors(self) -> bool:
        """Whether :meth:`evaluate` gives priors (a search selects by them: PUCT); without
        (random rollouts) the search explores by UCB1."""
        ...

    def evaluate(self, position: Position, moves: Sequence[Move]) -> tuple[float, list[float]]:
        """For a position where play goes on and its legal ``moves``: its value for the
        player to move (−1 to +1), and the prior of each of ``moves`` in their order (empty
        without :attr:`gives_priors`)."""
        ...

    def move_values(self, position: Position) -> dict[Move, float]:
        """Each legal move's value for the player making it, in the game's order, within
        −1..+1 (a value it has not, or not a number, reads 0)."""
        ...

    def board_value(self, position: Position) -> float | None:
        """Its value of a position that is not over, for the first player (+1 a sure win for
        x), when it values boards themselves (an n-tuple network); None when it values only
        moves. A search scoring many boards asks this, not each move."""
        ...

    @property
    def compiled(self) -> tuple[np.ndarray, ...] | None:
        """The arrays with which a compiled search on Connect Four boards computes its move
        values itself (an n-tuple network's weights, cells and the cells' touches, as
        ``kernels.mcts`` reads them); None: asked here."""
        ...


def clipped(value: float) -> float:
    """A value within −1..+1; not a number (a move it has no value for) reads 0."""
    if math.isnan(value):
        return 0.0
    return -1.0 if value < -1.0 else (1.0 if value > 1.0 else value)


class ByMoveValues:
    """An :class:`Evaluator` read from a player's move values (``raw``): each move's value
    clipped, a position's value the best of its moves', its priors their softmax
    (temperature 1), no board values and nothing compiled, unless a subclass says more."""

    name: str
    game: Game
    gives_priors = True

    def raw(self, position: Position) -> dict[Move, float] | None:
        """The player's own value of each legal move (None: it has none)."""
        raise NotImplementedError

    def move_values(self, position: Position) -> dict[Move, float]:
        raw = self.raw(position) or {}
        return {m: clipped(float(raw.get(m, 0.0))) for m in self.game.legal_moves(position)}

    def evaluate(self, position: Position, moves: Sequence[Move]) -> tuple[float, list[float]]:
        raw = self.raw(position) or {}
        evals = [clipped(raw.get(m, 0.0)) for m in moves]
        top = max(evals)
        exps = [math.exp(v - top) for v in evals]
        total = sum(exps)
        return top, [e / total for e in exps]

    def board_value(self, position: Position) -> float | None:
        return None

    @property
    def compiled(self) -> tuple[np.ndarray, ...] | None:
        return None


class PlayerDefaults:
    """How a player's own values read to people, by default: a signed number under the
    heading "value", no legend, no description. A player that knows better says so (a trained
    agent as its learner writes values, perfect play as the solver's outcomes)."""

    name: str
    #: The exact answers it plays from, when it is perfect play (the solver's); None for a
    #: player that learned, follows a rule or draws at random.
    solution: Exact | None = None

    if TYPE_CHECKING:
        # Each player has its game (a field, or a property); declared for the type checker
        # only, so that a dataclass's field of that name is not taken for a default.

        @property
        def game(self) -> Game: ...

    def values(self, position: Position) -> dict[Move, float] | None:
        """Its own value of each legal move; None for a player without values."""
        return None

    #: Whether it searches before each move and keeps what it found between moves (MCTS,
    #: alpha-beta): a game of its own then needs a player of its own (:meth:`seeded`).
    thinks: bool = False

    #: Whether the moves it picks among at a position are the images of those at every
    #: symmetric position (random, perfect and strongest play; a table learned one entry per
    #: symmetry class): judging may then ask it at one position of each class. Unless it
    #: says so, a player is asked at every position, as it may play each image differently.
    symmetric: bool = False

    def as_evaluator(self) -> Evaluator | None:
        """What a search asks of it (:class:`Evaluator`), when it answers that itself (an
        n-tuple network: its boards' values, and its arrays for the compiled search; an
        AlphaZero network: its priors and value head); None: a search reads its
        :meth:`values` (``qarena.agents.evaluators.evaluator_for``)."""
        return None

    def table_choices(
        self, tables: GameTables, rows: np.ndarray | None = None
    ) -> np.ndarray | None:
        """``mask[row, move]``: the moves it picks among in every row of ``tables`` (or in
        ``rows``, in their order), when it can answer them all at once faster than row by
        row (a network evaluating boards in batches); None: asked row by row."""
        return None

    def choices_at(self, positions: Sequence[Position]) -> np.ndarray | None:
        """``mask[i, move]``: the moves it picks among at each of ``positions`` (each in its
        own frame), when it can answer them all at once faster than one by one (a network
        evaluating boards in batches); None: asked one by one. Judging asks it so where a row
        of the tables stands for positions it may play apart (``judging.uniform``)."""
        return None

    @property
    def value_heading(self) -> str:
        """What its values are called in a table's heading."""
        return _("value")

    def format_value(self, value: float, compact: bool = False) -> str:
        """One of its values for people (``compact`` where room is short: a board's cell)."""
        return f"{value:+g}"

    def move_values(self, position: Position) -> dict[Move, float]:
        """Its value of each legal move, in the game's order; empty without values."""
        return self.values(position) or {}

    def value_text(self, position: Position, move: Move, mover: Mover = "human") -> str:
        """Its value of ``move`` for whoever makes it (``mover``: "human" or "ai"), as text."""
        found = self.move_values(position)
        return self.format_value(found[move]) if move in found else ""

    def value_legend(self) -> str:
        """What its values mean, for a note under them ("" when there is nothing to say)."""
        return ""

    def describe(self) -> str | None:
        """What the player is, for people (``q, 30,000 episodes``); None: only its name."""
        return None

    def for_one_game(self, seed: int | None, name: str | None = None) -> Self:
        """The player one game is played with: a player that keeps a search between moves
        (``thinks``) a copy of its own, seeded by ``seed`` (:meth:`seeded`), so that two games
        never share a tree; any other player itself."""
        return self.seeded(seed, name) if self.thinks else self

    def seeded(self, seed: int | None, name: str | None = None) -> Self:
        """The same player (its tables and solution shared, not copied), named ``name`` when
        given; one that draws at random (an ``rng`` of its own) draws from a new generator
        seeded by ``seed``: one per game or seat, so games never share a generator."""
        other = copy.copy(self)
        if hasattr(other, "rng"):
            vars(other).update(seed=seed, rng=np.random.default_rng(seed))
        if name is not None:
            other.name = name
        return other


class ChoosingPlayer(PlayerDefaults):
    """A player that tells the moves it picks among (``choices``), uniformly at random: its
    pick with any generator, the moves it would play, and whether it would play a move follow
    from them, here and nowhere else."""

    def choices(self, position: Position) -> list[Move]:
        raise NotImplementedError

    def pick(self, position: Position, rng: np.random.Generator) -> Move:
        """One of its moves, uniformly among them, drawn from ``rng``."""
        moves = self.choices(position)
        return moves[int(rng.integers(len(moves)))]

    def best_at(self, position: Position) -> tuple[Move, ...]:
        """The moves it picks among here, in the game's order."""
        chosen = set(self.choices(position))
        return tuple(m for m in self.game.legal_moves(position) if m in chosen)

    def would_play(self, position: Position, move: Move) -> bool:
        """Is ``move`` one of the moves it picks among here?"""
        return move in self.choices(position)


def highest(game: Game, position: Position, values: dict[Move, float]) -> list[Move]:
    """The moves of the highest value among ``values`` (a player's values of ``position``'s
    legal moves), in their order; a finished position, which has none, is refused in one
    line."""
    from qarena.errors import QarenaError

    if not values:
        raise QarenaError(
            _("{position} is finished; there is no move to make").format(
                position=game.format_position(position)
            )
        )
    best = max(values.values())
    return [m for m, v in values.items() if v == best]


__all__ = ["ByMoveValues", "ChoosingPlayer", "Evaluator", "PlayerDefaults", "clipped", "highest"]
