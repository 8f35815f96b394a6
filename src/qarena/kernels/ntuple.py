"""n-tuple networks on board games (tic-tac-toe, Connect Four): values from many small lookup
tables, learned by temporal-difference self-play.

A board is its cells, row-major from the top: 0 empty, 1 x (the first player), 2 o. A tuple is
a few cells; under each of the board's symmetries it reads its cells' codes, each 0 (empty, not
playable yet: a Connect Four cell with an empty cell below), 1 (x), 2 (o) or 3 (empty and
playable now), as a base-4 number: the index into that tuple's table. The value of a board is
``tanh`` of the sum of every tuple's table entry under every symmetry (symmetric boards get the
same value, and one board teaches its images too). There is one set of tables for each player
to move. Values are the first player's: +1 a win for x, -1 a win for o.

Learning is TD(λ) over the boards of a self-play game: after each move the board before it is
moved towards the board after it (towards the result at the end), and the boards before that
too, by λ per move back. A move made to explore teaches nothing and cuts the chain. A move that
wins at once is always made, but in a game's random opening: its first few moves (0 to a most,
the count drawn uniformly) are random moves that do not end the game, so self-play starts
across the board and not only where the network's own play leads.
"""

from __future__ import annotations

import math

import numpy as np

from qarena.kernels.constants import NOT_TERMINAL
from qarena.kernels.jit import njit
from qarena.kernels.rng import below, uniform

#: A cell's codes: empty and not playable yet, x, o, empty and playable now.
CODES = 4
#: Counters of a run: games played, moves made, the stop flag.
COUNTERS = 3
#: Bytes of a table entry (float32).
WEIGHT_BYTES = 4


@njit
def cell_code(board: np.ndarray, cell: int, cols: int, gravity: bool) -> int:
    v = board[cell]
    if v:
        return int(v)
    if not gravity or cell + cols >= board.size or board[cell + cols]:
        return 3
    return 0


@njit
def indices(
    board: np.ndarray, cells: np.ndarray, cols: int, gravity: bool, out: np.ndarray
) -> None:
    """Each (symmetry, tuple)'s index into its table, into ``out`` (flattened: symmetry-major);
    ``cells[s, t, j]`` is the j-th cell of tuple t under symmetry s."""
    n = 0
    for s in range(cells.shape[0]):
        for t in range(cells.shape[1]):
            idx = 0
            for j in range(cells.shape[2] - 1, -1, -1):
                idx = idx * CODES + cell_code(board, cells[s, t, j], cols, gravity)
            out[n] = idx
            n += 1


@njit
def total(weights: np.ndarray, side: int, idx: np.ndarray, tuples: int) -> float:
    """The sum of the entries ``idx`` names in the tables of ``side`` (0: x to move)."""
    acc = 0.0
    for n in range(idx.size):
        # float(): summed in 64 bits as numba does (NumPy would keep float32 + float in 32).
        acc += float(weights[side, n % tuples, idx[n]])
    return acc


@njit
def value(
    weights: np.ndarray, board: np.ndarray, side: int, cells: np.ndarray, cols: int,
    gravity: bool, scratch: np.ndarray,
) -> float:  # fmt: skip
    """The board's value for x, with ``side`` to move."""
    indices(board, cells, cols, gravity, scratch)
    return math.tanh(total(weights, side, scratch, cells.shape[1]))


@njit
def wins(board: np.ndarray, lines: np.ndarray, mark: int) -> bool:
    """Whether ``mark`` fills a whole line."""
    for i in range(lines.shape[0]):
        full = True
        for j in range(lines.shape[1]):
            if board[lines[i, j]] != mark:
                full = False
                break
        if full:
            return True
    return False


@njit
def target_cell(board: np.ndarray, move: int, cols: int, gravity: bool) -> int:
    """The cell a move fills: its column's lowest empty cell (Connect Four), else the move's
    own cell; -1 when it is not legal."""
    if not gravity:
        return move if board[move] == 0 else -1
    cell = -1
    c = move
    while c < board.size and board[c] == 0:
        cell = c
        c += cols
    return cell


