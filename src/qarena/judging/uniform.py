"""Judging over a uniform sample of all decision positions, on a game the solver enumerates
here: positions drawn so that each is as likely as any other (a canonical row weighs as many
positions as its class holds), each judged exactly from the game's tables. The share
estimates the one every position gives, with a 95% interval, for a player too slow to ask at
every position (a network on Connect Four 5×5: 35 million classes). A network's curve judges
its points so on such a board (``judge_along_play``), and ``qarena eval --uniform N`` judges a
player so."""

from __future__ import annotations

import numpy as np

from qarena.agents.base import Player
from qarena.agents.opponents import move_mask
from qarena.budget import check_count
from qarena.errors import QarenaError
from qarena.exact import Oracle, oracle
from qarena.exact.solver import Solution
from qarena.games.base import Game
from qarena.i18n import _, option
from qarena.judging.evaluation import Evaluation
from qarena.judging.sampled import MAX_SAMPLE, Sample, play_matches
from qarena.judging.tables import UNIFORM_SAMPLE, Optimality, optimality_at, uniform_decisions


def check_uniform(game: Game, *, sample: bool, positions: bool, lengths: bool) -> None:
    """Refuse, in one line naming the options as the caller names them, a uniform sample
    asked for with another way of judging, or on a game solved by search here."""
    for flag, used in (("--sample", sample), ("--positions", positions), ("--lengths", lengths)):
        if used:
            raise QarenaError(
                _("{flag} does not go with {uniform}").format(
                    flag=option(flag), uniform=option("--uniform")
                )
            )
    if Oracle.of(game).searched:
        raise QarenaError(
            _(
                "{uniform} draws from every decision position of a game enumerated here, and "
                "{spec} is solved by search here; {sample} judges it by samples"
            ).format(uniform=option("--uniform"), spec=game.spec, sample=option("--sample"))
        )


def _tables_of(game: Game) -> Solution:
    """The game's enumerated solution (:func:`check_uniform` refused any other)."""
    check_uniform(game, sample=False, positions=False, lengths=False)
    solution = oracle(game)
    assert isinstance(solution, Solution)  # an enumerated game's
    return solution


def uniform_rows(game: Game, count: int = UNIFORM_SAMPLE, seed: int = 0) -> np.ndarray | None:
    """``count`` decision positions of ``game`` as rows of its tables, drawn uniformly from
    all of them (the same for the same seed: a network's curve judges every point on
    :data:`~qarena.judging.tables.UNIFORM_SAMPLE` of them), where the game is enumerated
    here; None where it is solved by search."""
    solution = oracle(game)
    if not isinstance(solution, Solution):
        return None
    return uniform_decisions(solution.tables, count, seed)


def uniform_optimality(who: Player, rows: np.ndarray) -> Optimality:
    """``who``'s optimality over ``rows`` of its game's tables (:func:`uniform_rows`)."""
    tables = _tables_of(who.game).tables
    # A small board's rows are drawn many times each: each is asked once, counted as drawn.
    unique, counts = np.unique(rows, return_counts=True)
    return optimality_at(tables, unique, move_mask(tables, who, unique), counts)


def evaluate_uniform(who: Player, count: int, games: int, seed: int = 0) -> Evaluation:
    """The player's optimality over ``count`` decision positions drawn uniformly from all of
    them, each judged exactly, with its 95% interval, and its ``games`` games in each seat
    against each of the game's opponents (played move by move, as by samples)."""
    check_count("uniform", count, MAX_SAMPLE)
    game = who.game
    rows = uniform_decisions(_tables_of(game).tables, count, seed)
    found = uniform_optimality(who, rows)
    matches, _own = play_matches(who, game, games, np.random.default_rng([seed, 0x5A]))
    return Evaluation(game.spec, found, matches, Sample((), "uniform", found))


__all__ = ["check_uniform", "evaluate_uniform", "uniform_optimality", "uniform_rows"]
