"""Two players against each other, to watch: their games move by move, each move judged by
the solver, and how players and their values read to people."""

from __future__ import annotations

from dataclasses import dataclass, field

from qarena.agents.base import Player
from qarena.agents.players import no_game, player
from qarena.agents.strategies import builtin_game, is_builtin
from qarena.exact import oracle
from qarena.games import WIN, Game, Move, Position, parse_spec, value_name, value_word
from qarena.games.words import ending
from qarena.i18n import _, gettext_noop

#: The two players of a duel, as they are named to people.
LABELS = ("A", "B")


def about(player: Player) -> str:
    """What a player is, for people: ``q, 30,000 episodes`` or ``built-in player``."""
    own = player.describe()
    if own is not None:
        return own
    return _("built-in player") if is_builtin(player.name) else _("your player")


def value_text(player: Player, value: float) -> str:
    """A player's own value of a move as its kind of value reads (its ``format_value``: a
    trained agent's as its learner writes them, others' as a signed number)."""
    return player.format_value(value)


def load_players(
    names: tuple[str, str], spec: str | None, seed: int = 0
) -> tuple[Game, list[Player]]:
    """Two players by name (:func:`~qarena.agents.players.player`): policy files, or built-in
    players (random, perfect, the game's rule players), which need ``spec`` when neither is a
    file. Player A draws from ``seed``, B from ``seed + 1``, so a duel can be replayed."""
    game = parse_spec(spec) if spec is not None else None
    found: dict[int, Player] = {}
    for i, name in enumerate(names):
        if not is_builtin(name) or (game is None and builtin_game(name) is not None):
            found[i] = player(name, game, seed + i)
            found[i].name = name  # as given: the path (or name) the person typed
            game = found[i].game
    if game is None:
        raise no_game(names[0], names[1])
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

    def step(self, move: Move | None = None) -> Turn | None:
        """The next move (``move`` where given: a line replayed, the mover's values still its
        own); None once the game is over."""
        if self.over:
            return None
        position, mover = self.position, self.mover()
        player = self.players[mover]
        if move is None:
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
