"""Players that think (``mcts:1000``, ``alphabeta:4:network``) as the web app's opponents: a
search player of its own for every game, within the web's time and memory.

A search player keeps state between moves (MCTS its tree, reused along its own play), so the
web never shares one between games, as it shares a stored policy's agent or perfect play: each
game holds a :class:`Thinking`, which asks :class:`Live` for its search player at each move.
``Live`` keeps at most :data:`LIVE` of them and :data:`LIVE_BYTES` of their arrays, least
recently used first; a game whose player was pushed out gets a new one at its next move (it
loses only the tree it would have reused). What a player scores its leaves with (the shipped
network, a stored policy) is loaded once and shared: it is read-only.

Time: every move of the web is answered within its limit (``Limits.move_seconds``), so a spec
that would think longer than the web allows (its kind's declaration says how long:
``SearchKind.web``) is refused before the game starts, in one line that says the most the web
takes (:func:`check`), rather than stopped midway at every move.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from qarena import threads
from qarena.agents.base import Player
from qarena.agents.strategies import SHIPPED_PLAYERS
from qarena.agents.thinking import THINKERS, WEB_SECONDS, parse
from qarena.budget import memory_budget
from qarena.errors import QarenaError
from qarena.games import Game, Move, Position
from qarena.games.picking import ChoosingPlayer
from qarena.i18n import LANGUAGES, _, gettext_noop, language, speaking
from qarena.web.searches import Busy

#: The longest a thinking player of the web may take a move unless its kind says less
#: (``SearchKind.web``), as seconds (``mcts:5s``).
THINK_SECONDS = WEB_SECONDS
#: Search players alive at once (one per game that moved lately) and bytes of their arrays.
LIVE = 32
LIVE_BYTES = 256 << 20


@dataclass(frozen=True)
class Preset:
    """A thinking player the play menu offers: its spec and how the menu words it."""

    spec: str
    label: str  # a message id, translated where shown

    @property
    def file(self) -> str | None:
        return parse(self.spec)[2]

    def applies(self, game: Game | None) -> bool:
        """Whether it plays ``game`` (None: any game; only those without a file apply)."""
        file = self.file
        if file is None:
            return True
        found = SHIPPED_PLAYERS.get(file)
        return game is not None and found is not None and game.spec in found.specs()


#: The thinking players the play menu offers: MCTS on every game, alpha-beta over the shipped
#: network on the board it plays (classic Connect Four).
PRESETS = (
    Preset("mcts:1000", gettext_noop("MCTS, 1,000 simulations a move (it thinks ahead)")),
    Preset("mcts:1s", gettext_noop("MCTS, 1 s a move (it thinks ahead)")),
    Preset(
        "alphabeta:4:network",
        gettext_noop("alpha-beta 4 plies deep over the network (it thinks ahead)"),
    ),
)


def presets(game: Game | None) -> list[Preset]:
    """The presets that play ``game`` (None: those that play any game)."""
    return [p for p in PRESETS if p.applies(game) and (game is not None or p.file is None)]


def check(spec: str, game: Game, is_policy: Callable[[str], bool]) -> str | None:
    """Refuse, in one line, a thinking spec the web will not play: malformed (as everywhere),
    thinking longer than the web allows a move, or scoring its leaves with a file the server
    does not hold (anything but a shipped player's name or a stored policy's id: the web reads
    no path a visitor types). Returns the spec's file (None without one). Builds nothing."""
    kind, budget, file = parse(spec)
    declared = THINKERS.get(kind)
    most = None if declared is None else declared.web.over(budget, led=file is not None)
    if most is not None:
        raise QarenaError(
            _(
                "{spec} thinks too long for the web app, which answers every move within its "
                "time: at most {most} here; play it on the command line: qarena play {game} "
                "--opponent {spec}"
            ).format(spec=spec, most=most, game=game.spec)
        )
    if file is not None and file not in SHIPPED_PLAYERS and not is_policy(file):
        raise QarenaError(
            _(
                "the web app scores a thinking player's leaves with a player it holds: "
                "{shipped} or a stored policy's id (12 digits 0-9 or letters a-f), not {file!r}"
            ).format(shipped=", ".join(SHIPPED_PLAYERS), file=file)
        )
    return file


#: Bytes of a tree node held as a Python object (MCTS with a file scoring its leaves):
#: measured with tracemalloc, 181 bytes a node of ``mcts:2000:perfect`` on tic-tac-toe.
NODE_BYTES = 200


