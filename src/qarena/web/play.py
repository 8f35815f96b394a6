"""Games in play: a person against a frozen agent, kept in memory with a cap and an idle
timeout."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qarena.agents.greedy import GreedyAgent
from qarena.errors import IllegalMoveError, MoveError, QarenaError
from qarena.games import WIN, Game, Move, Position
from qarena.games.words import ending, illegal, played


class NotFound(KeyError):
    """No such game, policy or job."""


class Conflict(QarenaError):
    """An action that does not fit the game's state (a move after the end, nothing to undo)."""


class Full(QarenaError):
    """The server is too busy for this now (the training line is full); try again later."""


#: Games kept in memory at once; a new one pushes out the least recently used.
MAX_GAMES = 1_000
#: A game nobody has touched for this long is forgotten.
IDLE_SECONDS = 30 * 60.0


@dataclass
class Agent(GreedyAgent):
    """A stored policy's agent: the greedy agent and the policy id it was loaded from."""

    policy: str = ""


# --- words -------------------------------------------------------------------------------


# --- one game ----------------------------------------------------------------------------


@dataclass
class Session:
    """One game: the positions so far, who sits where, and how the page shows it."""

    id: str
    agent: Agent
    human_seat: int  # 0: the person moves first
    rng: np.random.Generator
    positions: list[Position] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    show_values: bool = True
    show_hint: bool = False
    last_ai: Move | None = None
    touched: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def game(self) -> Game:
        return self.agent.game

    @property
    def first(self) -> str:
        return "human" if self.human_seat == 0 else "ai"

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.position)

    def humans_turn(self, plies: int | None = None) -> bool:
        return (len(self.moves) if plies is None else plies) % 2 == self.human_seat

    def start(self) -> None:
        self.positions = [self.game.start()]
        self.moves = []
        self.last_ai = None
        self._ai_turn()

    def _ai_turn(self) -> None:
        if not self.over and not self.humans_turn():
            move = self.agent.pick(self.position, self.rng)
            self.moves.append(move)
            self.positions.append(self.game.apply(self.position, move))
            self.last_ai = move

    def play(self, text: str) -> None:
        """The person's move (as text), then the AI's reply."""
        if self.over:
            raise Conflict("The game is over; start a new game.")
        if not text.isascii():
            # Python reads digits of any script ("३:१" as 3:1); a move is typed in ASCII.
            raise MoveError(f"{text!r} is not a move: write moves with ASCII digits and letters")
        game, position = self.game, self.position
        move = game.parse_move(text)
        if move not in game.legal_moves(position):
            raise IllegalMoveError(illegal(game, position, move))
        self.moves.append(move)
        self.positions.append(game.apply(position, move))
        self.last_ai = None
        self._ai_turn()

    def undo(self) -> None:
        """Take back the person's last move and the AI's reply to it."""
        humans = [i for i in range(len(self.moves)) if self.humans_turn(i)]
        if not humans:
            raise Conflict("Nothing to undo: you have not moved yet.")
        del self.moves[humans[-1] :], self.positions[humans[-1] + 1 :]
        ai = len(self.moves) - 1
        self.last_ai = self.moves[ai] if ai >= 0 and not self.humans_turn(ai) else None

    def result(self) -> str | None:
        """``human``, ``ai`` or ``draw`` once over."""
        if not self.over:
            return None
        # game.result is for the player to move at the end, who did not make the last move.
        mine = self.game.result(self.position)
        if not self.humans_turn():
            mine = -mine
        return "human" if mine == WIN else "ai" if mine == -WIN else "draw"

    def result_text(self) -> str | None:
        result = self.result()
        if result is None:
            return None
        why = ending(self.game, self.position, "The AI" if self.humans_turn() else "You")
        verdict = {"human": "You win!", "ai": "The AI wins.", "draw": "Draw."}[result]
        return f"{why} {verdict}"

    def ai_text(self) -> str | None:
        return None if self.last_ai is None else f"The AI {played(self.game, self.last_ai)}."

    def history(self) -> list[tuple[str, str]]:
        """(who, move text) for every move so far."""
        return [
            ("You" if self.humans_turn(i) else "AI", self.game.format_move(m))
            for i, m in enumerate(self.moves)
        ]

    def state(self) -> dict[str, Any]:
        """The API's view of the game."""
        game, position = self.game, self.position
        legal = game.legal_moves(position)
        return {
            "id": self.id,
            "game": game.spec,
            "policy": self.agent.policy,
            "first": self.first,
            "position": game.format_position(position),
            "to_move": None if self.over else ("human" if self.humans_turn() else "ai"),
            "legal_moves": [game.format_move(m) for m in legal],
            "q": {game.format_move(m): self.agent.value(position, m) for m in legal},
            "history": [game.format_move(m) for m in self.moves],
            "ai_move": None if self.last_ai is None else game.format_move(self.last_ai),
            "result": self.result(),
        }


class Games:
    """Games in play, by id, least recently used first. A game idle for ``idle_seconds`` is
    forgotten; at ``max_games``, a new game pushes out the least recently used one. So old games
    never stop a new one from starting, and memory stays bounded."""

    def __init__(self, max_games: int = MAX_GAMES, idle_seconds: float = IDLE_SECONDS) -> None:
        if max_games < 1:
            raise ValueError("max_games must be at least 1")
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self._games: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def get(self, game_id: str) -> Session:
        """The game, touched (now the most recently used); NotFound when there is none or it
        has been idle too long."""
        with self._lock:
            now = time.monotonic()
            self._expire(now)
            session = self._games.get(game_id)
            if session is None:
                raise NotFound(game_id)
            self._games.move_to_end(game_id)
            session.touched = now
            return session

    def new(self, agent: Agent, first: str, seed: int | None = None) -> Session:
        if first not in ("human", "ai"):
            raise QarenaError(f"first must be 'human' or 'ai', not {first!r}")
        session = Session(
            secrets.token_hex(8), agent, 0 if first == "human" else 1, np.random.default_rng(seed)
        )
        session.start()
        with self._lock:
            self._expire(time.monotonic())
            while len(self._games) >= self.max_games:
                self._games.popitem(last=False)
            self._games[session.id] = session
        return session

    def _expire(self, now: float) -> None:
        """Forget idle games (under the lock). The least recently used come first, so this
        stops at the first game still in use."""
        while self._games:
            oldest = next(iter(self._games.values()))
            if now - oldest.touched <= self.idle_seconds:
                break
            self._games.popitem(last=False)
