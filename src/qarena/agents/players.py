"""Every kind of player as a :class:`~qarena.agents.base.Player`, and the one resolution of a
player, which the command line, the web app, the Python API and the environments all use.

``player(x, game)`` takes whatever a person has at hand: a player already, a built-in's name
(``random``, ``perfect``, ``strongest``, a rule player, ``network``), a policy file's path (a
table learner's or an n-tuple network's: the file's own kind decides, read once, in
:func:`load_file`), a learner, a function from a position to a move, or a table (dict) of
positions to moves. A name is read one way everywhere: a built-in's name is the built-in
(:func:`~qarena.agents.strategies.is_builtin`), anything else is a path. Whom a person meets
when they name no opponent is :func:`opponent_of`'s answer, given once here.
"""

from __future__ import annotations

import inspect
import numbers
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from qarena.agents.base import Loaded, OpponentPlayer, OwnPlayer, Player
from qarena.agents.greedy import GreedyAgent
from qarena.agents.spec_players import forms as spec_forms
from qarena.agents.strategies import (
    SHIPPED_PLAYERS,
    STRATEGIES,
    builtin_game,
    is_builtin,
    make_agent,
    named_players,
    shipped,
)
from qarena.agents.thinking import forms as thinking_forms
from qarena.errors import QarenaError, echo, echo_value
from qarena.exact import Exact, Oracle
from qarena.games.base import Game, Move, Position
from qarena.games.picking import ChoosingPlayer, PlayerDefaults
from qarena.i18n import _, gettext_noop, ngettext, spoken
from qarena.learn.family import Trainable
from qarena.learn.learners import load_learner
from qarena.learn.tables.base import Learner

#: What :func:`player` turns into a player.
PlayerLike = (
    OwnPlayer
    | str
    | os.PathLike[str]
    | Trainable
    | Callable[[Position], Move | str]
    | Mapping[Position, Move | str]
    | Sequence[Move | str]
)


def _read_move(game: Game, position: Position, move: object, who: str) -> Move:
    """A move a person's code gave, as text (``"b2"``) or as the game's own move, checked."""
    if isinstance(move, str):
        move = game.parse_move(move)
    # A move is a whole number: 0.0 and True compare equal to legal moves, and then break
    # the tables they index; numpy's integers (an argmax) are whole numbers too.
    if not isinstance(move, numbers.Integral) or isinstance(move, bool | np.bool_):
        raise QarenaError(
            _(
                "{player} returned {value} in {position}; a move is its text, like "
                "{example!r}, or the game's move as a whole number"
            ).format(
                player=who,
                value=echo_value(move),
                position=game.format_position(position),
                example=game.format_move(game.legal_moves(position)[0]),
            )
        )
    move = int(move)
    legal = game.legal_moves(position)
    if move not in legal:
        raise QarenaError(
            _("{player} chose {move!r} in {position}, which is not a legal move there").format(
                player=who, move=move, position=game.format_position(position)
            )
        )
    return move


