"""Judging a policy from outside qarena (a function of the position, or a table) exactly
(``qarena.env.judge_policy`` asks it, in positions or in the environments' observations).

The policy is asked about every decision position reachable from the start (play goes on, and
the legal moves do not all have the same game value), each position on its own: symmetric
positions are asked separately, since a policy from outside need not treat them alike. The
result is qarena's optimality, the same measure ``qarena eval`` reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from numbers import Integral, Real

import numpy as np

from qarena.budget import footprint, format_bytes, format_count, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.exact.space import game_tables
from qarena.games.base import Game, Move, Position
from qarena.i18n import _
from qarena.judging.tables import JUDGE_CHUNK, Optimality, move_values, optimality_of_values

#: What a policy says about a position: the move it plays, or its value of each move.
Answer = Move | Mapping[Move, float]
#: A policy: a function of the position, or a table from positions to move values.
Policy = Callable[[Position], Answer] | Mapping[Position, Mapping[Move, float]]

#: The values array judging fills: float32 per (position, move).
VALUES_PER_ENTRY = 4


def judge_asked(game: Game, ask: Callable[[Position], Answer]) -> Optimality:
    """The optimality of the policy that ``ask`` asks (:func:`asker`), over every decision
    position of ``game``, each asked on its own (symmetric positions too). An answer that is
    not a legal move or a finite value is refused with one line; a values array that would not
    fit the memory budget is refused before it is allocated."""
    tables = game_tables(game, False)
    m = game.num_moves
    _check_values_fit(game, tables.rows)
    values = np.zeros((tables.rows, m), dtype=np.float32)
    live = np.flatnonzero(tables.live)
    step = max(1, JUDGE_CHUNK // m)
    for first in range(0, live.size, step):
        rows = live[first : first + step]
        mv = move_values(tables, rows)
        decide = np.nanmax(mv, axis=1) != np.nanmin(mv, axis=1)
        for row in rows[decide].tolist():
            position = tables.position(row)
            values[row] = _answer_row(game, position, tables.legal[row], ask(position))
    return optimality_of_values(tables, values)


def asker(policy: Policy) -> Callable[[Position], Answer]:
    """How ``policy`` is asked about a position: called, or looked up (an unseen position
    answers nothing, all zeros); anything else is refused in one line."""
    if isinstance(policy, Mapping):
        table = policy
        return lambda position: table.get(position, {})
    if callable(policy):
        return policy
    raise QarenaError(
        _(
            "a policy is a function of the position or a mapping of positions to move values, "
            "not {kind}"
        ).format(kind=type(policy).__name__)
    )


def _answer_row(game: Game, position: Position, legal: np.ndarray, answer: object) -> np.ndarray:
    """The row of values that answer stands for: 1 at the chosen move, or the given values."""
    row = np.zeros(legal.size, dtype=np.float32)
    where = game.format_position(position)
    if isinstance(answer, Integral) and not isinstance(answer, bool):
        move = int(answer)
        if not 0 <= move < legal.size or not legal[move]:
            shown = game.format_move(move) if 0 <= move < legal.size else str(move)
            raise QarenaError(
                _("the policy plays {move} in {position}, which is not a legal move").format(
                    move=shown, position=where
                )
            )
        row[move] = 1.0
        return row
    if not isinstance(answer, Mapping):
        raise QarenaError(
            _(
                "the policy answered {kind} in {position}; expected a move id or a mapping of "
                "move ids to values"
            ).format(kind=type(answer).__name__, position=where)
        )
    for move, value in answer.items():
        if not isinstance(move, Integral) or isinstance(move, bool):
            raise QarenaError(
                _("the policy's values in {position} are keyed by {key!r}, not move ids").format(
                    position=where, key=move
                )
            )
        if not isinstance(value, Real) or not np.isfinite(float(value)):
            raise QarenaError(
                _("the policy's value {value!r} in {position} is not a finite number").format(
                    value=value, position=where
                )
            )
        if 0 <= int(move) < legal.size and legal[int(move)]:
            row[int(move)] = float(value)
    return row


def _check_values_fit(game: Game, rows: int) -> None:
    """Refuse, before allocating it, a values array that with the tables would not fit."""
    need = footprint(game, "tables", positions=rows, canonical=False).tables
    need += VALUES_PER_ENTRY * rows * game.num_moves
    budget = memory_budget()
    if need > budget:
        raise TooLargeError(
            _(
                "{spec} is too large to judge a policy here: {count} positions need {need}, "
                "more than the {budget} this machine can spare"
            ).format(
                spec=game.spec,
                count=format_count(rows),
                need=format_bytes(need),
                budget=format_bytes(budget),
            )
        )


__all__ = ["Answer", "Policy", "asker", "judge_asked"]
