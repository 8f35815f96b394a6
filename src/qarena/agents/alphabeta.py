"""A player that looks ahead: depth-limited alpha-beta over any player's values.

``alphabeta:D:FILE`` searches D plies (negamax with alpha-beta pruning) from the position to
move, on any game through the :class:`~qarena.games.base.Game` API, and scores what it reaches:

- a finished game exactly: a win or a loss is worth more than any guess, and a nearer win more
  than a farther one (a loss the other way round); a draw is 0;
- an unfinished position at depth D by the evaluator (a table learner's agent, an n-tuple
  network, any :class:`~qarena.agents.base.Player` with values): its value for the player to
  move is the best of the evaluator's values of its moves (each clipped to [-1, 1]; a value
  that is not a number, and every value of a player without values, counts 0).

So at depth D the player sees D plies exactly and the evaluator's judgement of one more.

Scale of :meth:`AlphaBeta.values` (each root move's searched value for the player making it):
in [-1, 1] a value the evaluator estimated; above 1 a proved win, ``2 - n/(P+1)`` for a win
``n`` plies after the move (P the game's longest length), so the nearest win is largest; below
-1 a proved loss, mirrored; 0 is a draw or an even guess.

Moves are tried in the order the last iteration found best (a table of positions searched,
kept for one move's search), then by the evaluator's values, then in the game's order. On a
board where pieces drop (Connect Four: :attr:`~qarena.games.base.BoardGrid.gravity`) the rules
of the search solver (:mod:`qarena.kernels.search`) also hold, at every node: a move that wins
at once is taken (scored exactly); when the opponent threatens to win at once, only the block
is searched (two threats: the position is lost, exactly); a move right under a cell where the
opponent wins is never searched while another move exists (all of them: lost, exactly). Each
of these keeps the value of the position, so a search deep enough to reach the end of every
line is perfect play.

On a board the search solver solves and that is too big to enumerate (classic Connect Four),
each move first asks the solver (:mod:`qarena.exact.search`, a weak search: win, draw or loss)
for every move's value: with a depth, for at most :data:`SOLVE_NODES` positions on one thread,
so that its moves are the same on any machine; with seconds, for half the move's time (its
limit is noticed within a few tenths of a second). When it answers, the player keeps the value
for certain and picks among the moves that keep it the evaluator's preferred. When it does not
(the middle of the opening, where a proof takes seconds), the alpha-beta above answers. The
solver's table (:data:`SOLVE_ENTRIES`) is the player's own, built by the game's oracle
(:meth:`~qarena.exact.oracles.Oracle.searcher`) and kept between its moves, so along a game it
proves more and sooner; where it cannot be built (its table over this machine's memory
budget) the player searches alone and :meth:`AlphaBeta.describe` says so.

With seconds instead of a depth it deepens one ply at a time (iterative deepening) until its
time is spent and answers from the last depth completed (with none, the evaluator's best
move). A caller's :func:`qarena.threads.limit` (a web move's time limit, a stop) ends any
search with :class:`~qarena.threads.Stopped`. Ties between the best moves go to the
evaluator's preferred, then to one drawn from the player's generator, seeded when it was made.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.evaluators import Evaluator, evaluator_for
from qarena.agents.solver_first import (  # the SOLVE_ budgets: read here, where tests set them
    SOLVE_ENTRIES,
    SOLVE_NODES,
    SOLVE_SECONDS,
    proved_signs,
    solver_answers,
    solver_text,
)
from qarena.agents.thinking import Budget, SearchKind, WebLimits, register
from qarena.errors import QarenaError
from qarena.exact.oracles import Oracle
from qarena.exact.search import ENTRY_BYTES, Searcher
from qarena.games.base import Game, Move, Position
from qarena.games.picking import ChoosingPlayer, clipped
from qarena.i18n import _, gettext_noop

#: Deepest search a depth may ask for: beyond every game qarena's budgets allow to be searched
#: this way in any time a person waits.
MAX_DEPTH = 64
#: Longest time a move may be given, in seconds.
MAX_SECONDS = 3600.0
#: Most positions the table (and the evaluator's values) of one move's search keeps (beyond:
#: searched again, not stored), so that memory stays bounded whatever the depth or time:
#: at most a few hundred bytes each (a Connect Four position's tuple, its entry, its values).
MAX_TABLE = 200_000
#: A proved result's size: a win ``n`` plies away scores ``MATE - n * step``.
MATE = 2.0
#: How much better a value must be to count as better (values are floats).
EPS = 1e-9
INF = math.inf

# Table entry kinds: the value is exact, a lower bound or an upper bound.
_EXACT, _LOWER, _UPPER = 0, 1, 2


class _OutOfTime(Exception):
    """The player's own time for the move is spent (iterative deepening ends)."""


