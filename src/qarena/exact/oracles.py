"""One oracle per game: whether it is enumerated or solved by search, decided once from the game
itself, and every answer that follows from that (how a player is judged, how many games a match
plays unless told, what perfect play is, the exact values).

The game's *family* is a property of the game: its enumeration footprint (``budget.footprint``,
the same estimate the memory checks use) against a fixed reference, :data:`REFERENCE_BYTES`,
never the memory free on this machine. The *route* is how this machine answers: the family's,
unless enumerating does not fit the memory budget here; then a searchable game is searched and
the oracle says why in one line (``reason``), as a Syzygy tablebase probe reports a missing
table rather than answer otherwise. Callers ask it, as OpenSpiel's searches ask an evaluator,
without branching on how it answers. Defaults (game counts, the default
opponent) follow the family, so a command plays the same kind of run everywhere or says why not.
"""

from __future__ import annotations

from dataclasses import dataclass

from qarena.budget import MAX_CODE, footprint, format_bytes, memory_budget
from qarena.errors import TooLargeError
from qarena.exact.book import shipped_book
from qarena.exact.search import Built, bits, build_searcher, search_solution
from qarena.exact.solver import Exact, solve
from qarena.exact.space import check_fits
from qarena.games.base import Game, Position
from qarena.i18n import _

#: The two families.
ENUMERATED = "enumerated"
SEARCHED = "searched"

#: The enumeration footprint (bytes, ``footprint(game, "solve")``) above which a searchable game
#: is of the searched family. 10 GB: the memory budget (60%) of a 16 GB machine, rounded, and it
#: falls in the widest gap between the footprints of the boards qarena plays, so no board sits
#: near it: connect4:4x6 (6.6 GB) and connect4:5x5 (6.4 GB; trained in the guide, 5.0 GB peak)
#: are enumerated, connect4:7x4 (22 GB), tictactoe:4x5:4 (39 GB) and classic Connect Four
#: (3.3 PB) searched.
REFERENCE_BYTES = 10 * 10**9

#: Games in each seat a match (compete), a judgement or a sweep's measurement plays unless told:
#: through the compiled kernels on an enumerated game; on a searched one each of perfect play's
#: moves is a search, so fewer.
ENUMERATED_GAMES = 1_000
SEARCHED_GAMES = 10

#: The largest enumeration footprint (bytes) at which a position's value counts as cheap to
#: know: the tables are built in a few seconds at most (connect4:4x5, 208 MB; tic-tac-toe
#: 4x4 k=4, 220 MB), once per process.
CHEAP_BYTES = 256 * 10**6


def enumeration_refused(game: Game) -> TooLargeError | None:
    """Why ``game``'s tables do not fit this machine's memory budget (None when they do): the
    one place that asks, so that whether a game too big here is searched instead is decided
    once, in :meth:`Oracle.of` (its ``route``), not again by each caller that catches it."""
    try:
        check_fits(game)
    except TooLargeError as e:
        return e
    return None


def family_of(game: Game) -> str:
    """``game``'s family, from the game alone (quick: an estimate, nothing is solved). A game
    the search solver cannot play is enumerated (or refused where it does not fit)."""
    if not game.searchable:
        return ENUMERATED
    if game.num_positions >= MAX_CODE:  # its codes do not fit the kernels' integers
        return SEARCHED
    return SEARCHED if footprint(game, "solve").total > REFERENCE_BYTES else ENUMERATED


