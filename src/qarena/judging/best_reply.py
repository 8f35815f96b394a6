"""The best reply to a player: can it be beaten from the start, by anyone, and how?

Optimality asks how often a player's move keeps the value over every decision position; the
best reply asks what the strongest opponent, knowing the player's moves, can force against it
from the start, in each seat, and gives the line that forces it. The two can disagree sharply:
a table keeping the value in 93% of all positions can still lose from the start to an opponent
who steers into the other 7%. Ahmad, Sturtevant and Bowling call the first *strong* solution
strength (every position) and the second *weak* (from the start, against any opponent).

Exact on every board whose tables are enumerated: every state reachable against the player (a
position and who is to move) is visited once forward, asking the player only there, then
valued once backward (``kernels.reply``). A player that may play several moves at a position
(ties, a random player) is judged over every one of them, as optimality is: its worst counts.

On a board solved by search (classic Connect Four) there are no tables: a search for a line
that beats the player, within a budget of positions and seconds (``refutation.py``), which
says so when it finds none (``proved`` False), never "unbeatable" unproved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.opponents import move_mask, whole_mask
from qarena.agents.players import own_learner
from qarena.errors import QarenaError, echo_value
from qarena.exact import Exact, Oracle
from qarena.exact.search import SearchSolution
from qarena.exact.space import GameTables
from qarena.games.base import Move, Position
from qarena.i18n import _, option
from qarena.judging.refutation import (
    DEFAULT_POSITIONS,
    DEFAULT_SECONDS,
    Spent,
    check_budget,
    refute,
)
from qarena.judging.tables import move_values, tables_for
from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.reply import reach, secure

#: An outcome for the agent as words, as ``--json`` writes it.
OUTCOMES = {1: "win", 0: "draw", -1: "loss"}
SEATS: tuple[str, ...] = ("first", "second")


@dataclass(frozen=True)
class SeatReply:
    """The best reply to a player in one seat: ``value``, the start's game value for it;
    ``secured``, what it gets against the strongest opponent who knows its moves (+1 win,
    0 draw, -1 loss); ``line``, a game from the start to its end in which the opponent forces
    that (the player's moves its own; where it may play several, one that loses most);
    ``decisions``, the player's decision positions an opponent can reach against it (every
    position of a symmetry class counted), and ``kept`` of them where every move it may play
    keeps the value; ``states``, the (position, who moves) states searched; ``proved``, the
    answer is exact (a search stopped at its budget says False).

    On a board solved by search (``search`` then says what the search was given and spent,
    ``refutation.Spent``): ``secured`` is the outcome of the line, what the opponent can force
    at least (it may force less where the line ends in a draw); ``decisions`` the player's
    positions the search judged (every move it may play valued), ``kept`` of them where each
    keeps the value; ``states`` the positions it asked about; a line only where ``proved``."""

    seat: str
    value: int
    secured: int
    line: tuple[Move, ...]
    line_text: tuple[str, ...]
    decisions: int
    kept: int
    states: int
    proved: bool = True
    search: Spent | None = None

    @property
    def beaten(self) -> bool:
        """Whether an opponent can force an outcome worse for it than the start's value (a
        won start not won, a drawn start lost; a lost start is never beaten)."""
        return self.secured < self.value

    @property
    def share(self) -> float:
        """The share of its reachable decision positions where it keeps the value."""
        return self.kept / self.decisions if self.decisions else 1.0

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "value": OUTCOMES[self.value],
            "secured": OUTCOMES[self.secured],
            "beaten": self.beaten,
            "line": list(self.line_text),
            "proved": self.proved,
            "reachable_decisions": self.decisions,
            "reachable_kept": self.kept,
            "states": self.states,
        }
        if self.search is not None:
            # A search judges the positions it went through, not every reachable one.
            found.update(reachable_decisions=None, reachable_kept=None)
            found["search"] = {
                **self.search.to_json(),
                "judged": self.decisions,
                "judged_kept": self.kept,
            }
        return found


@dataclass(frozen=True)
class BestReply:
    """The best reply to a player in each seat it can take (:class:`SeatReply`)."""

    game: str
    seats: dict[str, SeatReply] = field(default_factory=dict)

    @property
    def unbeaten(self) -> bool:
        """Whether no opponent can beat it from the start in any seat, proved: False too where
        a search found no line that beats it within its budget (``proved`` False), which is
        no proof that none exists."""
        return all(s.proved and not s.beaten for s in self.seats.values())

    def to_json(self) -> dict[str, Any]:
        return {seat: reply.to_json() for seat, reply in self.seats.items()}

    def __repr__(self) -> str:
        parts = ", ".join(
            (
                f"{seat}: {OUTCOMES[r.value]}→{OUTCOMES[r.secured]}"
                + (f" by {' '.join(r.line_text)}" if r.beaten else "")
            )
            if r.proved
            else f"{seat}: {OUTCOMES[r.value]}, no line that beats it found"
            for seat, r in self.seats.items()
        )
        return f"BestReply({self.game}: {parts})"


def _asker(
    tables: GameTables, who: Player, moves: np.ndarray | None = None
) -> Callable[[np.ndarray], np.ndarray]:
    """The player's moves at given rows (``mask[i, move]``): ``moves`` where it was already
    asked at every row (judging asks once), its moves over every row read once where they
    follow from the tables (a trained table, perfect or random play), or the player asked at
    those rows alone (a search is asked only where play can go)."""
    if moves is not None:
        if moves.shape != tables.legal.shape:
            raise ValueError(f"moves of shape {moves.shape}, not the tables' {tables.legal.shape}")
        return lambda rows: moves[rows]
    whole = whole_mask(tables, who)
    if whole is not None:
        return lambda rows: whole[rows]
    return lambda rows: move_mask(tables, who, rows)


def check_seats(seats: object) -> tuple[str, ...]:
    """The seats asked for, in :data:`SEATS`' order: some of "first" and "second" (a list or
    tuple of them), or refused in one line."""
    if (
        isinstance(seats, list | tuple)
        and seats
        and all(isinstance(s, str) and s in SEATS for s in seats)
    ):
        return tuple(s for s in SEATS if s in seats)
    raise QarenaError(
        _('{flag} must name "first", "second" or both, not {value}').format(
            flag=option("seats"), value=echo_value(seats)
        )
    )


def _tables(who: Player) -> GameTables:
    """Its own tables for a trained table; else the game's, one row per position where it
    may play a position's images apart (``judging.tables.tables_for``)."""
    learner = own_learner(who)
    return learner.tables if learner is not None else tables_for(who)[0]


