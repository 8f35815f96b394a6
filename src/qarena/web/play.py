"""Games in play: a person against a frozen agent, kept in memory with a cap and an idle
timeout."""

from __future__ import annotations

import contextlib
import functools
import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

import numpy as np

from qarena import threads
from qarena.agents.base import Loaded, OpponentPlayer
from qarena.agents.greedy import GreedyAgent
from qarena.errors import MoveError, QarenaError
from qarena.exact import Oracle
from qarena.games import Move, Position, value_name
from qarena.games.words import played
from qarena.i18n import _, gettext_noop
from qarena.judging.best_reply import SeatReply
from qarena.match.duel import Duel
from qarena.match.session import Match, Result, Score
from qarena.web.exceptions import NotFound

#: Games kept in memory at once; a new one pushes out the least recently used.
MAX_GAMES = 1_000
#: A game nobody has touched for this long is forgotten.
IDLE_SECONDS = 30 * 60.0


S = TypeVar("S", bound="Kept")


@dataclass
class Kept:
    """What a session store needs of a session: its id, when it was last used, its lock."""

    id: str = field(default_factory=lambda: secrets.token_hex(8), kw_only=True)
    touched: float = field(default_factory=time.monotonic, kw_only=True)
    lock: threading.Lock = field(default_factory=threading.Lock, kw_only=True, repr=False)


@dataclass
class Agent(GreedyAgent):
    """A stored policy's agent: the greedy agent, the policy id it was loaded from and how
    it was trained here (``store.training_of``; None for a file trained elsewhere)."""

    policy: str = ""
    training: dict[str, Any] | None = None


#: A stored policy as it plays: a table learner's agent (:class:`Agent`), or a learner that
#: plays as itself (an n-tuple network); any kind, as ``agents.players.plays_as`` gives it.
Stored = Loaded
#: Whom a person plays in the browser: a stored policy, perfect play, or a shipped n-tuple
#: network; any player that tells the moves it picks among.
Opponent = OpponentPlayer


class Beating(NamedTuple):
    """The best reply to the AI from a position, the person to move: ``certain``, what the
    person forces whichever of its tied moves it picks; ``possible``, what it can be led to
    where it picks unluckily (the same for an AI without ties)."""

    certain: SeatReply
    possible: SeatReply


class Snapshot(NamedTuple):
    """A game's moves, positions and what its page shows, as they were."""

    moves: tuple[Move, ...]
    positions: tuple[Position, ...]
    show_values: bool
    show_hint: bool
    show_beat: bool