def touches(cells: np.ndarray, n_cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each board cell sits in the tuples, for updating indices move by move: for cell
    ``c``, entries ``start[c]:start[c + 1]`` of ``where`` (a (symmetry, tuple) pair, flattened
    as in :func:`indices`) and ``power`` (its place's power of 4)."""
    found: list[list[tuple[int, int]]] = [[] for _ in range(n_cells)]
    symmetries, tuples, length = cells.shape
    for s in range(symmetries):
        for t in range(tuples):
            for j in range(length):
                found[int(cells[s, t, j])].append((s * tuples + t, CODES**j))
    start = np.zeros(n_cells + 1, dtype=np.int64)
    for c in range(n_cells):
        start[c + 1] = start[c] + len(found[c])
    where = np.array([n for pairs in found for n, _ in pairs], dtype=np.int64)
    power = np.array([p for pairs in found for _, p in pairs], dtype=np.int64)
    return start, where, power


@njit
def _shift(
    cell: int, change: int, start: np.ndarray, where: np.ndarray, power: np.ndarray,
    delta: np.ndarray, touched: np.ndarray, count: int,
) -> int:  # fmt: skip
    """Add a cell's code change to the indices it is part of (``delta``), listing the pairs
    touched first; returns the new count of them."""
    for e in range(start[cell], start[cell + 1]):
        n = where[e]
        if delta[n] == 0:
            touched[count] = n
            count += 1
        delta[n] += change * power[e]
    return count


@njit
def _changes(
    board: np.ndarray, cell: int, mark: int, cols: int, gravity: bool, start: np.ndarray,
    where: np.ndarray, power: np.ndarray, delta: np.ndarray, touched: np.ndarray,
) -> int:  # fmt: skip
    """The index changes of ``mark`` placed on ``cell`` (and, with gravity, the cell above
    it becoming playable), into ``delta``/``touched``; returns how many pairs changed. A pair
    whose changes cancel out stays listed with a zero change."""
    count = _shift(cell, mark - cell_code(board, cell, cols, gravity), start, where, power,
                   delta, touched, 0)  # fmt: skip
    if gravity and cell >= cols and board[cell - cols] == 0:
        count = _shift(cell - cols, 3, start, where, power, delta, touched, count)
    return count


@njit
def table_choices(
    weights: np.ndarray, cells: np.ndarray, cols: int, gravity: bool, codes: np.ndarray,
    nxt: np.ndarray, result: np.ndarray, mover: np.ndarray, rows: np.ndarray,
    base: np.ndarray, place: np.ndarray, start: np.ndarray, where: np.ndarray,
    power: np.ndarray, out: np.ndarray,
) -> None:  # fmt: skip
    """``out[i, move]``: the legal moves of the highest value at ``rows[i]`` of a game's tables
    (``codes`` in mixed radix ``base``/``place``, ``nxt``, ``result``, ``mover``), ties kept,
    as the network's ``choices`` picks them: a move that ends the game is worth its result for
    the mover, any other the value of the board it leaves, from the mover's side. The board
    after a move is the row's own board with the move made (not the child row's, which may be
    another image of it), and its indices are the row's plus the move's changes: the same
    integers as read afresh, then summed in the same order as :func:`value`, so the values
    are the very floats ``choices`` compares."""
    n_cells = base.size
    tuples = cells.shape[1]
    per_board = cells.shape[0] * tuples
    moves_n = nxt.shape[1]
    board = np.zeros(n_cells, dtype=np.int8)
    parent = np.zeros(per_board, dtype=np.int64)
    idx = np.zeros(per_board, dtype=np.int64)
    shift = np.zeros(per_board, dtype=np.int64)
    touched = np.zeros(per_board, dtype=np.int64)
    found = np.zeros(moves_n, dtype=np.float64)
    for i in range(rows.size):
        row = rows[i]
        code = codes[row]
        for c in range(n_cells):
            board[c] = (code // place[c]) % base[c]
        side = int(mover[row])
        sign = 1.0 if side == 0 else -1.0
        indices(board, cells, cols, gravity, parent)
        best = -math.inf
        for m in range(moves_n):
            child = nxt[row, m]
            if child < 0:
                continue
            if result[child] != NOT_TERMINAL:
                v = float(-int(result[child]))  # the result for the one who moved
            else:
                cell = target_cell(board, m, cols, gravity)
                count = _changes(board, cell, side + 1, cols, gravity, start, where, power,
                                 shift, touched)  # fmt: skip
                for q in range(per_board):
                    idx[q] = parent[q]
                for e in range(count):
                    q = touched[e]
                    idx[q] += shift[q]
                    shift[q] = 0
                v = sign * math.tanh(total(weights, 1 - side, idx, tuples))
            found[m] = v
            best = max(best, v)
        for m in range(moves_n):
            out[i, m] = nxt[row, m] >= 0 and found[m] == best


@njit
def play_games(
    weights: np.ndarray,
    cells: np.ndarray,
    lines: np.ndarray,
    rows: int,
    cols: int,
    gravity: bool,
    games: int,
    alpha0: float,
    alpha1: float,
    epsilon0: float,
    epsilon1: float,
    lam: float,
    done_before: int,
    total_games: int,
    rng: np.ndarray,
    counters: np.ndarray,
    start: np.ndarray,
    where: np.ndarray,
    power: np.ndarray,
    opening: int = 0,
) -> None:
    """``games`` games of self-play, learning as they go (see the module's text); each
    opens with 0 to ``opening`` random moves (uniformly many) that teach nothing. α decays
    exponentially from ``alpha0`` to ``alpha1`` and ε linearly from ``epsilon0`` to
    ``epsilon1`` over ``total_games``, of which ``done_before`` were played before these.
    Threads may share ``weights`` (lost updates are rare and harmless); each plays with its
    own generator ``rng`` (``kernels/rng``: the same stream compiled and as plain Python).
    Stops early when ``counters[2]`` is set. ``start``, ``where`` and ``power`` are the
    cells' places in the tuples (:func:`touches`): a move changes the indices of the tuples
    through its cell (and the cell above), so a move is weighed without reading the board."""
    n_cells = rows * cols
    moves_n = cols if gravity else n_cells
    tuples = cells.shape[1]
    per_board = cells.shape[0] * tuples
    # The boards of the game so far: their indices, side to move, and tanh' factor.
    hist_idx = np.zeros((n_cells + 1, per_board), dtype=np.int64)
    hist_side = np.zeros(n_cells + 1, dtype=np.int64)
    hist_grad = np.zeros(n_cells + 1, dtype=np.float64)
    board = np.zeros(n_cells, dtype=np.int8)
    shift = np.zeros(per_board, dtype=np.int64)
    touched = np.zeros(per_board, dtype=np.int64)
    candidates = np.zeros(moves_n, dtype=np.int64)
    safe = np.zeros(moves_n, dtype=np.int64)
    for g in range(games):
        if counters[2]:
            return
        progress = (done_before + g) / max(total_games, 1)
        alpha = alpha0 * (alpha1 / alpha0) ** progress if alpha0 > 0 else 0.0
        epsilon = epsilon0 + (epsilon1 - epsilon0) * progress
        board[:] = 0
        side = 0
        first = 0  # the first board of the chain TD(λ) updates
        indices(board, cells, cols, gravity, hist_idx[0])
        v_now = math.tanh(total(weights, 0, hist_idx[0], tuples))
        hist_side[0] = 0
        hist_grad[0] = 1.0 - v_now * v_now
        ply = 0
        opened = below(rng, opening + 1) if opening > 0 else 0
        while True:
            mark = side + 1
            # The legal moves; one that wins at once is made at once.
            n = 0
            n_safe = 0
            winning = -1
            opening_move = ply < opened
            for m in range(moves_n):
                cell = target_cell(board, m, cols, gravity)
                if cell < 0:
                    continue
                candidates[n] = m
                n += 1
                if winning < 0 or opening_move:
                    board[cell] = mark
                    won = wins(board, lines, mark)
                    board[cell] = 0
                    if won and winning < 0:
                        winning = m
                    # An opening move may not end the game: neither a win nor the last cell.
                    if not won and ply + 1 < n_cells:
                        safe[n_safe] = m
                        n_safe += 1
            explored = False
            if opening_move and n_safe > 0:
                move = safe[below(rng, n_safe)]
                explored = True
            elif winning >= 0:
                move = winning
            elif uniform(rng) < epsilon:
                move = candidates[below(rng, n)]
                explored = True
            else:
                best = -2.0
                ties = 0
                move = candidates[0]
                now_idx = hist_idx[ply]
                other = 1 - side
                base = total(weights, other, now_idx, tuples)
                for i in range(n):
                    m = candidates[i]
                    cell = target_cell(board, m, cols, gravity)
                    count = _changes(board, cell, mark, cols, gravity, start, where, power,
                                     shift, touched)  # fmt: skip
                    acc = base
                    for e in range(count):
                        q = touched[e]
                        t = q % tuples
                        acc += float(weights[other, t, now_idx[q] + shift[q]]) - float(
                            weights[other, t, now_idx[q]]
                        )
                        shift[q] = 0
                    v = math.tanh(acc)
                    mine = v if side == 0 else -v
                    if mine > best + 1e-12:
                        best, move, ties = mine, m, 1
                    elif mine > best - 1e-12:
                        ties += 1
                        if below(rng, ties) == 0:
                            move = m
            cell = target_cell(board, move, cols, gravity)
            count = _changes(board, cell, mark, cols, gravity, start, where, power, shift,
                             touched)  # fmt: skip
            hist_idx[ply + 1] = hist_idx[ply]
            for e in range(count):
                q = touched[e]
                hist_idx[ply + 1, q] += shift[q]
                shift[q] = 0
            board[cell] = mark
            ply += 1
            counters[1] += 1
            over = False
            if wins(board, lines, mark):
                target = 1.0 if side == 0 else -1.0
                over = True
            elif ply == n_cells:
                target = 0.0
                over = True
            side = 1 - side
            v_next = math.tanh(total(weights, side, hist_idx[ply], tuples))
            hist_side[ply] = side
            hist_grad[ply] = 1.0 - v_next * v_next
            if not over:
                target = v_next
            if explored and not over:
                first = ply  # an exploring move teaches nothing, and cuts the chain
            else:
                # The board before the move, then those before it, λ less each move back.
                before = ply - 1
                now = total(weights, hist_side[before], hist_idx[before], tuples)
                delta = target - math.tanh(now)
                if alpha > 0 and delta != 0.0:
                    decay = 1.0
                    k = before
                    while k >= first and decay > 1e-3:
                        step = alpha * delta * decay * hist_grad[k]
                        s_k = hist_side[k]
                        for i in range(per_board):
                            slot = hist_idx[k, i]
                            weights[s_k, i % tuples, slot] = (
                                float(weights[s_k, i % tuples, slot]) + step
                            )
                        decay *= lam
                        k -= 1
            if over:
                break
        counters[0] += 1
