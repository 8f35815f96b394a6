"""A person against a frozen agent: one game's positions, whose turn it is, moves and undo, the
AI's replies and the result. Shared by ``qarena play`` and the web app, which keep only reading
input and drawing; nothing here prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np

from qarena.agents.base import OpponentPlayer
from qarena.errors import IllegalMoveError, QarenaError
from qarena.games import WIN, Game, Move, Position
from qarena.games.words import ending, illegal
from qarena.i18n import _, gettext_noop
from qarena.judging.best_reply import SeatReply, best_reply

Side = Literal["human", "ai"]
Result = Literal["human", "ai", "draw"]
#: Who won, for the person (translated where shown: ``_(VERDICTS[result])``).
VERDICTS: dict[Result, str] = {
    "human": gettext_noop("You win!"),
    "ai": gettext_noop("The AI wins."),
    "draw": gettext_noop("Draw."),
}


class Score(NamedTuple):
    """A running score, for the person: games you won, the AI won, drawn."""

    you: int = 0
    ai: int = 0
    draws: int = 0

    @classmethod
    def of(cls, results: Counter[Result]) -> Score:
        return cls(results["human"], results["ai"], results["draw"])

    @property
    def games(self) -> int:
        return self.you + self.ai + self.draws


class Conflict(QarenaError):
    """An action that does not fit the game's state (a move after the end, nothing to undo)."""


@dataclass(frozen=True)
class Reply:
    """A move of the AI's, where it chose (``position``), its value of each legal move there,
    and the moves of best value it picked ``move`` among."""

    move: Move
    values: dict[Move, float]
    position: Position
    best: tuple[Move, ...]

    @property
    def tied(self) -> bool:
        """Several moves shared the best value, and the AI picked among them at random."""
        return len(self.best) > 1


@dataclass
class Match:
    """One game from its start: the person sits at ``human_seat`` (0: moves first), the agent
    at the other seat, picking among its ties with ``rng``."""

    agent: OpponentPlayer
    human_seat: int
    rng: np.random.Generator
    positions: list[Position] = field(init=False)
    moves: list[Move] = field(init=False)

    def __post_init__(self) -> None:
        self.positions = [self.game.start()]
        self.moves = []

    @property
    def game(self) -> Game:
        return self.agent.game

    @property
    def first(self) -> Side:
        return "human" if self.human_seat == 0 else "ai"

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.position)

    def humans_turn(self, plies: int | None = None) -> bool:
        """Whether the person moves after ``plies`` moves (default: now)."""
        return (len(self.moves) if plies is None else plies) % 2 == self.human_seat

    @property
    def to_move(self) -> Side | None:
        if self.over:
            return None
        return "human" if self.humans_turn() else "ai"

    def values(self, position: Position | None = None) -> dict[Move, float]:
        """The AI's value of each legal move in ``position`` (default: now)."""
        return self.agent.move_values(self.position if position is None else position)

    def read(self, text: str) -> Move:
        """A move as the person typed it (MoveError when it cannot be read)."""
        return self.game.parse_move(text)

    def move(self, text: str) -> Move:
        """Play the person's move, typed as ``text``; the AI has not replied yet."""
        if self.over:
            raise Conflict(_("The game is over; start a new game."))
        if not self.humans_turn():
            raise Conflict(_("It is the AI's turn."))
        game, position = self.game, self.position
        move = self.read(text)
        if move not in game.legal_moves(position):
            raise IllegalMoveError(illegal(game, position, move))
        self._apply(move)
        return move

    def reply(self) -> Reply | None:
        """The AI's move, when it is its turn and the game goes on."""
        if self.over or self.humans_turn():
            return None
        reply = self._reply_at(self.position, self.agent.pick(self.position, self.rng))
        self._apply(reply.move)
        return reply

    def beating(self, certain: bool = True) -> SeatReply | None:
        """The best reply to the AI from here, at the person's turn (None at the AI's or after
        the end), the person's move first in its line: with ``certain``, what the person
        forces whichever of its tied moves the AI picks; else what the AI can be led to where
        it picks unluckily (``judging.best_reply``)."""
        if self.over or not self.humans_turn():
            return None
        # The person moves next, so the AI takes the seat that moves second from here.
        found = best_reply(self.agent, ("second",), start=self.position, certain=certain)
        return found.seats["second"]

    def _reply_at(self, position: Position, move: Move) -> Reply:
        return Reply(move, self.values(position), position, self.agent.best_at(position))

    def _apply(self, move: Move) -> None:
        self.positions.append(self.game.apply(self.position, move))
        self.moves.append(move)

    @property
    def last_reply(self) -> Reply | None:
        """The last move, when it was the AI's; rebuilt from the positions, so it follows undo."""
        if not self.moves or self.humans_turn(len(self.moves) - 1):
            return None
        return self._reply_at(self.positions[-2], self.moves[-1])

    def undo(self) -> tuple[Move, Move | None]:
        """Take back the person's last move and the AI's reply to it (None when that move ended
        the game), so that it is the person's turn again, even after the end. Returns the two."""
        theirs = [i for i in range(len(self.moves)) if self.humans_turn(i)]
        if not theirs:
            raise Conflict(_("Nothing to undo: you have not moved yet."))
        taken = self.moves[theirs[-1] :]
        del self.moves[theirs[-1] :], self.positions[theirs[-1] + 1 :]
        return taken[0], taken[1] if len(taken) > 1 else None

    def result(self) -> Result | None:
        """Who won, for the person: ``human``, ``ai`` or ``draw``; None while the game goes on."""
        if not self.over:
            return None
        # game.result is for the player to move at the end, who did not make the last move.
        mine = self.game.result(self.position)
        if not self.humans_turn():
            mine = -mine
        return "human" if mine == WIN else "ai" if mine == -WIN else "draw"

    def result_text(self) -> str | None:
        """Why the game ended, and who won: "The AI took the last match. You win!"."""
        result = self.result()
        if result is None:
            return None
        if self.humans_turn():  # the AI made the last move
            why = ending(self.game, self.position, _("The AI"))
        else:
            why = ending(self.game, self.position, _("You"), addressed=True)
        return f"{why} {_(VERDICTS[result])}"

    def history(self) -> list[tuple[str, str]]:
        """("You" or "AI", in the current language, and the move's text) for every move so
        far."""
        return [
            (_("You") if self.humans_turn(i) else _("AI"), self.game.format_move(m))
            for i, m in enumerate(self.moves)
        ]
