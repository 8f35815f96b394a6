"""The exact solver: game-theoretic value and optimal moves of every reachable position."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple, Protocol

from qarena.exact.space import GameTables, game_tables
from qarena.games.base import DRAW, LOSS, WIN, Game, Move, Position, value_name, value_word
from qarena.i18n import _, ngettext
from qarena.kernels.constants import NOT_TERMINAL

#: Who makes a move, for words spoken to a person playing the AI.
Mover = Literal["human", "ai"]


class Outcome(NamedTuple):
    """Where a move leads with best play from then on: its ``value`` for the player making it
    (1 win, 0 draw, -1 loss) and the ``plies`` to the end, the move itself the first."""

    value: int
    plies: int

    @property
    def moves(self) -> int:
        """The winner's moves to the end, this one counted when the mover wins (0: a draw)."""
        if self.value == DRAW:
            return 0
        return (self.plies + 1) // 2 if self.value == WIN else self.plies // 2

    def words(self, mover: Mover = "human") -> str:
        """For people, from the side of ``mover``, who makes the move: "win in 3 of your
        moves", "loss in 2 of the AI's moves", "draw". The count is the winner's moves to
        the end (in a misère game the loser makes the last one)."""
        n = self.moves
        if self.value == DRAW:
            return value_word(DRAW)
        # Not plural forms: in some languages the "one" form also serves 21, 31, ...
        if self.plies == 1:
            return _("win with this move") if self.value == WIN else _("loss with this move")
        you_win = (self.value == WIN) == (mover == "human")
        if self.value == LOSS and self.plies == 2:
            return _("loss: you win next move") if you_win else _("loss: the AI wins next move")
        if self.value == WIN:
            text = (
                ngettext("win in {count} of your moves", "win in {count} of your moves", n)
                if you_win
                else ngettext("win in {count} of its moves", "win in {count} of its moves", n)
            )
        elif you_win:
            text = ngettext("loss in {count} of your moves", "loss in {count} of your moves", n)
        else:
            text = ngettext(
                "loss in {count} of the AI's moves", "loss in {count} of the AI's moves", n
            )
        return text.format(count=n)


class Exact(Protocol):
    """What the rest of qarena asks of a solver, whether it enumerated every position
    (:class:`Solution`) or searches one position at a time (``solve.search.SearchSolution``,
    for boards too big to enumerate)."""

    @property
    def game(self) -> Game: ...

    def is_reachable(self, position: Position) -> bool: ...

    def value_of(self, position: Position) -> int: ...

    def depth_of(self, position: Position) -> int: ...

    def move_values(self, position: Position) -> dict[Move, int]: ...

    def optimal_moves(self, position: Position) -> list[Move]: ...

    def move_outcomes(self, position: Position) -> dict[Move, Outcome]: ...


@dataclass(frozen=True, eq=False)
class Solution:
    """Values of every position reachable from the start, from the mover's side, read off the
    game's canonical tables (symmetric positions share their value).

    ``value_of`` is 1 (win), 0 (draw) or -1 (loss); ``depth_of`` the number of plies to the end
    when the winner hurries and the loser holds out.
    """

    game: Game
    tables: GameTables
    positions: int
    terminal_positions: int

    def is_reachable(self, position: Position) -> bool:
        return self.tables.find(position) >= 0

    def value_of(self, position: Position) -> int:
        """WIN, DRAW or LOSS for the player to move, with best play by both."""
        return int(self.tables.value[self.tables.row_of(position)])

    def depth_of(self, position: Position) -> int:
        """Plies to the end with best play (quick wins, slow losses)."""
        return int(self.tables.depth[self.tables.row_of(position)])

    def move_values(self, position: Position) -> dict[Move, int]:
        """For each legal move, the value it leaves the mover (WIN keeps a won game won)."""
        t = self.tables
        row, frame = t.frame(position)
        return {m: -int(t.value[t.nxt[row, f]]) for m, f in frame.items()}

    def move_outcomes(self, position: Position) -> dict[Move, Outcome]:
        """For each legal move, its value for the mover and the plies to the end with it."""
        t = self.tables
        row, frame = t.frame(position)
        return {
            m: Outcome(-int(t.value[t.nxt[row, f]]), 1 + int(t.depth[t.nxt[row, f]]))
            for m, f in frame.items()
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
        return int(self.tables.value[self.tables.start])

    def __repr__(self) -> str:
        start = self.game.start()
        return (
            f"Solution({self.game.spec}: {value_name(self.value_of(start))} for the first "
            f"player in {self.depth_of(start)} plies with best play; "
            f"{self.positions:,} positions reachable)"
        )


@lru_cache(maxsize=4)
def solve(game: Game) -> Solution:
    """Solve ``game`` once per process (later calls return the cached Solution).

    Raises TooLargeError, before allocating, when the tables would not fit in memory.
    """
    t = game_tables(game, True)
    terminal = int(t.orbit[t.result != NOT_TERMINAL].sum())
    return Solution(game, t, t.positions, terminal)
