"""Per-game transition tables for learners and evaluation, built once and cached."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from qarena.budget import check_memory
from qarena.games.base import Game
from qarena.kernels.constants import NOT_TERMINAL, UNREACHED
from qarena.kernels.transitions import fill_tables
from qarena.solve.solver import solve


@dataclass(frozen=True, eq=False)
class GameTables:
    """``nxt[code, move]``: next code or -1; ``result[code]``: terminal result or 2;
    ``canon[code]`` / ``cmove[code, move]``: the canonical code and move (for shared learning);
    ``reachable[code]``: reachable from the start; ``legal``: ``nxt >= 0``;
    ``mover[code]``: 0 or 1, the seat to move, where the position tells (-1 in impartial games);
    ``cnxt[code, move]``: ``canon[nxt[code, move]]`` (-1 illegal), for play among canonical
    positions; ``cstart``: the canonical start; ``moves[code, :nmoves[code]]``: the legal moves
    in order, so kernels pick and scan them without testing every move id."""

    game: Game
    nxt: np.ndarray
    result: np.ndarray
    canon: np.ndarray
    cmove: np.ndarray
    reachable: np.ndarray
    start: int
    legal: np.ndarray
    mover: np.ndarray
    cnxt: np.ndarray
    cstart: int
    moves: np.ndarray
    nmoves: np.ndarray


@lru_cache(maxsize=4)
def game_tables(game: Game) -> GameTables:
    """Transition and symmetry tables of every reachable position."""
    check_memory(game, "tables")
    solution = solve(game)
    n, moves = game.num_positions, game.num_moves
    nxt = np.empty((n, moves), dtype=np.int32)
    result = np.empty(n, dtype=np.int8)
    fill_tables(game.arrays(), solution.value, nxt, result)
    reachable = solution.value != UNREACHED
    canon = np.arange(n, dtype=np.int32)
    cmove = np.tile(np.arange(moves, dtype=np.int32), (n, 1))
    mover = np.full(n, -1, dtype=np.int8)
    for code in np.flatnonzero(reachable & (result == NOT_TERMINAL)):
        position = game.decode(int(code))
        canonical = game.canonical(position)
        canon[code] = game.encode(canonical)
        side = game.to_move(position)
        if side is not None:
            mover[code] = side
        for m, cm in game.canonical_moves(position).items():
            cmove[code, m] = cm
    legal = nxt >= 0
    cnxt = np.where(legal, canon[np.maximum(nxt, 0)], -1).astype(np.int32)
    nmoves = legal.sum(axis=1, dtype=np.int32)
    order = np.argsort(~legal, axis=1, kind="stable").astype(np.int32)  # legal ids first
    move_list = np.where(np.arange(moves) < nmoves[:, None], order, -1).astype(np.int32)
    for arr in (nxt, result, canon, cmove, reachable, legal, mover, cnxt, move_list, nmoves):
        arr.flags.writeable = False
    start = game.encode(game.start())
    cstart = int(canon[start])
    return GameTables(
        game,
        nxt,
        result,
        canon,
        cmove,
        reachable,
        start,
        legal,
        mover,
        cnxt,
        cstart,
        move_list,
        nmoves,
    )