def _searched(
    who: Player,
    solution: Exact,
    seats: tuple[str, ...],
    start: Position | None,
    positions: int,
    seconds: float,
) -> BestReply:
    """The best reply on a board solved by search: a refutation searched in each seat
    (``refutation.py``), each within the budget."""
    if not isinstance(solution, SearchSolution):  # pragma: no cover - the oracle's route
        raise TypeError(f"a searched game's answers are a SearchSolution, not {solution!r}")
    game = who.game
    found = {}
    for seat in seats:
        r = refute(who, solution, seat == "first", positions, seconds, start)
        found[seat] = SeatReply(
            seat,
            r.value,
            r.secured,
            r.line,
            tuple(game.format_move(m) for m in r.line),
            r.judged,
            r.kept,
            r.spent.positions,
            proved=r.proved,
            search=r.spent,
        )
    return BestReply(game.spec, found)


def best_reply(
    who: Player,
    seats: tuple[str, ...] = SEATS,
    *,
    moves: np.ndarray | None = None,
    start: Position | None = None,
    positions: int = DEFAULT_POSITIONS,
    seconds: float = DEFAULT_SECONDS,
    certain: bool = False,
) -> BestReply:
    """The best reply to ``who`` in each of ``seats`` ("first", "second"), exactly, over the
    game's tables, or by a search for a refutation on a board solved by search (classic
    Connect Four: ``refutation.py``), within ``positions`` asked about and ``seconds`` in each
    seat (checked before any work; the tables ignore them). ``moves``: the moves it
    picks among in every row of the game's tables (``move_mask``), where they were already
    asked, so that a player judged is asked once and the reply is to the same moves.
    ``start``: from that position (one play can reach) instead of the game's start, "first"
    being then the seat to move there and the line starting there (what is left to force in a
    game under way: the web's game page). ``certain`` (over the tables): what the opponent
    forces whichever of its moves the player picks where it may play several (its best of
    them counts, and the line shows one), not what it can be led to (its worst counts, as
    judging counts it); the two differ only for a player with ties or random moves."""
    oracle = Oracle.of(who.game)
    if oracle.searched:
        check_budget(positions, seconds)
        return _searched(who, oracle.exact(), seats, start, positions, seconds)
    tables = _tables(who)
    ask = _asker(tables, who, moves)
    found = {seat: _seat_reply(tables, ask, seat, start, certain) for seat in seats}
    return BestReply(tables.game.spec, found)


@dataclass
class _Searched:
    """One seat's search over the tables: the agent's moves where it was asked, the states
    reached (agent to move, opponent to move), and each state's outcome forced and plies."""

    agent: np.ndarray
    seen_a: np.ndarray
    seen_o: np.ndarray
    agents: tuple[np.ndarray, np.ndarray]
    opponents: tuple[np.ndarray, np.ndarray]
    value: int
    secured: int


