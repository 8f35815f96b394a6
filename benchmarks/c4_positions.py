"""Positions of classic Connect Four for the benchmarks, drawn from seeded generators (no
BitBully here: ``c4_search.py`` imports it, ``c4_alphabeta.py`` must not need it).

- :func:`random_games`: random games of ``low`` to ``high`` plies in which no move ended the
  game (``c4_search.py``'s and ``c4_alphabeta.py``'s positions).
- :func:`varied_openings`: the issue's set of decision positions "from varied openings": a
  random opening of 2 to 12 plies (its length drawn uniformly, no move of it ending the game),
  then perfect play to the end, each side picking at random among the moves that keep the
  value (the solver's ``move_values``, as ``judging.along_play`` plays it); every position of
  that perfect play where the moves differ in value (a decision, as the judge counts them:
  some move gives the value away) is recorded, both sides', wins and draws alike
  (``varied_set``: with each position's move values).
- :func:`main_line`: the decision positions of ``judging.along_play.along_perfect_play``'s
  games of perfect play from the empty board, in its order (a position reached again is kept
  again, as that function judges it again), each with its move values.

Written as ``qarena eval --positions`` reads them: each position as its moves from the empty
board, one column digit (1-7) a move (``0`` the empty board), one position a line; with
``--values`` (and always with ``--main``), as a judging set (``qarena.judging.sets``): each
line followed by `` # `` and the value of each column for the player to move (``+`` win,
``=`` draw, ``-`` loss, ``.`` full), under ``#`` lines saying how the set was made.

Run (the shipped sets, src/qarena/data/connect4-6x7.{main,varied}.txt):
     .venv/bin/python benchmarks/c4_positions.py --main --out connect4-6x7.main.txt
     .venv/bin/python benchmarks/c4_positions.py --games 360 --seed 40 --values
     --out connect4-6x7.varied.txt
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from qarena.games.base import Game, Move, Position
from qarena.judging.sets import values_text

#: A decision position as its moves from the start, with each legal move's value for the mover.
Decision = tuple[list[Move], dict[Move, int]]


def random_games(game: Game, count: int, low: int, high: int, seed: int) -> list[list[Move]]:
    """``count`` random games of ``low`` to ``high`` plies (the length drawn uniformly), in
    which no move ended the game; a game where every move would end it is drawn again."""
    rng = random.Random(seed)
    found: list[list[Move]] = []
    while len(found) < count:
        position, moves = game.start(), []
        for _ in range(rng.randrange(low, high + 1)):
            safe = [
                m
                for m in game.legal_moves(position)
                if not game.is_terminal(game.apply(position, m))
            ]
            if not safe:
                break
            moves.append(rng.choice(safe))
            position = game.apply(position, moves[-1])
        else:
            found.append(moves)
    return found


def replay(game: Game, moves: Sequence[Move]) -> Position:
    """The position after ``moves`` from the start."""
    position = game.start()
    for m in moves:
        position = game.apply(position, m)
    return position


def random_positions(game: Game, count: int, low: int, high: int, seed: int) -> list[Position]:
    """The positions :func:`random_games` ends in."""
    return [replay(game, moves) for moves in random_games(game, count, low, high, seed)]


def varied_openings(
    game: Game, games: int, seed: int, low: int = 2, high: int = 12
) -> list[list[Move]]:
    """The decision positions (as their moves from the start) of ``games`` games of perfect
    play after random openings of ``low`` to ``high`` plies (the module's text), in the order
    they were played; a position reached twice is kept once."""
    return [moves for moves, _values in varied_set(game, games, seed, low, high)]


def varied_set(
    game: Game, games: int, seed: int, low: int = 2, high: int = 12, progress: bool = False
) -> list[Decision]:
    """:func:`varied_openings` with each position's move values (the solver's)."""
    from qarena.exact import oracle

    solution = oracle(game)
    rng = random.Random(seed)
    found: list[Decision] = []
    seen: set[Position] = set()
    start = time.perf_counter()
    for index in range(games):
        moves = random_games(game, 1, low, high, rng.randrange(2**31))[0]
        position = replay(game, moves)
        while not game.is_terminal(position):
            values = solution.move_values(position)
            best = max(values.values())
            if min(values.values()) < best and position not in seen:
                seen.add(position)
                found.append((list(moves), values))
            move = rng.choice([m for m, v in values.items() if v == best])
            moves.append(move)
            position = game.apply(position, move)
        if progress:
            _progress(index + 1, games, len(found), start)
    return found


def main_line(
    game: Game, games: int = 500, seed: int = 0, progress: bool = False
) -> list[Decision]:
    """The decision positions ``along_perfect_play(who, solution, games, seed)`` judges, in
    its order, each with its move values: the same games, from the same generator drawn the
    same way (a move among those keeping the value, in the order ``move_values`` lists them)."""
    from qarena.exact import oracle

    solution = oracle(game)
    rng = np.random.default_rng([seed, 0xA1])
    found: list[Decision] = []
    start = time.perf_counter()
    for index in range(games):
        position, moves = game.start(), []
        while not game.is_terminal(position):
            # The same calls in the same order as along_perfect_play: the draws match.
            values = solution.move_values(position)
            best = max(values.values())
            if min(values.values()) < best:
                found.append((list(moves), values))
            keep = [m for m, v in values.items() if v == best]
            moves.append(keep[int(rng.integers(len(keep)))])
            position = game.apply(position, moves[-1])
        if progress:
            _progress(index + 1, games, len(found), start)
    return found


def _progress(done: int, games: int, found: int, start: float) -> None:
    if done % 10 == 0 or done == games:
        print(
            f"  {done}/{games} games, {found:,} positions, {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        )


def moves_text(moves: Sequence[Move]) -> str:
    """Moves as ``eval --positions`` reads them: one column digit (from 1) a move; ``0`` for
    none (the empty board)."""
    return "".join(str(m + 1) for m in moves) or "0"


def read_positions(game: Game, path: Path) -> list[Position]:
    """The positions of a file :func:`main` wrote (or any ``eval --positions`` file)."""
    return [
        game.position_of(line.split("#")[0])
        for line in path.read_text().splitlines()
        if line.split("#")[0].strip()
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="40 (varied), 500 (--main)")
    parser.add_argument("--seed", type=int, default=None, help="39 (varied), 0 (--main)")
    parser.add_argument("--low", type=int, default=2)
    parser.add_argument("--high", type=int, default=12)
    parser.add_argument("--main", action="store_true", help="the main line, not varied openings")
    parser.add_argument("--values", action="store_true", help="write a judging set")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    from qarena.fileio import write_atomic
    from qarena.games import parse_spec

    game = parse_spec("connect4")
    start = time.perf_counter()
    if args.main:
        games = 500 if args.games is None else args.games
        seed = 0 if args.seed is None else args.seed
        found = main_line(game, games, seed, progress=True)
        how = (
            f"decision positions of along_perfect_play(games={games}, seed={seed}) "
            "(qarena eval --along-perfect), in its order, repeats kept"
        )
    else:
        games = 40 if args.games is None else args.games
        seed = 39 if args.seed is None else args.seed
        found = varied_set(game, games, seed, args.low, args.high, progress=True)
        how = (
            f"decision positions of {games} games of perfect play after random openings of "
            f"{args.low}-{args.high} plies (seed {seed}), each position once"
        )
    seconds = time.perf_counter() - start
    if args.main or args.values:
        header = (
            f"# qarena judging set: {game.spec}\n"
            f"# title: {'main line' if args.main else 'varied openings'}\n"
            f"# made by benchmarks/c4_positions.py: {how}\n"
            f"# positions: {len(found)}\n"
            "# each line: the moves from the empty board (columns 1-7; 0 the empty board), then "
            "# and the value of each column for the player to move (+ win, = draw, - loss, "
            ". full)\n"
        )
        body = "".join(f"{moves_text(m)} # {values_text(game, v)}\n" for m, v in found)
        write_atomic(args.out, (header + body).encode())
    else:
        write_atomic(args.out, "".join(moves_text(m) + "\n" for m, _v in found).encode())
    plies = [len(m) for m, _v in found]
    print(
        f"{len(found)} decision positions from {games} games (seed {seed}), plies "
        f"{min(plies)}-{max(plies)}, {seconds:.0f} s -> {args.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