def _age(value: float, step: float) -> float:
    """A proved result one ply further away (a child's value seen from its parent is this of
    its negation): a win gets smaller, a loss larger, an estimate stays."""
    if value > 1.0:
        return value - step
    if value < -1.0:
        return value + step
    return value


def _unage(value: float, step: float) -> float:
    """The inverse of :func:`_age` on a window bound, for the child's window."""
    if value > 1.0:
        return value + step
    if value < -1.0:
        return value - step
    return value


@dataclass(frozen=True)
class _Gravity:
    """The immediate-threat rules on a board where pieces drop, as bit masks over its cells
    (bit ``i`` is cell ``i``, row-major from the top-left)."""

    rows: int
    cols: int
    lines: tuple[int, ...]

    @classmethod
    def of(cls, game: Game) -> _Gravity | None:
        grid = game.grid
        if grid is None or not grid.gravity:
            return None
        masks = tuple(sum(1 << c for c in line) for line in grid.lines)
        return cls(grid.rows, grid.cols, masks)

    def wins_at(self, stones: int, taken: int) -> int:
        """The empty cells where one more of ``stones`` completes a line."""
        found = 0
        for line in self.lines:
            rest = line & ~stones
            if rest and not rest & (rest - 1) and not rest & taken:
                found |= rest
        return found

    def landing(self, position: Position, move: Move) -> int:
        """The cell a piece dropped in column ``move`` lands on (the column has room)."""
        cols = self.cols
        for r in range(self.rows - 1, -1, -1):
            if position[r * cols + move] == 0:
                return r * cols + move
        return -1  # pragma: no cover - a legal move's column has room


