"""The checks every game passes, whatever it is: random playouts through the Game interface
(in the spirit of OpenSpiel's games_sim_test and Pgx's api_test). A new game calls
:func:`check_game` on a few of its specs; ``tests/test_games_conformance.py`` runs it over
every registered game, and ``tests/test_toy_game.py`` over a game defined in a test.

Values come from plain negamax over the game's own rules, independent of the solver, on games
small enough for it; there, the solver must agree."""

from __future__ import annotations

import random
from collections.abc import Iterator

from qarena.errors import IllegalMoveError, TooLargeError
from qarena.games import DRAW, LOSS, WIN, Game

#: Games with at most this many encodings get their values by plain negamax.
BRUTE_POSITIONS = 20_000


def playouts(game: Game, count: int, rng: random.Random) -> Iterator[list[tuple[int, ...]]]:
    """``count`` games of uniformly random moves, each as its positions from the start."""
    for _ in range(count):
        position = game.start()
        trail = [position]
        while not game.is_terminal(position):
            position = game.apply(position, rng.choice(game.legal_moves(position)))
            trail.append(position)
        yield trail


def negamax(game: Game) -> dict[tuple[int, ...], int]:
    """Every reachable position's value for the player to move, by plain recursion over the
    game's rules alone (no symmetry, no tables)."""
    values: dict[tuple[int, ...], int] = {}

    def value(position: tuple[int, ...]) -> int:
        known = values.get(position)
        if known is None:
            if game.is_terminal(position):
                known = game.result(position)
            else:
                known = max(-value(game.apply(position, m)) for m in game.legal_moves(position))
            values[position] = known
        return known

    value(game.start())
    return values


def check_game(game: Game, count: int = 60, seed: int = 0) -> None:
    """Raise AssertionError where ``game`` breaks the Game interface's promises."""
    rng = random.Random(f"{game.spec}:{seed}")
    if game.num_positions < 2**63:
        arrays = game.arrays()
        assert (arrays.num_positions, arrays.num_moves) == (game.num_positions, game.num_moves)
        assert arrays.start == game.encode(game.start())
    else:  # codes beyond 64 bits: refused, never wrapped around
        try:
            game.arrays()
        except TooLargeError:
            pass
        else:
            raise AssertionError(f"{game.spec}: arrays of codes beyond 64 bits")
    values = negamax(game) if game.num_positions <= BRUTE_POSITIONS else None
    if values is not None:
        from qarena.exact import solve

        solution = solve(game)
    seen: dict[int, tuple[int, ...]] = {}
    for trail in playouts(game, count, rng):
        assert len(trail) - 1 <= game.max_plies
        for ply, position in enumerate(trail):
            _check_position(game, position, ply, seen)
            if values is not None:
                value = values[position]
                assert value in (WIN, DRAW, LOSS)
                # A symmetry class shares its value, and the solver finds the same one.
                assert values.get(game.canonical(position), value) == value
                assert solution.value_of(position) == value
                if not game.is_terminal(position):
                    best = max(-values[game.apply(position, m)] for m in game.legal_moves(position))
                    assert best == value
        final = trail[-1]
        assert game.result(final) in (WIN, DRAW, LOSS)
        # The game is over: any move is refused.
        for m in range(game.num_moves):
            try:
                game.apply(final, m)
            except IllegalMoveError:
                continue
            raise AssertionError(f"{game.spec}: move {m} accepted after the game ended")


def _check_position(
    game: Game, position: tuple[int, ...], ply: int, seen: dict[int, tuple[int, ...]]
) -> None:
    moves = game.legal_moves(position)
    # Legal moves are empty exactly at terminal positions, distinct and in range.
    assert (not moves) == game.is_terminal(position)
    assert len(set(moves)) == len(moves)
    assert all(0 <= m < game.num_moves for m in moves)
    # Every move not legal here is refused.
    for m in set(range(game.num_moves)) - set(moves):
        try:
            game.apply(position, m)
        except IllegalMoveError:
            continue
        raise AssertionError(f"{game.spec}: illegal move {m} accepted")
    # Encoding round-trips and never gives two positions one code.
    code = game.encode(position)
    assert 0 <= code < game.num_positions
    assert game.decode(code) == position
    assert seen.setdefault(code, position) == position
    # Text forms round-trip.
    assert game.parse_position(game.format_position(position)) == position
    for m in moves:
        assert game.parse_move(game.format_move(m)) == m
        # A drawing names the move a click makes from its parts (pile and count, or cell).
        assert game.move_of(*game._move_component(m)) == m
    # Boards say whose turn it is, and it alternates from the first player.
    side = game.to_move(position)
    assert side is None if game.impartial else side == ply % 2
    # The canonical form is a rearrangement of the position, its own canonical form, and
    # keeps the moves' meaning.
    canon = game.canonical(position)
    assert sorted(canon) == sorted(position)
    assert game.canonical(canon) == canon
    before = tuple(position)
    for m in moves:
        after = game.apply(position, m)
        assert position == before  # applying never changes the position
        cm = game.canonical_move(position, m)
        assert cm in game.legal_moves(canon)
        assert game.canonical(game.apply(canon, cm)) == game.canonical(after)
        assert game.uncanonical_move(position, cm) == m
