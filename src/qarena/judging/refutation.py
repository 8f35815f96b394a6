"""The best reply on boards solved by search (classic Connect Four): a search for a refutation,
within a budget of positions and seconds.

There are no tables to walk, so the search looks for one line that beats the player. From the
start, the opponent's moves branch and the player's are its own (every move it may play: its
ties where it tells them, else the move it makes). At each of the player's positions the
solver (``exact.search.SearchSolution``: the transposition table, the opening book) values what
each of its moves leaves: a move that leaves it less than the start's value gives the value
away, and from there the opponent, keeping its own value by perfect play, forces at least that
against any resistance. That is a proof the player is beaten, and the line is played on to the
end: the opponent's moves keeping its value, the player's the one of its own that leaves it
least. ``secured`` is that line's outcome for the player: what the opponent can force at
least. Where the player may play several moves, the worst counts, as over the tables; a later
mistake the search did not look for could cost it more still, so ``secured`` is a bound where
it is not a loss.

The search deepens iteratively over both sides' choices (limited discrepancy search): first one
line to the end of the game, each side's first move everywhere (the player's first it may play,
the opponent's nearest the centre, as strong players play); then the lines that leave it once
for a second choice, and so on, the n-th move at a position costing n - 1 of the slack. Deep
positions, where agents err and the solver answers at once, come first; early ones, slow to
solve, are shared by every line. Each position's answers are kept, so a position reached again
(by another order of moves, or in the next round) costs nothing new. The opponent's moves
searched are those that keep its value: where it is lost, every move; where it is not, perfect
play's. So a search that goes over every line to its end without a mistake proves the player
unbeaten where its start is won, and not elsewhere (``proved`` stays False). A search that stops
at its budget says so: ``proved`` False and what it spent, never a silent "unbeatable".
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from qarena import threads
from qarena.agents.base import Player
from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.exact.search import SearchSolution
from qarena.games.base import LOSS, WIN, Game, Move, Position
from qarena.i18n import _, option

#: The budget a search is given unless told: positions asked about, and seconds.
DEFAULT_POSITIONS = 100_000
DEFAULT_SECONDS = 60.0
#: The largest budget it takes: ten million positions (memory allowing), a day.
MAX_POSITIONS = 10_000_000
MAX_SECONDS = 86_400.0
#: Bytes the search keeps for each position it asked about, at most: the position as a tuple
#: (42 cells of classic Connect Four), its entries in the dictionaries of answers, the answers.
POSITION_BYTES = 1_024
#: ``done`` for a position below which every line was searched to its end.
_WHOLE = 1 << 30


def check_budget(positions: int, seconds: float) -> tuple[int, float]:
    """The budget, checked before any work starts: ``positions`` a whole number from 1 to
    :data:`MAX_POSITIONS` whose answers memory can hold, ``seconds`` a number above 0 and at
    most :data:`MAX_SECONDS`. Refused in one line naming the option."""
    check_count("--positions", positions, MAX_POSITIONS)  # a whole number, or refused
    need = int(positions) * POSITION_BYTES
    if need > memory_budget():
        raise TooLargeError(
            _(
                "a search of {positions:,} positions keeps up to {need}, more than this machine "
                "can spare ({budget}); give a smaller {flag}"
            ).format(
                positions=int(positions),
                need=format_bytes(need),
                budget=format_bytes(memory_budget()),
                flag=option("--positions"),
            )
        )
    return int(positions), check_seconds(seconds)


def check_seconds(seconds: object, flag: str = "--seconds", *, zero: bool = False) -> float:
    """A search's budget of ``seconds``, a number above 0 (or 0 itself, where ``zero`` lets it
    mean no search) and at most :data:`MAX_SECONDS`; refused in one line naming ``flag``."""
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, numbers.Real)
        or not math.isfinite(float(seconds))
        or not (float(seconds) >= 0 if zero else float(seconds) > 0)
        or float(seconds) > MAX_SECONDS
    ):
        text = (
            _("{flag} must be a number of seconds from 0 to {most:,}, not {value}")
            if zero
            else _("{flag} must be a number of seconds above 0 and at most {most:,}, not {value}")
        )
        raise QarenaError(
            text.format(flag=option(flag), most=int(MAX_SECONDS), value=str(seconds)[:40])
        )
    return float(seconds)


@dataclass(frozen=True)
class Spent:
    """What a refutation search was given and what it spent: ``positions`` the positions it
    asked the player or the solver about (the line played on to the end included), within
    ``max_positions``; ``seconds`` of wall time (the start's value and the line played on to
    the end included), the search itself within ``max_seconds``; ``whole``, whether it went
    over every line it searches to the end (no budget stopped it)."""

    positions: int
    seconds: float
    max_positions: int
    max_seconds: float
    whole: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "positions": self.positions,
            "seconds": round(self.seconds, 3),
            "max_positions": self.max_positions,
            "max_seconds": self.max_seconds,
            "whole": self.whole,
        }


@dataclass(frozen=True)
class Refutation:
    """A search's answer in one seat: ``value`` the start's value for the player, ``secured``
    the outcome of ``line`` for it (what the opponent can force at least where the line beats
    it), ``proved`` whether the answer is a proof (a line that beats it, or a won start held on
    every line), ``judged`` the player's positions whose every move it may play was valued, and
    ``kept`` of them where each keeps the value, and ``spent``."""

    value: int
    secured: int
    line: tuple[Move, ...]
    proved: bool
    judged: int
    kept: int
    spent: Spent


class _OutOfPositions(Exception):
    """The search asked about as many positions as its budget allows."""


@dataclass
class _Search:
    who: Player
    solution: SearchSolution
    most: int
    #: The player's moves at each of its positions, in the game's order.
    moves: dict[Position, tuple[Move, ...]] = field(default_factory=dict)
    #: Each position's value (WIN, DRAW, LOSS) for the player to move there.
    signs: dict[Position, int] = field(default_factory=dict)
    #: The opponent's moves searched at each of its positions.
    replies: dict[Position, tuple[Move, ...]] = field(default_factory=dict)
    #: The slack (:meth:`agent`) with which a position was searched without a mistake found;
    #: ``_WHOLE`` where every line below it reached the end.
    done: dict[Position, int] = field(default_factory=dict)
    #: Whether the budget of positions holds (not while the line is played on to the end).
    bounded: bool = True

    @property
    def positions(self) -> int:
        return len(self.moves) + len(self.signs)

    def _room(self) -> None:
        if self.bounded and self.positions >= self.most:
            raise _OutOfPositions
        threads.check()

    def sign(self, position: Position) -> int:
        found = self.signs.get(position)
        if found is None:
            self._room()
            found = self.signs[position] = self.solution.sign(position)
        return found

    def own_moves(self, position: Position) -> tuple[Move, ...]:
        """The moves the player may play here (its ties where it tells them, else the one it
        makes; any legal move where it names none, as over the tables)."""
        found = self.moves.get(position)
        if found is None:
            self._room()
            who, legal = self.who, self.solution.game.legal_moves(position)
            choices = getattr(who, "choices", None)
            named = set(choices(position) if callable(choices) else [who.act(position)])
            found = tuple(m for m in legal if m in named) or tuple(legal)
            self.moves[position] = found
        return found

    def opponent_moves(self, position: Position, value: int) -> tuple[Move, ...]:
        """The opponent's moves searched where the player's value is ``value``: every move
        where the opponent is lost, else those that keep its value; the central ones first,
        as strong players play them."""
        found = self.replies.get(position)
        if found is None:
            game = self.solution.game
            if value == WIN:
                moves = game.legal_moves(position)
            else:
                moves = self.solution.optimal_moves(position)
            found = self.replies[position] = centre_first(game, moves)
        return found

    def agent(
        self, position: Position, slack: int, value: int
    ) -> tuple[list[Move] | None, int, bool]:
        """From a position of the player's, its value ``value``, with ``slack`` for moves past
        the first of each side (the n-th costs n - 1): (the moves to its first mistake found,
        the mistake last, or None; its value after that move; whether every line below was
        searched to its end). Every move it may play here is valued first, whatever the
        slack: the mistake nearest the root is the one to find."""
        known = self.done.get(position, -1)
        if known >= slack:
            return None, value, known == _WHOLE
        game = self.solution.game
        moves = self.own_moves(position)
        for move in moves:
            after = -self.sign(game.apply(position, move))
            if after < value:
                return [move], after, True
        line, after, whole = self._branch(position, moves, slack, value, self.opponent)
        if line is None:
            self.done[position] = _WHOLE if whole else slack
        return line, after, whole

    def opponent(
        self, position: Position, slack: int, value: int
    ) -> tuple[list[Move] | None, int, bool]:
        """From a position of the opponent's, the player's value ``value``: as :meth:`agent`,
        over the opponent's moves searched, the most promising first."""
        return self._branch(
            position, self.opponent_moves(position, value), slack, value, self.agent
        )

    def _branch(
        self,
        position: Position,
        moves: Sequence[Move],
        slack: int,
        value: int,
        below: Callable[[Position, int, int], tuple[list[Move] | None, int, bool]],
    ) -> tuple[list[Move] | None, int, bool]:
        """Each of ``moves`` in turn, the n-th costing n - 1 of the ``slack``, searched on by
        ``below`` (the other side's search): the first line found, with the move before it;
        else none, and whether every line was searched to its end."""
        game = self.solution.game
        whole = True
        for cost, move in enumerate(moves):
            child = game.apply(position, move)
            if game.is_terminal(child):
                continue
            if cost > slack:
                whole = False
                break
            line, after, searched = below(child, slack - cost, value)
            if line is not None:
                return [move, *line], after, True
            whole = whole and searched
        return None, value, whole

    def play_on(self, position: Position, agents_turn: bool, value: int) -> list[Move]:
        """The game from ``position``, where the player's value is ``value``, to its end: the
        opponent's moves each the first, the central ones first, that keeps its own value; the
        player's the one of its own that leaves it least (the first of those), or where it is
        lost already (none can leave it less) its first. Each is one search or none, where the
        strongest moves would take exact scores, far slower on an early position."""
        game = self.solution.game
        line: list[Move] = []
        while not game.is_terminal(position):
            threads.check()
            if agents_turn:
                moves = self.own_moves(position)
                if value == LOSS:
                    move = moves[0]
                else:
                    move = min(moves, key=lambda m: -self.sign(game.apply(position, m)))
                    value = -self.sign(game.apply(position, move))
            else:
                for move in centre_first(game, game.legal_moves(position)):
                    if self.sign(game.apply(position, move)) <= value:
                        break
                else:  # pragma: no cover - the position's value is one of its moves'
                    raise AssertionError("no move keeps the opponent's value")
            line.append(move)
            position = game.apply(position, move)
            agents_turn = not agents_turn
        return line


