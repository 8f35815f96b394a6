"""The compiled search's tables agree position by position with the games' own Python methods
(legal_moves, apply, canonical, canonical_moves, to_move, result), and a class's size is the
number of reachable positions whose representative it is."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from qarena.exact.space import game_tables
from qarena.games import parse_spec
from qarena.kernels.constants import NOT_TERMINAL
from tests.conftest import SPECS

EXTRA = ["nim:7,5,3", "nim:4,4,4,4", "connect4:3x4:3", "nim:1,3,3,5:normal"]


@pytest.mark.parametrize("spec", [*SPECS, *EXTRA])
@pytest.mark.parametrize("canonical", [True, False])
def test_rows_follow_the_rules(spec: str, canonical: bool) -> None:
    game = parse_spec(spec)
    t = game_tables(game, canonical)
    assert np.all(np.diff(t.codes) > 0)
    assert t.position(t.start) == (game.canonical(game.start()) if canonical else game.start())
    for row in range(0, t.rows, max(1, t.rows // 3000)):  # every row on small games
        position = t.position(row)
        if canonical:
            assert game.canonical(position) == position
        side = game.to_move(position)
        assert t.mover[row] == (-1 if side is None else side), position
        legal = game.legal_moves(position)
        assert t.moves[row, : t.nmoves[row]].tolist() == legal
        assert (t.moves[row, t.nmoves[row] :] == -1).all()
        if not legal:
            assert t.result[row] == game.result(position)
            continue
        assert t.result[row] == NOT_TERMINAL
        for move in legal:
            after = game.apply(position, move)
            assert t.nxt[row, move] == t.row_of(after), (position, move)


@pytest.mark.parametrize("spec", [*SPECS, *EXTRA])
def test_classes_count_their_positions(spec: str) -> None:
    game = parse_spec(spec)
    plain, classes = game_tables(game, False), game_tables(game, True)
    members = Counter(game.encode(game.canonical(plain.position(row))) for row in range(plain.rows))
    assert sorted(members) == classes.codes.tolist()
    assert [members[int(c)] for c in classes.codes] == classes.orbit.tolist()
    assert (plain.orbit == 1).all()
    # Values agree between the two: symmetric positions have one value.
    rows = np.searchsorted(
        classes.codes, [game.encode(game.canonical(plain.position(r))) for r in range(plain.rows)]
    )
    assert (classes.value[rows] == plain.value).all()


@pytest.mark.parametrize("spec", ["tictactoe", "nim:1,3,5", "connect4:3x4:3"])
def test_lift_reads_each_position_in_its_class_frame(spec: str) -> None:
    game = parse_spec(spec)
    plain, classes = game_tables(game, False), game_tables(game, True)
    rng = np.random.default_rng(1)
    mask = classes.legal & (rng.random(classes.legal.shape) < 0.5)
    lifted = classes.lift(mask, plain)
    for row in range(plain.rows):
        position = plain.position(row)
        crow, frame = classes.frame(position)
        want = [m for m, f in frame.items() if mask[crow, f]]
        assert np.flatnonzero(lifted[row]).tolist() == want, position