def _search(
    tables: GameTables,
    ask: Callable[[np.ndarray], np.ndarray],
    first: bool,
    at: int,
    certain: bool = False,
) -> _Searched:
    rows, live, legal = tables.rows, tables.live, tables.legal
    nxt = np.ascontiguousarray(tables.nxt)
    result = np.ascontiguousarray(tables.result)
    agent = np.zeros(legal.shape, dtype=np.bool_)
    asked = np.zeros(rows, dtype=np.bool_)
    seen_a = np.zeros(rows, dtype=np.bool_)
    seen_o = np.zeros(rows, dtype=np.bool_)
    start = np.array([at], dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    frontier_a, frontier_o = (start, empty) if first else (empty, start)
    (seen_a if first else seen_o)[at] = True
    while frontier_a.size or frontier_o.size:
        threads.check()
        need = frontier_a[live[frontier_a] & ~asked[frontier_a]]
        if need.size:
            mask = ask(need) & legal[need]
            # A player that names no legal move somewhere may play any of them there.
            none = ~mask.any(axis=1)
            mask[none] = legal[need][none]
            agent[need] = mask
            asked[need] = True
        frontier_a, frontier_o = reach(
            nxt, result, agent, asked, frontier_a, frontier_o, seen_a, seen_o
        )
    out_a = np.full(rows, 2, dtype=np.int8)
    out_o = np.full(rows, 2, dtype=np.int8)
    plies_a = np.zeros(rows, dtype=np.int32)
    plies_o = np.zeros(rows, dtype=np.int32)
    secure(
        nxt, result, tables.order, agent, seen_a, seen_o, out_a, out_o, plies_a, plies_o, certain
    )
    start_value = int(tables.value[at])
    return _Searched(
        agent,
        seen_a,
        seen_o,
        (out_a, plies_a),
        (out_o, plies_o),
        start_value if first else -start_value,
        int(out_a[at] if first else out_o[at]),
    )


def _seat_reply(
    tables: GameTables,
    ask: Callable[[np.ndarray], np.ndarray],
    seat: str,
    begin: Position | None = None,
    certain: bool = False,
) -> SeatReply:
    first = seat == "first"
    at = tables.start if begin is None else tables.row_of(begin)
    found = _search(tables, ask, first, at, certain)
    line = _line(tables, found.agent, found.agents, found.opponents, first, begin)
    decisions, kept = _kept(tables, found.agent, found.seen_a)
    return SeatReply(
        seat,
        found.value,
        found.secured,
        line,
        tuple(tables.game.format_move(m) for m in line),
        decisions,
        kept,
        int(found.seen_a.sum() + found.seen_o.sum()),
    )


def unbeaten(who: Player, *, moves: np.ndarray | None = None) -> tuple[bool, bool]:
    """Whether no opponent who knows ``who``'s moves can beat it from the start moving first,
    and moving second: :func:`best_reply`'s verdicts alone, over the tables (no line, no
    counts: what a learning curve records at each point)."""
    tables = _tables(who)
    ask = _asker(tables, who, moves)
    verdicts = []
    for first in (True, False):
        found = _search(tables, ask, first, tables.start)
        verdicts.append(found.secured >= found.value)
    return verdicts[0], verdicts[1]


def _line(
    tables: GameTables,
    agent: np.ndarray,
    agents: tuple[np.ndarray, np.ndarray],
    opponents: tuple[np.ndarray, np.ndarray],
    agent_first: bool,
    begin: Position | None = None,
) -> tuple[Move, ...]:
    """The shortest game from ``begin`` (default: the start) in which every move keeps the
    outcome the opponent forces: the opponent's, its best; the agent's, one it may play that
    keeps it (its worst, or with ``certain`` its best)."""
    game = tables.game
    position = game.start() if begin is None else begin
    agents_turn = agent_first
    line: list[Move] = []
    while not game.is_terminal(position):
        row, frame = tables.frame(position)
        (here, here_plies), (there, there_plies) = (
            (agents, opponents) if agents_turn else (opponents, agents)
        )
        for move in game.legal_moves(position):
            m = frame[move]
            if agents_turn and not agent[row, m]:
                continue
            child = tables.nxt[row, m]
            if there[child] == here[row] and there_plies[child] + 1 == here_plies[row]:
                break
        else:  # pragma: no cover - the backward pass found the outcome through some move
            raise AssertionError("no move keeps the outcome")
        line.append(move)
        position = game.apply(position, move)
        agents_turn = not agents_turn
    return tuple(line)


def _kept(tables: GameTables, agent: np.ndarray, seen_a: np.ndarray) -> tuple[int, int]:
    """The decision positions among the agent's reachable ones (moves of more than one value,
    each position of a class counted), and those where every move it may play keeps the
    value."""
    rows = np.flatnonzero(seen_a & (tables.result == NOT_TERMINAL))
    if rows.size == 0:
        return 0, 0
    mv = move_values(tables, rows)
    best, worst = np.nanmax(mv, axis=1), np.nanmin(mv, axis=1)
    decide = best != worst
    rows, mv, best = rows[decide], mv[decide], best[decide]
    ok = np.all(~agent[rows] | (mv == best[:, None]), axis=1)
    weight = tables.orbit[rows].astype(np.int64)
    return int(weight.sum()), int(weight[ok].sum())


__all__ = [
    "OUTCOMES",
    "SEATS",
    "BestReply",
    "SeatReply",
    "best_reply",
    "check_seats",
    "unbeaten",
]
