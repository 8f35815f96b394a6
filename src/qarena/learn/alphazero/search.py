"""Self-play for the AlphaZero learner: many games played in lockstep, each move chosen by a
PUCT tree search guided by the network, one batched evaluation per simulation step for every
game under way (as DeepMind's ``mctx`` searches many roots at once), with Dirichlet noise at
each root and visits sampled in proportion for the first moves.

What a game leaves to learn from is every position it passed through: the board, whose move
it was, the root's visit shares (the policy target) and the game's result for that player
(the value target). Everything random comes from the generator given, so a seed plays the
same games. No PyTorch here: the network is asked through ``evaluate``."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from qarena import threads
from qarena.games.base import BoardGrid, Game, Move, Position

#: ``evaluate(boards, movers) -> (priors (N, moves), values (N,))``: the network's answer for
#: each board, its value for the player to move.
Evaluate = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class SearchSettings:
    """How self-play searches and picks its moves: ``simulations`` a move, exploration
    ``c_puct``, root noise Dirichlet(``dirichlet_alpha``) mixed in at ``noise``, visits
    sampled in proportion for the first ``temperature_moves`` moves (then the most visited),
    and ``opening`` random moves at most (uniformly many) before the search starts, which
    are not learned from."""

    simulations: int = 64
    c_puct: float = 1.5
    dirichlet_alpha: float = 1.0
    noise: float = 0.25
    temperature_moves: int = 4
    opening: int = 0


@dataclass
class _Node:
    """A position in a tree: its prior over the legal moves, visits and value sums per move
    (for the player to move here), and the children reached."""

    position: Position
    mover: int
    moves: list[Move]
    prior: np.ndarray = field(default_factory=lambda: np.zeros(0))
    visits: np.ndarray = field(default_factory=lambda: np.zeros(0))
    total: np.ndarray = field(default_factory=lambda: np.zeros(0))
    children: dict[int, _Node] = field(default_factory=dict)
    expanded: bool = False
    #: The result for the player to move here where the game is over, else None.
    final: float | None = None


@dataclass
class Samples:
    """Positions to learn from: boards ``(N, cells)`` int8, movers ``(N,)``, policy targets
    ``(N, moves)`` float32 (the root's visit shares) and value targets ``(N,)`` float32 (the
    game's result for the player to move)."""

    boards: np.ndarray
    movers: np.ndarray
    policy: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return int(self.value.shape[0])


def _node(game: Game, position: Position) -> _Node:
    side = game.to_move(position)
    node = _Node(position, 0 if side is None else side, game.legal_moves(position))
    if game.is_terminal(position):
        node.final = float(game.result(position))
    return node


def _expand(node: _Node, priors: np.ndarray) -> None:
    p = priors[node.moves].astype(np.float64)
    total = p.sum()
    node.prior = p / total if total > 0 else np.full(len(node.moves), 1.0 / len(node.moves))
    node.visits = np.zeros(len(node.moves))
    node.total = np.zeros(len(node.moves))
    node.expanded = True


def _select(node: _Node, c_puct: float) -> int:
    """The index of the move PUCT explores next: its mean value for the mover plus the
    prior's bonus, shrinking with the move's visits; an unvisited move is valued 0."""
    n = node.visits
    q = np.divide(node.total, n, out=np.zeros_like(n), where=n > 0)
    u = c_puct * node.prior * math.sqrt(max(1.0, n.sum())) / (1.0 + n)
    return int(np.argmax(q + u))


def _descend(game: Game, root: _Node, c_puct: float) -> tuple[list[tuple[_Node, int]], _Node]:
    """The path PUCT walks from ``root`` to a leaf (a node not yet expanded, or the game's
    end), each step a node and the index of the move taken, and the leaf."""
    node, path = root, []
    while node.expanded and node.final is None:
        i = _select(node, c_puct)
        path.append((node, i))
        move = node.moves[i]
        child = node.children.get(move)
        if child is None:
            # A move of the node's own legal moves: applied without checking it again.
            child = node.children[move] = _node(game, game._apply_unchecked(node.position, move))
        node = child
    return path, node


def _board(position: Position, cells: int) -> np.ndarray:
    return np.asarray(position, dtype=np.int8).reshape(cells)


def search(
    game: Game,
    grid: BoardGrid,
    roots: list[_Node],
    evaluate: Evaluate,
    settings: SearchSettings,
    rng: np.random.Generator,
    noise: bool,
) -> None:
    """``settings.simulations`` simulations on every root at once: each simulation walks
    each tree down to a leaf, the leaves are evaluated in one batch, expanded and their
    values backed up (negated at each step: every value is for the player to move)."""
    cells = grid.cells
    fresh = [r for r in roots if not r.expanded and r.final is None]
    if fresh:
        priors, _values = evaluate(
            np.stack([_board(r.position, cells) for r in fresh]),
            np.array([r.mover for r in fresh], dtype=np.int8),
        )
        for r, p in zip(fresh, priors, strict=True):
            _expand(r, p)
    if noise and settings.noise > 0:
        for r in roots:
            if r.expanded and len(r.moves) > 1:
                d = rng.dirichlet(np.full(len(r.moves), settings.dirichlet_alpha))
                r.prior = (1 - settings.noise) * r.prior + settings.noise * d
    for _sim in range(settings.simulations):
        # A stop (Ctrl-C, a web run stopped, the time budget) ends the games under way here:
        # a simulation step is one batched evaluation, a fraction of a second.
        threads.check()
        paths: list[list[tuple[_Node, int]]] = []
        leaves: list[_Node] = []
        for root in roots:
            if root.final is None:
                path, leaf = _descend(game, root, settings.c_puct)
                paths.append(path)
                leaves.append(leaf)
        ask = [leaf for leaf in leaves if leaf.final is None]
        found: dict[int, float] = {}
        if ask:
            priors, values = evaluate(
                np.stack([_board(leaf.position, cells) for leaf in ask]),
                np.array([leaf.mover for leaf in ask], dtype=np.int8),
            )
            for leaf, p, v in zip(ask, priors, values, strict=True):
                if not leaf.expanded:  # two roots never share a leaf, but keep it safe
                    _expand(leaf, p)
                found[id(leaf)] = float(v)
        for path, leaf in zip(paths, leaves, strict=True):
            value = leaf.final if leaf.final is not None else found[id(leaf)]
            # ``value`` is for the player to move at the leaf; each step up, the other's.
            for node, i in reversed(path):
                value = -value
                node.visits[i] += 1
                node.total[i] += value


def self_play(
    game: Game,
    evaluate: Evaluate,
    games: int,
    settings: SearchSettings,
    rng: np.random.Generator,
    moves: int,
) -> tuple[Samples, list[float]]:
    """``games`` games of self-play in lockstep; returns what they leave to learn from and
    each game's result for the first player (+1, 0, −1). ``moves`` is the policy's width."""
    grid = game.grid
    assert grid is not None
    cells = grid.cells
    boards: list[list[np.ndarray]] = [[] for _ in range(games)]
    movers: list[list[int]] = [[] for _ in range(games)]
    policies: list[list[np.ndarray]] = [[] for _ in range(games)]
    roots: list[_Node] = []
    plies = [0] * games
    for _g in range(games):
        position = game.start()
        opened = int(rng.integers(0, settings.opening + 1)) if settings.opening > 0 else 0
        for _ in range(opened):
            # A random opening move may not end the game.
            safe = [
                m for m in game.legal_moves(position)
                if not game.is_terminal(game.apply(position, m))
            ]  # fmt: skip
            if not safe:
                break
            position = game.apply(position, safe[int(rng.integers(len(safe)))])
        roots.append(_node(game, position))
    results: list[float | None] = [None] * games
    while True:
        live = [g for g in range(games) if results[g] is None]
        for g in list(live):
            root = roots[g]
            if root.final is not None:
                # The result for the player to move at the end, turned to the first player's.
                results[g] = root.final if root.mover == 0 else -root.final
                live.remove(g)
        if not live:
            break
        search(game, grid, [roots[g] for g in live], evaluate, settings, rng, noise=True)
        for g in live:
            root = roots[g]
            target = np.zeros(moves, dtype=np.float32)
            target[root.moves] = root.visits / root.visits.sum()
            boards[g].append(_board(root.position, cells))
            movers[g].append(root.mover)
            policies[g].append(target)
            if plies[g] < settings.temperature_moves:
                i = int(rng.choice(len(root.moves), p=root.visits / root.visits.sum()))
            else:
                best = np.flatnonzero(root.visits == root.visits.max())
                i = int(best[int(rng.integers(best.size))])
            move = root.moves[i]
            child = root.children.get(move)
            # The chosen child's subtree is kept: its visits start the next search.
            roots[g] = child if child is not None else _node(game, game.apply(root.position, move))
            plies[g] += 1
    out_boards, out_movers, out_policy, out_value = [], [], [], []
    for g in range(games):
        result = results[g]
        assert result is not None
        for board, mover, target in zip(boards[g], movers[g], policies[g], strict=True):
            out_boards.append(board)
            out_movers.append(mover)
            out_policy.append(target)
            out_value.append(result if mover == 0 else -result)
    n = len(out_value)
    samples = Samples(
        np.array(out_boards, dtype=np.int8).reshape(n, cells),
        np.array(out_movers, dtype=np.int8),
        np.array(out_policy, dtype=np.float32).reshape(n, moves),
        np.array(out_value, dtype=np.float32),
    )
    return samples, [float(r) for r in results if r is not None]


__all__ = ["Evaluate", "Samples", "SearchSettings", "search", "self_play"]
