"""A player that may play a position's images apart is judged at every position it may meet,
not at one of each symmetry class: checked against an independent walk over every position
of the game, and a plain minimax for the best reply."""

from __future__ import annotations

import functools

import qarena
from qarena.exact import solve
from qarena.games import Move, Position, parse_spec

GAME = parse_spec("nim:1,3,5,7")


def first_pile(position: Position) -> Move:
    """Takes one object from the first pile that has any: its move depends on the piles'
    order, so two orderings of the same piles get different moves."""
    pile = next(i for i, n in enumerate(position) if n)
    return GAME.parse_move(f"{pile + 1}:1")


@functools.cache
def _keeping(position: Position) -> Move:
    values = solve(GAME).move_values(position)
    return max(values, key=lambda m: values[m])


def perfect_where_canonical(position: Position) -> Move:
    """Plays a value-keeping move where the position is its class's representative, the
    first pile's single object elsewhere: asked at representatives alone it looks perfect."""
    return _keeping(position) if GAME.canonical(position) == position else first_pile(position)


def _every_position() -> list[Position]:
    seen, todo = {GAME.start()}, [GAME.start()]
    while todo:
        here = todo.pop()
        if GAME.is_terminal(here):
            continue
        for move in GAME.legal_moves(here):
            after = GAME.apply(here, move)
            if after not in seen:
                seen.add(after)
                todo.append(after)
    return sorted(seen)


def test_optimality_counts_every_position_by_the_move_played_there() -> None:
    solution = solve(GAME)
    decisions = optimal = 0
    for position in _every_position():
        if GAME.is_terminal(position):
            continue
        values = solution.move_values(position)
        best = max(values.values())
        if min(values.values()) < best:
            decisions += 1
            optimal += values[first_pile(position)] == best
    judged = qarena.judge(first_pile, GAME, games=10)
    assert (judged.optimality.decisions, judged.optimality.optimal) == (decisions, optimal)
    assert judged.classes_note is None


def test_the_best_reply_is_a_plain_minimax_over_its_moves() -> None:
    @functools.cache
    def outcome(position: Position, agent_to_move: bool) -> int:
        """What the strongest opponent forces against the agent from here (+1 its win)."""
        if GAME.is_terminal(position):
            # The result is for the player to move at the end.
            mover_result = GAME.result(position)
            return mover_result if agent_to_move else -mover_result
        if agent_to_move:
            return outcome(GAME.apply(position, first_pile(position)), False)
        return min(outcome(GAME.apply(position, m), True) for m in GAME.legal_moves(position))

    reply = qarena.best_reply(first_pile, GAME)
    assert reply.seats["first"].secured == outcome(GAME.start(), True)
    assert reply.seats["second"].secured == outcome(GAME.start(), False)


def test_a_player_perfect_only_at_representatives_is_beaten() -> None:
    """Moving second the start is won for it; an opponent who leads it off the classes'
    representatives beats it, as a plain minimax over its moves finds."""

    @functools.cache
    def outcome(position: Position, agent_to_move: bool) -> int:
        if GAME.is_terminal(position):
            mover_result = GAME.result(position)
            return mover_result if agent_to_move else -mover_result
        if agent_to_move:
            return outcome(GAME.apply(position, perfect_where_canonical(position)), False)
        return min(outcome(GAME.apply(position, m), True) for m in GAME.legal_moves(position))

    second = qarena.best_reply(perfect_where_canonical, GAME).seats["second"]
    assert second.value == 1
    assert second.secured == outcome(GAME.start(), False) == -1 and second.beaten


def test_a_uniform_sample_asks_it_at_images_drawn_uniformly() -> None:
    """Drawn uniformly from every decision position, its share estimates the share over every
    position (within four standard errors of 20,000 draws); a player perfect only at each
    class's representative is not taken for perfect."""
    solution = solve(GAME)
    decisions = optimal = 0
    for position in _every_position():
        if GAME.is_terminal(position):
            continue
        values = solution.move_values(position)
        best = max(values.values())
        if min(values.values()) < best:
            decisions += 1
            optimal += values[first_pile(position)] == best
    share = optimal / decisions
    draws = 20_000
    error = 4 * (share * (1 - share) / draws) ** 0.5
    sampled = qarena.judge(first_pile, GAME, uniform=draws, games=2).optimality.share
    assert abs(sampled - share) < error
    representatives = qarena.judge(perfect_where_canonical, GAME, uniform=draws, games=2)
    assert representatives.optimality.share < 1 - 0.05


def test_an_ntuple_network_plays_every_image_alike() -> None:
    """It says it is symmetric (asked at one position of each class): at every position of
    tic-tac-toe its moves are the images of those at its class's representative."""
    from qarena.exact.space import game_tables

    net = qarena.train("tictactoe", "ntuple", 300, seed=1)
    assert net.symmetric
    game = net.game
    tables = game_tables(game)
    for row in range(tables.rows):
        if not tables.live[row]:
            continue
        here = tables.position(row)
        mine = sorted(net.choices(here))
        for image in game.images(here):
            _row, frame = tables.frame(image)
            assert sorted(frame[m] for m in net.choices(image)) == mine
