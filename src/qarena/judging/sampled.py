"""Judging by samples, for games too big to enumerate (classic Connect Four): a player's moves
on a sample of its decision positions, each judged exactly by the search solver, with a 95%
interval; and its games against random and perfect play in each seat, played move by move.

The sample mixes the player's own positions from those games with positions after random
openings (random moves by both sides, 0 to half the board's cells deep), half and half when
there are enough of both; the decision positions among them (where some move gives the value
away) are judged, as optimality counts them. Everything is drawn from generators seeded by
``seed``, so a rerun judges the same positions (a player that draws its own moves must be
seeded too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.players import player as make_player
from qarena.budget import check_count
from qarena.errors import QarenaError, echo, echo_value
from qarena.exact import Exact
from qarena.games.base import DRAW, WIN, Game, Move, Position
from qarena.i18n import _
from qarena.judging.evaluation import Evaluation
from qarena.judging.tables import Optimality
from qarena.show.matches import Record, SeatRecords, evaluation_opponents

#: Decision positions judged unless asked for another number.
DEFAULT_SAMPLE = 2_000
#: Most positions a sample (or a --positions file) may hold.
MAX_SAMPLE = 1_000_000
#: Games against each opponent, in each seat, when judging by samples unless asked: perfect
#: play searches every move of its own.
DEFAULT_SAMPLED_GAMES = 10
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959964


def wilson(optimal: int, decisions: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share: unlike share ± z·σ it stays within 0..1 and is
    not empty when every judged move was optimal."""
    if decisions == 0:
        return 0.0, 1.0
    p, n = optimal / decisions, decisions
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # At a share of 0 or 1 the interval ends there exactly (rounding would leave 0.99999...).
    low = 0.0 if optimal == 0 else max(0.0, centre - half)
    high = 1.0 if optimal == decisions else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Verdict:
    """One judged decision: the position, the move the player chose there, the position's
    value for the player to move, and whether the move keeps it."""

    position: Position
    move: Move
    value: int
    kept: bool


@dataclass(frozen=True)
class Sample:
    """The judged decisions of a sample, and where they came from."""

    verdicts: tuple[Verdict, ...]
    # "sampled" (games and random openings), "given" (a --positions list) or "uniform"
    # (drawn from all decision positions, counted without a verdict each: ``counted``).
    source: str
    counted: Optimality | None = None

    @property
    def optimality(self) -> Optimality:
        if self.counted is not None:
            return self.counted
        return Optimality(len(self.verdicts), sum(v.kept for v in self.verdicts))

    @property
    def interval(self) -> tuple[float, float]:
        o = self.optimality
        return wilson(o.optimal, o.decisions)

    def __repr__(self) -> str:
        # Its verdicts are thousands of positions: the counts, share and interval say it.
        o = self.optimality
        low, high = self.interval
        return (
            f"Sample({self.source}: {o.optimal:,} of {o.decisions:,} kept, share "
            f"{o.share:.4f}, 95% interval [{low:.4f}, {high:.4f}])"
        )

    @property
    def margin(self) -> float:
        """Half the 95% interval's width: the ± shown beside the share."""
        low, high = self.interval
        return (high - low) / 2

    def to_json(self, game: Game) -> dict[str, Any]:
        low, high = self.interval
        if self.counted is not None:
            o = self.counted
            return {"source": self.source, "interval": [low, high], "drawn": o.decisions}
        return {
            "source": self.source,
            "interval": [low, high],
            "positions": [
                {
                    "position": game.format_position(v.position),
                    "move": game.format_move(v.move),
                    "value": {1: "win", 0: "draw", -1: "loss"}[v.value],
                    "kept": v.kept,
                }
                for v in self.verdicts
            ],
        }


def given_positions(game: Game, given: object, flag: str = "positions") -> list[Position]:
    """Positions given to judge (texts, or tuples or lists of the game's components), each
    read and checked before any work starts: one that cannot be read, or is already over,
    is refused in one line naming it, before a game is played or a position searched."""
    if isinstance(given, str | bytes) or not isinstance(given, Sequence):
        raise QarenaError(
            _("{flag} is a list of positions, not {value}").format(
                flag=flag, value=echo_value(given)
            )
        )
    check_count(flag, len(given), MAX_SAMPLE)
    found = []
    for item in given:
        position = game.position_of(item)
        if game.is_terminal(position):
            raise QarenaError(
                _("{position} is finished; there is no move to judge").format(
                    position=echo(item) if isinstance(item, str) else game.format_position(position)
                )
            )
        found.append(position)
    return found


def judge_positions(
    who: Player, solution: Exact, positions: Sequence[Position], decisions_only: bool = False
) -> Sample:
    """The player's move at each position (none may be over), judged exactly; with
    ``decisions_only``, only at the decision positions among them (where some move gives the
    value away), as optimality counts them."""
    game = solution.game
    verdicts = []
    for position in positions:
        if game.is_terminal(position):
            raise QarenaError(
                _("{position} is finished; there is no move to judge").format(
                    position=game.format_position(position)
                )
            )
        values = solution.move_values(position)
        value = max(values.values())
        if decisions_only and min(values.values()) == value:
            continue
        move = who.act(position)
        verdicts.append(Verdict(position, move, value, values[move] == value))
    return Sample(tuple(verdicts), "given")


