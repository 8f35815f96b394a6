"""MCTS compiled: UCT with random rollouts for every game in GameArrays form and for
Connect Four on bitboards, and PUCT with an n-tuple network at the leaves on Connect Four
bitboards (:func:`simulate_bits_network`): the same search as :mod:`qarena.agents.mcts`'s
pure Python one, over a tree held in flat arrays.

A node ``i`` has its visits ``n[i]``, the total value ``w[i]`` for whoever moved into it,
the move that led to it ``mv[i]``, its children ``first[i] .. first[i] + count[i]`` (-1:
not expanded) and, once a simulation ended there, the game's result for whoever moved into
it ``outcome[i]`` (:data:`NO_OUTCOME` before). Positions are not stored: a simulation
replays its moves from the root.

One loop (:func:`_search_over`) does the selection, expansion, rollout and backup for
every game; a game's rules come to it as three compiled functions over a ``rules`` tuple and
a ``state`` tuple (``begin``: the root's state and whether it is over; ``legal``: the moves
into a buffer; ``play``: the state after a move and the result for the next mover, or
NOT_TERMINAL). The loop is made once for each set of rules, which numba inlines into it, so
the rules cost no call: GameArrays (:func:`simulate`) and Connect Four bitboards
(:func:`simulate_bits`, and with an evaluator, :func:`simulate_bits_network`).
"""

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.jit import njit, njit_inline
from qarena.kernels.ntuple import CODES
from qarena.kernels.rng import below
from qarena.kernels.rules import mover_mark, terminal_result
from qarena.kernels.search import has_four, popcount

NO_OUTCOME = 2


@njit_inline
def _legal_into(
    board: bool, move_comp: np.ndarray, move_take: np.ndarray, digits: np.ndarray, buf: np.ndarray
) -> int:
    """The legal moves of a position where play goes on, into ``buf``; their count. A
    column's top cell is its row-0 cell, so a board move is legal where its cell is empty."""
    k = 0
    for m in range(move_comp.shape[0]):
        comp = move_comp[m]
        if (digits[comp] == 0) if board else (digits[comp] >= move_take[m]):
            buf[k] = m
            k += 1
    return k


@njit_inline
def _play(
    board: bool,
    gravity: bool,
    cols: int,
    move_comp: np.ndarray,
    move_take: np.ndarray,
    digits: np.ndarray,
    mark: int,
    m: int,
) -> None:
    """Make legal move ``m`` in place (no copy: a rollout throws its position away)."""
    comp = move_comp[m]
    if board:
        if gravity:
            r = digits.shape[0] // cols - 1
            while digits[r * cols + comp] != 0:
                r -= 1
            digits[r * cols + comp] = mark
        else:
            digits[comp] = mark
    else:
        digits[comp] -= move_take[m]


@njit_inline
def _begin(rules: tuple) -> tuple[tuple[np.ndarray, int], int]:  # type: ignore[type-arg]
    """A simulation's start: the root's digits copied into the scratch array, its mover's
    mark, and its result (NOT_TERMINAL where play goes on)."""
    board, misere, _gravity, _cols, _comp, _take, lines, root_digits, digits, mark0 = rules
    for i in range(digits.shape[0]):
        digits[i] = root_digits[i]
    return (digits, mark0), terminal_result(board, misere, lines, digits)


@njit_inline
def _legal(rules: tuple, state: tuple[np.ndarray, int], buf: np.ndarray) -> int:  # type: ignore[type-arg]
    board, _misere, _gravity, _cols, move_comp, move_take = rules[:6]
    return _legal_into(board, move_comp, move_take, state[0], buf)


@njit_inline
def _step(
    rules: tuple,  # type: ignore[type-arg]
    state: tuple[np.ndarray, int],
    m: int,
) -> tuple[tuple[np.ndarray, int], int]:
    board, misere, gravity, cols, move_comp, move_take, lines = rules[:7]
    digits, mark = state
    _play(board, gravity, cols, move_comp, move_take, digits, mark, m)
    return (digits, 3 - mark), terminal_result(board, misere, lines, digits)


