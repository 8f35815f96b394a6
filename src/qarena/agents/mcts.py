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

With an evaluator (``mcts:N:FILE``) a leaf is not rolled out: its value is the largest of
the evaluator's move values there (``values(position)``: the mover's value of each move,
clipped to -1..1, a missing or NaN value read as 0), and a node's children get priors, the
softmax of those move values (temperature 1), used by PUCT as in OpenSpiel's ``puct_value``:
``mean + c · prior · sqrt(N) / (n + 1)`` (an unvisited child's mean read as 0).

Tree reuse: the tree of the last search is kept; when the next position asked for is the
root or a position one or two plies below it in the tree, the search goes on from that
subtree, adding its budget of simulations to the visits it already has. Random draws come
from one ``random.Random(seed)``: the same seed, asked the same positions in the same
order, plays the same moves.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from qarena.agents.base import Player
from qarena.agents.thinking import Budget
from qarena.games.base import Game, Move, Position
from qarena.games.picking import Picks
from qarena.i18n import _
from qarena.threads import check

#: OpenSpiel's ``uct_c`` default.
UCT_C = math.sqrt(2.0)


class Node:
    """A node of the tree: the move that led here, its visits, the total value for the
    player who made that move, its prior (PUCT), and its children once expanded."""

    __slots__ = ("children", "move", "n", "prior", "w")

    def __init__(self, move: Move, prior: float = 1.0) -> None:
        self.move = move
        self.n = 0
        self.w = 0.0
        self.prior = prior
        self.children: list[Node] | None = None


def _clip(v: float) -> float:
    if math.isnan(v):  # a move the evaluator has no value for
        return 0.0
    return -1.0 if v < -1.0 else (1.0 if v > 1.0 else v)


@dataclass
class MCTSPlayer(Picks):
    """UCT over the game's rules (module docstring), named by its spec."""

    game: Game
    budget: Budget
    evaluator: Player | None = None
    seed: int | None = None
    name: str = "mcts"
    c: float = UCT_C
    _rng: random.Random = field(init=False, repr=False)
    _root: Node | None = field(init=False, repr=False, default=None)
    _root_pos: Position | None = field(init=False, repr=False, default=None)
    #: Simulations run in all, for measuring speed.
    simulations: int = field(init=False, default=0)
    #: Whether the kept tree is the search of its root asked last (``values`` after ``act``).
    _fresh: bool = field(init=False, repr=False, default=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def seeded(self, seed: int | None, name: str | None = None) -> MCTSPlayer:
        """The same player with a fresh tree and a generator seeded by ``seed``."""
        return MCTSPlayer(self.game, self.budget, self.evaluator, seed, name or self.name, self.c)

    # --- the search -------------------------------------------------------------------

    def _reused(self, position: Position) -> Node:
        """The node of ``position`` in the last tree (the root, or one or two plies below
        it), else a new root."""
        root, at = self._root, self._root_pos
        if root is not None and at is not None:
            if at == position:
                return root
            apply = self.game._apply_unchecked
            for child in root.children or ():
                after = apply(at, child.move)
                if after == position:
                    return child
                for grand in child.children or ():
                    if apply(after, grand.move) == position:
                        return grand
        return Node(-1)

    def _expand(self, node: Node, position: Position, moves: list[Move]) -> None:
        if self.evaluator is None:
            kids = [Node(m) for m in moves]
        else:
            values = self.evaluator.values(position) or {}
            raw = [_clip(values.get(m, 0.0)) for m in moves]
            top = max(raw)
            exps = [math.exp(v - top) for v in raw]
            total = sum(exps)
            kids = [Node(m, e / total) for m, e in zip(moves, exps, strict=True)]
        self._rng.shuffle(kids)
        node.children = kids

    def _leaf(self, position: Position, moves: list[Move]) -> float:
        """The value of a position where play goes on, for its mover: a random rollout, or
        the evaluator's best move value."""
        if self.evaluator is not None:
            values = self.evaluator.values(position) or {}
            return max(_clip(values.get(m, 0.0)) for m in moves)
        game = self.game
        legal, apply = game.legal_moves, game._apply_unchecked
        rnd = self._rng.random
        sign = 1.0
        while moves:
            position = apply(position, moves[int(rnd() * len(moves))])
            moves = legal(position)
            sign = -sign
        return sign * game.result(position)

    def _simulate(self, root: Node, start: Position) -> None:
        game = self.game
        legal, apply = game.legal_moves, game._apply_unchecked
        c = self.c
        puct = self.evaluator is not None
        node, position, path = root, start, [root]
        moves = legal(position)
        while moves and node.n > 0:
            if node.children is None:
                self._expand(node, position, moves)
            kids = node.children
            assert kids is not None
            best, best_score = kids[0], -math.inf
            if puct:
                scale = c * math.sqrt(node.n)
                for kid in kids:
                    score = (kid.w / kid.n if kid.n else 0.0) + scale * kid.prior / (kid.n + 1)
                    if score > best_score:
                        best, best_score = kid, score
            else:
                log_n = math.log(node.n)
                for kid in kids:
                    if kid.n == 0:
                        best = kid
                        break
                    score = kid.w / kid.n + c * math.sqrt(log_n / kid.n)
                    if score > best_score:
                        best, best_score = kid, score
            node = best
            position = apply(position, node.move)
            path.append(node)
            moves = legal(position)
        value = self._leaf(position, moves) if moves else float(game.result(position))
        # ``value`` is for the mover at the leaf; each node's ``w`` is for whoever moved
        # into it, the mover one ply up.
        for visited in reversed(path):
            visited.n += 1
            visited.w -= value
            value = -value

    def search(self, position: Position) -> Node:
        """The root for ``position`` after this move's budget of simulations."""
        moves = self.game.legal_moves(position)
        if not moves:
            from qarena.agents.strategies import _legal

            _legal(self.game, position)  # the one refusal of a finished position
        root = self._reused(position)
        if root.children is None:
            root.n = max(root.n, 1)  # expand the root on the first simulation
        budget = self.budget
        if budget.count is not None:
            for i in range(budget.count):
                if i & 255 == 255:
                    check()
                self._simulate(root, position)
            self.simulations += budget.count
        else:
            assert budget.seconds is not None
            end = time.perf_counter() + budget.seconds
            done = 0
            while True:
                self._simulate(root, position)
                done += 1
                if done & 255 == 0:
                    check()
                if time.perf_counter() >= end:
                    break
            self.simulations += done
        self._root, self._root_pos = root, position
        return root

    def _searched(self, position: Position) -> Node:
        """The root for ``position``: the last search's when it was of this position and
        nothing was asked since (``act`` then ``values`` search once)."""
        if self._root is not None and self._root_pos == position and self._fresh:
            return self._root
        root = self.search(position)
        self._fresh = True
        return root

    # --- the player -------------------------------------------------------------------

    def act(self, position: Position) -> Move:
        """The most visited move at the root after the search (ties: the greater total
        value, then the earlier in the shuffled order)."""
        self._fresh = False
        root = self._searched(position)
        assert root.children is not None
        best = max(root.children, key=lambda k: (k.n, k.w))
        return best.move

    def values(self, position: Position) -> dict[Move, float]:
        """Each legal move's mean value for the mover after the search of ``position`` (the
        one ``act`` just made, when it was of this position): from -1 (lost) to 1 (won); 0
        for a move no simulation tried."""
        root = self._searched(position)
        means = {k.move: (k.w / k.n if k.n else 0.0) for k in root.children or ()}
        return {m: means.get(m, 0.0) for m in self.game.legal_moves(position)}

    def choices(self, position: Position) -> list[Move]:
        """The one move it picks: its search's."""
        return [self.act(position)]

    def describe(self) -> str | None:
        how = (
            _("random rollouts")
            if self.evaluator is None
            else _("leaves scored by {player}").format(player=self.evaluator.name)
        )
        if self.budget.count is not None:
            return _("MCTS, {count:,} simulations a move, {how}").format(
                count=self.budget.count, how=how
            )
        return _("MCTS, {seconds:g} s a move, {how}").format(seconds=self.budget.seconds, how=how)


def make_mcts(game: Game, budget: Budget, evaluator: Player | None, seed: int | None) -> Player:
    """The MCTS player of ``game`` (:data:`~qarena.agents.thinking.THINKERS`'s ``mcts``)."""
    return MCTSPlayer(game, budget, evaluator, seed)


__all__ = ["UCT_C", "MCTSPlayer", "Node", "make_mcts"]