def _play(
    game: Game, first: Player, second: Player, start: Position | None = None
) -> tuple[int, list[Position]]:
    """One game, from ``start`` (the game's start unless given), ``first`` to move there: its
    result for ``first`` (WIN, DRAW or LOSS) and each position where each side moved, first's
    at even places."""
    position = game.start() if start is None else start
    seen: list[Position] = []
    players = (first, second)
    while not game.is_terminal(position):
        threads.check()  # a caller's stop ends a game between moves, not only in a search
        mover = players[len(seen) % 2]
        seen.append(position)
        position = game.apply(position, mover.act(position))
    # The player to move at the end has lost (or drawn); who that is follows from the count.
    result = game.result(position)
    first_result = result if len(seen) % 2 == 0 else -result
    return first_result, seen


def _record(results: list[int]) -> Record:
    wins, draws = results.count(WIN), results.count(DRAW)
    return Record(wins, draws, len(results) - wins - draws)


def play_games(
    game: Game, first: Player, second: Player, games: int, start: Position | None = None
) -> Record:
    """``games`` games, ``first`` moving first in each (from ``start``, an opening, when
    given), played move by move: first's record."""
    return _record([_play(game, first, second, start)[0] for _game in range(games)])


def random_openings(
    game: Game, count: int, rng: np.random.Generator, avoid: set[Position] | None = None
) -> list[Position]:
    """Distinct positions after random moves by both sides, 0 to half the cells deep, still
    going, none of them in ``avoid``: ``count`` of them, or fewer on a board with fewer such
    positions than that (tries are bounded)."""
    cells = len(game.start())
    found: list[Position] = []
    seen = set(avoid or ())
    tries = 0
    while len(found) < count and tries < 20 * count + 100:
        tries += 1
        position = game.start()
        for _ply in range(int(rng.integers(cells // 2 + 1))):
            if game.is_terminal(position):
                break
            moves = game.legal_moves(position)
            position = game.apply(position, moves[int(rng.integers(len(moves)))])
        if not game.is_terminal(position) and position not in seen:
            seen.add(position)
            found.append(position)
    return found


def play_matches(
    who: Player, game: Game, games: int, rng: np.random.Generator
) -> tuple[dict[str, SeatRecords], list[Position]]:
    """The player's ``games`` games in each seat against each of the game's opponents, move by
    move, and the positions it moved at in them."""
    matches: dict[str, SeatRecords] = {}
    own: list[Position] = []
    for index, name in enumerate(evaluation_opponents(game)):
        seats = []
        for seat in (0, 1):
            other = make_player(name, game, seed=int(rng.integers(2**32)) + index)
            results = []
            for _game in range(games):
                first, second = (who, other) if seat == 0 else (other, who)
                result, seen = _play(game, first, second)
                results.append(result if seat == 0 else -result)
                own.extend(seen[seat::2])
            seats.append(_record(results))
        matches[name] = SeatRecords(seats[0], seats[1])
    return matches, own


def evaluate_by_sample(
    who: Player,
    solution: Exact,
    sample: int = DEFAULT_SAMPLE,
    games: int = DEFAULT_SAMPLED_GAMES,
    seed: int = 0,
    positions: Sequence[Position] | None = None,
) -> Evaluation:
    """The player's games against random and perfect play in each seat, and its optimality
    on ``sample`` decision positions (or on ``positions``, when given), judged exactly."""
    check_count("sample", sample, MAX_SAMPLE)  # the keyword: eval checks --sample itself
    game = solution.game
    if positions is not None:
        positions = given_positions(game, positions)
    rng = np.random.default_rng([seed, 0x5A])
    matches, own = play_matches(who, game, games, rng)
    if positions is None:
        # Each position once: every game moving first starts from the empty board, and a
        # random opening may be one the games passed through; a repeat is not a new sample.
        distinct = list(dict.fromkeys(own))
        from_games = min(len(distinct), sample // 2)
        chosen = rng.choice(len(distinct), size=from_games, replace=False)
        picked = [distinct[int(i)] for i in chosen]
        picked += random_openings(game, sample - from_games, rng, avoid=set(picked))
        judged = judge_positions(who, solution, picked, decisions_only=True)
        judged = Sample(judged.verdicts, "sampled")
    else:
        judged = judge_positions(who, solution, positions)
    return Evaluation(game.spec, judged.optimality, matches, judged)


__all__ = [
    "DEFAULT_SAMPLE",
    "DEFAULT_SAMPLED_GAMES",
    "Sample",
    "Verdict",
    "evaluate_by_sample",
    "given_positions",
    "judge_positions",
    "play_games",
    "play_matches",
    "random_openings",
    "wilson",
]