@dataclass(frozen=True, eq=False)
class Oracle:
    """What answers ``game`` exactly, and how: ``family`` the game's own ("enumerated" or
    "searched"), ``route`` this machine's; where they differ, ``need`` (bytes enumerating takes)
    and ``budget`` (what this machine can spare) say why (:attr:`reason`). Ask :meth:`of`; it
    reads the memory budget once, so make a new one per command rather than keeping one across
    a change of ``QARENA_MEMORY_LIMIT``."""

    game: Game
    family: str
    route: str
    need: int | None = None
    budget: int | None = None
    #: Where this machine answers the game neither way (too big to enumerate here, and not
    #: searchable): the refusal, in the enumeration's own words; raised by :meth:`exact`.
    refusal: TooLargeError | None = None

    @classmethod
    def of(cls, game: Game) -> Oracle:
        """The oracle for ``game`` here. Quick: estimates only; a game that fits nowhere is
        refused when its answers are asked for (:meth:`exact`), as enumeration refuses."""
        family = family_of(game)
        if family == SEARCHED:
            return cls(game, family, SEARCHED)
        refused = enumeration_refused(game)
        if refused is None:
            return cls(game, family, ENUMERATED)
        if not game.searchable:
            return cls(game, family, ENUMERATED, refusal=refused)
        need = footprint(game, "solve").total
        return cls(game, family, SEARCHED, need, memory_budget())

    @property
    def reason(self) -> str | None:
        """Why this machine takes another route than the game's own, in one line (None when it
        does not): what a command prints on stderr and the web shows."""
        if self.route == self.family or self.need is None or self.budget is None:
            return None
        return _(
            "{spec} is solved by search here, not enumerated: its tables need {need}, more than "
            "the {budget} this machine can spare, so it is judged by samples and played move by "
            "move"
        ).format(
            spec=self.game.spec, need=format_bytes(self.need), budget=format_bytes(self.budget)
        )

    @property
    def searched(self) -> bool:
        """Whether this machine answers by search, one position at a time."""
        return self.route == SEARCHED

    @property
    def coverage(self) -> str:
        """How much of the game judging a player covers: "complete" (every decision position)
        where the game is enumerated here, else "sampled" (positions along perfect play)."""
        return "sampled" if self.searched else "complete"

    @property
    def games(self) -> int:
        """Games in each seat a match, a judgement or a sweep plays unless told: the family's,
        whatever the route (a forced search plays as many, move by move)."""
        return SEARCHED_GAMES if self.family == SEARCHED else ENUMERATED_GAMES

    @property
    def opponent(self) -> str:
        """Whom a person plays unless they ask: the family's, whatever the route, as every
        default is: perfect play at its strongest (the built-in "strongest": the fastest win,
        the longest resistance) on a searched game, where no agent can be trained; else a
        trained agent ("trained"; on a machine that cannot enumerate the game, refused in one
        line saying why, and perfect play is there when asked for)."""
        return "strongest" if self.family == SEARCHED else "trained"

    def searcher(
        self,
        *,
        table_bytes: int | None = None,
        book: bool = True,
        workers: int | None = None,
        smaller: bool = False,
    ) -> Built:
        """A new searcher of the game, whatever the route (``qarena solve --no-book`` searches
        an enumerated board too), with what it fell back to and why
        (:func:`~qarena.exact.search.build_searcher`: the one place a searcher is built)."""
        return build_searcher(
            self.game, table_bytes=table_bytes, book=book, workers=workers, smaller=smaller
        )

    def exact(self) -> Exact:
        """The exact answers: the search solution (one per board and process), or the
        enumerated solution, refused (TooLargeError, before allocating) where it does not fit."""
        if self.searched:
            return search_solution(self.game)
        return solve(self.game)

    def known_value(self, position: Position) -> int | None:
        """The value of ``position`` for the player to move (WIN, DRAW or LOSS) where it is
        cheap to know, else None: never a search. Cheap is a game enumerated here whose tables
        are small (at most :data:`CHEAP_BYTES`; solved once per process), or a searched board
        whose shipped opening book holds the position (classic Connect Four up to 5 stones)."""
        game = self.game
        if not self.searched:
            if footprint(game, "solve").total > CHEAP_BYTES:
                return None
            solution = solve(game)
            return solution.value_of(position) if solution.is_reachable(position) else None
        book, grid = shipped_book(game), game.grid
        if book is None or grid is None or game.is_terminal(position):
            return None
        mine, mask, stones = bits(grid, position)
        score = book.score(mine, mask, grid.rows, grid.cols) if stones <= book.plies else None
        return None if score is None else (score > 0) - (score < 0)

    def record(self) -> dict[str, str | int]:
        """What a JSON output records of it, the same in every language: the family, the route
        and, where they differ, the bytes enumerating needs and the budget it is over."""
        record: dict[str, str | int] = {"family": self.family, "route": self.route}
        if self.route != self.family and self.need is not None and self.budget is not None:
            record.update(need_bytes=self.need, budget_bytes=self.budget)
        return record


def oracle(game: Game) -> Exact:
    """The exact answers for ``game`` (:meth:`Oracle.exact`)."""
    return Oracle.of(game).exact()