@dataclass
class Session(Kept, Match):
    """One game in the browser or through the API: the match, its id, what the page shows, and
    when it was last used."""

    agent: Opponent
    show_values: bool = True
    show_hint: bool = False
    #: "Show me how to beat it": the best reply to the AI from each of the person's turns.
    show_beat: bool = False
    #: Those best replies where they were last worked out: the moves then, and the replies.
    beaten_at: tuple[tuple[Move, ...], Beating] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    #: The browser playing it (its cookie's id), whose running score its result goes to.
    owner: str | None = None

    def read(self, text: str) -> Move:
        if not text.isascii():
            # Python reads digits of any script ("३:१" as 3:1); a move is typed in ASCII.
            raise MoveError(
                _("{text!r} is not a move: write moves with ASCII digits and letters").format(
                    text=text
                )
            )
        return super().read(text)

    def play(self, text: str) -> None:
        """The person's move (as text), then the AI's reply."""
        self.move(text)
        self.reply()

    def snapshot(self) -> Snapshot:
        """The game as it is, to put back with :meth:`restore` when a request is given up
        midway (its search stopped): nothing of it is left half done."""
        return Snapshot(
            tuple(self.moves),
            tuple(self.positions),
            self.show_values,
            self.show_hint,
            self.show_beat,
        )

    def restore(self, snapshot: Snapshot) -> None:
        self.moves[:] = snapshot.moves
        self.positions[:] = snapshot.positions
        self.show_values, self.show_hint = snapshot.show_values, snapshot.show_hint
        self.show_beat = snapshot.show_beat

    def beat(self) -> Beating | None:
        """:meth:`Match.beating` from here, certain and possible, at the person's turn; worked
        out once per position of the game (a page shown again, a toggle, another tab: the same
        answer, not the same work)."""
        moves = tuple(self.moves)
        if self.beaten_at is not None and self.beaten_at[0] == moves:
            return self.beaten_at[1]
        certain, possible = self.beating(), self.beating(certain=False)
        if certain is None or possible is None:
            return None
        found = Beating(certain, possible)
        self.beaten_at = (moves, found)
        return found

    def ai_text(self) -> str | None:
        reply = self.last_reply
        if reply is None:
            return None
        return _("The AI {move}.").format(move=played(self.game, reply.move))

    @property
    def perfect(self) -> bool:
        """Whether the AI is perfect play (the solver), not a learned policy."""
        return self.agent.solution is not None

    @functools.cached_property
    def oracle(self) -> Oracle:
        """How the game is answered here (enumerated or searched, and why this machine's route
        differs from the game's own): read once, so it does not change under a game in play."""
        return Oracle.of(self.game)

    @property
    def thinking(self) -> bool:
        """Whether the AI is a player that thinks (``mcts:1000``), with a search of its own."""
        return self.agent.thinks

    @property
    def opponent(self) -> str:
        """Whom the person plays: "trained", "strongest", "perfect" or "network", or a thinking
        player's spec; perfect play is named for how it plays ("strongest" or "perfect"), a
        stored table learner's agent is the trained one, and anything else learned is the
        network."""
        if self.perfect or self.thinking:
            return self.agent.name
        return "trained" if self.policy is not None else "network"

    @property
    def policy(self) -> str | None:
        """The stored policy the AI was loaded from, when it is a table learner's."""
        found: str | None = getattr(self.agent, "policy", None)
        return found

    def state(self) -> dict[str, Any]:
        """The API's view of the game."""
        game, reply, agent = self.game, self.last_reply, self.agent
        state: dict[str, Any] = {
            "id": self.id,
            "game": game.spec,
            "opponent": self.opponent,
            "policy": self.policy,
            "first": self.first,
            "position": game.format_position(self.position),
            "to_move": self.to_move,
            "legal_moves": [game.format_move(m) for m in game.legal_moves(self.position)],
            "q": {game.format_move(m): v for m, v in self.values().items()},
            "history": [game.format_move(m) for m in self.moves],
            "ai_move": None if reply is None else game.format_move(reply.move),
            "result": self.result(),
            "oracle": self.oracle.record(),
        }
        if agent.solution is not None and not self.over:
            # Each move's exact outcome for the player to move: its value and plies to the end.
            outcomes = agent.solution.move_outcomes(self.position)
            state["outcomes"] = {
                game.format_move(m): {"value": value_name(o.value), "plies": o.plies}
                for m, o in outcomes.items()
            }
        return state


class Sessions(Generic[S]):
    """Sessions in memory, by id, least recently used first. A session idle for
    ``idle_seconds`` is forgotten; at ``max_games``, a new one pushes out the least recently
    used one. So old sessions never stop a new one from starting, and memory stays bounded."""

    #: Why there is no such session (translated where it is raised).
    missing = gettext_noop("no game {id!r} (a game is forgotten after a while without a move)")

    def __init__(self, max_games: int = MAX_GAMES, idle_seconds: float = IDLE_SECONDS) -> None:
        if max_games < 1:
            raise ValueError("max_games must be at least 1")
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self._games: OrderedDict[str, S] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def get(self, game_id: str) -> S:
        """The session, touched (now the most recently used); NotFound when there is none or
        it has been idle too long."""
        with self._lock:
            now = time.monotonic()
            self._expire(now)
            session = self._games.get(game_id)
            if session is None:
                raise NotFound(_(self.missing).format(id=game_id))
            self._games.move_to_end(game_id)
            session.touched = now
            return session

    @contextlib.contextmanager
    def playing(self, game_id: str) -> Iterator[S]:
        """The session (see ``get``), held by this thread until the block ends. The wait for
        it keeps to the caller's limit (``threads.limit``: a client gone, the server stopping)."""
        session = self.get(game_id)
        while not session.lock.acquire(timeout=0.1):
            threads.check()
        try:
            yield session
        finally:
            session.lock.release()

    def discard(self, game_id: str) -> None:
        """Forget a session (one whose start was given up)."""
        with self._lock:
            self._games.pop(game_id, None)

    def add(self, session: S) -> S:
        with self._lock:
            self._expire(time.monotonic())
            while len(self._games) >= self.max_games:
                self._games.popitem(last=False)
            self._games[session.id] = session
        return session

    def _expire(self, now: float) -> None:
        """Forget idle sessions (under the lock). The least recently used come first, so this
        stops at the first session still in use."""
        while self._games:
            oldest = next(iter(self._games.values()))
            if now - oldest.touched <= self.idle_seconds:
                break
            self._games.popitem(last=False)