@njit_inline
def _expand(
    node: int,
    k: int,
    puct: bool,
    buf: np.ndarray,
    evals: np.ndarray,
    rng: np.ndarray,
    n: np.ndarray,
    w: np.ndarray,
    mv: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    outcome: np.ndarray,
    prior: np.ndarray,
    used: int,
) -> int:
    """Give ``node`` its children, the ``k`` moves in ``buf`` (with ``puct``, their priors:
    the softmax of the move values in ``evals``), in a random order; the nodes in use after."""
    if puct:
        top = -math.inf
        for i in range(k):
            top = max(top, evals[i])
        total = 0.0
        for i in range(k):
            evals[i] = math.exp(evals[i] - top)
            total += evals[i]
        for i in range(k):
            evals[i] = evals[i] / total
    for i in range(k - 1, 0, -1):  # shuffled once, so ties fall at random
        j = below(rng, i + 1)
        buf[i], buf[j] = buf[j], buf[i]
        if puct:
            evals[i], evals[j] = evals[j], evals[i]
    first[node] = used
    count[node] = k
    for i in range(k):
        ch = used + i
        mv[ch] = buf[i]
        n[ch] = 0
        w[ch] = 0.0
        first[ch] = -1
        count[ch] = 0
        outcome[ch] = NO_OUTCOME
        if puct:
            prior[ch] = evals[i]
    return used + k


@njit_inline
def _no_evals(rules: tuple, state: tuple, buf: np.ndarray, k: int, evals: np.ndarray) -> float:  # type: ignore[type-arg]
    """A search with random rollouts asks no evaluator (here so that its loop compiles)."""
    return 0.0


def _search_over(
    begin: Callable[..., Any],
    legal: Callable[..., Any],
    play: Callable[..., Any],
    evaluate: Callable[..., Any] = _no_evals,
    puct: bool = False,
) -> Callable[..., int]:
    """The search compiled for one game's rules (module docstring): numba reads ``begin``,
    ``legal`` and ``play`` as constants of the closure, so it inlines them as it would
    functions named in the loop itself (passed as arguments instead, they are called
    through pointers that keep the caller out of numba's disk cache). With ``puct``, leaves
    are not rolled out: ``evaluate(rules, state, buf, k, evals)`` puts the mover's value of
    each of the ``k`` moves in ``buf`` into ``evals`` and returns the largest, the leaf's
    value; the softmax of those values are the children's priors, and a simulation descends
    by PUCT. A leaf where play goes on is expanded at once then (its priors are at hand:
    the same tree as expanding it on the next visit, without evaluating it twice)."""

    @njit
    def search(
        rules: tuple,  # type: ignore[type-arg]
        root: int,
        sims: int,
        c: float,
        n: np.ndarray,
        w: np.ndarray,
        mv: np.ndarray,
        first: np.ndarray,
        count: np.ndarray,
        outcome: np.ndarray,
        prior: np.ndarray,
        used: int,
        rng: np.ndarray,
        path: np.ndarray,
        buf: np.ndarray,
    ) -> int:
        """Run ``sims`` simulations from node ``root`` (its ``n`` at least 1, so that the
        first simulation expands it) over the game whose rules are ``rules``; the nodes in
        use after. ``buf`` holds the most moves a position has. A node is not expanded when
        the arrays have no room for its children: the simulation rolls out (or evaluates)
        from it instead."""
        cap = n.shape[0]
        most = buf.shape[0]
        evals = np.empty(most, dtype=np.float64)
        for _ in range(sims):
            state, res = begin(rules)
            node = root
            depth = 0
            path[0] = root
            while res == NOT_TERMINAL and n[node] > 0:
                if first[node] < 0:
                    if used + most > cap:
                        break  # no room: roll out from here
                    k = legal(rules, state, buf)
                    if puct:
                        evaluate(rules, state, buf, k, evals)
                    used = _expand(
                        node, k, puct, buf, evals, rng, n, w, mv, first, count, outcome, prior,
                        used,
                    )  # fmt: skip
                f = first[node]
                best = f
                best_score = -math.inf
                if puct:
                    scale = c * math.sqrt(n[node])
                    for ch in range(f, f + count[node]):
                        if outcome[ch] != NO_OUTCOME:
                            score = float(outcome[ch])
                        else:
                            mean = w[ch] / n[ch] if n[ch] > 0 else 0.0
                            score = mean + scale * prior[ch] / (n[ch] + 1)
                        if score > best_score:
                            best = ch
                            best_score = score
                else:
                    log_n = math.log(n[node])
                    for ch in range(f, f + count[node]):
                        if outcome[ch] != NO_OUTCOME:
                            score = float(outcome[ch])
                        elif n[ch] == 0:
                            best = ch
                            break
                        else:
                            score = w[ch] / n[ch] + c * math.sqrt(log_n / n[ch])
                        if score > best_score:
                            best = ch
                            best_score = score
                node = best
                state, res = play(rules, state, mv[node])
                depth += 1
                path[depth] = node
            if res != NOT_TERMINAL:
                value = float(res)
                if depth > 0:
                    outcome[node] = -res
            elif puct:
                k = legal(rules, state, buf)
                value = evaluate(rules, state, buf, k, evals)
                if first[node] < 0 and used + most <= cap:
                    used = _expand(
                        node, k, puct, buf, evals, rng, n, w, mv, first, count, outcome, prior,
                        used,
                    )  # fmt: skip
            else:
                sign = 1.0
                while True:
                    k = legal(rules, state, buf)
                    state, r = play(rules, state, buf[below(rng, k)])
                    sign = -sign
                    if r != NOT_TERMINAL:
                        value = sign * r
                        break
            for d in range(depth, -1, -1):
                at = path[d]
                n[at] += 1
                w[at] -= value
                value = -value
        return used

    return search