@dataclass
class FunctionPlayer(PlayerDefaults):
    """A plain function of the position (and, if it has a second parameter without a default,
    the legal moves) that returns a move, as the game's move or its text. Its moves are
    checked. A function with a parameter named ``rng`` is given a :class:`random.Random`
    seeded from the call's ``seed`` (fresh each time without one), so that a player that
    draws at random plays the same games for the same seed."""

    function: Callable[..., object]
    game: Game
    name: str = ""
    seed: int | None = None
    _arity: int = field(init=False, repr=False)
    _rng: random.Random | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = getattr(self.function, "__name__", "function")
        try:
            params = list(inspect.signature(self.function).parameters.values())
        except (TypeError, ValueError):  # a builtin without a signature
            params = []
        # Only a parameter the caller must fill takes the moves: `rng=random.Random(0)` or
        # `verbose=False` after the position are the function's own, not the legal moves.
        required = [
            p
            for p in params
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
        self._arity = 2 if len(required) >= 2 else 1
        if any(p.name == "rng" and p.kind != p.POSITIONAL_ONLY for p in params):
            self._rng = random.Random(self.seed)

    def act(self, position: Position) -> Move:
        extra = {} if self._rng is None else {"rng": self._rng}
        if self._arity == 2:
            move = self.function(position, self.game.legal_moves(position), **extra)
        else:
            move = self.function(position, **extra)
        return _read_move(self.game, position, move, self.name)


@dataclass
class TablePlayer(PlayerDefaults):
    """A table of positions to moves (as the game's moves or their text); a position the
    table lacks is an error naming it."""

    table: Mapping[Position, object]
    game: Game
    name: str = "table"

    def act(self, position: Position) -> Move:
        if position not in self.table:
            raise QarenaError(
                _("{player} has no move for {position}").format(
                    player=self.name, position=self.game.format_position(position)
                )
            )
        return _read_move(self.game, position, self.table[position], self.name)


@dataclass
class ScriptPlayer(PlayerDefaults):
    """Moves written down in advance (``["3:2", "1:1"]``), played in turn each time it is
    asked: a person's side of a scripted game. Running out of moves is an error."""

    moves: Sequence[object]
    game: Game
    name: str = "script"
    played: int = 0

    def act(self, position: Position) -> Move:
        if self.played >= len(self.moves):
            raise QarenaError(
                ngettext(
                    "the script's {count} move is played; it has none for {position}",
                    "the script's {count} moves are played; it has none for {position}",
                    len(self.moves),
                ).format(count=len(self.moves), position=self.game.format_position(position))
            )
        move = _read_move(self.game, position, self.moves[self.played], self.name)
        self.played += 1
        return move


@dataclass
class Adapted(ChoosingPlayer):
    """A person's own player object (``name``, ``game``, ``act``, ``values``) with the rest of
    the protocol's defaults: its moves and values are its own, and the one move it picks
    among is the one it plays (so a person can play against it)."""

    own: OwnPlayer

    @property
    def name(self) -> str:
        return self.own.name

    @name.setter
    def name(self, value: str) -> None:
        self.own.name = value

    @property
    def game(self) -> Game:
        return self.own.game

    def act(self, position: Position) -> Move:
        return self.own.act(position)

    def values(self, position: Position) -> dict[Move, float] | None:
        return self.own.values(position)

    def choices(self, position: Position) -> list[Move]:
        return [self.act(position)]


@dataclass
class LearnerAsPlayer(Adapted):
    """A learner that plays as itself with only its moves and values (``act``, ``values``):
    the protocol's defaults for the rest, and its learner, kept loaded."""

    learned: Trainable = field(kw_only=True)

    @property
    def learner(self) -> Trainable:
        return self.learned

    @property
    def nbytes(self) -> int:
        return self.learned.nbytes


def plays_as(learner: Trainable, name: str | None = None, seed: int | None = None) -> Loaded:
    """The player ``learner`` plays as: a table learner's greedy agent (seeded by ``seed``),
    else the learner itself (an n-tuple network), given the protocol's defaults when it has
    only its moves and values; named ``name`` when given. A learner with no moves is refused
    in one line."""
    found: Loaded
    if isinstance(learner, Learner):
        found = GreedyAgent(learner, name or "", seed)
    elif isinstance(learner, OpponentPlayer):
        found = learner
    elif isinstance(learner, OwnPlayer):
        found = LearnerAsPlayer(learner, learned=learner)
    else:
        raise QarenaError(_("the learner {kind!r} has no moves to play").format(kind=learner.kind))
    if name:
        found.name = name
    return found


def is_policy_path(name: str) -> bool:
    """Is ``name`` read as a policy file: an existing path, or one ending in ``.npz``?"""
    return os.path.exists(name) or name.endswith(".npz")


def load_file(
    path: str | os.PathLike[str], game: Game | None = None, budget: int | None = None
) -> Trainable:
    """What a policy file holds, read by the file's own kind (``learners.load_learner``): a
    table learner or a learner that plays as itself (an n-tuple network), held to the memory
    ``budget`` when given, the machine's otherwise; what is neither is refused in one line.
    ``game``, when given, is the game it must play. The name ``network`` is the network
    shipped with qarena, as for :func:`player` (a file so named is given as a path,
    ``./network``)."""
    name = os.fspath(path)
    if name in SHIPPED_PLAYERS:
        found = game or builtin_game(name)
        assert found is not None  # a shipped player's board
        return shipped(found, name)
    return load_learner(path, game, budget=budget)


def _from_file(path: str, game: Game | None, seed: int | None) -> Player:
    """The player a file holds, named by the file's name: a table learner's greedy agent, or
    a learner that plays as itself (an n-tuple network)."""
    return plays_as(load_file(path, game), os.path.basename(path), seed)


def no_game(a: str, b: str | None = None) -> QarenaError:
    """The error for built-in players given without a game, in the words of whoever reads
    it: ``--game SPEC`` at the command line, a spec from Python (:func:`qarena.i18n.spoken`)."""
    if b is None:
        text = spoken(
            gettext_noop("{player} is a built-in player: name the game with --game SPEC"),
            gettext_noop("{player} is a built-in player: give its game (a spec like nim:3,5,7)"),
        )
    else:
        text = spoken(
            gettext_noop("{a} and {b} are built-in players: name the game with --game SPEC"),
            gettext_noop(
                "{a} and {b} are built-in players: give their game (a spec like nim:3,5,7)"
            ),
        )
    return QarenaError(text.format(player=a, a=a, b=b))


def _named(name: str, game: Game | None, seed: int | None, solution: Exact | None) -> Player:
    """A built-in by its name, or the agent of a policy file."""
    if is_builtin(name):
        game = game or builtin_game(name)
        if game is None:
            raise no_game(name)
        return make_agent(name, game, seed, solution)
    if not is_policy_path(name):
        # The game's own players when it is known: not Nim's rule players for Connect Four.
        names = STRATEGIES if game is None else named_players(game)
        # And the thinking players and the spec kinds, by the form of their spec (mcts:N,
        # connectx:FILE).
        names = (*names, *thinking_forms(), *spec_forms(game))
        raise QarenaError(
            _("unknown player {name!r}; expected one of {names}, or a policy file").format(
                name=echo(name), names=", ".join(names)
            )
        )
    return _from_file(name, game, seed)


def _made(x: object, game: Game | None, seed: int | None = None) -> Player:
    """A player made of plain Python: a script of moves, a table of them, or a function."""
    if isinstance(x, list | tuple):
        return ScriptPlayer(x, _needs(game, _("a script of moves needs its game")))
    if isinstance(x, Mapping):
        return TablePlayer(x, _needs(game, _("a table of moves needs its game")))
    if callable(x):
        return FunctionPlayer(x, _needs(game, _("a function player needs its game")), seed=seed)
    raise QarenaError(
        _(
            "{value!r} is not a player; expected a built-in's name, a policy file, a "
            "learner, a function or a dict of moves"
        ).format(value=x)
    )


def _needs(game: Game | None, why: str) -> Game:
    if game is None:
        raise QarenaError(why)
    return game


def player(
    x: PlayerLike,
    game: Game | None = None,
    seed: int | None = None,
    *,
    solution: Exact | None = None,
) -> Player:
    """``x`` as a player of ``game``: the one resolution of a player, for the command line,
    the web app, the Python API and the environments alike.

    - a :class:`~qarena.agents.base.Player`: itself (its game must be ``game``); a person's
      own object with ``name``, ``game``, ``act`` and ``values``: itself, with the protocol's
      defaults for how its values read;
    - a built-in's name (``random``, ``perfect``, ``strongest``, ``bouton``, ``subtraction``,
      ``poles``, ``poles-strict``): that player, seeded by ``seed`` (``perfect`` picks at
      random among the moves that keep the value, ``strongest`` among those the fastest win
      or the slowest loss; both answer from ``solution`` when given, else from the game's
      oracle); ``network``: the n-tuple network shipped for classic Connect Four (its game
      may be left out); a thinking player's spec (``mcts:200``); a spec of a kind declared in
      :mod:`qarena.agents.spec_players`: ``connectx:FILE``, a Kaggle ConnectX agent (making
      it runs the file's code);
    - any other text, or a path: the player of that policy file, by the file's own kind (a
      table learner's greedy agent, or an n-tuple network), named by the file's name (a file
      named like a built-in is given as a path, ``./random``);
    - a learner: its trained agent;
    - a dict of positions to moves, or a function of the position (or of the position and
      the legal moves) returning a move; a function with a parameter ``rng`` is passed a
      ``random.Random(seed)`` to draw from;
    - a list of moves (as text or the game's moves), played in turn: a scripted side.

    ``game`` may be left out when ``x`` knows its game (a file, a learner, a player)."""
    if isinstance(x, Trainable):
        found: Player = plays_as(x, seed=seed)
    elif isinstance(x, str | os.PathLike):
        found = _named(os.fspath(x), game, seed, solution)
    elif isinstance(x, Player):
        found = x
    elif isinstance(x, OwnPlayer):
        found = Adapted(x)
    else:
        found = _made(x, game, seed)
    if game is not None and found.game.spec != game.spec:
        raise QarenaError(
            _("{player} plays {spec}, not {game}").format(
                player=found.name, spec=found.game.spec, game=game.spec
            )
        )
    return found


def knows_game(x: object) -> bool:
    """Whether ``x``, given as a player, knows its game: a file, a learner, a player, or a
    built-in that plays one game only (the shipped network); the other built-ins, functions
    and dicts need one."""
    if isinstance(x, str):
        return not is_builtin(x) or builtin_game(x) is not None
    return isinstance(x, Trainable | Player | os.PathLike)


def own_learner(who: Player) -> Learner | None:
    """The learner whose tables ``who`` plays greedily from, when it is a trained table
    agent: judging and matches then read those tables as they are (exact, and fast); None
    for any other player, which is read move by move."""
    return who.learner if isinstance(who, GreedyAgent) else None


def canonical(players: Sequence[Player]) -> bool:
    """Whether a match of ``players`` may be played over symmetry classes: unless a trained
    agent among them learned every position apart (its tables then are not canonical)."""
    return all(own.config.canonical for p in players if (own := own_learner(p)) is not None)


#: The opponents a person may ask for by name when they play (``qarena play --opponent``,
#: the web's form and API): an agent trained for the game, perfect play at its strongest or
#: picking at random, and the shipped n-tuple network.
TRAINED = "trained"
OPPONENTS = (TRAINED, "strongest", "perfect", "network")


def opponent_of(game: Game, asked: str | None = None) -> str:
    """Whom a person playing ``game`` meets: ``asked`` when they said (one of
    :data:`OPPONENTS`), else the game's default, decided here and nowhere else: perfect play
    at its strongest on a board solved by search, where no agent can be trained, and an agent
    trained for the game (``"trained"``, which the caller finds or trains) everywhere else."""
    if asked is not None:
        return asked
    # The game's oracle says how it is answered here (qarena.exact.Oracle.opponent).
    return Oracle.of(game).opponent


__all__ = [
    "OPPONENTS",
    "TRAINED",
    "Adapted",
    "FunctionPlayer",
    "LearnerAsPlayer",
    "PlayerLike",
    "ScriptPlayer",
    "TablePlayer",
    "canonical",
    "is_policy_path",
    "load_file",
    "opponent_of",
    "own_learner",
    "player",
    "plays_as",
]
