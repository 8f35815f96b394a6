"""How much the web app takes on: its limits (``Limits``, set by ``create_app``), the largest
game it plays or trains by positions and by positions × moves, and how a game is over that
budget, in words."""

from __future__ import annotations

import dataclasses

from qarena.budget import estimate_positions
from qarena.games import Game
from qarena.i18n import _
from qarena.web.searches import MAX_WAITING, MOVE_SECONDS, SEARCH_SLOTS
from qarena.web.upload import MAX_UPLOAD

#: Largest game (encoded positions) the web app plays or trains.
MAX_POSITIONS = 1_000_000
#: Largest game the web app builds tables for, as positions × moves: the size of a Q table,
#: which sets both memory (about 60 bytes per pair over all of a learner's tables) and set-up
#: time (about 1 s per million pairs). Measured: nim:5,6,7,8,9 (1.06 M) takes 1.2 s and 60 MB;
#: tictactoe:3x4:3 (6.4 M) 3 s and 280 MB; nim:400,400 (129 M) 59 s and 7.3 GB. Two million
#: keeps any one request to a couple of seconds and ~120 MB, and still covers every game people
#: play here: tictactoe:3x3 (177 k), nim:3,5,7 (2.9 k), subtraction (39), nim:2,6,7,8 (35 k),
#: nim:10,10,10,10 (586 k). Bigger games train on the command line, which has no such limit.
MAX_COST = 2_000_000


@dataclasses.dataclass(frozen=True)
class Limits:
    """How much this server takes on (see ``create_app``): games at once and how long an idle
    one is kept, seconds of training on the spot, a game's positions and positions × moves,
    training runs at once and waiting, and the largest policy file uploaded."""

    max_games: int
    idle_seconds: float
    train_seconds: float
    max_positions: int
    max_cost: int
    max_training: int
    max_queued: int
    max_upload: int = MAX_UPLOAD
    move_seconds: float = MOVE_SECONDS
    search_slots: int = SEARCH_SLOTS
    max_waiting: int = MAX_WAITING


def over_budget(game: Game, limits: Limits) -> str | None:
    """How ``game`` is over the web app's budget, in words; None when it is within."""
    positions, moves = estimate_positions(game), game.num_moves
    cost = positions * moves
    if positions > limits.max_positions:
        size = _("about {positions:,} positions, over its limit of {most:,}").format(
            positions=positions, most=limits.max_positions
        )
    elif cost > limits.max_cost:
        size = _(
            "about {positions:,} positions × {moves:,} moves = {cost:,}, over its budget of "
            "{most:,}"
        ).format(positions=positions, moves=moves, cost=cost, most=limits.max_cost)
    else:
        return None
    return size
