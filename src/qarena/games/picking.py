"""What every player shows a person, with defaults, and the moves it picks among, written once.

The player protocol itself is :mod:`qarena.agents.base`; its defaults live here, on the layer
of games, so that a player defined lower than ``agents`` (the n-tuple network of ``learn``)
takes them as the built-in strategies and trained agents do, with nothing copied.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Self

import numpy as np

from qarena.i18n import _

if TYPE_CHECKING:
    from collections.abc import Sequence

    from qarena.exact import Exact
    from qarena.exact.solver import Mover
    from qarena.exact.space import GameTables
    from qarena.games.base import Game, Move, Position


class Shows:
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

    def compiled_values(self) -> tuple[np.ndarray, ...] | None:
        """The arrays with which a compiled search on Connect Four boards computes this
        player's move values itself (an n-tuple network's weights, cells and the cells'
        touches, as ``kernels.mcts`` reads them); None when it is asked through
        :meth:`values`."""
        return None

    def priors_value(self, position: Position) -> tuple[dict[Move, float], float] | None:
        """A prior over the legal moves and its value of the position for the player to move
        (−1 to +1), when it has a policy and a value (an AlphaZero network): a search guided
        by it (``mcts:N:FILE``) takes these as they are. None: asked through :meth:`values`."""
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

    def board_value(self, position: Position) -> float | None:
        """Its own value of a position that is not over, for the first player (+1 a sure win
        for x), when it values positions themselves (an n-tuple network); None when it values
        only moves (:meth:`values`). A search scoring many boards asks this, not each move."""
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


class Picks(Shows):
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


__all__ = ["Picks", "Shows", "highest"]