@dataclass
class _Search:
    """One move's search: its table, its evaluator's values seen so far, and its counts.
    ``evaluator``: any evaluator, or a player read through
    :func:`~qarena.agents.evaluators.evaluator_for`."""

    game: Game
    evaluator: Player | Evaluator
    gravity: _Gravity | None
    deadline: float | None
    step: float
    table: dict[Position, tuple[int, float, int, Move | None, bool]] = field(default_factory=dict)
    cache: dict[Position, dict[Move, float]] = field(default_factory=dict)
    nodes: int = 0
    guessed: int = 0
    scores: Evaluator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.scores = evaluator_for(self.evaluator)

    def evaluated(self, position: Position) -> dict[Move, float]:
        """The evaluator's value of each legal move, clipped to [-1, 1] (not a number: 0)."""
        found = self.cache.get(position)
        if found is None:
            boards = self.network_values(position)
            if boards is None:
                found = self.scores.move_values(position)
            else:
                legal = self.game.legal_moves(position)
                found = {m: clipped(float(boards.get(m, 0.0))) for m in legal}
            if len(self.cache) < MAX_TABLE:
                self.cache[position] = found
        return found

    def network_values(self, position: Position) -> dict[Move, float] | None:
        """On a gravity board, for an evaluator that values boards themselves (its
        ``board_value``: an n-tuple network), the moves' values as its ``values`` gives them,
        computed without the Game API's checks around each board it scores (most of its
        cost): a move that completes a line is worth 1 to its maker, one that fills the board
        0, any other the evaluator's value of the board it leaves. None for any other
        evaluator or board."""
        g = self.gravity
        net = self.scores
        if g is None:
            return None
        game = self.game
        side = game.to_move(position)
        mark = 1 if side == 0 else 2
        mine = taken = 0
        for i, v in enumerate(position):
            if v:
                taken |= 1 << i
                if v == mark:
                    mine |= 1 << i
        ours = g.wins_at(mine, taken)
        full = taken.bit_count() == len(position) - 1
        sign = 1.0 if side == 0 else -1.0
        out: dict[Move, float] = {}
        for m in game.legal_moves(position):
            if ours >> g.landing(position, m) & 1:
                out[m] = 1.0
            elif full:
                out[m] = 0.0
            else:
                found = net.board_value(game._apply_unchecked(position, m))
                if found is None:  # it values only moves: ask it for those
                    return None
                out[m] = sign * found
        return out

    def tick(self) -> None:
        # Every node: a node costs far more than the checks (an evaluator call, moves made).
        self.nodes += 1
        threads.check()  # the caller's limit: Stopped goes up to the caller
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise _OutOfTime

    def threats(self, position: Position, moves: list[Move]) -> tuple[list[Move], float | None]:
        """The moves worth searching on a gravity board, or the position's exact value when
        the immediate-threat rules settle it (a win now; two threats, or only moves under one:
        lost in two plies)."""
        g = self.gravity
        assert g is not None
        mark = 1 if self.game.to_move(position) == 0 else 2
        mine = theirs = 0
        for i, v in enumerate(position):
            if v == mark:
                mine |= 1 << i
            elif v:
                theirs |= 1 << i
        taken = mine | theirs
        land = {m: g.landing(position, m) for m in moves}
        ours = g.wins_at(mine, taken)
        if any(ours >> land[m] & 1 for m in moves):
            return moves, MATE - self.step  # wins with this move
        danger = g.wins_at(theirs, taken)
        forced = [m for m in moves if danger >> land[m] & 1]
        if len(forced) > 1:
            return moves, -(MATE - 2 * self.step)
        if forced:
            return forced, None
        safe = [m for m in moves if land[m] < g.cols or not danger >> (land[m] - g.cols) & 1]
        if not safe:
            return moves, -(MATE - 2 * self.step)
        return safe, None

    def leaf(self, position: Position, moves: list[Move]) -> float:
        """An unfinished position's estimate: the best of its moves' values (of the moves
        the threat rules leave, on a gravity board)."""
        self.guessed += 1
        values = self.evaluated(position)
        return max(values[m] for m in moves)

    def ordered(self, position: Position, moves: list[Move], first: Move | None) -> list[Move]:
        values = self.evaluated(position)
        moves = sorted(moves, key=lambda m: -values[m])  # stable: ties in the game's order
        if first is not None and first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    def negamax(self, position: Position, depth: int, alpha: float, beta: float) -> float:
        """The value of ``position`` for its mover, searched ``depth`` plies, within the
        window (alpha, beta): exact inside it, a bound outside (fail-hard)."""
        self.tick()
        game = self.game
        moves = game.legal_moves(position)
        if not moves:
            return MATE * game.result(position)
        if self.gravity is not None:
            moves, settled = self.threats(position, moves)
            if settled is not None:
                return settled
        if depth <= 0:
            return self.leaf(position, moves)
        entry = self.table.get(position)
        first = None
        if entry is not None:
            e_depth, e_value, e_kind, first, e_guessed = entry
            if e_depth >= depth and (
                e_kind == _EXACT
                or (e_kind == _LOWER and e_value >= beta)
                or (e_kind == _UPPER and e_value <= alpha)
            ):
                if e_guessed:
                    self.guessed += 1
                return e_value
        before = self.guessed
        start_alpha = alpha
        best, best_move = -INF, None
        for move in self.ordered(position, moves, first):
            child = game._apply_unchecked(position, move)
            value = _age(
                -self.negamax(
                    child, depth - 1, -_unage(beta, self.step), -_unage(alpha, self.step)
                ),
                self.step,
            )
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        kind = _LOWER if best >= beta else _UPPER if best <= start_alpha else _EXACT
        if len(self.table) < MAX_TABLE or position in self.table:
            self.table[position] = (depth, best, kind, best_move, self.guessed != before)
        return best

    def root(
        self, position: Position, moves: list[Move], depth: int, exact: bool
    ) -> dict[Move, float]:
        """Each root move's value at ``depth``: exact for every move with ``exact``, else
        exact for the best and any tied with it, and an upper bound for the rest."""
        out: dict[Move, float] = {}
        best = -INF
        for move in moves:
            child = self.game._apply_unchecked(position, move)
            alpha = -INF if exact or best == -INF else best - EPS
            value = _age(
                -self.negamax(child, depth - 1, -INF, -_unage(alpha, self.step)), self.step
            )
            out[move] = value
            best = max(best, value)
        return out


