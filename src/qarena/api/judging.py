"""Judging from Python: how good a player is (:func:`judge`, as ``qarena eval``) and whether it
can be beaten from the start, and how (:func:`best_reply`)."""

from __future__ import annotations

from collections.abc import Sequence

from qarena.agents.players import PlayerLike
from qarena.agents.players import player as _player
from qarena.api.games import GameLike, game, python_call
from qarena.budget import check_count, check_seed
from qarena.games import Position
from qarena.judging.best_reply import SEATS, BestReply, check_seats
from qarena.judging.best_reply import best_reply as _best_reply
from qarena.judging.evaluation import Evaluation
from qarena.judging.player import judge_player
from qarena.judging.refutation import (
    DEFAULT_POSITIONS,
    DEFAULT_SECONDS,
    check_budget,
    check_seconds,
)
from qarena.judging.sampled import MAX_SAMPLE, given_positions


@python_call
def judge(  # noqa: PLR0913 - eval's options, as keywords
    who: PlayerLike,
    spec: GameLike | None = None,
    *,
    games: int | None = None,
    seed: int = 0,
    lengths: bool = False,
    sample: int | None = None,
    positions: Sequence[Position | str] | None = None,
    uniform: int | None = None,
    beat_seconds: float = DEFAULT_SECONDS,
) -> Evaluation:
    """How good a player is, as ``qarena eval`` says: its exact optimality (the share of
    decision positions where its move keeps the game's value) and its record against random,
    perfect and the game's rule players in both seats (``games`` in each, 1,000 unless
    told). Any player: a learner, a policy file, a built-in's name (with ``spec``), a
    function or a dict of moves.

    Games too big to enumerate (classic Connect Four), or any game with ``sample`` or
    ``positions``, are judged by samples (``judging/sampled.py``): optimality over ``sample``
    decision positions (2,000 unless told) or over the ``positions`` given (texts, or tuples
    or lists of components; every one is checked before any game is played), each judged
    exactly by the search solver, with a 95% interval in ``Evaluation.sample``; then
    ``games`` is 10 unless told, since perfect play searches each of its moves. With
    ``uniform``, on a game enumerated here, optimality is over that many decision positions
    drawn uniformly from all of them, each judged exactly from the tables: the share every
    position gives, estimated with its interval, in seconds for a network on a big board.

    Where every position is judged (a game enumerated here, no ``sample``, ``positions`` or
    ``uniform``), ``Evaluation.best_reply`` holds the best reply to it from the start in each
    seat (as :func:`best_reply` finds it, to the same moves). On a board solved by search it
    holds the search for a line that beats it in each seat, within ``beat_seconds`` each (60
    unless told; 0 skips it, and it is None): ``proved`` False where the search found none.
    Elsewhere (``sample``, ``positions`` or ``uniform`` on an enumerated board) it is None."""
    check_seed(seed, "seed")
    beat_seconds = check_seconds(beat_seconds, "--beat-seconds", zero=True)
    g = None if spec is None else game(spec)
    if sample is not None:
        check_count("sample", sample, MAX_SAMPLE)
    if uniform is not None:
        check_count("uniform", uniform, MAX_SAMPLE)
    found = _player(who, g, seed)
    # Every position is read and checked here, before a game is played.
    given = None if positions is None else given_positions(found.game, positions)
    return judge_player(
        found,
        games,
        seed,
        sample=sample,
        positions=given,
        lengths=lengths,
        uniform=uniform,
        reply=True,
        beat_seconds=beat_seconds,
    )


@python_call
def best_reply(
    who: PlayerLike,
    spec: GameLike | None = None,
    *,
    seed: int = 0,
    seats: Sequence[str] = SEATS,
    positions: int = DEFAULT_POSITIONS,
    seconds: float = DEFAULT_SECONDS,
) -> BestReply:
    """Can ``who`` be beaten from the start, by anyone, and how? In each seat: the start's
    value for it, what the strongest opponent who knows its moves can force against it, and
    the line that forces it (``BestReply.seats["first"].line_text``), with the share of its
    decision positions an opponent can reach where it keeps the value. Exact, over the game's
    tables, on every board whose tables fit here (a player that may play several moves at a
    position is judged over every one of them). Any player, as :func:`judge` takes it.

    On a board solved by search (classic Connect Four) a search for a line that beats it,
    within ``positions`` asked about and ``seconds`` in each seat: where it finds none,
    ``proved`` is False and ``search`` says what it spent (``judging/refutation.py``).
    ``seats``: the seats to answer for, "first", "second" or both (the default)."""
    check_seed(seed, "seed")
    asked = check_seats(seats)
    check_budget(positions, seconds)  # before the player is made
    g = None if spec is None else game(spec)
    found = _player(who, g, seed)
    return _best_reply(found, asked, positions=positions, seconds=seconds)
