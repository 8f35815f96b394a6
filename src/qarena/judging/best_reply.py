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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.opponents import move_mask
from qarena.agents.players import own_learner
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.exact.space import GameTables, game_tables
from qarena.games.base import Move
from qarena.i18n import _
from qarena.judging.tables import move_values
from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.reply import reach, secure

#: An outcome for the agent as words, as ``--json`` writes it.
OUTCOMES = {1: "win", 0: "draw", -1: "loss"}
SEATS = ("first", "second")


@dataclass(frozen=True)
class SeatReply:
    """The best reply to a player in one seat: ``value``, the start's game value for it;
    ``secured``, what it gets against the strongest opponent who knows its moves (+1 win,
    0 draw, -1 loss); ``line``, a game from the start to its end in which the opponent forces
    that (the player's moves its own; where it may play several, one that loses most);
    ``decisions``, the player's decision positions an opponent can reach against it (every
    position of a symmetry class counted), and ``kept`` of them where every move it may play
    keeps the value; ``states``, the (position, who moves) states searched; ``proved``, the
    answer is exact (a search stopped at its budget would say False)."""

    seat: str
    value: int
    secured: int
    line: tuple[Move, ...]
    line_text: tuple[str, ...]
    decisions: int
    kept: int
    states: int
    proved: bool = True

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
        return {
            "value": OUTCOMES[self.value],
            "secured": OUTCOMES[self.secured],
            "beaten": self.beaten,
            "line": list(self.line_text),
            "proved": self.proved,
            "reachable_decisions": self.decisions,
            "reachable_kept": self.kept,
            "states": self.states,
        }


@dataclass(frozen=True)
class BestReply:
    """The best reply to a player in each seat it can take (:class:`SeatReply`)."""

    game: str
    seats: dict[str, SeatReply] = field(default_factory=dict)

    @property
    def unbeaten(self) -> bool:
        """Whether no opponent can beat it from the start in any seat."""
        return not any(s.beaten for s in self.seats.values())

    def to_json(self) -> dict[str, Any]:
        return {seat: reply.to_json() for seat, reply in self.seats.items()}

    def __repr__(self) -> str:
        parts = ", ".join(
            f"{seat}: {OUTCOMES[r.value]}→{OUTCOMES[r.secured]}"
            + (f" by {' '.join(r.line_text)}" if r.beaten else "")
            for seat, r in self.seats.items()
        )
        return f"BestReply({self.game}: {parts})"


def _asker(tables: GameTables, who: Player) -> Callable[[np.ndarray], np.ndarray]:
    """The player's moves at given rows (``mask[i, move]``): a trained table's own, read once,
    or the player asked at those rows alone (a search is asked only where play can go)."""
    learner = own_learner(who)
    if learner is not None and learner.tables is tables:
        whole = learner.best_moves()
        return lambda rows: whole[rows]
    return lambda rows: move_mask(tables, who, rows)


def _tables(who: Player) -> GameTables:
    game = who.game
    oracle = Oracle.of(game)
    if oracle.searched:
        raise QarenaError(
            _(
                "the best reply is computed over a game's tables, and {spec} is solved by "
                "search here; expected a board whose tables fit (tic-tac-toe, Nim, Connect Four "
                "up to 5×5)"
            ).format(spec=game.spec)
        )
    learner = own_learner(who)
    return learner.tables if learner is not None else game_tables(game)


def best_reply(who: Player, seats: tuple[str, ...] = SEATS) -> BestReply:
    """The best reply to ``who`` in each of ``seats`` ("first", "second"), exactly, over the
    game's tables (a game solved by search is refused in one line)."""
    tables = _tables(who)
    ask = _asker(tables, who)
    found = {seat: _seat_reply(tables, ask, seat) for seat in seats}
    return BestReply(tables.game.spec, found)


def _seat_reply(
    tables: GameTables, ask: Callable[[np.ndarray], np.ndarray], seat: str
) -> SeatReply:
    rows, live, legal = tables.rows, tables.live, tables.legal
    nxt = np.ascontiguousarray(tables.nxt)
    result = np.ascontiguousarray(tables.result)
    agent = np.zeros(legal.shape, dtype=np.bool_)
    asked = np.zeros(rows, dtype=np.bool_)
    seen_a = np.zeros(rows, dtype=np.bool_)
    seen_o = np.zeros(rows, dtype=np.bool_)
    start = np.array([tables.start], dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    first = seat == "first"
    frontier_a, frontier_o = (start, empty) if first else (empty, start)
    (seen_a if first else seen_o)[tables.start] = True
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
    secure(nxt, result, tables.order, agent, seen_a, seen_o, out_a, out_o, plies_a, plies_o)
    start_value = int(tables.value[tables.start])
    value = start_value if first else -start_value
    secured = int(out_a[tables.start] if first else out_o[tables.start])
    line = _line(tables, agent, (out_a, plies_a), (out_o, plies_o), first)
    decisions, kept = _kept(tables, agent, seen_a)
    return SeatReply(
        seat,
        value,
        secured,
        line,
        tuple(tables.game.format_move(m) for m in line),
        decisions,
        kept,
        int(seen_a.sum() + seen_o.sum()),
    )


def _line(
    tables: GameTables,
    agent: np.ndarray,
    agents: tuple[np.ndarray, np.ndarray],
    opponents: tuple[np.ndarray, np.ndarray],
    agent_first: bool,
) -> tuple[Move, ...]:
    """The shortest game from the start in which every move keeps the outcome the opponent
    forces: the opponent's, its best; the agent's, one it may play that keeps it worst."""
    game = tables.game
    position = game.start()
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


__all__ = ["OUTCOMES", "BestReply", "SeatReply", "best_reply"]
