"""The search solver asked first by a player that searches (``alphabeta.py``): on a board the
solver solves that is too big to enumerate (classic Connect Four), each move's value proved
within a budget — a count of positions on one thread, the same on any machine, or seconds where
the player's own spec says time — and how the player says so.
"""

from __future__ import annotations

from qarena import threads
from qarena.exact.oracles import SEARCHED, family_of
from qarena.exact.search import BudgetSpent, Searcher
from qarena.games.base import Game, Move, Position
from qarena.i18n import _

#: Longest a move may spend asking the search solver for the exact values first (boards the
#: solver solves that are too big to enumerate), in seconds. Measured on the issue's set of
#: decisions after varied openings (benchmarks/c4_positions.py, 316 positions, a fresh table
#: each): every position of 4 stones or fewer is in the opening book (instant), of 13 or more
#: stones solved within 0.75 s at worst (16 or more: 0.28 s), of 5 to 8 mostly not within 3 s.
#: The solver notices the limit within a few tenths of a second (its threads are checked every
#: 0.2 s): 0.3 s gave 0.5-0.64 s a move at worst, 0.6 s 0.89 s, so 0.5 s keeps a move under a
#: second with a shallow search after it.
SOLVE_SECONDS = 0.5
#: Most positions a move of a depth's player may ask the search solver to search (one thread,
#: so where it stops depends on the positions alone, not on the machine's speed): about
#: SOLVE_SECONDS's worth, at the 2.5-3 million a second one thread of a shared 2-core machine
#: searched (measured on random positions of 8-20 stones, a table of SOLVE_ENTRIES).
SOLVE_NODES = 2_000_000
#: Entries of the player's own solver table (8 bytes each: 32 MiB), kept between its moves.
SOLVE_ENTRIES = 1 << 22


def solver_answers(game: Game) -> bool:
    """Whether the search solver answers for ``game``: a board with gravity of the searched
    family (a small board's search is its own)."""
    grid = game.grid
    return grid is not None and grid.gravity and family_of(game) == SEARCHED


def proved_signs(
    solver: Searcher,
    game: Game,
    position: Position,
    exact: bool,
    seconds: float | None,
    nodes: int | None,
) -> dict[Move, int] | None:
    """Each legal move's sign (1 a win, 0 a draw, -1 a loss for its maker) as ``solver``
    proves it within ``seconds`` and ``nodes`` positions (None: no such bound), or None where
    it does not. A caller's own limit that ends it goes up to the caller
    (:class:`~qarena.threads.Stopped`).

    Without ``exact`` (a move to choose, not values to show) only the moves that keep the
    position's value are proved (``Searcher.best_moves``: the position's value, then one
    null-window test a move, about half the search); the others get a sign one below, which is
    all a choice needs."""
    try:
        with threads.limit(seconds=seconds), solver.within(nodes):
            if exact:
                return solver.move_scores(position, weak=True)
            value, kept = solver.scored_best_moves(position, weak=True)
    except threads.Stopped:
        threads.check()  # the caller's own limit ended it: that goes up to the caller
        return None
    except BudgetSpent:  # its count of positions searched: not proved
        return None
    return {m: value if m in kept else value - 1 for m in game.legal_moves(position)}


def solver_text(search: str, seconds: float | None, nodes: int | None, fallback: str | None) -> str:
    """What a player that asks the solver first is, in one line: ``search`` (what it does
    otherwise) after the solver's budget, or with why the solver is not asked (``fallback``,
    its table over this machine's memory budget) when neither budget is left."""
    if nodes is not None:
        return _(
            "the search solver first (at most {count:,} positions a move), where it does "
            "not prove the moves' values within them, {search}"
        ).format(count=nodes, search=search)
    if seconds is not None:
        return _(
            "the search solver first (at most {seconds:g} s a move), where it does not prove "
            "the moves' values in time, {search}"
        ).format(seconds=seconds, search=search)
    if fallback is None:
        return search
    return _("{search}; the search solver is not asked: {reason}").format(
        search=search, reason=fallback.rstrip(".")
    )