_search_arrays = _search_over(_begin, _legal, _step)


@njit
def simulate(
    board: bool,
    misere: bool,
    gravity: bool,
    cols: int,
    move_comp: np.ndarray,
    move_take: np.ndarray,
    lines: np.ndarray,
    root_digits: np.ndarray,
    root: int,
    sims: int,
    c: float,
    n: np.ndarray,
    w: np.ndarray,
    mv: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    outcome: np.ndarray,
    prior: np.ndarray,
    used: int,
    rng: np.ndarray,
    path: np.ndarray,
) -> int:
    """Run ``sims`` simulations from node ``root`` of a game in GameArrays form, whose
    position is ``root_digits`` (:func:`_search_over`); the nodes in use after."""
    rules = (
        board, misere, gravity, cols, move_comp, move_take, lines, root_digits,
        np.empty_like(root_digits), mover_mark(board, root_digits),
    )  # fmt: skip
    buf = np.empty(move_comp.shape[0], dtype=np.int64)
    return _search_arrays(
        rules, root, sims, c, n, w, mv, first, count, outcome, prior, used, rng, path, buf
    )


@njit_inline
def _play_bits(
    cur: np.uint64, mask: np.uint64, col: int, rows: int
) -> tuple[np.uint64, np.uint64, int]:
    """Drop the mover's stone in column ``col`` of a Connect Four bitboard (the mover's
    stones ``cur``, all stones ``mask``; each column ``rows`` cells and a spare bit): the
    next mover's stones, all stones, and LOSS for the next mover when the stone made four
    (else NOT_TERMINAL)."""
    bottom = np.uint64(1) << np.uint64(col * (rows + 1))
    after = mask | (mask + bottom)
    res = NOT_TERMINAL
    if has_four(cur | (after ^ mask), rows):
        res = -1
    return cur ^ mask, after, res