class Games(Sessions["Session"]):
    """Games of people against agents."""

    def new(self, agent: Opponent, first: str, seed: int | None = None) -> Session:
        """A new game; the AI's opening is played when it moves first."""
        if first not in ("human", "ai"):
            raise QarenaError(_("first must be 'human' or 'ai', not {first!r}").format(first=first))
        # A search keeps state between moves: each game thinks with a player of its own.
        fresh = agent.for_one_game(seed, agent.name)
        assert isinstance(fresh, OpponentPlayer)  # the same kind of player, seeded anew
        agent = fresh
        session = Session(agent, 0 if first == "human" else 1, np.random.default_rng(seed))
        session.reply()
        return self.add(session)


# --- running scores ---------------------------------------------------------------------

#: Browsers whose running scores are kept; a new one pushes out the least recently seen.
MAX_BROWSERS = 10_000
#: Game specs a browser's score is kept for; a new one pushes out the least recently played.
MAX_SPECS = 50
#: Games a score remembers by id; older ones only count.
RECENT_GAMES = 200


@dataclass
class _Tally:
    """Results by game id, so a game counts once however often (and in however many tabs) its
    end is shown, and a game taken back counts only as it ends again; the oldest fold into
    ``old``."""

    old: Counter[Result] = field(default_factory=Counter)
    recent: OrderedDict[str, Result] = field(default_factory=OrderedDict)

    def score(self) -> Score:
        return Score.of(self.old + Counter(self.recent.values()))


class Scores:
    """Running scores: per browser (a random id in a cookie) and game spec, bounded in memory.
    What people expect of "the score": this browser's games of this game, whichever tab or
    "Play again" they came from."""

    def __init__(self, max_browsers: int = MAX_BROWSERS) -> None:
        self.max_browsers = max_browsers
        self._tallies: OrderedDict[str, OrderedDict[str, _Tally]] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, browser: str, session: Session) -> None:
        """The game's result as it stands (none: not over, e.g. after an undo)."""
        result = session.result()
        with self._lock:
            specs = self._tallies.get(browser)
            if specs is None:
                if result is None:
                    return
                specs = self._tallies[browser] = OrderedDict()
                while len(self._tallies) > self.max_browsers:
                    self._tallies.popitem(last=False)
            self._tallies.move_to_end(browser)
            spec = session.game.spec
            tally = specs.get(spec)
            if tally is None:
                if result is None:
                    return
                tally = specs[spec] = _Tally()
                while len(specs) > MAX_SPECS:
                    specs.popitem(last=False)
            specs.move_to_end(spec)
            if result is None:
                tally.recent.pop(session.id, None)
                return
            tally.recent[session.id] = result
            tally.recent.move_to_end(session.id)
            while len(tally.recent) > RECENT_GAMES:
                tally.old[tally.recent.popitem(last=False)[1]] += 1

    def score(self, browser: str | None, spec: str) -> Score:
        with self._lock:
            specs = self._tallies.get(browser) if browser else None
            tally = None if specs is None else specs.get(spec)
            return Score() if tally is None else tally.score()


# --- agents against each other, watched ---------------------------------------------------

#: Pauses between moves a watcher may choose, in seconds.
DELAYS = (0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass
class Watch(Kept, Duel):
    """Two players playing game after game, moved on by whoever watches: a step at a time,
    or on its own while ``running``. Steps name the ply they were asked at, so two tabs (or a
    request sent twice) never play two moves for one."""

    delay: float = 1.0
    running: bool = False
    score: list[int] = field(default_factory=lambda: [0, 0, 0])  # A wins, draws, B wins

    @property
    def games(self) -> int:
        """Games finished."""
        return sum(self.score)

    @property
    def plies(self) -> int:
        return len(self.turns)

    def advance(self, at: int | None = None) -> None:
        """One move, if the game is still at ply ``at`` (any ply when None); after the end,
        the next game, the other player opening."""
        if at is not None and at != self.plies:
            return
        if self.over:
            self.new_game(not self.a_first)
            return
        self.step()
        if self.over:
            winner = self.winner()
            self.score[1 if winner is None else 0 if winner == 0 else 2] += 1


class Watches(Sessions[Watch]):
    """Duels being watched."""

    missing = gettext_noop("no duel {id!r} (a duel is forgotten after a while without a move)")
