"""The transition tables' symmetry columns, built with array code over many positions at once,
agree position by position with the games' own Python methods (canonical, canonical_moves,
to_move)."""

from __future__ import annotations

import numpy as np
import pytest

from qarena.games import parse_spec
from qarena.kernels.constants import NOT_TERMINAL
from qarena.transitions import game_tables
from tests.conftest import SPECS


@pytest.mark.parametrize("spec", [*SPECS, "nim:7,5,3", "nim:4,4,4,4", "connect4:3x4:3"])
def test_symmetry_columns_match_the_game(spec: str) -> None:
    game = parse_spec(spec)
    t = game_tables(game)
    live = np.flatnonzero(t.reachable & (t.result == NOT_TERMINAL))
    for code in live[:: max(1, live.size // 3000)]:  # every position on small games
        position = game.decode(int(code))
        assert t.canon[code] == game.encode(game.canonical(position)), position
        side = game.to_move(position)
        assert t.mover[code] == (-1 if side is None else side), position
        for move, canonical in game.canonical_moves(position).items():
            assert t.cmove[code, move] == canonical, (position, move)
        legal = game.legal_moves(position)
        assert t.moves[code, : t.nmoves[code]].tolist() == legal
        assert (t.moves[code, t.nmoves[code] :] == -1).all()