@njit_inline
def _legal_bits(mask: np.uint64, rows: int, cols: int, buf: np.ndarray) -> int:
    k = 0
    for col in range(cols):
        if mask & (np.uint64(1) << np.uint64(rows - 1 + col * (rows + 1))) == 0:
            buf[k] = col
            k += 1
    return k


@njit_inline
def _begin_bits(
    rules: tuple[int, int, np.uint64, np.uint64, int],
) -> tuple[tuple[np.uint64, np.uint64, int], int]:
    # rules[5:]: what an evaluator at the leaves needs (:func:`simulate_bits_network`).
    return (rules[2], rules[3], rules[4]), NOT_TERMINAL


@njit_inline
def _legal_bits_of(
    rules: tuple[int, int, np.uint64, np.uint64, int],
    state: tuple[np.uint64, np.uint64, int],
    buf: np.ndarray,
) -> int:
    return _legal_bits(state[1], rules[0], rules[1], buf)


@njit_inline
def _step_bits(
    rules: tuple[int, int, np.uint64, np.uint64, int],
    state: tuple[np.uint64, np.uint64, int],
    col: int,
) -> tuple[tuple[np.uint64, np.uint64, int], int]:
    rows, cols = rules[0], rules[1]
    cur, mask, stones = state
    cur, mask, res = _play_bits(cur, mask, col, rows)
    stones += 1
    if res == NOT_TERMINAL and stones == rows * cols:
        res = 0
    return (cur, mask, stones), res


_search_bits = _search_over(_begin_bits, _legal_bits_of, _step_bits)


@njit
def simulate_bits(
    rows: int,
    cols: int,
    root_mine: np.uint64,
    root_mask: np.uint64,
    root: int,
    sims: int,
    c: float,
    n: np.ndarray,
    w: np.ndarray,
    mv: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    outcome: np.ndarray,
    prior: np.ndarray,
    used: int,
    rng: np.ndarray,
    path: np.ndarray,
) -> int:
    """:func:`simulate` on a Connect Four board of four in a row as bitboards (a move is
    its column), from a root where play goes on."""
    rules = (rows, cols, root_mine, root_mask, popcount(root_mask))
    buf = np.empty(cols, dtype=np.int64)
    return _search_bits(
        rules, root, sims, c, n, w, mv, first, count, outcome, prior, used, rng, path, buf
    )


