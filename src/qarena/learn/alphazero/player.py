"""The AlphaZero network as a player and as what a search asks of it.

:class:`AlphaZeroPlays` is the player an :class:`~qarena.learn.alphazero.learner.AlphaZeroLearner`
plays as: greedy from its policy head, every row of a game's tables (or many positions) at
once in batches; :class:`AlphaZeroEvaluator` is its evaluator (``games.picking.Evaluator``):
its policy head's priors and its value head's value of a position, which ``mcts:N:FILE``
searches with, and its priors as move values for alpha-beta.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from qarena.games.base import Game, Move, Position
from qarena.games.picking import ByMoveValues, ChoosingPlayer, clipped, highest
from qarena.i18n import _, number
from qarena.learn.alphazero.net import PolicyValueNet, table_priors

if TYPE_CHECKING:
    from qarena.exact.space import GameTables


class AlphaZeroPlays(ChoosingPlayer):
    """The player a policy-value network plays as (``net``, of ``game``): the move its
    policy head ranks highest."""

    net: PolicyValueNet

    def as_evaluator(self) -> AlphaZeroEvaluator:
        """What a search asks of it: its heads' priors and value (:class:`AlphaZeroEvaluator`)."""
        return AlphaZeroEvaluator(self)

    def priors_value(self, position: Position) -> tuple[dict[Move, float], float]:
        """Its policy head's prior of each legal move and its value head's value of the
        position, for the player to move (−1 to +1): what a search guided by it reads."""
        game, grid = self.game, self.net.grid
        mover = game.to_move(position)
        board = np.asarray(position, dtype=np.int8).reshape(1, grid.cells)
        priors, values = self.net.evaluate(board, np.array([mover or 0], dtype=np.int8))
        return {m: float(priors[0, m]) for m in game.legal_moves(position)}, float(values[0])

    def values(self, position: Position) -> dict[Move, float]:
        """Each legal move's prior: the policy head's share for it."""
        if self.game.is_terminal(position):
            return {}
        return self.priors_value(position)[0]

    def act(self, position: Position) -> Move:
        """The move of the highest prior (the first of them in a tie)."""
        return self.choices(position)[0]

    def choices(self, position: Position) -> list[Move]:
        """The moves of the highest prior, in the game's order."""
        return highest(self.game, position, self.values(position))

    def table_choices(self, tables: GameTables, rows: np.ndarray | None = None) -> np.ndarray:
        """``mask[row, move]``: the moves of the highest prior in every row of ``tables`` (or
        in ``rows``, in their order), the rows' boards evaluated in batches (every position
        of a small board in minutes)."""
        live = np.flatnonzero(tables.live) if rows is None else rows
        movers = np.maximum(tables.mover[live], 0).astype(np.int8)
        priors = table_priors(self.net, tables.codes[live], movers, tables.game.radix)
        # Illegal moves have prior 0; a legal move's is above 0 unless its logit underflows.
        priors = np.where(tables.legal[live], priors, -1.0)
        chosen: np.ndarray = priors == priors.max(axis=1, keepdims=True)
        if rows is not None:
            return chosen
        mask = np.zeros_like(tables.legal)
        mask[live] = chosen
        return mask

    def choices_at(self, positions: Sequence[Position]) -> np.ndarray:
        """``mask[i, move]``: the moves of the highest prior at each of ``positions``, the
        boards evaluated in batches, as :meth:`table_choices` does for rows."""
        game = self.game
        codes = np.array([game.encode(p) for p in positions], dtype=np.int64)
        movers = np.array([game.to_move(p) or 0 for p in positions], dtype=np.int8)
        legal = np.zeros((len(positions), game.num_moves), dtype=bool)
        for i, position in enumerate(positions):
            legal[i, game.legal_moves(position)] = True
        priors = np.where(legal, table_priors(self.net, codes, movers, game.radix), -1.0)
        chosen: np.ndarray = priors == priors.max(axis=1, keepdims=True)
        return chosen

    @property
    def value_heading(self) -> str:
        """Its values are its policy head's priors."""
        return _("prior")

    def format_value(self, value: float, compact: bool = False) -> str:
        return number(value, ".0%" if compact else ".1%")

    def value_legend(self) -> str:
        return _(
            "The network's priors: its policy head's share for each move, summing to 100%. It "
            "plays the highest; as mcts:N:FILE its search starts from them."
        )


@dataclass
class AlphaZeroEvaluator(ByMoveValues):
    """An AlphaZero network as a search reads it: a position's value is its value head's
    (clipped), its moves' priors its policy head's, taken as they are; its move values (for
    alpha-beta) its priors."""

    player: AlphaZeroPlays

    @property
    def name(self) -> str:  # type: ignore[override]  # the player's, as it is named now
        return self.player.name

    @property
    def game(self) -> Game:  # type: ignore[override]
        return self.player.game

    def raw(self, position: Position) -> dict[Move, float]:
        return self.player.values(position)

    def evaluate(self, position: Position, moves: Sequence[Move]) -> tuple[float, list[float]]:
        priors, value = self.player.priors_value(position)
        return clipped(value), [priors.get(m, 0.0) for m in moves]


__all__ = ["AlphaZeroEvaluator", "AlphaZeroPlays"]
