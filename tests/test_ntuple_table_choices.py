"""An n-tuple network's moves over a game's tables at once (``NTupleNetwork.table_choices``,
``kernels.ntuple.table_choices``): row by row, the very moves its ``choices`` gives the row's
position, ties kept, compiled and as plain Python; the best reply to it is unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import qarena
from qarena import threads
from qarena.agents.opponents import move_mask
from qarena.exact.space import GameTables, game_tables
from qarena.games import parse_spec
from qarena.learn.ntuple.network import TABLE_ROWS, NTupleNetwork
from tests.conftest import RunScript


def _network(spec: str, games: int = 500) -> NTupleNetwork:
    net = NTupleNetwork.new(parse_spec(spec), seed=1)
    net.learn(games, seed=1)
    return net


def _asked(net: NTupleNetwork, tables: GameTables, rows: np.ndarray) -> np.ndarray:
    """``choices`` asked at each row's position, one at a time."""
    mask = np.zeros((rows.size, tables.nxt.shape[1]), dtype=np.bool_)
    for i, row in enumerate(rows):
        mask[i, net.choices(tables.position(int(row)))] = True
    return mask


def _sample(tables: GameTables, count: int | None) -> np.ndarray:
    live = np.flatnonzero(tables.live)
    if count is None or count >= live.size:
        return live
    return np.sort(np.random.default_rng(7).choice(live, count, replace=False))


@pytest.mark.parametrize(
    ("spec", "canonical", "count"),
    [
        ("tictactoe", True, None),
        ("tictactoe", False, None),
        ("tictactoe:3x4:3", False, 3000),
        ("connect4:4x4", True, 3000),
        ("connect4:4x4", False, 3000),
        ("tictactoe:4x4", True, 3000),
        ("connect4:4x5", True, 3000),
        # Its tables without symmetry take 9 s to build here.
        pytest.param("connect4:4x5", False, 3000, marks=pytest.mark.slow),
    ],
)
def test_each_row_s_moves_are_its_position_s_choices(
    spec: str, canonical: bool, count: int | None
) -> None:
    net = _network(spec)
    tables = game_tables(net.game, canonical=canonical)
    rows = _sample(tables, count)
    got = net.table_choices(tables, rows)
    assert got is not None and got.shape == (rows.size, tables.nxt.shape[1])
    want = _asked(net, tables, rows)
    assert (got == want).all()
    assert (want.sum(axis=1) > 1).any()  # ties are kept, not broken


def test_without_rows_every_row_where_play_goes_on() -> None:
    net = _network("tictactoe", 2000)
    tables = game_tables(net.game, canonical=False)
    assert tables.live.sum() > TABLE_ROWS  # more than one chunk
    mask = net.table_choices(tables)
    assert mask is not None and mask.shape == tables.legal.shape
    live = np.flatnonzero(tables.live)
    assert (mask[live] == _asked(net, tables, live)).all()
    assert not mask[~tables.live].any()
    assert not (mask & ~tables.legal).any()


def test_a_network_whose_symmetric_images_differ_still_gets_its_own_moves() -> None:
    # The kernel values the board each move makes from the row's own board, not the child
    # row's (another image of it where positions are canonical): a network's value is the same
    # on every image only as far as its float sums, taken in another order, round the same.
    # Weights far apart make them round differently; its moves must still be choices'.
    game = parse_spec("tictactoe")
    net = NTupleNetwork.new(game, 6, 3, seed=2)
    rng = np.random.default_rng(5)
    w = net.weights
    w[:] = rng.uniform(-1e-3, 1e-3, w.shape).astype(np.float32)
    pick = rng.random(w.shape)
    w[pick < 0.15], w[pick > 0.85] = 2.0**40, -(2.0**40)
    tables = game_tables(game)
    rows = np.flatnonzero(tables.live)
    differ = 0
    for row in rows:
        p = tables.position(int(row))
        images = {net.value(tuple(p[s[c]] for c in range(game.cells))) for s in game.symmetries}
        differ += len(images) > 1
    assert differ > 0
    got = net.table_choices(tables, rows)
    assert got is not None and (got == _asked(net, tables, rows)).all()


def test_move_mask_asks_the_network_once_not_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    net = _network("tictactoe")
    tables = game_tables(net.game)
    want = move_mask(tables, net)

    def refuse(self: NTupleNetwork, position: object) -> None:
        raise AssertionError("asked row by row")

    monkeypatch.setattr(NTupleNetwork, "choices", refuse)
    monkeypatch.setattr(NTupleNetwork, "act", refuse)
    assert (move_mask(tables, net) == want).all()


def test_the_best_reply_is_the_one_found_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    net = _network("tictactoe", 2000)
    fast = qarena.best_reply(net).to_json()
    # The slow route: the network asked at each row's position (as before table_choices).
    monkeypatch.setattr(NTupleNetwork, "table_choices", lambda self, tables, rows=None: None)
    slow = qarena.best_reply(net).to_json()
    assert fast == slow


def test_a_stop_reaches_it_between_chunks() -> None:
    net = _network("tictactoe")
    tables = game_tables(net.game, canonical=False)
    looks = []

    def stop() -> bool:
        looks.append(1)
        return len(looks) > 1

    with threads.limit(should_stop=stop), pytest.raises(threads.Stopped):
        net.table_choices(tables)
    assert len(looks) == 2  # the first chunk ran; the stop was seen before the second


def test_another_game_s_tables_are_asked_row_by_row() -> None:
    net = _network("tictactoe")
    assert net.table_choices(game_tables(parse_spec("tictactoe:3x4:3"))) is None


def test_rows_outside_the_tables_are_refused_before_the_kernel_reads_them() -> None:
    net = _network("tictactoe")
    tables = game_tables(net.game)
    with pytest.raises(IndexError):
        net.table_choices(tables, np.array([0, tables.rows]))


SCRIPT = """
import hashlib
import numpy as np
from qarena.exact.space import game_tables
from qarena.games import parse_spec
from qarena.learn.ntuple.network import NTupleNetwork
for spec, canonical in (("tictactoe", True), ("connect4:4x4:3", False)):
    game = parse_spec(spec)
    net = NTupleNetwork.new(game, 12, 4, seed=2)
    net.learn(100, seed=5)
    tables = game_tables(game, canonical=canonical)
    rows = np.random.default_rng(0).choice(np.flatnonzero(tables.live), 200, replace=False)
    got = net.table_choices(tables, rows)
    same = all(
        set(np.flatnonzero(got[i]).tolist()) == set(net.choices(tables.position(int(r))))
        for i, r in enumerate(rows)
    )
    print(spec, same, hashlib.sha256(got.tobytes()).hexdigest())
"""


def test_the_pure_python_path_chooses_the_same_moves(run_script: RunScript) -> None:
    plain = run_script(SCRIPT, jit=False)
    assert plain == run_script(SCRIPT)
    assert [line.split()[1] for line in plain.splitlines()] == ["True", "True"]
