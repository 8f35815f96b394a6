"""n-tuple networks (qarena.learn.ntuple): they learn small boards by self-play, judged exactly
by the solver; symmetric boards share a value; the pure-Python path learns the same tables."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import qarena
from qarena.errors import QarenaError, TooLargeError
from qarena.games import parse_spec
from qarena.games.tictactoe import TicTacToe
from qarena.learn.ntuple import NTupleNetwork, load_network, random_walk_tuples, save_network
from qarena.policyfile import save_policy


def _board(spec: str) -> TicTacToe:
    game = parse_spec(spec)
    assert isinstance(game, TicTacToe)
    return game


def test_random_walk_tuples_are_connected_distinct_cells_and_seeded() -> None:
    game = _board("connect4:6x7")
    layout = random_walk_tuples(game, 70, 8, seed=3)
    assert layout.shape == (70, 8)
    assert (random_walk_tuples(game, 70, 8, seed=3) == layout).all()
    for walk in layout.tolist():
        assert len(set(walk)) == 8 and all(0 <= c < 42 for c in walk)
        for a, b in itertools.pairwise(walk):
            (ra, ca), (rb, cb) = divmod(a, 7), divmod(b, 7)
            assert max(abs(ra - rb), abs(ca - cb)) == 1  # neighbours, diagonals too


@pytest.mark.parametrize("spec", ["connect4:6x7", "tictactoe:4x4:3"])
def test_a_move_s_index_changes_are_the_indices_of_the_board_after_it(spec: str) -> None:
    # Learning weighs moves by the index changes their cells make; reading the whole board
    # afterwards must give the same indices.
    from qarena.kernels import ntuple as k

    game = _board(spec)
    net = NTupleNetwork.new(game, 30, 6, seed=4)
    cells, gravity = net._cells, net._gravity
    start, where, power = k.touches(cells, game.cells)
    size = cells.shape[0] * cells.shape[1]
    now, after = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    shift, touched = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    rng = np.random.default_rng(1)
    position = game.start()
    for _ in range(200):
        if game.is_terminal(position):
            position = game.start()
        board = np.asarray(position, dtype=np.int8)
        k.indices(board, cells, game.cols, gravity, now)
        move = game.legal_moves(position)[int(rng.integers(len(game.legal_moves(position))))]
        cell = k.target_cell(board, move, game.cols, gravity)
        mark = 1 + (game.to_move(position) or 0)
        count = k._changes(board, cell, mark, game.cols, gravity, start, where, power, shift,
                           touched)  # fmt: skip
        for q in touched[:count]:
            now[q] += shift[q]
            shift[q] = 0
        position = game.apply(position, move)
        k.indices(np.asarray(position, dtype=np.int8), cells, game.cols, gravity, after)
        assert (now == after).all()


def test_symmetric_boards_share_a_value() -> None:
    game = _board("connect4:4x5")
    net = NTupleNetwork.new(game, 20, 6, seed=1)
    net.learn(2_000, seed=1)
    mirror = game.symmetries[1]
    rng = np.random.default_rng(0)
    for _ in range(30):
        position = game.start()
        for _ in range(int(rng.integers(1, 12))):
            moves = game.legal_moves(position)
            position = game.apply(position, moves[int(rng.integers(len(moves)))])
            if game.is_terminal(position):
                break
        if game.is_terminal(position):
            continue
        image = tuple(position[mirror.index(c)] for c in range(game.cells))
        assert net.value(image) == pytest.approx(net.value(position), abs=1e-5)


def test_it_learns_tic_tac_toe_judged_by_the_solver() -> None:
    game = _board("tictactoe")
    net = NTupleNetwork.new(game, 30, 5, seed=1)
    untrained = qarena.judge(net, game, games=10).optimality.share
    net.learn(40_000, seed=0)
    learned = qarena.judge(net, game, games=10).optimality.share
    # The share of decision positions where its move keeps the game's value, by the solver.
    assert learned >= 0.95 and learned > untrained


SCRIPT = """
import hashlib
from qarena.games import parse_spec
from qarena.learn.ntuple import NTupleNetwork
net = NTupleNetwork.new(parse_spec("{spec}"), 8, 4, seed=2)
moves = net.learn(40, seed=5, epsilon=(0.3, 0.1), lam=0.7)
print(moves, hashlib.sha256(net.weights.tobytes()).hexdigest())
"""


@pytest.mark.parametrize("spec", ["tictactoe", "connect4:4x4"])
def test_the_pure_python_path_learns_the_same_tables(spec: str) -> None:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    plain = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(spec=spec)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    compiled = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(spec=spec)], capture_output=True, text=True, check=True
    )
    assert plain.stdout == compiled.stdout


def test_tables_beyond_the_memory_budget_are_refused_before_they_are_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "100000000")
    with pytest.raises(TooLargeError, match="70 tuples of 10 cells need") as e:
        NTupleNetwork.new(_board("connect4:6x7"), 70, 10)
    assert "\n" not in str(e.value)


def test_a_network_file_holds_the_network_and_refuses_what_it_is_not(tmp_path: Path) -> None:
    game = _board("connect4:4x5")
    net = NTupleNetwork.new(game, 12, 5, seed=2)
    net.learn(500, seed=3)
    path = tmp_path / "net.npz"
    save_network(path, net)
    again = load_network(path, game)
    assert (again.tuples == net.tuples).all() and (again.weights == net.weights).all()
    assert again.games == net.games == 500
    position = game.apply(game.start(), 2)
    assert again.values(position) == net.values(position)
    # Most entries are never reached: the file keeps the others only.
    assert 0 < np.count_nonzero(net.weights) < net.weights.size // 4

    with pytest.raises(QarenaError, match="plays connect4:4x5:4, not connect4:6x7:4") as e:
        load_network(path, _board("connect4:6x7"))
    assert "\n" not in str(e.value)
    book = tmp_path / "book.npz"
    save_policy(str(book), {"keys": np.zeros(1, np.uint64)}, {"kind": "book", "game": "x"})
    with pytest.raises(QarenaError, match="is not an n-tuple network"):
        load_network(book)
    # A file that claims more entries than its tables have is refused before it is read.
    meta = {"kind": "ntuple", "game": game.spec, "tuples": 12, "length": 5, "games": 0}
    arrays = {"tuples": net.tuples, "places": np.arange(3, dtype=np.int64),
              "entries": np.ones(3, np.float32)}  # fmt: skip
    for bad in ({"entries": 10**12}, {"length": 40}, {"tuples": "12"}):
        save_policy(str(tmp_path / "bad.npz"), arrays, {**meta, "entries": 3, **bad})
        with pytest.raises(QarenaError, match="is damaged"):
            load_network(tmp_path / "bad.npz")
    off = net.tuples.copy()
    off[0, 0] = game.cells
    save_policy(str(tmp_path / "off.npz"), {**arrays, "tuples": off}, {**meta, "entries": 3})
    with pytest.raises(QarenaError, match="off the board"):
        load_network(tmp_path / "off.npz")


def test_a_network_file_is_a_player_for_eval_and_compete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli import run

    game = _board("tictactoe")
    net = NTupleNetwork.new(game, 30, 5, seed=1)
    net.learn(20_000, seed=0)
    path = tmp_path / "ttt.npz"
    save_network(path, net)
    assert run(["eval", str(path), "--games", "5", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    # The same player judged through the file: the solver's verdict on its every decision.
    assert record["optimality"] == pytest.approx(qarena.judge(net, game).optimality.share)
    assert run(["compete", str(path), "perfect", "--games", "2"]) == 0
    assert "ttt.npz" in capsys.readouterr().out
