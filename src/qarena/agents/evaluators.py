"""What a search asks of a value, for any player: :func:`evaluator_for` makes the one
:class:`~qarena.games.picking.Evaluator` a search player reads.

A player that answers a search itself says so (``as_evaluator``: an n-tuple network, whose
boards a search values and whose arrays the compiled MCTS reads; an AlphaZero network, its
priors and value head); any other (a table learner's agent, perfect play, a function) is read
from its move values (:class:`MoveValues`). Random rollouts are an evaluator too
(:class:`Rollouts`): MCTS's leaves without a file.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from qarena.agents.base import Player
from qarena.games.base import Game, Move, Position
from qarena.games.picking import ByMoveValues, Evaluator


@dataclass
class MoveValues(ByMoveValues):
    """Any player's move values as an evaluator (:class:`ByMoveValues`): a table learner's
    agent, perfect play, a person's function."""

    player: Player

    @property
    def name(self) -> str:  # type: ignore[override]  # the player's, as it is named now
        return self.player.name

    @property
    def game(self) -> Game:  # type: ignore[override]
        return self.player.game

    def raw(self, position: Position) -> dict[Move, float] | None:
        return self.player.values(position)


@dataclass
class Rollouts:
    """Random rollouts as an evaluator: a position's value for its mover is the result of one
    game played on from it by uniformly random moves, drawn from ``rng`` (the search's own
    generator); no priors (a search over them explores by UCB1), no board values."""

    game: Game
    rng: random.Random
    name: str = "rollouts"
    gives_priors = False

    def evaluate(self, position: Position, moves: Sequence[Move]) -> tuple[float, list[float]]:
        game = self.game
        legal, apply = game.legal_moves, game._apply_unchecked
        rnd = self.rng.random
        sign = 1.0
        while moves:
            position = apply(position, moves[int(rnd() * len(moves))])
            moves = legal(position)
            sign = -sign
        return sign * game.result(position), []

    def move_values(self, position: Position) -> dict[Move, float]:
        """Each legal move's value for its maker: one rollout from the position it leaves."""
        game = self.game
        out: dict[Move, float] = {}
        for move in game.legal_moves(position):
            after = game.apply(position, move)
            moves = game.legal_moves(after)
            out[move] = -self.evaluate(after, moves)[0] if moves else -float(game.result(after))
        return out

    def board_value(self, position: Position) -> float | None:
        return None

    @property
    def compiled(self) -> None:
        return None


def evaluator_for(who: Player | Evaluator) -> Evaluator:
    """What a search reads of ``who``: an evaluator as it is; a player's own evaluator where
    it has one (``as_evaluator``), else its move values (:class:`MoveValues`)."""
    if isinstance(who, Evaluator):  # the protocol, not a class: any evaluator passes
        return who
    own = who.as_evaluator()
    return own if own is not None else MoveValues(who)


__all__ = ["Evaluator", "MoveValues", "Rollouts", "evaluator_for"]
