"""Per-game transition tables for learners and evaluation, built once and cached."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from qarena.budget import check_memory
from qarena.errors import QarenaError
from qarena.games.base import Game, mixed_radix_arrays
from qarena.kernels.constants import NOT_TERMINAL, UNREACHED
from qarena.kernels.transitions import fill_move_lists, fill_tables
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


#: Positions whose symmetry is worked out together: array code over rows, in bounded memory.
CHUNK = 1 << 16


def _fill_symmetry(
    game: Game,
    live: np.ndarray,
    nxt: np.ndarray,
    canon: np.ndarray,
    cmove: np.ndarray,
    mover: np.ndarray,
) -> None:
    """``canon``, ``cmove`` and ``mover`` of the positions ``live``, by the game's array forms
    of its symmetry (:meth:`Game.canonical_perms`, :meth:`Game.movers`): no Python loop runs
    per position, only per move."""
    moves = game.num_moves
    radix = np.asarray(game.radix, dtype=np.int64)
    weight = np.asarray(mixed_radix_arrays(game.radix)[1], dtype=np.int64)
    parts = [game._move_component(m) for m in range(moves)]
    comp_of = np.array([c for c, _ in parts], dtype=np.int64)
    details = sorted({d for _, d in parts})
    detail_of = np.array([details.index(d) for _, d in parts], dtype=np.int64)
    # The move a (component, detail) pair names, or -1 where there is none.
    named = np.full((radix.size, len(details)), -1, dtype=np.int32)
    for c in range(radix.size):
        for j, d in enumerate(details):
            with contextlib.suppress(QarenaError, ValueError, IndexError):
                named[c, j] = game._make_move(c, d)
    slots = np.arange(radix.size, dtype=np.int64)[None, :]
    for first in range(0, live.size, CHUNK):
        rows = live[first : first + CHUNK]
        digits = (rows[:, None] // weight) % radix
        perms = game.canonical_perms(digits)
        canon[rows] = np.take_along_axis(digits, perms, axis=1) @ weight
        mover[rows] = game.movers(digits)
        # perm.index(comp) for every component: where each component went.
        where = np.empty_like(perms)
        np.put_along_axis(where, perms, np.broadcast_to(slots, perms.shape), axis=1)
        legal = nxt[rows] >= 0
        for m in range(moves):
            ok = legal[:, m]
            cmove[rows[ok], m] = named[where[ok, comp_of[m]], detail_of[m]]


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
    _fill_symmetry(
        game, np.flatnonzero(reachable & (result == NOT_TERMINAL)), nxt, canon, cmove, mover
    )
    legal = nxt >= 0
    cnxt = np.where(legal, canon[np.maximum(nxt, 0)], -1).astype(np.int32)
    nmoves = np.empty(n, dtype=np.int32)
    move_list = np.empty((n, moves), dtype=np.int32)
    fill_move_lists(nxt, move_list, nmoves)
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
