"""Judging along perfect play, for a player on a board too big to judge everywhere (an n-tuple
network's learning curve): its moves at the decision positions of perfect-play games, each
judged exactly, and its record moving first against perfect play. ``train_run`` records a
network's curve points here (``judge_along_play``); ``sampled.py`` judges a sample instead."""

from __future__ import annotations

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.players import player as make_player
from qarena.agents.players import plays_as
from qarena.budget import check_count
from qarena.exact import Exact, oracle
from qarena.judging.best_reply import unbeaten as unbeaten_seats
from qarena.judging.sampled import MAX_SAMPLE, play_games
from qarena.judging.sets import judge_set, shipped_set
from qarena.judging.tables import Optimality
from qarena.judging.uniform import uniform_optimality
from qarena.learn.curve import CurvePoint
from qarena.learn.family import Trainable
from qarena.show.matches import Record


def along_perfect_play(
    who: Player, solution: Exact, games: int, seed: int = 0
) -> tuple[Optimality, Record]:
    """How ``who`` plays where perfect play goes: the share of the decision positions (those
    with moves of different values) of ``games`` games of perfect play (each side picking at
    random among the moves that keep the value) where its move keeps the value too, and its
    record in ``games`` games moving first against perfect play. Every position is judged
    exactly; a rerun with the same ``seed`` plays the same games."""
    check_count("games", games, MAX_SAMPLE)
    game = solution.game
    rng = np.random.default_rng([seed, 0xA1])
    optimal = decisions = 0
    for _game in range(games):
        position = game.start()
        while not game.is_terminal(position):
            threads.check()  # between searches too (positions a book or table answers)
            values = solution.move_values(position)
            best = max(values.values())
            if min(values.values()) < best:  # a decision: some move gives the value away
                decisions += 1
                optimal += values[who.act(position)] == best
            keep = [m for m, v in values.items() if v == best]
            position = game.apply(position, keep[int(rng.integers(len(keep)))])
    perfect = make_player("perfect", game, seed=int(rng.integers(2**32)))
    record = play_games(game, who, perfect, games)
    return Optimality(decisions, optimal), record


def judge_along_play(
    learner: Trainable,
    games: int,
    seed: int,
    varied: bool = False,
    uniform: np.ndarray | None = None,
    unbeaten: bool = False,
) -> CurvePoint:
    """The learner judged now along play: its optimality along ``games`` games of perfect
    play and its record moving first in ``games`` games against perfect play; with
    ``varied``, its optimality on the game's shipped judging set of varied openings too; with
    ``uniform`` (rows of the game's tables), its optimality over them as well; with
    ``unbeaten`` (a game enumerated here), whether the best reply beats it from the start in
    each seat."""
    optimality, record = along_perfect_play(learner, oracle(learner.game), games, seed)  # type: ignore[arg-type]
    everywhere = None
    if uniform is not None:
        everywhere = uniform_optimality(plays_as(learner), uniform).share
    shares = record.shares()
    off_line = None
    if varied:
        jset = shipped_set(learner.game, "varied")
        if jset is not None:
            off_line = judge_set(learner, jset).total.share  # type: ignore[arg-type]
    return CurvePoint(
        learner.episodes,
        optimality.share,
        {"perfect": (shares["win"], shares["draw"], shares["loss"])},
        learner.seconds,
        off_line,
        everywhere,
        unbeaten_seats(plays_as(learner)) if unbeaten else None,
    )


__all__ = ["along_perfect_play", "judge_along_play"]
