"""The game page's "Show me how to beat it": at each of the person's turns, the best reply to
the AI from the position on the board (``judging.best_reply`` from there, over the game's
tables), its first move marked on the board, and the outcome it forces whichever of its tied
moves the AI picks.

Worked out again at every turn of the person's, from the position as it is, rather than a line
from the start played out: the AI picks among its ties at random, and whatever it picks, the
next hint starts from where the game is. Offered only where the answer is exact and quick: a
board enumerated within the server's budget and an AI whose moves are the same whenever asked
(not a player that thinks, whose search is its own game's). Each answer is bounded in time
(:data:`BEAT_SECONDS`) and kept per game and position (``Session.beat``), so a page shown again
does no work.
"""

from __future__ import annotations

from typing import Any

from qarena import threads
from qarena.errors import QarenaError
from qarena.games import WIN
from qarena.i18n import seconds
from qarena.web.play import Session

#: The longest the best reply from one position may take on the web (both of ``Beating``'s,
#: once the game's tables exist). Measured from the start, on 2 cores shared with other work:
#: tic-tac-toe against a trained table or perfect play 4 ms, nim:5,6,7,8,9 against perfect
#: play 22 ms, connect4:4x4 (within the web's ``service.MAX_COST``) 0.27 s.
BEAT_SECONDS = 5.0


def beat_context(session: Session, offered: bool) -> dict[str, Any] | None:
    """What the page shows for the best reply to the AI: None where it is not asked for, not
    offered, or not the person's turn; else a ``case`` the page words, the move to play
    (``move``, None where none is shown) and, for a win, the line that forces it (the
    person's moves marked). The cases, for the person: ``win``, forced whichever of its tied
    moves the AI picks (``perfect_holds``: perfect play would not lose from here); ``draw``,
    the best forced, and the AI cannot be led to lose (``lucky``: it can, picking unluckily);
    ``loss``, it can win whatever the person plays (``lucky``: it may not); ``late``: not
    worked out within :data:`BEAT_SECONDS`; ``refused``, with ``why``."""
    if not (offered and session.show_beat) or session.over or not session.humans_turn():
        return None
    with threads.limit(seconds=BEAT_SECONDS) as mine:
        try:
            found = session.beat()
        except threads.Stopped:
            if mine.outer is not None and mine.outer.reached():
                raise  # the request's own limit: it is given up as a whole
            return {"case": "late", "time": seconds(BEAT_SECONDS), "move": None}
        except QarenaError as e:
            return {"case": "refused", "why": str(e), "move": None}
    assert found is not None  # the person's turn in a game under way
    certain, possible = found
    game = session.game
    # The replies' outcomes are the AI's: the person's are their opposite.
    forced, reachable, value = -certain.secured, -possible.secured, -certain.value
    case = "win" if forced == WIN else "draw" if forced == 0 else "loss"
    line = [
        {"who": "you" if i % 2 == 0 else "ai", "move": game.format_move(m)}
        for i, m in enumerate(certain.line)
    ]
    return {
        "case": case,
        "move": None if case == "loss" else line[0]["move"],
        "line": line if case == "win" else [],
        "perfect_holds": value < WIN,
        "lucky": reachable > forced,
    }
