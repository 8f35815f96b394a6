"""One simulation test over every game: random play checks the Game interface's invariants
(the pattern of OpenSpiel's games_sim_test)."""

from __future__ import annotations

import random

import pytest

from qarena.games import DRAW, LOSS, WIN, Game, HeapGame, TicTacToe, parse_spec
from tests.conftest import SPECS

GAMES_PER_SPEC = 60


def _random_games(game: Game, rng: random.Random):  # type: ignore[no-untyped-def]
    for _ in range(GAMES_PER_SPEC):
        position = game.start()
        trail = [position]
        while not game.is_terminal(position):
            position = game.apply(position, rng.choice(game.legal_moves(position)))
            trail.append(position)
        yield trail


@pytest.mark.parametrize("spec", SPECS)
def test_random_play_keeps_the_invariants(spec: str) -> None:
    game = parse_spec(spec)
    rng = random.Random(spec)
    seen: dict[int, tuple[int, ...]] = {}
    for trail in _random_games(game, rng):
        assert len(trail) - 1 <= game.max_plies
        for ply, position in enumerate(trail):
            moves = game.legal_moves(position)
            # Legal moves are empty exactly at terminal positions, distinct and in range.
            assert (not moves) == game.is_terminal(position)
            assert len(set(moves)) == len(moves)
            assert all(0 <= m < game.num_moves for m in moves)
            # Encoding round-trips and never gives two positions one code.
            code = game.encode(position)
            assert 0 <= code < game.num_positions
            assert game.decode(code) == position
            assert seen.setdefault(code, position) == position
            # Text forms round-trip.
            assert game.parse_position(game.format_position(position)) == position
            for m in moves:
                assert game.parse_move(game.format_move(m)) == m
            # Boards say whose turn it is, and it alternates from x.
            side = game.to_move(position)
            assert side is None if game.impartial else side == ply % 2
            # Applying never mutates and the canonical form keeps the moves' meaning.
            before = tuple(position)
            for m in moves:
                after = game.apply(position, m)
                assert position == before
                canon = game.canonical(position)
                cm = game.canonical_move(position, m)
                assert cm in game.legal_moves(canon)
                assert game.canonical(game.apply(canon, cm)) == game.canonical(after)
                assert game.uncanonical_move(position, cm) == m
        # Results follow the rules: whoever took the last object loses in misère play and
        # wins in normal play; on boards, only the last mover can have a line.
        final = trail[-1]
        result = game.result(final)
        last_mover = (len(trail) - 2) % 2
        if isinstance(game, HeapGame):
            assert result == (WIN if game.misere else LOSS)
        else:
            assert isinstance(game, TicTacToe)
            winner = game.winner(final)
            assert winner in (0, last_mover + 1)
            assert result == (LOSS if winner else DRAW)
            assert winner or 0 not in final


@pytest.mark.parametrize("spec", SPECS)
def test_illegal_moves_are_refused(spec: str) -> None:
    from qarena.errors import IllegalMoveError

    game = parse_spec(spec)
    position = game.start()
    illegal = [m for m in range(game.num_moves) if m not in game.legal_moves(position)]
    terminal = position
    while not game.is_terminal(terminal):
        terminal = game.apply(terminal, game.legal_moves(terminal)[-1])
    for m in [*illegal, 0]:
        with pytest.raises(IllegalMoveError):
            game.apply(terminal if m == 0 else position, m)
