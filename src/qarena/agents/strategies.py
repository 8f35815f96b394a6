"""Strategy agents: random, perfect and strongest (from the solver), and the closed-form rules
people use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from qarena.agents.base import Player
from qarena.agents.spec_players import make_spec_player, spec_kind
from qarena.agents.thinking import is_thinking, make_thinking
from qarena.errors import QarenaError, echo
from qarena.exact import Exact, Outcome, oracle
from qarena.exact.search import SearchSolution
from qarena.exact.solver import Mover
from qarena.games.base import DRAW, WIN, Game, Move, Position
from qarena.games.nim import POLE_POSITIONS, is_pole_position
from qarena.games.picking import ChoosingPlayer, PlayerDefaults
from qarena.i18n import _, gettext_noop

if TYPE_CHECKING:
    from qarena.learn.family import Trainable


def _legal(game: Game, position: Position) -> list[Move]:
    moves = game.legal_moves(position)
    if not moves:
        raise QarenaError(
            _("{position} is finished; there is no move to make").format(
                position=game.format_position(position)
            )
        )
    return moves


@dataclass
class RandomAgent(ChoosingPlayer):
    """Uniform among legal moves."""

    game: Game
    seed: int | None = None
    name: str = "random"
    rng: np.random.Generator = field(init=False, repr=False)
    symmetric = True  # every legal move, at every image alike

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def act(self, position: Position) -> Move:
        _legal(self.game, position)
        return self.pick(position, self.rng)

    def choices(self, position: Position) -> list[Move]:
        """The moves it picks among: every legal move."""
        return self.game.legal_moves(position)


@dataclass
class PerfectAgent(ChoosingPlayer):
    """Uniform among the moves that keep the position's game-theoretic value. Its answers come
    from ``oracle(game)``, or from ``given`` (the web app's solutions, bounded in memory)."""

    game: Game
    seed: int | None = None
    name: str = "perfect"
    symmetric = True  # the moves that keep the value, images of each other
    given: InitVar[Exact | None] = None
    rng: np.random.Generator = field(init=False, repr=False)
    solution: Exact = field(init=False, repr=False)

    def __post_init__(self, given: Exact | None) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.solution = oracle(self.game) if given is None else given

    def act(self, position: Position) -> Move:
        _legal(self.game, position)
        return self.pick(position, self.rng)

    def values(self, position: Position) -> dict[Move, float]:
        """The solver's value of each legal move for the mover: 1 win, 0 draw, -1 loss."""
        return {m: float(v) for m, v in self.solution.move_values(position).items()}

    def choices(self, position: Position) -> list[Move]:
        """The moves it picks among: those that keep the position's value."""
        return self.solution.optimal_moves(position)

    # What a person playing against it sees (``qarena play --opponent perfect``), as a
    # trained agent shows its own values: here the solver's verdict on each move.

    @property
    def value_heading(self) -> str:
        return _("verdict")

    def value_text(self, position: Position, move: Move, mover: Mover = "human") -> str:
        """Where ``move`` leads with best play, from the side of ``mover`` (who makes it),
        with the winner's moves to the end: "win in 3 of your moves"."""
        return self.solution.move_outcomes(position)[move].words(mover)

    def value_legend(self) -> str:
        """What its values mean, for a note under them."""
        return _(
            "The solver's verdicts: where each move leads when both sides play perfectly from "
            "then on, and in how many moves the winner wins (the fastest win, the slowest loss)."
        )


def strongest_moves(outcomes: dict[Move, Outcome]) -> list[Move]:
    """The moves of the strongest opponent among ``outcomes`` (a position's ``move_outcomes``):
    those that keep the value and, winning, win in the fewest plies, losing, lose in the most
    (GBG's "distant losses"); drawing, every move that keeps the draw."""
    if not outcomes:
        return []
    best = max(o.value for o in outcomes.values())
    keep = {m: o.plies for m, o in outcomes.items() if o.value == best}
    if best == DRAW:
        return list(keep)
    far = min(keep.values()) if best == WIN else max(keep.values())
    return [m for m, plies in keep.items() if plies == far]


@dataclass
class StrongestAgent(PerfectAgent):
    """Perfect play that also makes the most of the distance: among the moves that keep the
    value it wins as fast as it can and, lost, holds out as long as it can; equal moves are
    drawn at random. Its moves come from the exact outcomes (``move_outcomes``), which on
    boards solved by search cost an exact search where plain perfect play needs only the
    sign."""

    name: str = "strongest"

    def choices(self, position: Position) -> list[Move]:
        """The moves it picks among: the value kept, at the best distance."""
        if isinstance(self.solution, SearchSolution):
            # The same moves (those of the best score), without every move's exact score.
            return self.solution.best_moves(position)
        return strongest_moves(self.solution.move_outcomes(position))


def _check_rule(game: Game, name: str, what: str) -> None:
    if name not in game.rule_players:
        raise QarenaError(
            _("the {agent} agent plays {game}, not {spec}").format(
                agent=what, game=_PLAYS[name], spec=game.spec
            )
        )


_PLAYS = {"bouton": "nim", "poles": "nim", "poles-strict": "nim", "subtraction": "subtraction"}


@dataclass
class RuleAgent(PlayerDefaults):
    """A closed-form player the game names (``game.rule_players``); the game makes its moves.
    No table, no search."""

    game: Game
    name: str

    def __post_init__(self) -> None:
        if self.name not in self.game.rule_players:
            raise QarenaError(
                _("{spec} has no {name!r} player").format(spec=self.game.spec, name=self.name)
            )

    def act(self, position: Position) -> Move:
        _legal(self.game, position)
        return self.game.rule_move(self.name, position)


@dataclass
class BoutonAgent(RuleAgent):
    """Bouton's rule for nim: leave a nim-sum of zero; in misère play, when only piles of one
    would remain, leave an odd number of them instead."""

    name: str = "bouton"

    def __post_init__(self) -> None:
        _check_rule(self.game, self.name, "bouton")


@dataclass
class SubtractionRuleAgent(RuleAgent):
    """The subtraction game's rule: normal play leaves a multiple of k+1, misère one more."""

    name: str = "subtraction"

    def __post_init__(self) -> None:
        _check_rule(self.game, self.name, "subtraction-rule")


@dataclass
class PolesAgent(RuleAgent):
    """The term paper's "pole positions" strategy as a person plays it: take a win that is there
    at once, else leave a pole position (in misère play never two piles of one), else take a
    single match from the largest pile. ``poles-strict`` is the rule without watching the
    endgame (``Nim._poles``)."""

    name: str = "poles"

    def __post_init__(self) -> None:
        _check_rule(self.game, self.name, "poles")


__all__ = [
    "NETWORK",
    "POLE_POSITIONS",
    "SHIPPED_PLAYERS",
    "STRATEGIES",
    "BoutonAgent",
    "PerfectAgent",
    "PolesAgent",
    "RandomAgent",
    "RuleAgent",
    "ShippedPlayer",
    "StrongestAgent",
    "SubtractionRuleAgent",
    "builtin_game",
    "is_builtin",
    "is_pole_position",
    "judges_of",
    "make_agent",
    "named_players",
    "strongest_moves",
]

STRATEGIES = ("random", "perfect", "strongest", "bouton", "subtraction", "poles", "poles-strict")


#: The n-tuple network shipped with qarena (``qarena/data``), as a player's name: the one the
#: web offers. Only its own board has one (:data:`qarena.learn.ntuple.files.SHIPPED`).
NETWORK = "network"


@dataclass(frozen=True)
class ShippedPlayer:
    """A trained player shipped with qarena, offered by its name as a built-in player (as
    ``perfect`` is): the boards it plays, its learner loaded for one of them (None where it
    has none), and what a person is told when they meet it. A player's name, not a kind of
    learner: what it is, its learner says."""

    name: str
    specs: Callable[[], tuple[str, ...]]
    load: Callable[[Game], Trainable | None]
    meeting: str  # a message id

    @property
    def playing(self) -> str:
        """What a person about to play it is told, in their language."""
        return _(self.meeting)


def _network_specs() -> tuple[str, ...]:
    from qarena.learn.ntuple.files import SHIPPED

    return tuple(SHIPPED)


def _network(game: Game) -> Trainable | None:
    from qarena.learn.ntuple.config import check_board
    from qarena.learn.ntuple.files import shipped_network

    check_board(game)  # a game of no board: said as a network says it, before which boards
    net = shipped_network(game)
    if net is not None:
        net.name = NETWORK
    return net


#: The players shipped with qarena, by name (read lazily: each loads from ``qarena/data``
#: only when asked for).
SHIPPED_PLAYERS: dict[str, ShippedPlayer] = {
    NETWORK: ShippedPlayer(
        NETWORK,
        _network_specs,
        _network,
        gettext_noop("Playing against the n-tuple network shipped with qarena."),
    ),
}


def is_builtin(name: str) -> bool:
    """Does ``name`` name a built-in player rather than a policy file? Exactly when it is a
    built-in's name (``random``, ``perfect``, ``strongest``, a rule player, a shipped player
    such as ``network``), whatever files lie about: every command and the Python API read a
    name the same way wherever they run. A policy file that has a built-in's name is given as
    a path: ``./random``. A thinking player's spec (``mcts:200``) is a built-in too, and so is
    a spec of a kind declared in :mod:`qarena.agents.spec_players` (``connectx:FILE``)."""
    return (
        name in STRATEGIES
        or name in SHIPPED_PLAYERS
        or is_thinking(name)
        or spec_kind(name) is not None
    )


def builtin_game(name: str) -> Game | None:
    """The game a built-in plays when it plays only one (a shipped player, ``network``: the
    board it was shipped for), or when its kind names one (``connectx:FILE``: ConnectX's
    default board, classic Connect Four), so that it needs no game named; else None."""
    from qarena.games import parse_spec

    found = SHIPPED_PLAYERS.get(name)
    if found is not None:
        return parse_spec(found.specs()[0])
    kind = spec_kind(name)  # a spec kind's own board, where it names one
    return parse_spec(kind.game) if kind is not None and kind.game is not None else None


def players_of(game: Game) -> tuple[str, ...]:
    """The built-in players of ``game``: random play, perfect play (random among the moves
    that keep the value) and the strongest (the fastest win, the slowest loss), and its rule
    players."""
    return ("random", "perfect", "strongest", *game.rule_players)


def judges_of(game: Game) -> tuple[str, ...]:
    """The built-ins an agent of ``game`` is measured against: random and perfect play and the
    game's rule players; not the strongest, so that the records published against these stay
    as they were."""
    return ("random", "perfect", *game.rule_players)


def named_players(game: Game) -> tuple[str, ...]:
    """Every name that is a player of ``game``: its built-ins, and the players shipped for it
    (``network`` on classic Connect Four)."""
    shipped_here = (n for n, p in SHIPPED_PLAYERS.items() if game.spec in p.specs())
    return (*players_of(game), *shipped_here)


def shipped(game: Game, name: str = NETWORK) -> Trainable:
    """The learner of the player shipped as ``name`` for ``game`` (``network``: the n-tuple
    network), named so; refused in one line naming the boards it plays and the game's own
    players where it has none."""
    found = SHIPPED_PLAYERS[name]
    learner = found.load(game)
    if learner is None:
        raise QarenaError(
            _("{name} plays {spec} only; the players of {game} are {names}").format(
                name=name,
                spec=", ".join(found.specs()),
                game=game.spec,
                names=", ".join(named_players(game)),
            )
        )
    return learner


def make_agent(
    name: str, game: Game, seed: int | None = None, solution: Exact | None = None
) -> Player:
    """A player by name: random, perfect, strongest (answering from ``solution`` when given),
    one of the game's rule players (bouton, subtraction, poles...), or else a policy file's
    path (:func:`qarena.agents.players.player`, which also takes learners, functions and
    tables)."""
    if not is_builtin(name) and name not in game.rule_players:
        from qarena.agents.players import player

        return player(name, game, seed)
    if is_thinking(name):
        return make_thinking(name, game, seed)
    if spec_kind(name) is not None:
        return make_spec_player(name, game, seed)
    if name in SHIPPED_PLAYERS:
        from qarena.agents.players import plays_as

        return plays_as(shipped(game, name))
    if name == "random":
        return RandomAgent(game, seed)
    if name == "perfect":
        return PerfectAgent(game, seed, given=solution)
    if name == "strongest":
        return StrongestAgent(game, seed, given=solution)
    if name == "bouton":
        return BoutonAgent(game)
    if name == "subtraction":
        return SubtractionRuleAgent(game)
    if name == "poles":
        return PolesAgent(game)
    if name in game.rule_players:
        return RuleAgent(game, name)
    raise QarenaError(
        _("unknown agent {name!r}; expected one of {names}").format(
            name=echo(name), names=", ".join(STRATEGIES)
        )
    )
