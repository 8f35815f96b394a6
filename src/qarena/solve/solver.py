"""The exact solver: game-theoretic value and optimal moves of every reachable position."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from qarena.budget import SOLVER_PER_POSITION, check_memory
from qarena.errors import PositionError, TooLargeError
from qarena.games.base import Game, Move, Position
from qarena.kernels.constants import UNREACHED
from qarena.kernels.solve import solve_tables

#: Depths are stored as uint16.
MAX_PLIES = 2**16 - 1


def solver_bytes(game: Game) -> int:
    """Bytes the solver's tables take for this game."""
    return game.num_positions * SOLVER_PER_POSITION


def check_fits(game: Game) -> None:
    """Refuse, before anything is allocated, a game too large to solve here."""
    check_memory(game, "solve")
    if game.max_plies > MAX_PLIES:
        raise TooLargeError(
            f"{game.spec} is too large: games can last {game.max_plies:,} moves; "
            f"the solver handles at most {MAX_PLIES:,}"
        )


@dataclass(frozen=True, eq=False)
class Solution:
    """Values of every position reachable from the start, from the mover's side.

    ``value[code]`` is 1 (win), 0 (draw), -1 (loss), or UNREACHED; ``depth[code]`` is the number
    of plies to the end when the winner hurries and the loser holds out.
    """

    game: Game
    value: np.ndarray
    depth: np.ndarray
    positions: int
    terminal_positions: int

    def _code(self, position: Position) -> int:
        code = self.game.encode(position)
        if self.value[code] == UNREACHED:
            raise PositionError(
                f"{self.game.format_position(position)} cannot be reached from the start "
                f"of {self.game.spec}"
            )
        return code

    def is_reachable(self, position: Position) -> bool:
        return bool(self.value[self.game.encode(position)] != UNREACHED)

    def value_of(self, position: Position) -> int:
        """WIN, DRAW or LOSS for the player to move, with best play by both."""
        return int(self.value[self._code(position)])

    def depth_of(self, position: Position) -> int:
        """Plies to the end with best play (quick wins, slow losses)."""
        return int(self.depth[self._code(position)])

    def move_values(self, position: Position) -> dict[Move, int]:
        """For each legal move, the value it leaves the mover (WIN keeps a won game won)."""
        self._code(position)
        game = self.game
        return {
            m: -int(self.value[game.encode(game._apply_unchecked(position, m))])
            for m in game.legal_moves(position)
        }

    def optimal_moves(self, position: Position) -> list[Move]:
        """The legal moves that keep the position's value; empty at terminal positions."""
        values = self.move_values(position)
        if not values:
            return []
        best = max(values.values())
        return [m for m, v in values.items() if v == best]

    @property
    def start_value(self) -> int:
        return self.value_of(self.game.start())


@lru_cache(maxsize=4)
def solve(game: Game) -> Solution:
    """Solve ``game`` once per process (later calls return the cached Solution).

    Raises TooLargeError, before allocating, when the tables would not fit in memory.
    """
    check_fits(game)
    n = game.num_positions
    value = np.empty(n, dtype=np.int8)
    depth = np.empty(n, dtype=np.uint16)
    reachable, terminal = solve_tables(game.arrays(), value, depth)
    value.flags.writeable = False
    depth.flags.writeable = False
    return Solution(game, value, depth, int(reachable), int(terminal))