@dataclass
class AlphaBeta(ChoosingPlayer):
    """Depth-limited alpha-beta over ``evaluator``'s values (the module's text): ``depth``
    plies a move, or iterative deepening for ``seconds``."""

    game: Game
    evaluator: Player | Evaluator
    depth: int | None = None
    seconds: float | None = None
    seed: int | None = None
    name: str = ""
    thinks = True  # the player protocol's answer, a class attribute (no field)
    rng: np.random.Generator = field(init=False, repr=False)
    #: The most seconds a move asks the search solver first (module text); None: no time.
    solve_seconds: float | None = None
    #: The most positions a move asks the search solver to search first, on one thread
    #: (module text); None: no count. Neither: the solver is not asked.
    solve_nodes: int | None = None
    #: What the last search did: the depth it completed, the positions it visited, and
    #: whether the solver answered instead.
    reached: int = field(default=0, init=False)
    nodes: int = field(default=0, init=False)
    solved: bool = field(default=False, init=False)
    #: Why the solver is not asked though it solves the board (its table over this
    #: machine's memory budget), in one line; None when it is, or was never to be.
    fallback: str | None = field(default=None, init=False)
    _searcher: Searcher | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        if not self.name:
            budget = str(self.depth) if self.depth is not None else f"{self.seconds:g}s"
            self.name = f"alphabeta:{budget}:{self.evaluator.name}"
        if self._solves() and not solver_answers(self.game):
            self.solve_seconds = self.solve_nodes = None  # decided once: the board stays

    def _solves(self) -> bool:
        """Whether it asks the search solver first (a time or a count: see the fields)."""
        return self.solve_seconds is not None or self.solve_nodes is not None

    def _solver(self) -> Searcher | None:
        """The player's own search solver, made when first asked (None where it does not
        solve: no time for it, or a board it cannot search or that is enumerated)."""
        if not self._solves():
            return None
        if self._searcher is None:
            # A count of positions is the same on any machine only on one thread (module text).
            built = Oracle.of(self.game).searcher(
                table_bytes=SOLVE_ENTRIES * ENTRY_BYTES,
                workers=1 if self.solve_nodes is not None else None,
            )
            if not isinstance(built.searcher, Searcher):  # its table over the budget: alone
                self.solve_seconds = self.solve_nodes = None
                self.fallback = built.fallback
                return None
            self._searcher = built.searcher
        return self._searcher

    def _proved(self, position: Position, exact: bool = True) -> dict[Move, float] | None:
        """Each legal move's value as the search solver proves it within
        :attr:`solve_seconds` and :attr:`solve_nodes` (a win ``2 - n/(P+1)`` with ``n`` the
        most plies it can take, as the solver's weak search does not say how near it is; a
        loss mirrored; a draw 0), or None when the solver does not answer within them or does
        not solve this board.

        Without ``exact`` only the moves that keep the position's value are proved
        (:func:`~qarena.agents.solver_first.proved_signs`)."""
        solver = self._solver()
        if solver is None:
            return None
        signs = proved_signs(
            solver, self.game, position, exact, self.solve_seconds, self.solve_nodes
        )
        if signs is None:
            return None
        stones = sum(1 for v in position if v)
        far = MATE - (self.game.max_plies - stones) / (self.game.max_plies + 1)
        return {m: far * ((s > 0) - (s < 0)) + 0.0 for m, s in signs.items()}

    def _search(
        self, position: Position, exact: bool
    ) -> tuple[dict[Move, float], list[Move], dict[Move, float]]:
        """Each legal move's searched value (see :meth:`values`), the moves in the order the
        evaluator prefers them (its ties in the game's order), and the evaluator's values."""
        game = self.game
        moves = game.legal_moves(position)
        if not moves:
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=game.format_position(position)
                )
            )
        step = 1.0 / (game.max_plies + 1)
        started = time.monotonic()
        proved = self._proved(position, exact)
        deadline = None if self.seconds is None else started + self.seconds
        search = _Search(game, self.evaluator, _Gravity.of(game), deadline, step)
        preferred = search.ordered(position, moves, None)
        self.solved = proved is not None
        if proved is not None:
            self.reached = self.nodes = 0
            return proved, preferred, search.evaluated(position)
        # Without a completed depth: the evaluator's own values (its best move is played).
        found: dict[Move, float] = dict(search.evaluated(position))
        most = self.depth if self.depth is not None else MAX_DEPTH
        self.reached = 0
        for depth in range(1, most + 1):
            order = sorted(preferred, key=lambda m: -found[m]) if depth > 1 else preferred
            before = search.guessed
            try:
                found = search.root(position, order, depth, exact)
            except _OutOfTime:
                break
            self.reached = depth
            if search.guessed == before:
                break  # every line reached the end of the game: deeper changes nothing
            if not exact and max(found.values()) > 1.0:
                break  # a proved win: deeper finds none nearer (it would have been seen)
            if self.depth is None and time.monotonic() >= (deadline or 0.0):
                break
        self.nodes = search.nodes
        return found, preferred, search.evaluated(position)

    def values(self, position: Position) -> dict[Move, float]:
        """Each legal move's searched value for the player making it, in the game's order: in
        [-1, 1] as the evaluator estimates the position the search reaches; beyond ±1 a result
        the search proved (``2 - n/(P+1)`` for a win in ``n`` plies, P the game's longest
        length; a loss mirrored)."""
        found, _order, _own = self._search(position, exact=True)
        return {m: found[m] + 0.0 for m in self.game.legal_moves(position)}  # no -0.0

    def choices(self, position: Position) -> list[Move]:
        """The moves of the highest searched value; among those, the evaluator's preferred
        (most often one move), in the game's order."""
        found, preferred, own = self._search(position, exact=False)
        best = max(found.values())
        # A move that failed low scores at most ``best - EPS``: only true ties pass.
        tied = [m for m in preferred if found[m] > best - EPS / 2]
        top = max(own[m] for m in tied)
        return sorted(m for m in tied if own[m] >= top)

    def act(self, position: Position) -> Move:
        """One of :meth:`choices`, drawn from the player's generator (seeded when made)."""
        tied = self.choices(position)
        if len(tied) == 1:
            return tied[0]
        return tied[int(self.rng.integers(len(tied)))]

    def value_legend(self) -> str:
        return _(
            "Searched values: from -1 to 1 as its evaluator estimates the positions the search "
            "reaches; above 1 a win the search proved (the nearer, the larger), below -1 a loss."
        )

    def describe(self) -> str | None:
        from qarena.agents.strategies import SHIPPED_PLAYERS

        # A shipped player (the network) is named in the reader's words: "network" is its
        # name for commands, not a word of German or Russian; a file is named by its name.
        shipped = self.evaluator.name in SHIPPED_PLAYERS
        if self.depth is not None:
            search = (
                _("alpha-beta to depth {depth} over the network shipped with qarena")
                if shipped
                else _("alpha-beta to depth {depth} over {evaluator}")
            ).format(depth=self.depth, evaluator=self.evaluator.name)
        else:
            search = (
                _("alpha-beta for {seconds:g} s a move over the network shipped with qarena")
                if shipped
                else _("alpha-beta for {seconds:g} s a move over {evaluator}")
            ).format(seconds=self.seconds, evaluator=self.evaluator.name)
        if self._solves():
            self._solver()  # built now, so that a fallback is said before the first move
        return solver_text(search, self.solve_seconds, self.solve_nodes, self.fallback)


