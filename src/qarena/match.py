"""A person against a frozen agent: one game's positions, whose turn it is, moves and undo, the
AI's replies and the result; and training an agent on the spot for a person who is waiting.
Shared by ``qarena play`` and the web app, which keep only reading input and drawing; nothing
here prints."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np

from qarena.agents.base import Player, Rival
from qarena.agents.greedy import GreedyAgent
from qarena.agents.players import player
from qarena.agents.strategies import is_builtin
from qarena.errors import IllegalMoveError, QarenaError
from qarena.games import WIN, Game, Move, Position, parse_spec, value_name, value_word
from qarena.games.words import ending, illegal
from qarena.i18n import _, gettext_noop, ngettext
from qarena.learn.base import Learner, Opponent
from qarena.learn.curve import Curve
from qarena.learn.ntuple import NTupleNetwork
from qarena.solve import oracle
from qarena.training.run import Progress, RunResult, default_episodes, new_learner, train_run

__all__ = [
    "LABELS",
    "SPOT_LEARNER",
    "TRAIN_SECONDS",
    "VERDICTS",
    "Conflict",
    "Duel",
    "Match",
    "Player",
    "Reply",
    "Result",
    "Score",
    "Side",
    "Training",
    "Turn",
    "about",
    "is_builtin",
    "load_players",
    "train_on_the_spot",
    "train_timed",
    "value_text",
]

#: Training on the spot stops after this long, perfect or not: the person is waiting.
TRAIN_SECONDS = 10.0
#: The learner trained on the spot, with its default settings.
SPOT_LEARNER = "q"

Side = Literal["human", "ai"]
#: The two players of a duel, as they are named to people.
LABELS = ("A", "B")
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

    agent: Rival
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


# --- training on the spot ----------------------------------------------------------------------


@dataclass(frozen=True)
class Training:
    learner: Learner
    result: RunResult
    seconds: float  # wall-clock time of the training, setting up excluded

    @property
    def perfect(self) -> bool:
        """Whether the agent plays perfectly at the end of the run (the solver's judgement)."""
        return self.result.optimality.share == 1.0


def train_timed(
    learner: Learner,
    episodes: int,
    opponent: Opponent | None = None,
    seat: str = "both",
    *,
    seconds: float | None = None,
    until_perfect: bool = False,
    curve: Curve | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Training:
    """``train_run`` (the learner in ``seat`` against an ``opponent``), stopped after
    ``seconds`` (None: no limit) as well as by ``should_stop``. The kernels compile (or load)
    and the game is solved first: the limit is for training."""
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
        seat,
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
    """A fresh ``SPOT_LEARNER`` trained by self-play as ``qarena train SPEC`` trains it: the
    learner's default settings (exploring starts included) and its default episode count, the
    play judged once, at the end; for at most ``seconds`` (default: ``TRAIN_SECONDS``, read
    when called).

    It does not judge the play as it goes to stop at perfect play: on mid-size games judging
    costs far more than training (connect4:4x5: 0.34 s a judgement, every 1% of a run whose
    training takes 2 s in all), and the time limit ran out with the agent half-trained."""
    learner = new_learner(game, SPOT_LEARNER, {})
    return train_timed(
        learner,
        default_episodes(learner),
        seconds=TRAIN_SECONDS if seconds is None else seconds,
        on_progress=on_progress,
        should_stop=should_stop,
    )


# --- two agents against each other, to watch ---------------------------------------------------


def about(player: Player) -> str:
    """What a player is, for people: ``q, 30,000 episodes`` or ``built-in player``."""
    if not isinstance(player, GreedyAgent):
        return _("built-in player") if is_builtin(player.name) else _("your player")
    learner = player.learner
    return ngettext(
        "{learner}, {count:,} episode", "{learner}, {count:,} episodes", learner.episodes
    ).format(learner=learner.kind, count=learner.episodes)


def value_text(player: Player, value: float) -> str:
    """A player's own value of a move as its kind of value reads: a trained agent's as its
    learner writes them, others' (the solver's, for ``perfect``) as a signed number."""
    if isinstance(player, GreedyAgent):
        return player.learner.format_value(value)
    if isinstance(player, NTupleNetwork):
        return player.format_value(value)
    return f"{value:+g}"


def load_players(
    names: tuple[str, str], spec: str | None, seed: int = 0
) -> tuple[Game, list[Player]]:
    """Two players by name (:func:`~qarena.agents.players.player`): policy files, or built-in
    players (random, perfect, the game's rule players), which need ``spec`` when neither is a
    file. Player A draws from ``seed``, B from ``seed + 1``, so a duel can be replayed."""
    game = parse_spec(spec) if spec is not None else None
    found: dict[int, Player] = {}
    for i, name in enumerate(names):
        if not is_builtin(name):
            found[i] = player(name, game, seed + i)
            found[i].name = name  # as given: the path the person typed
            game = found[i].game
    if game is None:
        raise QarenaError(
            _("{a} and {b} are built-in players: name the game with --game SPEC").format(
                a=names[0], b=names[1]
            )
        )
    players = [found[i] if i in found else player(n, game, seed + i) for i, n in enumerate(names)]
    return game, players


#: A move that keeps the position's value, by that value (translated where shown).
KEPT = {
    "win": gettext_noop("keeps the win"),
    "draw": gettext_noop("keeps the draw"),
    "loss": gettext_noop("loses anyway (every move loses)"),
}


@dataclass(frozen=True)
class Turn:
    """One move of a duel, with what the mover saw and what the solver says of it."""

    mover: int  # 0: player A, 1: player B
    position: Position  # before the move
    move: Move
    values: dict[Move, float] | None  # the mover's own values, when it has them
    verdicts: dict[Move, int]  # the solver's value of each move for the mover

    @property
    def before(self) -> int:
        """The solver's value of the position for the mover: that of its best move."""
        return max(self.verdicts.values())

    @property
    def after(self) -> int:
        return self.verdicts[self.move]

    @property
    def kept(self) -> bool:
        """Whether the move keeps the position's value (a lost position cannot lose more)."""
        return self.after == self.before

    @property
    def verdict(self) -> str:
        """What the solver says of the move, in the current language: ``keeps the win``,
        ``mistake: win → draw`` …"""
        if self.kept:
            return _(KEPT[value_name(self.before)])
        return _("mistake: {before} → {after}").format(
            before=value_word(self.before), after=value_word(self.after)
        )


@dataclass
class Duel:
    """Games between two players, ``a_first`` telling who opens the current one; the
    solver judges every move."""

    game: Game
    players: list[Player]  # each draws from its own generator
    a_first: bool = True
    positions: list[Position] = field(init=False)
    turns: list[Turn] = field(init=False)

    def __post_init__(self) -> None:
        self.solution = oracle(self.game)
        self.new_game(self.a_first)

    def new_game(self, a_first: bool) -> None:
        self.a_first = a_first
        self.positions = [self.game.start()]
        self.turns = []

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.position)

    def mover(self) -> int:
        """The player (0: A, 1: B) to move now."""
        return (len(self.turns) + (0 if self.a_first else 1)) % 2

    def step(self) -> Turn | None:
        """The next move; None once the game is over."""
        if self.over:
            return None
        position, mover = self.position, self.mover()
        player = self.players[mover]
        move = player.act(position)
        turn = Turn(
            mover,
            position,
            move,
            player.values(position),
            self.solution.move_values(position),
        )
        self.turns.append(turn)
        self.positions.append(self.game.apply(position, move))
        return turn

    def winner(self) -> int | None:
        """0 (A) or 1 (B) when the game is over and won; None for a draw or a game going on."""
        if not self.over:
            return None
        result = self.game.result(self.position)  # for the player to move now
        if result == WIN:
            return self.mover()
        if result == -WIN:
            return 1 - self.mover()
        return None

    def result_text(self) -> str:
        """How the finished game ended and who won: "A took the last match. A wins." """
        winner = self.winner()
        last = LABELS[self.turns[-1].mover] if self.turns else LABELS[self.mover()]
        why = ending(self.game, self.position, last)
        won = _("Draw.") if winner is None else _("{player} wins.").format(player=LABELS[winner])
        return f"{why} {won}"