def _nodes(root: object) -> int:
    """Nodes of a tree of Python objects (``children``: a list, or None), counted."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(getattr(node, "children", None) or ())
    return count


def held_bytes(player: Player) -> int:
    """Bytes a search player holds (its tree), not those it shares (its game's, its
    evaluator's): its own arrays and those of its own parts, one level down, and a tree of
    Python objects (a part's ``root`` with ``children``) at :data:`NODE_BYTES` a node."""
    total = 0
    for name, value in vars(player).items():
        if name in ("evaluator", "game"):
            continue
        if isinstance(value, np.ndarray):
            total += value.nbytes
        elif hasattr(value, "__dict__") and not isinstance(value, Game | type):
            parts = vars(value)
            total += sum(a.nbytes for a in parts.values() if isinstance(a, np.ndarray))
            root = parts.get("root")
            if hasattr(root, "children"):
                total += NODE_BYTES * _nodes(root)
    return total


class Live:
    """The search players of the games in play, by game, least recently used first: at most
    ``most`` of them and ``most_bytes`` of their arrays; a new or grown one pushes out the
    oldest (whose game makes a new one at its next move)."""

    def __init__(self, most: int = LIVE, most_bytes: int | None = None) -> None:
        self.most = most
        # As the kept solutions: a quarter of the memory budget when that is less.
        budget = min(LIVE_BYTES, memory_budget() // 4)
        self.most_bytes = budget if most_bytes is None else most_bytes
        self._players: OrderedDict[int, tuple[Player, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._players)

    @property
    def bytes(self) -> int:
        with self._lock:
            return sum(size for _player, size in self._players.values())

    def get(self, key: int, make: Callable[[], Player]) -> Player:
        """The search player kept as ``key``, made (and kept) when there is none."""
        with self._lock:
            found = self._players.get(key)
            if found is not None:
                self._players.move_to_end(key)
                return found[0]
        made = make()
        self.update(key, made)
        return made

    def update(self, key: int, player: Player) -> None:
        """Keep ``player`` as ``key`` at its size now, pushing out the oldest over the bounds."""
        size = held_bytes(player)
        with self._lock:
            self._players[key] = (player, size)
            self._players.move_to_end(key)
            total = sum(s for _p, s in self._players.values())
            while len(self._players) > 1 and (
                len(self._players) > self.most or total > self.most_bytes
            ):
                _key, (_old, freed) = self._players.popitem(last=False)
                total -= freed

    def forget(self, key: int) -> None:
        with self._lock:
            self._players.pop(key, None)


_keys = itertools.count()

#: Positions a game's thinking player remembers its move and values at (its own turns; more
#: than any game's length, for lines taken back and played again).
REMEMBERED = 512


@dataclass
class Thinking(ChoosingPlayer):
    """A thinking player as one game holds it: its search player is kept in :class:`Live`
    (made by ``make`` from a seed), so no two games share a tree. It thinks on its own turns
    only, and remembers its move and values there, which the page shows; at the person's
    positions it offers no values (it would have to think twice as long a move)."""

    name: str
    game: Game
    make: Callable[[int | None], Player]
    live: Live
    seed: int | None = None
    #: What it is and what its values mean, by language (:func:`words`): the page shows them
    #: in its reader's language, whoever started the game.
    words: Mapping[str, tuple[str | None, str]] = field(default_factory=dict)
    key: int = field(default_factory=lambda: next(_keys))
    thinks = True  # a class attribute (no field): the player protocol's answer
    _memo: OrderedDict[Position, tuple[list[Move], dict[Move, float]]] = field(
        default_factory=OrderedDict, repr=False
    )

    def fresh(self, seed: int | None) -> Thinking:
        """The same spec for a new game: a search player of its own, seeded by ``seed``."""
        return Thinking(self.name, self.game, self.make, self.live, seed, self.words)

    def seeded(self, seed: int | None, name: str | None = None) -> Thinking:
        found = self.fresh(seed)
        found.name = name or self.name
        return found

    def _think(self, position: Position) -> tuple[list[Move], dict[Move, float]]:
        known = self._memo.get(position)
        if known is not None:
            return known
        seed = self.seed
        player = self.live.get(self.key, lambda: self.make(seed))
        try:
            move = player.act(position)
            values = player.values(position) or {}
        except threads.Stopped as e:
            if e.why != "time":
                raise
            # Said as a thinking player's, not perfect play's; the caller puts the game back.
            raise Busy(
                _(
                    "the AI ({name}) took longer than the server allows a move, so it was "
                    "stopped and the game is as it was before; try again"
                ).format(name=self.name),
                1,
            ) from None
        finally:
            self.live.update(self.key, player)
        found = ([move], values)
        self._memo[position] = found
        while len(self._memo) > REMEMBERED:
            self._memo.popitem(last=False)
        return found

    def act(self, position: Position) -> Move:
        return self._think(position)[0][0]

    def choices(self, position: Position) -> list[Move]:
        return list(self._think(position)[0])

    def values(self, position: Position) -> dict[Move, float] | None:
        """Its values where it has thought (its own turns); None elsewhere."""
        known = self._memo.get(position)
        return None if known is None else dict(known[1])

    def would_play(self, position: Position, move: Move) -> bool:
        known = self._memo.get(position)
        return known is not None and move in known[0]

    def best_at(self, position: Position) -> tuple[Move, ...]:
        known = self._memo.get(position)
        return () if known is None else tuple(known[0])

    def format_value(self, value: float, compact: bool = False) -> str:
        # A search's means and scores carry no meaning past two decimals (-0.416667).
        digits = 1 if compact else 2
        return f"{round(value, digits) + 0.0:+.{digits}f}"  # + 0.0: no "-0.00"

    def value_legend(self) -> str:
        return self.words.get(language(), (None, ""))[1]

    def describe(self) -> str | None:
        return self.words.get(language(), (None, ""))[0]


def words(player: Player, legend: Callable[[], str]) -> dict[str, tuple[str | None, str]]:
    """What ``player`` is and what its values mean (its own legend, else ``legend``'s), in
    every language: kept with a game instead of the player itself, whose search it does not
    need."""
    found = {}
    for code in LANGUAGES:
        with speaking(code):
            found[code] = (player.describe(), player.value_legend() or legend())
    return found


__all__ = [
    "LIVE",
    "LIVE_BYTES",
    "NODE_BYTES",
    "PRESETS",
    "THINK_SECONDS",
    "Live",
    "Preset",
    "Thinking",
    "check",
    "held_bytes",
    "presets",
    "words",
]
