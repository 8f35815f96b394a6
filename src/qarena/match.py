"""A person against a frozen agent: one game's positions, whose turn it is, moves and undo, the
AI's replies and the result; and training an agent on the spot for a person who is waiting.
Shared by ``qarena play`` and the web app, which keep only reading input and drawing; nothing
here prints."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from qarena.agents.greedy import GreedyAgent
from qarena.errors import IllegalMoveError, QarenaError
from qarena.games import WIN, Game, Move, Position
from qarena.games.words import ending, illegal
from qarena.learn.base import Learner, Opponent
from qarena.learn.curve import Curve
from qarena.learn.learners import make_learner
from qarena.training.run import Progress, RunResult, default_episodes, train_run

__all__ = [
    "SPOT_LEARNER",
    "TRAIN_SECONDS",
    "VERDICTS",
    "Conflict",
    "Match",
    "Reply",
    "Result",
    "Side",
    "Training",
    "train_on_the_spot",
    "train_timed",
]

#: Training on the spot stops after this long, perfect or not: the person is waiting.
TRAIN_SECONDS = 10.0
#: The learner trained on the spot, with its default settings.
SPOT_LEARNER = "q"

Side = Literal["human", "ai"]
Result = Literal["human", "ai", "draw"]
VERDICTS: dict[Result, str] = {"human": "You win!", "ai": "The AI wins.", "draw": "Draw."}


class Conflict(QarenaError):
    """An action that does not fit the game's state (a move after the end, nothing to undo)."""


@dataclass(frozen=True)
class Reply:
    """A move of the AI's, and its value of each legal move where it chose."""

    move: Move
    values: dict[Move, float]


@dataclass
class Match:
    """One game from its start: the person sits at ``human_seat`` (0: moves first), the agent
    at the other seat, picking among its ties with ``rng``."""

    agent: GreedyAgent
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
        position = self.position if position is None else position
        return {m: self.agent.value(position, m) for m in self.game.legal_moves(position)}

    def read(self, text: str) -> Move:
        """A move as the person typed it (MoveError when it cannot be read)."""
        return self.game.parse_move(text)

    def move(self, text: str) -> Move:
        """Play the person's move, typed as ``text``; the AI has not replied yet."""
        if self.over:
            raise Conflict("The game is over; start a new game.")
        if not self.humans_turn():
            raise Conflict("It is the AI's turn.")
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
        reply = Reply(self.agent.pick(self.position, self.rng), self.values())
        self._apply(reply.move)
        return reply

    def _apply(self, move: Move) -> None:
        self.positions.append(self.game.apply(self.position, move))
        self.moves.append(move)

    @property
    def last_reply(self) -> Reply | None:
        """The last move, when it was the AI's."""
        if not self.moves or self.humans_turn(len(self.moves) - 1):
            return None
        return Reply(self.moves[-1], self.values(self.positions[-2]))

    def undo(self) -> tuple[Move, Move | None]:
        """Take back the person's last move and the AI's reply to it (None when that move ended
        the game), so that it is the person's turn again, even after the end. Returns the two."""
        theirs = [i for i in range(len(self.moves)) if self.humans_turn(i)]
        if not theirs:
            raise Conflict("Nothing to undo: you have not moved yet.")
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
        why = ending(self.game, self.position, "The AI" if self.humans_turn() else "You")
        return f"{why} {VERDICTS[result]}"

    def history(self) -> list[tuple[str, str]]:
        """("You" or "AI", the move's text) for every move so far."""
        return [
            ("You" if self.humans_turn(i) else "AI", self.game.format_move(m))
            for i, m in enumerate(self.moves)
        ]


# --- training on the spot ----------------------------------------------------------------------


@dataclass(frozen=True)
class Training:
    learner: Learner
    result: RunResult
    seconds: float  # wall-clock time of the training, setting up excluded


def train_timed(
    learner: Learner,
    episodes: int,
    opponent: Opponent | None = None,
    *,
    seconds: float | None = None,
    until_perfect: bool = False,
    curve: Curve | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Training:
    """``train_run``, stopped after ``seconds`` (None: no limit) as well as by ``should_stop``.
    The kernels compile (or load) and the game is solved first: the limit is for training."""
    learner.warm_up()
    learner.optimality()
    t0 = time.monotonic()

    def stop() -> bool:
        late = seconds is not None and time.monotonic() - t0 > seconds
        return late or (should_stop is not None and should_stop())

    result = train_run(
        learner,
        episodes,
        opponent,
        until_perfect=until_perfect,
        curve=curve,
        on_progress=on_progress,
        should_stop=stop,
    )
    return Training(learner, result, time.monotonic() - t0)


def train_on_the_spot(
    game: Game,
    *,
    seconds: float | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Training:
    """A fresh ``SPOT_LEARNER`` with its default settings, trained by self-play until it plays
    perfectly, for at most ``seconds`` (default: ``TRAIN_SECONDS``, read when called)."""
    learner = make_learner(SPOT_LEARNER, game)
    return train_timed(
        learner,
        default_episodes(learner),
        seconds=TRAIN_SECONDS if seconds is None else seconds,
        until_perfect=True,
        on_progress=on_progress,
        should_stop=should_stop,
    )