def centre_first(game: Game, moves: Sequence[Move]) -> tuple[Move, ...]:
    """``moves`` nearest the board's centre first (a column on a board where pieces drop, else
    a cell), ties in the game's order; as they are on a game without a board."""
    grid = game.grid
    if grid is None:
        return tuple(moves)
    if grid.gravity:
        return tuple(sorted(moves, key=lambda m: abs(2 * m - (grid.cols - 1))))

    def far(cell: Move) -> int:
        r, c = divmod(cell, grid.cols)
        return abs(2 * r - (grid.rows - 1)) + abs(2 * c - (grid.cols - 1))

    return tuple(sorted(moves, key=far))


def _outcome(game_result: int, agents_turn: bool) -> int:
    """The end's result for the player: the game's is for the side to move there."""
    return game_result if agents_turn else -game_result


def _deepen(
    search: _Search, at: Position, agent_first: bool, value: int, seconds: float
) -> tuple[list[Move] | None, bool]:
    """Search with more slack each time (0: one line, each side's first move everywhere; then
    lines that leave it once for a second choice, ...), until a line that beats the player is
    found, every line reached its end, or the budget ran out: (the line to the player's
    mistake or None, whether every line reached its end)."""
    found: list[Move] | None = None
    whole = False
    with threads.limit(seconds=seconds) as mine:
        try:
            slack = 0
            while True:
                if agent_first:
                    found, _after, whole = search.agent(at, slack, value)
                else:
                    found, _after, whole = search.opponent(at, slack, value)
                if found is not None or whole:
                    break
                slack += 1
        except _OutOfPositions:
            pass
        except threads.Stopped as stop:
            # Our own deadline ends the search; an outer limit (a web request's, a run's
            # stop) ends the whole work, as it asks.
            if stop.why != "time" or (mine.outer is not None and mine.outer.reached()):
                raise
    return found, whole