def make_alphabeta(
    game: Game,
    depth: int | None,
    seconds: float | None,
    evaluator: Player,
    seed: int | None = None,
    solve: bool = True,
) -> Player:
    """``alphabeta:D:FILE`` (``depth``) or ``alphabeta:Ns:FILE`` (``seconds``, deepening until
    they are spent) for ``game``, its leaves scored by ``evaluator`` (a player of ``game``),
    seeded by ``seed``; with ``solve`` (the default), asking the search solver first where it
    solves the board (the module's text); refused in one line when the budget is not one of
    them in range or the evaluator plays another game."""
    if (depth is None) == (seconds is None):
        raise QarenaError(_("alpha-beta takes a depth or seconds, one of them"))
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH
    ):
        raise QarenaError(_("alpha-beta's depth must be from 1 to {most}").format(most=MAX_DEPTH))
    if seconds is not None and not (
        isinstance(seconds, int | float) and math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS
    ):
        raise QarenaError(
            _("alpha-beta's time must be more than 0 and at most {most:g} s").format(
                most=MAX_SECONDS
            )
        )
    if evaluator.game.spec != game.spec:
        raise QarenaError(
            _("{player} plays {spec}, not {game}").format(
                player=evaluator.name, spec=evaluator.game.spec, game=game.spec
            )
        )
    # A depth's solver is bounded by positions, the same on any machine; seconds by time.
    solve_seconds = seconds / 2 if solve and seconds is not None else None
    solve_nodes = SOLVE_NODES if solve and seconds is None else None
    return AlphaBeta(
        game,
        evaluator,
        depth,
        None if seconds is None else float(seconds),
        seed,
        solve_seconds=solve_seconds,
        solve_nodes=solve_nodes,
    )


