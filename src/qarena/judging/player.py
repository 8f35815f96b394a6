"""The one choice between judging a player exactly and judging it by samples: every decision
position where the game's tables fit, else (or when asked) a sample judged by the search
solver (``sampled.py``). ``qarena eval``, ``qarena.judge`` and a sweep's runs all judge here."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from qarena.agents.base import Player
from qarena.agents.opponents import move_mask
from qarena.agents.players import own_learner
from qarena.budget import MAX_GAMES, check_count, memory_budget
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.games.base import Position
from qarena.i18n import _
from qarena.judging.best_reply import BestReply, best_reply
from qarena.judging.evaluation import Evaluation, evaluate, evaluate_moves
from qarena.judging.refutation import DEFAULT_POSITIONS, POSITION_BYTES, check_budget
from qarena.judging.sampled import DEFAULT_SAMPLE, DEFAULT_SAMPLED_GAMES, evaluate_by_sample
from qarena.judging.tables import tables_for
from qarena.judging.uniform import check_uniform, evaluate_uniform


def judge_player(  # noqa: PLR0913 - eval's options
    who: Player,
    games: int | None = None,
    seed: int = 0,
    *,
    sample: int | None = None,
    positions: Sequence[Position] | None = None,
    lengths: bool = False,
    uniform: int | None = None,
    reply: bool = False,
    beat_seconds: float = 0.0,
) -> Evaluation:
    """``who``'s optimality and its record against the game's opponents in both seats:
    exactly, or by samples where the game's oracle searches it (``Oracle.coverage``) or when
    ``sample`` or ``positions`` is given, or over ``uniform`` decision positions drawn from
    all of them (``uniform.py``; a game enumerated here). ``games`` unless told: the
    family's (1,000, or 10 on a searched board, since perfect play searches each of its
    moves), 10 for a sample asked for. The result records the oracle. With ``reply``, where
    every position is judged, it carries the best reply to the player from the start in each
    seat too (``best_reply.py``: over the same tables, to the same moves)."""
    game = who.game
    answers = Oracle.of(game)
    if uniform is not None:
        check_uniform(
            game, sample=sample is not None, positions=positions is not None, lengths=lengths
        )
        count = DEFAULT_SAMPLED_GAMES if games is None else games
        check_count("games", count, MAX_GAMES, least=0)
        judged = evaluate_uniform(who, uniform, count, seed)
        return dataclasses.replace(judged, oracle=answers)
    if sample is not None or positions is not None or answers.searched:
        if lengths:
            text = _("game lengths are counted only when every position is judged")
            if sample is None and positions is None and answers.reason is not None:
                # Judged by samples only because it does not fit here: say so, in the one line.
                text = _("{reason}; {search}").format(reason=answers.reason, search=text)
            raise QarenaError(text)
        default = answers.games if answers.searched else DEFAULT_SAMPLED_GAMES
        count = default if games is None else games
        check_count("games", count, MAX_GAMES, least=0)
        judged = evaluate_by_sample(
            who,
            answers.exact(),
            sample=DEFAULT_SAMPLE if sample is None else sample,
            games=count,
            seed=seed,
            positions=positions,
        )
        if reply and answers.searched and beat_seconds > 0:
            judged = _searched_reply(judged, who, beat_seconds)
    else:
        count = answers.games if games is None else games
        check_count("games", count, MAX_GAMES)
        learner = own_learner(who)
        found: BestReply | None = None
        if learner is not None:  # its own tables, read as they are
            judged = evaluate(learner, count, seed, lengths)
            if reply:
                found = best_reply(who)
        else:
            # Every position where it may play images apart, else every class.
            tables, merged = tables_for(who)
            moves = move_mask(tables, who)  # asked once: judged and replied to alike
            judged = evaluate_moves(tables, moves, count, seed, lengths)
            if reply:
                found = best_reply(who, moves=moves)
            if merged:
                judged = dataclasses.replace(judged, classes_note=classes_note())
        judged = dataclasses.replace(judged, best_reply=found)
    # The result says what judged it, so that it does not depend on the machine unsaid.
    return dataclasses.replace(judged, oracle=answers)


#: The fewest positions a search for the best reply is worth making with, where memory cannot
#: hold the default budget.
LEAST_REPLY_POSITIONS = 1_000


def _searched_reply(judged: Evaluation, who: Player, seconds: float) -> Evaluation:
    """``judged`` with the best reply searched on a board solved by search, within ``seconds``
    a seat and the positions memory can hold (the default budget at most: eval chose it, so
    a machine short of memory searches less rather than refuse the judging); it asks the
    same search solution (one per board and process), so a position the judging searched is
    not searched again. Where it cannot be made (too little memory, a player that cannot
    answer where the search asks it, such as a script of moves), the judging stands and
    ``best_reply_note`` says why."""
    positions = min(DEFAULT_POSITIONS, memory_budget() // POSITION_BYTES)
    try:
        if positions < LEAST_REPLY_POSITIONS:
            check_budget(LEAST_REPLY_POSITIONS, seconds)  # says why, in one line
        found = best_reply(who, positions=positions, seconds=seconds)
    except QarenaError as e:
        note = _("no search for the best reply: {reason}").format(reason=e)
        return dataclasses.replace(judged, best_reply_note=note)
    return dataclasses.replace(judged, best_reply=found)


def classes_note() -> str:
    """What a judging says where a player that may play a position's images apart was asked
    at one position of each symmetry class, its game's tables per position not fitting."""
    return _(
        "judged at one position of each symmetry class: its tables of every position do not "
        "fit here, so it is taken to play every image of a position alike"
    )