def refute(
    who: Player,
    solution: SearchSolution,
    agent_first: bool,
    positions: int = DEFAULT_POSITIONS,
    seconds: float = DEFAULT_SECONDS,
    start: Position | None = None,
) -> Refutation:
    """Search for a line that beats ``who`` from ``start`` (the game's start unless given), it
    to move there when ``agent_first``, within ``positions`` and ``seconds`` (checked by
    :func:`check_budget`). The start's value is found first and the line that beats it is
    played on to the end after: neither is held to the budget (each a few searches)."""
    positions, seconds = check_budget(positions, seconds)
    game = solution.game
    began = time.monotonic()
    search = _Search(who, solution, positions)
    at = game.start() if start is None else start
    if game.is_terminal(at):
        raise QarenaError(
            _("{position} is finished; there is no move to make").format(
                position=game.format_position(at)
            )
        )
    search.bounded = False
    here = search.sign(at)
    search.bounded = True
    value = here if agent_first else -here
    found: list[Move] | None = None
    whole = False
    if value > LOSS:  # a lost start is never beaten: nothing to search
        found, whole = _deepen(search, at, agent_first, value, seconds)
    search.bounded = False
    judged = len(search.moves)
    kept = judged - (found is not None)
    if found is not None:
        position = at
        for move in found:
            position = game.apply(position, move)
        # The mistake was the player's move: the opponent moves next.
        line = [*found, *search.play_on(position, False, -search.sign(position))]
        proved = True
    elif value == LOSS or (whole and value == WIN):
        line = search.play_on(at, agent_first, value)
        proved = True
    else:
        line = []
        proved = False
    if line:
        position = at
        for move in line:
            position = game.apply(position, move)
        secured = _outcome(game.result(position), agent_first == (len(line) % 2 == 0))
    else:
        secured = value
    whole = whole and found is None  # a line found ends the search before the rest
    spent = Spent(search.positions, time.monotonic() - began, positions, seconds, whole)
    return Refutation(value, secured, tuple(line), proved, judged, kept, spent)


__all__ = [
    "DEFAULT_POSITIONS",
    "DEFAULT_SECONDS",
    "MAX_POSITIONS",
    "MAX_SECONDS",
    "Refutation",
    "Spent",
    "check_budget",
    "check_seconds",
    "refute",
]
