"""Positions of classic Connect Four for the benchmarks, drawn from seeded generators (no
BitBully here: ``c4_search.py`` imports it, ``c4_alphabeta.py`` must not need it).

- :func:`random_games`: random games of ``low`` to ``high`` plies in which no move ended the
  game (``c4_search.py``'s and ``c4_alphabeta.py``'s positions).
- :func:`varied_openings`: the issue's set of decision positions "from varied openings": a
  random opening of 2 to 10 plies (its length drawn uniformly, no move of it ending the game),
  then perfect play to the end, each side picking at random among the moves that keep the
  value (the solver's ``move_values``, as ``judging.along_play`` plays it); every position of
  that perfect play where the moves differ in value (a decision, as the judge counts them:
  some move gives the value away) is recorded, both sides', wins and draws alike.

Written as ``qarena eval --positions`` reads them: each position as its moves from the empty
board, one column digit (1-7) a move, one position a line.

Run (the issue's set): .venv/bin/python benchmarks/c4_positions.py --games 40 --seed 39
     --out /tmp/c4_varied.txt
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from qarena.games.base import Game, Move, Position


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
    game: Game, games: int, seed: int, low: int = 2, high: int = 10
) -> list[list[Move]]:
    """The decision positions (as their moves from the start) of ``games`` games of perfect
    play after random openings of ``low`` to ``high`` plies (the module's text), in the order
    they were played; a position reached twice is kept once."""
    from qarena.exact import oracle

    solution = oracle(game)
    rng = random.Random(seed)
    found: list[list[Move]] = []
    seen: set[Position] = set()
    for _game in range(games):
        moves = random_games(game, 1, low, high, rng.randrange(2**31))[0]
        position = replay(game, moves)
        while not game.is_terminal(position):
            values = solution.move_values(position)
            best = max(values.values())
            if min(values.values()) < best and position not in seen:
                seen.add(position)
                found.append(list(moves))
            move = rng.choice([m for m, v in values.items() if v == best])
            moves.append(move)
            position = game.apply(position, move)
    return found


def moves_text(moves: Sequence[Move]) -> str:
    """Moves as ``eval --positions`` reads them: one column digit (from 1) a move."""
    return "".join(str(m + 1) for m in moves)


def read_positions(game: Game, path: Path) -> list[Position]:
    """The positions of a file :func:`main` wrote (or any ``eval --positions`` file)."""
    return [game.position_of(line) for line in path.read_text().split() if line]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--low", type=int, default=2)
    parser.add_argument("--high", type=int, default=10)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    from qarena.fileio import write_atomic
    from qarena.games import parse_spec

    game = parse_spec("connect4")
    start = time.perf_counter()
    found = varied_openings(game, args.games, args.seed, args.low, args.high)
    seconds = time.perf_counter() - start
    write_atomic(args.out, "".join(moves_text(m) + "\n" for m in found).encode())
    plies = [len(m) for m in found]
    print(
        f"{len(found)} decision positions from {args.games} games (openings of {args.low}-"
        f"{args.high} plies, seed {args.seed}), plies {min(plies)}-{max(plies)}, "
        f"{seconds:.0f} s -> {args.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
