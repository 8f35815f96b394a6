"""Judging over a uniform sample of all decision positions, on a game the solver enumerates
here: positions drawn so that each is as likely as any other (a canonical row weighs as many
positions as its class holds), each judged exactly from the game's tables. The share
estimates the one every position gives, with a 95% interval, for a player too slow to ask at
every position (a network on Connect Four 5×5: 35 million classes). A network's curve judges
its points so on such a board (``judge_along_play``), and ``qarena eval --uniform N`` judges a
player so."""

from __future__ import annotations

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.opponents import move_mask
from qarena.budget import check_count
from qarena.errors import QarenaError
from qarena.exact import Oracle, oracle
from qarena.exact.solver import Solution
from qarena.exact.space import GameTables
from qarena.games.base import Game, Position
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


def uniform_optimality(who: Player, rows: np.ndarray, seed: int = 0) -> Optimality:
    """``who``'s optimality over ``rows`` of its game's tables (:func:`uniform_rows`): a row
    stands for every position of its class, so a player that may play a position's images
    apart (not ``symmetric``) is asked at one of them drawn uniformly (``seed``), else at
    the row's own position."""
    tables = _tables_of(who.game).tables
    if not who.symmetric and int(tables.orbit.max(initial=1)) > 1:
        return _at_images(tables, who, rows, seed)
    # A small board's rows are drawn many times each: each is asked once, counted as drawn.
    unique, counts = np.unique(rows, return_counts=True)
    return optimality_at(tables, unique, move_mask(tables, who, unique), counts)


def _at_images(tables: GameTables, who: Player, rows: np.ndarray, seed: int) -> Optimality:
    """The optimality of ``who`` asked, for each of ``rows``, at a position drawn uniformly
    from the row's class (each draw its own), its moves read in the row's frame. A position
    drawn many times is asked once and counted as drawn."""
    game = tables.game
    rng = np.random.default_rng([seed, 0x1A])
    images: dict[int, tuple[Position, ...]] = {}
    drawn: dict[tuple[int, Position], int] = {}
    for row in rows.tolist():
        if row not in images:
            images[row] = game.images(tables.position(row))
        of_row = images[row]
        key = (row, of_row[int(rng.integers(len(of_row)))])
        drawn[key] = drawn.get(key, 0) + 1
    asked = [image for _row, image in drawn]
    batched = who.choices_at(asked)
    choices = getattr(who, "choices", None)
    mask = np.zeros((len(asked), tables.legal.shape[1]), dtype=bool)
    for i, image in enumerate(asked):
        if i % 1024 == 0:
            threads.check()  # a run's stop reaches a sample being judged too
        if batched is not None:
            moves = np.flatnonzero(batched[i]).tolist()
        else:
            moves = choices(image) if callable(choices) else [who.act(image)]
        _row, frame = tables.frame(image)
        mask[i, [frame[m] for m in moves]] = True
    where = np.array([row for row, _image in drawn], dtype=np.int64)
    counts = np.array(list(drawn.values()), dtype=np.int64)
    return optimality_at(tables, where, mask, counts)


def evaluate_uniform(who: Player, count: int, games: int, seed: int = 0) -> Evaluation:
    """The player's optimality over ``count`` decision positions drawn uniformly from all of
    them, each judged exactly, with its 95% interval, and its ``games`` games in each seat
    against each of the game's opponents (played move by move, as by samples)."""
    check_count("uniform", count, MAX_SAMPLE)
    game = who.game
    rows = uniform_decisions(_tables_of(game).tables, count, seed)
    found = uniform_optimality(who, rows, seed)
    matches, _own = play_matches(who, game, games, np.random.default_rng([seed, 0x5A]))
    return Evaluation(game.spec, found, matches, Sample((), "uniform", found))


__all__ = ["check_uniform", "evaluate_uniform", "uniform_optimality", "uniform_rows"]