@njit_inline
def _ntuple_total(weights: np.ndarray, idx: np.ndarray, side: int, tuples: int) -> float:
    """An n-tuple network's value of a board for x, with ``side`` to move, from its
    (symmetry, tuple) indices: :func:`qarena.kernels.ntuple.total`'s sum, in its order (so
    the same number), then ``tanh``."""
    acc = 0.0
    for s in range(idx.size // tuples):
        for t in range(tuples):
            acc += float(weights[side, t, idx[s * tuples + t]])
    return math.tanh(acc)


@njit_inline
def _shift_indices(
    idx: np.ndarray, cell: int, change: int, start: np.ndarray, where: np.ndarray,
    power: np.ndarray,
) -> None:  # fmt: skip
    """Add a cell's change of code to the indices it is part of (kernels/ntuple.py's
    ``touches``: for cell c, entries ``start[c]:start[c + 1]`` of ``where`` and ``power``)."""
    for e in range(start[cell], start[cell + 1]):
        idx[where[e]] += change * power[e]


@njit_inline
def _network_evals(
    rules: tuple,  # type: ignore[type-arg]
    state: tuple[np.uint64, np.uint64, int],
    buf: np.ndarray,
    k: int,
    evals: np.ndarray,
) -> float:
    """The n-tuple network's value of each of the ``k`` moves in ``buf`` for the mover, as
    :meth:`qarena.learn.ntuple.network.NTupleNetwork.values` gives it (1 for a move that makes four,
    0 for one that fills the board, else the value of the board it leaves, from the mover's
    side; NaN read as 0, clipped to -1..1), into ``evals``; the largest. The leaf's indices
    are read from its board once; a move changes those of the two cells it touches (its
    stone's, and the one above, playable now), and changes them back after."""
    rows, cols, _mine, _mask, _stones, weights, cells, codes, idx, start, where, power = rules
    cur, mask, stones = state
    mark = 1 if stones % 2 == 0 else 2  # x moves first
    # Each cell's code (kernels/ntuple.py): its stone, else 3 where playable, else 0.
    for col in range(cols):
        for r in range(rows):  # r counts from the bottom; the board's rows from the top
            bit = np.uint64(1) << np.uint64(col * (rows + 1) + r)
            cell = (rows - 1 - r) * cols + col
            if mask & bit:
                codes[cell] = mark if cur & bit else 3 - mark
            elif r == 0 or mask & (bit >> np.uint64(1)):
                codes[cell] = 3
            else:
                codes[cell] = 0
    tuples = cells.shape[1]
    for s in range(cells.shape[0]):  # kernels/ntuple.py's ``indices``
        for t in range(tuples):
            i = 0
            for j in range(cells.shape[2] - 1, -1, -1):
                i = i * CODES + codes[cells[s, t, j]]
            idx[s * tuples + t] = i
    side = 1 if mark == 1 else 0  # the side to move after the move
    sign = 1.0 if mark == 1 else -1.0
    best = -math.inf
    for i in range(k):
        col = buf[i]
        _next, _after, res = _play_bits(cur, mask, col, rows)
        if res != NOT_TERMINAL:
            v = 1.0
        elif stones + 1 == rows * cols:
            v = 0.0
        else:
            low = np.uint64(col * (rows + 1))
            height = popcount((mask >> low) & ((np.uint64(1) << np.uint64(rows)) - np.uint64(1)))
            cell = (rows - 1 - height) * cols + col
            _shift_indices(idx, cell, mark - 3, start, where, power)
            if cell >= cols:  # the cell above is playable now
                _shift_indices(idx, cell - cols, 3, start, where, power)
            v = sign * _ntuple_total(weights, idx, side, tuples)
            _shift_indices(idx, cell, 3 - mark, start, where, power)
            if cell >= cols:
                _shift_indices(idx, cell - cols, -3, start, where, power)
            if math.isnan(v):
                v = 0.0
            v = min(1.0, max(-1.0, v))
        evals[i] = v
        best = max(best, v)
    return best


_search_bits_network = _search_over(
    _begin_bits, _legal_bits_of, _step_bits, _network_evals, puct=True
)


@njit
def simulate_bits_network(
    rows: int,
    cols: int,
    root_mine: np.uint64,
    root_mask: np.uint64,
    root: int,
    sims: int,
    c: float,
    n: np.ndarray,
    w: np.ndarray,
    mv: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    outcome: np.ndarray,
    prior: np.ndarray,
    used: int,
    rng: np.ndarray,
    path: np.ndarray,
    weights: np.ndarray,
    cells: np.ndarray,
    start: np.ndarray,
    where: np.ndarray,
    power: np.ndarray,
) -> int:
    """:func:`simulate_bits` with an n-tuple network (its ``weights``, its tuples' cells
    under each symmetry ``cells``, and where each cell sits in them: ``start``, ``where``,
    ``power``, :func:`qarena.kernels.ntuple.touches`) scoring the leaves and giving the
    priors (PUCT), as the search in Python does with the network as its evaluator."""
    rules = (
        rows, cols, root_mine, root_mask, popcount(root_mask), weights, cells,
        np.zeros(rows * cols, dtype=np.int64), np.zeros(cells.shape[0] * cells.shape[1], np.int64),
        start, where, power,
    )  # fmt: skip
    buf = np.empty(cols, dtype=np.int64)
    return _search_bits_network(
        rules, root, sims, c, n, w, mv, first, count, outcome, prior, used, rng, path, buf
    )
