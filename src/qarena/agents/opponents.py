"""Players as tables of the moves each picks among in every position: what the kernels take,
for training against a fixed opponent, matches and judging."""

from __future__ import annotations

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.greedy import GreedyAgent
from qarena.agents.players import PlayerLike, is_policy_path, player
from qarena.agents.strategies import (
    STRATEGIES,
    PerfectAgent,
    RandomAgent,
    StrongestAgent,
    is_builtin,
    players_of,
)
from qarena.errors import QarenaError
from qarena.exact.space import GameTables
from qarena.games.base import LOSS, WIN
from qarena.i18n import _
from qarena.learn.tables.base import Opponent

OPPONENTS = ("self", *STRATEGIES)


def whole_mask(tables: GameTables, who: Player) -> np.ndarray | None:
    """``mask[row, move]`` over every row at once where ``who`` is a player whose moves follow
    from the tables themselves (random, strongest and perfect play, a trained agent's greedy
    moves): as cheap for all rows as for a few. None: it must be asked (:func:`move_mask`)."""
    legal = tables.legal
    whole: np.ndarray | None = None
    if isinstance(who, RandomAgent):
        whole = legal
    elif isinstance(who, StrongestAgent):
        whole = strongest_mask(tables)
    elif isinstance(who, PerfectAgent):
        # Each move's value for the mover, -2 where illegal (int8: a byte per entry).
        mv = np.where(legal, -tables.value[np.maximum(tables.nxt, 0)], np.int8(-2))
        whole = legal & (mv == mv.max(axis=1, keepdims=True))
    elif isinstance(who, GreedyAgent):
        own = who.learner.tables
        if own is tables or (own.canonical == tables.canonical and own.rows == tables.rows):
            whole = who.mask()
        elif own.canonical and not tables.canonical:
            whole = own.lift(who.mask(), tables)
    return whole


def move_mask(tables: GameTables, who: Player, rows: np.ndarray | None = None) -> np.ndarray:
    """``mask[row, move]``: the moves ``who`` picks among in each row of ``tables`` (in the
    row's own frame): all its ties where it tells them (``choices``), else the one move it
    makes. A trained agent's own tables are used as they are, or lifted to a game's tables
    without symmetry. With ``rows``, only those rows, in their order (a sample judged)."""
    legal = tables.legal
    whole = whole_mask(tables, who)
    if whole is not None:
        if rows is not None:
            picked: np.ndarray = whole[rows]
            return picked
        return legal.copy() if whole is legal else whole  # never the tables' own array
    batched = who.table_choices(tables, rows)
    if batched is not None:
        return batched
    choices = getattr(who, "choices", None)
    asked = np.flatnonzero(tables.live) if rows is None else rows
    mask = np.zeros_like(legal) if rows is None else np.zeros((rows.size, legal.shape[1]), bool)
    for i, row in enumerate(asked):
        if i % 1024 == 0:
            threads.check()  # a run's stop reaches a sample being judged too
        # A row's position is its class's representative, whose moves are the row's own.
        position = tables.position(int(row))
        moves = choices(position) if callable(choices) else [who.act(position)]
        mask[row if rows is None else i, moves] = True
    return mask


def strongest_mask(tables: GameTables) -> np.ndarray:
    """The strongest player's moves in every row: the value kept and, won, the fewest plies to
    the end, lost, the most (``strategies.strongest_moves``, over whole tables at once)."""
    legal = tables.legal
    nxt = np.maximum(tables.nxt, 0)
    mv = np.where(legal, -tables.value[nxt].astype(np.int8), np.int8(-2))
    keep: np.ndarray = legal & (mv == mv.max(axis=1, keepdims=True))
    plies = 1 + tables.depth[nxt].astype(np.int64)
    won = (mv.max(axis=1) == WIN)[:, None]
    lost = (mv.max(axis=1) == LOSS)[:, None]
    # Won: the fewest plies (as the most of their negation); lost: the most; drawn: any.
    key = np.where(won, -plies, np.where(lost, plies, 0))
    key = np.where(keep, key, np.iinfo(np.int64).min)
    best: np.ndarray = keep & (key == key.max(axis=1, keepdims=True))
    return best


def opponent(tables: GameTables, who: PlayerLike) -> Opponent:
    """``self`` for self-play, or any player (:func:`~qarena.agents.players.player`: a
    built-in's name, a policy file, a learner, a function...) as the moves it picks among."""
    if isinstance(who, str) and who == "self":
        return Opponent("self")
    if isinstance(who, str) and not is_builtin(who) and not is_policy_path(who):
        raise QarenaError(
            _("unknown opponent {name!r}; expected one of {names}, or a policy file").format(
                name=who, names=", ".join(("self", *players_of(tables.game)))
            )
        )
    found = player(who, tables.game)
    return Opponent(found.name, move_mask(tables, found))


__all__ = ["OPPONENTS", "move_mask", "opponent", "strongest_mask", "whole_mask"]
