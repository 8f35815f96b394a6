"""The one choice between judging a player exactly and judging it by samples: every decision
position where the game's tables fit, else (or when asked) a sample judged by the search
solver (``sampled.py``). ``qarena eval``, ``qarena.judge`` and a sweep's runs all judge here."""

from __future__ import annotations

from collections.abc import Sequence

from qarena.agents.base import Player
from qarena.agents.greedy import GreedyAgent
from qarena.agents.opponents import move_mask
from qarena.budget import MAX_GAMES, check_count
from qarena.errors import QarenaError
from qarena.evaluate.report import Evaluation, evaluate, evaluate_moves
from qarena.evaluate.sampled import DEFAULT_SAMPLE, DEFAULT_SAMPLED_GAMES, evaluate_by_sample
from qarena.exact import Oracle
from qarena.exact.space import game_tables
from qarena.games.base import Position
from qarena.i18n import _

#: Games in each seat against each opponent when every position is judged, unless told.
DEFAULT_GAMES = 1_000


def judge_player(
    who: Player,
    games: int | None = None,
    seed: int = 0,
    *,
    sample: int | None = None,
    positions: Sequence[Position] | None = None,
    lengths: bool = False,
) -> Evaluation:
    """``who``'s optimality and its record against the game's opponents in both seats:
    exactly (``games`` 1,000 unless told), or by samples where the game's oracle searches it
    (``Oracle.judging``; ``games`` the family's, 10 on a searched board, since perfect play
    searches each of its moves) or when ``sample`` or ``positions`` is given (``games`` 10
    unless told)."""
    game = who.game
    answers = Oracle.of(game)
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
        return evaluate_by_sample(
            who,
            answers.exact(),
            sample=DEFAULT_SAMPLE if sample is None else sample,
            games=count,
            seed=seed,
            positions=positions,
        )
    count = DEFAULT_GAMES if games is None else games
    check_count("games", count, MAX_GAMES)
    if isinstance(who, GreedyAgent):
        return evaluate(who.learner, count, seed, lengths)
    tables = game_tables(game)
    return evaluate_moves(tables, move_mask(tables, who), count, seed, lengths)