def _make(game: Game, budget: Budget, evaluator: Player | None, seed: int | None) -> Player:
    assert evaluator is not None  # the spec's FILE is required (ALPHABETA.file)
    return make_alphabeta(game, budget.count, budget.seconds, evaluator, seed)


#: The deepest alpha-beta the web app plays: depth 6 over the network takes 1-3 s a search
#: from the start of classic Connect Four (two searches a move).
MOST_WEB_DEPTH = 6

#: Alpha-beta as a kind of search player, declared once: ``alphabeta:D:FILE``,
#: ``alphabeta:Ns:FILE``.
ALPHABETA = register(
    SearchKind(
        name="alphabeta",
        form="alphabeta:D:FILE",
        expected=gettext_noop("a depth like alphabeta:4:FILE, or seconds like alphabeta:1s:FILE"),
        make=_make,
        web=WebLimits(most=MOST_WEB_DEPTH, words=gettext_noop("depth {depth}")),
        plays=AlphaBeta,
        file="must",
    )
)


__all__ = [
    "ALPHABETA",
    "MATE",
    "MAX_DEPTH",
    "MAX_SECONDS",
    "SOLVE_ENTRIES",
    "SOLVE_NODES",
    "SOLVE_SECONDS",
    "AlphaBeta",
    "make_alphabeta",
]
