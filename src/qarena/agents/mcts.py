"""Monte Carlo tree search (UCT) for any qarena game, through the Game API alone.

The semantics follow OpenSpiel's ``MCTSBot`` (``open_spiel/python/algorithms/mcts.py``) with
its defaults: a simulation descends from the root by UCB1, ``mean + c·sqrt(ln N / n)`` with
``c = √2``, an unvisited child first (children are shuffled once, when their node is
expanded, so ties fall at random); a node is expanded the second time a simulation reaches
it; the leaf is scored by one uniformly random rollout to the end (or by the game's result
at an end), and the score is backed up, negated at each ply (negamax: values are the
mover's). The move played is the root's most visited child (ties: the greater total value,
then the first in the shuffled order); no solving of proven subtrees (OpenSpiel's ``solve``
off).

With an evaluator (``mcts:N:FILE``; any :class:`~qarena.games.picking.Evaluator`, a player
read through :func:`~qarena.agents.evaluators.evaluator_for`) a leaf is not rolled out: the
evaluator's ``evaluate`` gives its value and its children's priors, used by PUCT as in
OpenSpiel's ``puct_value``: ``mean + c · prior · sqrt(N) / (n + 1)`` (an unvisited child's
mean read as 0). A player read from its move values gives the largest of them (the mover's
value of each move, clipped to -1..1, a missing or NaN value read as 0) and their softmax
(temperature 1); an AlphaZero network its value head's value and its policy head's priors.
Random rollouts are the evaluator without a file (:class:`~qarena.agents.evaluators.Rollouts`,
no priors: UCB1).

The compiled search (:mod:`qarena.kernels.mcts`) serves every game in GameArrays form and
Connect Four on bitboards with random rollouts, and Connect Four with an n-tuple network (the
shipped ``network`` or a file of its kind) as the evaluator, whose values it computes in the
kernel (its evaluator's ``compiled`` arrays), the same numbers as the network's ``values``;
it expands a leaf where it evaluates it (its priors are at hand then), which selects as
expanding it on the next visit does. Any other evaluator is asked by the search in Python.

Tree reuse: the tree of the last search is kept; when the next position asked for is the
same root, or the position after the move it played there and a reply, the search goes on
from that subtree, adding its budget of simulations to the visits it already has. Only
along its own play, so that judging it at every position in turn (where the next position
asked is often a child of the last) does not give it more simulations than it has in play.
Asked the position of its last search again (``values`` after ``act``), it answers from
that search. Random draws come from one ``random.Random(seed)``: the same seed, asked the
same positions in the same order, plays the same moves.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

import numpy as np

from qarena.agents.base import Player
from qarena.agents.evaluators import Evaluator, Rollouts, evaluator_for
from qarena.agents.thinking import Budget, SearchKind, WebLimits, register
from qarena.errors import QarenaError
from qarena.games.base import Game, GameArrays, Move, Position
from qarena.games.picking import ChoosingPlayer, clipped
from qarena.i18n import _, gettext_noop
from qarena.threads import check

#: The most simulations a move the web app plays with random rollouts (compiled): measured,
#: 100,000 take 0.2 s on classic Connect Four and 0.4 s on tic-tac-toe (one core, shared).
MOST_SIMULATIONS = 100_000
#: ... and with a file scoring its leaves (searched in Python, the evaluator asked at each):
#: 200 simulations over the shipped network take 0.3 s on classic Connect Four.
MOST_LED_SIMULATIONS = 2_000

#: OpenSpiel's ``uct_c`` default.
UCT_C = math.sqrt(2.0)
#: Simulations between two looks at the clock and the stop flag (``threads.check``), for the
#: compiled search (a fraction of a millisecond); the search in Python looks after each.
CHUNK = 256
#: The most nodes the compiled tree holds (33 bytes each, 41 with priors: about 70-80 MB);
#: past it the search goes on without growing the tree (leaves are rolled out, or
#: evaluated, from where the tree ends).
NODE_CAP = 2_000_000

#: A root child as the choice of a move reads it: its move, visits, total value for the
#: mover at the root, and the game's result for that mover where a simulation ended there.
Stats = tuple[Move, int, float, int | None]


class Node:
    """A node of the tree: the move that led here, its visits, the total value for the
    player who made that move, its prior (PUCT), its children once expanded, and the game's
    result for the player who moved here once a simulation ended here (OpenSpiel's
    ``outcome``, read in place of UCB1 once known)."""

    __slots__ = ("children", "evals", "move", "n", "outcome", "prior", "w")

    def __init__(self, move: Move, prior: float = 1.0) -> None:
        self.move = move
        self.n = 0
        self.w = 0.0
        self.prior = prior
        self.outcome: int | None = None
        self.children: list[Node] | None = None
        #: The evaluator's priors here, kept from the leaf's evaluation for when the node
        #: is expanded (one call of the evaluator a node, not two).
        self.evals: list[float] | None = None


class _PythonTree:
    """The search over :class:`Node` objects and the Game API: any game, any evaluator
    (random rollouts without one)."""

    def __init__(self, game: Game, evaluator: Evaluator | None, c: float, rng: random.Random):
        self.game, self.c, self.rng = game, c, rng
        self.evaluator: Evaluator = Rollouts(game, rng) if evaluator is None else evaluator
        #: Whether the evaluator gives priors: PUCT over them, else UCB1 (rollouts).
        self.puct = self.evaluator.gives_priors
        self.root = Node(-1)
        self.root_pos: Position | None = None
        #: The move played at the root (``act``): the subtree kept for the next move.
        self.played: Move | None = None

    def start(self, position: Position) -> None:
        """Make ``position`` the root: the node of the last tree (its root, or one or two
        plies below it) when it is there, else a new one."""
        self.root = self._reused(position)
        self.root_pos = position
        self.root.n = max(self.root.n, 1)  # expand the root on the first simulation

    def _reused(self, position: Position) -> Node:
        at = self.root_pos
        if at is not None:
            if at == position:
                return self.root
            apply = self.game._apply_unchecked
            for child in self.root.children or ():
                if child.move != self.played:
                    continue
                after = apply(at, child.move)
                for grand in child.children or ():
                    if apply(after, grand.move) == position:
                        return grand
        return Node(-1)

    def stats(self) -> list[Stats]:
        return [(k.move, k.n, k.w, k.outcome) for k in self.root.children or ()]

    def _expand(self, node: Node, position: Position, moves: list[Move]) -> None:
        if not self.puct:
            kids = [Node(m) for m in moves]
        else:
            priors = node.evals
            if priors is None:
                priors = self.evaluator.evaluate(position, moves)[1]
            node.evals = None
            kids = [Node(m, p) for m, p in zip(moves, priors, strict=True)]
        self.rng.shuffle(kids)
        node.children = kids

    def _leaf(self, node: Node, position: Position, moves: list[Move]) -> float:
        """The value of a position where play goes on, for its mover (the evaluator's: a
        random rollout, a value head's, a best move value), its priors kept for the node."""
        value, priors = self.evaluator.evaluate(position, moves)
        if self.puct:
            node.evals = priors
        return clipped(value)

    def run(self, sims: int) -> None:
        start = self.root_pos
        assert start is not None
        for _i in range(sims):
            self._simulate(self.root, start)

    def _select(self, node: Node) -> Node:
        """The child a simulation goes to: UCB1, or PUCT with an evaluator's priors; a
        child whose game ended reads as its result."""
        c = self.c
        kids = node.children
        assert kids is not None
        best, best_score = kids[0], -math.inf
        if self.puct:
            scale = c * math.sqrt(node.n)
            for kid in kids:
                if kid.outcome is not None:
                    score = float(kid.outcome)
                else:
                    mean = kid.w / kid.n if kid.n else 0.0
                    score = mean + scale * kid.prior / (kid.n + 1)
                if score > best_score:
                    best, best_score = kid, score
            return best
        log_n = math.log(node.n)
        for kid in kids:
            if kid.outcome is not None:
                score = float(kid.outcome)
            elif kid.n == 0:
                return kid
            else:
                score = kid.w / kid.n + c * math.sqrt(log_n / kid.n)
            if score > best_score:
                best, best_score = kid, score
        return best

    def _simulate(self, root: Node, start: Position) -> None:
        game = self.game
        legal, apply = game.legal_moves, game._apply_unchecked
        node, position, path = root, start, [root]
        moves = legal(position)
        while moves and node.n > 0:
            if node.children is None:
                self._expand(node, position, moves)
            best = self._select(node)
            node = best
            position = apply(position, node.move)
            path.append(node)
            moves = legal(position)
        if moves:
            value = self._leaf(node, position, moves)
        else:
            result = game.result(position)
            if node is not root:
                node.outcome = -result
            value = float(result)
        # ``value`` is for the mover at the leaf; each node's ``w`` is for whoever moved
        # into it, the mover one ply up.
        for visited in reversed(path):
            visited.n += 1
            visited.w -= value
            value = -value


class _ArrayTree:
    """The same search compiled (:mod:`qarena.kernels.mcts`), for a game in GameArrays form
    with random rollouts, or on Connect Four bitboards with random rollouts or an n-tuple
    network at the leaves."""

    def __init__(
        self,
        game: Game,
        arrays: GameArrays | None,
        c: float,
        seed: int,
        leaf: tuple[np.ndarray, ...] | None = None,
    ):
        """``arrays`` None: the game is a Connect Four board of four in a row that fits
        bitboards (:func:`_bitboard`), searched as such; ``leaf``: the evaluator at the
        leaves there, as its ``compiled_values`` (its values and priors computed in the
        kernel, as the search in Python computes them from its ``values``)."""
        from qarena.kernels.rng import seed_state

        self.game, self.a, self.c, self.leaf = game, arrays, c, leaf
        self.num_moves = game.num_moves
        self.rng = seed_state(seed)
        self.path = np.empty(game.max_plies + 2, dtype=np.int64)
        self._alloc(min(NODE_CAP, 4096))
        self.root_pos: Position | None = None
        self.played: Move | None = None

    def _alloc(self, size: int) -> None:
        from qarena.kernels.mcts import NO_OUTCOME

        self.n = np.zeros(size, dtype=np.int64)
        self.w = np.zeros(size, dtype=np.float64)
        self.mv = np.zeros(size, dtype=np.int64)
        self.first = np.full(size, -1, dtype=np.int64)
        self.count = np.zeros(size, dtype=np.int64)
        self.outcome = np.full(size, NO_OUTCOME, dtype=np.int8)
        # Priors only where the leaves are evaluated (PUCT); one unused entry else.
        self.prior = np.zeros(size if self.leaf is not None else 1, dtype=np.float64)
        self.used, self.root = 1, 0

    def _grow(self, need: int) -> None:
        size = len(self.n)
        if need <= size or size >= NODE_CAP:
            return
        new = min(NODE_CAP, max(2 * size, need))
        names = ["n", "w", "mv", "first", "count", "outcome"]
        if self.leaf is not None:
            names.append("prior")
        for name in names:
            old = getattr(self, name)
            grown = np.empty(new, dtype=old.dtype)
            grown[:size] = old
            setattr(self, name, grown)

    def _children(self, node: int) -> range:
        f = int(self.first[node])
        return range(f, f + int(self.count[node])) if f >= 0 else range(0)

    def start(self, position: Position) -> None:
        at, found = self.root_pos, None
        # A tree past half its room starts again: the next move's search needs room.
        if at is not None and 2 * self.used <= NODE_CAP:
            apply = self.game._apply_unchecked
            if at == position:
                found = self.root
            for ch in self._children(self.root) if found is None else ():
                if int(self.mv[ch]) != self.played:
                    continue
                after = apply(at, self.played)
                for gch in self._children(ch):
                    if apply(after, int(self.mv[gch])) == position:
                        found = gch
                        break
        if found is None:
            self._alloc(len(self.n))
            found = 0
        self.root, self.root_pos = found, position
        self.n[found] = max(int(self.n[found]), 1)

    def stats(self) -> list[Stats]:
        from qarena.kernels.mcts import NO_OUTCOME

        out: list[Stats] = []
        for ch in self._children(self.root):
            o = int(self.outcome[ch])
            out.append((int(self.mv[ch]), int(self.n[ch]), float(self.w[ch]),
                        None if o == NO_OUTCOME else o))  # fmt: skip
        return out

    def run(self, sims: int) -> None:
        from qarena.kernels.mcts import simulate, simulate_bits, simulate_bits_network

        assert self.root_pos is not None
        self._grow(self.used + sims * self.num_moves)
        a = self.a
        if a is None:
            from qarena.exact.search import bits

            grid = self.game.grid
            assert grid is not None
            mine, mask, _stones = bits(grid, self.root_pos)
            leaf = self.leaf
            if leaf is not None:
                self.used = simulate_bits_network(
                    grid.rows, grid.cols, mine, mask, self.root, sims, self.c,
                    self.n, self.w, self.mv, self.first, self.count, self.outcome, self.prior,
                    self.used, self.rng, self.path, *leaf,
                )  # fmt: skip
                return
            self.used = simulate_bits(
                grid.rows, grid.cols, mine, mask, self.root, sims, self.c,
                self.n, self.w, self.mv, self.first, self.count, self.outcome, self.prior,
                self.used, self.rng, self.path,
            )  # fmt: skip
            return
        self.used = simulate(
            a.board, a.misere, a.gravity, a.cols, a.move_comp, a.move_take, a.lines,
            np.asarray(self.root_pos, dtype=np.int64), self.root, sims, self.c,
            self.n, self.w, self.mv, self.first, self.count, self.outcome, self.prior,
            self.used, self.rng, self.path,
        )  # fmt: skip


def _bitboard(game: Game) -> bool:
    """Whether ``game`` is a Connect Four board of four in a row whose columns, each with a
    spare bit, fit 64 bits: the compiled search then plays it on bitboards, as the search
    solver does (a move is its column)."""
    grid = game.grid
    return (
        grid is not None
        and grid.gravity
        and grid.k == 4
        and grid.cols * (grid.rows + 1) <= 64
        and game.num_moves == grid.cols
    )


def _arrays(game: Game) -> GameArrays | None:
    """The game's rules as arrays, where it has them (not classic Connect Four's board)."""
    try:
        return game.arrays()
    except (QarenaError, NotImplementedError):
        return None


@dataclass
class MCTSPlayer(ChoosingPlayer):
    """UCT over the game's rules (module docstring), named by its spec. ``compiled``: the
    compiled search where it applies (random rollouts on a game in GameArrays form or on
    Connect Four bitboards; an n-tuple network at the leaves on Connect Four bitboards,
    evaluated in the kernel to the same values); both searches make the same choices, each
    from its own generator."""

    game: Game
    budget: Budget
    #: What scores its leaves: a player (read through :func:`evaluator_for`) or any
    #: evaluator; None: random rollouts.
    evaluator: Player | Evaluator | None = None
    seed: int | None = None
    name: str = "mcts"
    thinks = True  # the player protocol's answer, a class attribute (no field)
    c: float = UCT_C
    compiled: bool = True
    _tree: _PythonTree | _ArrayTree = field(init=False, repr=False)
    #: Simulations run in all, for measuring speed.
    simulations: int = field(init=False, default=0)
    #: Whether the kept tree is a finished search of its root (not one only started).
    _fresh: bool = field(init=False, repr=False, default=False)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        scores = None if self.evaluator is None else evaluator_for(self.evaluator)
        tree: _PythonTree | _ArrayTree = _PythonTree(self.game, scores, self.c, rng)
        if self.compiled and scores is None:
            if _bitboard(self.game):
                tree = _ArrayTree(self.game, None, self.c, rng.getrandbits(63))
            elif (arrays := _arrays(self.game)) is not None:
                tree = _ArrayTree(self.game, arrays, self.c, rng.getrandbits(63))
        elif self.compiled and scores is not None and _bitboard(self.game):
            # An evaluator the kernel can compute itself (an n-tuple network, the shipped one
            # or a file of its kind) is evaluated there; any other is asked in Python.
            leaf = scores.compiled
            if leaf is not None:
                tree = _ArrayTree(self.game, None, self.c, rng.getrandbits(63), leaf=leaf)
        self._tree = tree

    def seeded(self, seed: int | None, name: str | None = None) -> MCTSPlayer:
        """The same player with a fresh tree and a generator seeded by ``seed``."""
        return MCTSPlayer(
            self.game, self.budget, self.evaluator, seed, name or self.name, self.c,
            self.compiled,
        )  # fmt: skip

    # --- the search -------------------------------------------------------------------

    def search(self, position: Position) -> list[Stats]:
        """The root's children for ``position`` after this move's budget of simulations."""
        if not self.game.legal_moves(position):
            from qarena.agents.strategies import _legal

            _legal(self.game, position)  # the one refusal of a finished position
        tree = self._tree
        chunk = CHUNK if isinstance(tree, _ArrayTree) else 1
        self._fresh = False  # until this search ends (a stop may cut it short)
        tree.start(position)
        budget = self.budget
        if budget.count is not None:
            left = budget.count
            while left > 0:
                check()
                step = min(chunk, left)
                tree.run(step)
                left -= step
            self.simulations += budget.count
        else:
            assert budget.seconds is not None
            end = time.perf_counter() + budget.seconds
            while True:
                check()
                tree.run(chunk)
                self.simulations += chunk
                if time.perf_counter() >= end:
                    break
        self._fresh = True
        return tree.stats()

    def _searched(self, position: Position) -> list[Stats]:
        """The root's children for ``position``: the last search's when it was of this
        position and nothing was asked since (``act`` then ``values`` search once)."""
        if self._fresh and self._tree.root_pos == position:
            return self._tree.stats()
        return self.search(position)

    # --- the player -------------------------------------------------------------------

    def act(self, position: Position) -> Move:
        """The root's best child after the search, as OpenSpiel's ``best_child``: a proven
        win first, then the most visits, then the greater total value, then the first in
        the shuffled order."""
        children = self._searched(position)
        best = max(children, key=lambda s: (s[3] or 0, s[1], s[2]))
        self._tree.played = best[0]
        return best[0]

    def values(self, position: Position) -> dict[Move, float]:
        """Each legal move's mean value for the mover after the search of ``position`` (the
        one ``act`` just made, when it was of this position): from -1 (lost) to 1 (won); 0
        for a move no simulation tried."""
        means = {m: (w / n if n else 0.0) for m, n, w, _o in self._searched(position)}
        return {m: means.get(m, 0.0) for m in self.game.legal_moves(position)}

    def choices(self, position: Position) -> list[Move]:
        """The one move it picks: its search's."""
        return [self.act(position)]

    def describe(self) -> str | None:
        from qarena.agents.strategies import SHIPPED_PLAYERS

        if self.evaluator is None:
            how = _("random rollouts")
        elif self.evaluator.name in SHIPPED_PLAYERS:  # a name for commands, not a word
            how = _("leaves scored by the network shipped with qarena")
        else:
            how = _("leaves scored by {player}").format(player=self.evaluator.name)
        if self.budget.count is not None:
            return _("MCTS, {count:,} simulations a move, {how}").format(
                count=self.budget.count, how=how
            )
        return _("MCTS, {seconds:g} s a move, {how}").format(seconds=self.budget.seconds, how=how)


def make_mcts(game: Game, budget: Budget, evaluator: Player | None, seed: int | None) -> Player:
    """The MCTS player of ``game`` (:data:`MCTS`'s maker)."""
    return MCTSPlayer(game, budget, evaluator, seed)


#: MCTS as a kind of search player, declared once: ``mcts:N``, ``mcts:Ns``, ``mcts:N:FILE``.
MCTS = register(
    SearchKind(
        name="mcts",
        form="mcts:N",
        expected=gettext_noop("a count of simulations like mcts:200, or seconds like mcts:1.5s"),
        make=make_mcts,
        web=WebLimits(
            most=MOST_SIMULATIONS,
            words=gettext_noop("{count:,} simulations a move"),
            most_led=MOST_LED_SIMULATIONS,
            led_words=gettext_noop("{count:,} simulations a move with a file scoring the leaves"),
        ),
        afresh=True,
        plays=MCTSPlayer,
    )
)


__all__ = ["CHUNK", "MCTS", "NODE_CAP", "UCT_C", "MCTSPlayer", "Node", "make_mcts"]
