"""Players that think: a player named by a spec, like a game, that searches before it moves.

``KIND:BUDGET[:FILE]``: ``mcts:200`` (200 simulations a move), ``mcts:1.5s`` (a second and a
half a move), ``mcts:200:network`` (FILE, a policy file or a shipped player's name, scores
the leaves), ``alphabeta:4:FILE``. The kind is the spec's first word and names a
:class:`SearchKind` in :data:`THINKERS`, each declared once in its own module
(:func:`register`: ``agents/mcts.py``, ``agents/alphabeta.py``) with its spec's form, its
maker, its web limits and what the environments need; the budget is a :class:`Budget`.
Every front end reads such a name through the one player resolution
(:func:`qarena.agents.players.player`, by way of :func:`~qarena.agents.strategies.is_builtin`
and :func:`~qarena.agents.strategies.make_agent`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from qarena.agents.base import Player
from qarena.budget import MAX_THINK_COUNT, MAX_THINK_SECONDS
from qarena.errors import QarenaError, echo
from qarena.games.base import Game
from qarena.i18n import _


@dataclass(frozen=True)
class Budget:
    """What a thinking player may spend on a move: ``count`` steps (simulations for MCTS, a
    depth for alpha-beta), or ``seconds`` of the clock; exactly one of them is set, checked
    against :data:`~qarena.budget.MAX_THINK_COUNT` and
    :data:`~qarena.budget.MAX_THINK_SECONDS`."""

    count: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if (self.count is None) == (self.seconds is None):
            raise QarenaError(_("a budget is a count or seconds, one of them"))
        if self.count is not None and not 1 <= self.count <= MAX_THINK_COUNT:
            raise QarenaError(
                _("a thinking player's count must be from 1 to {most:,}").format(
                    most=MAX_THINK_COUNT
                )
            )
        if self.seconds is not None and not 0 < self.seconds <= MAX_THINK_SECONDS:
            raise QarenaError(
                _("a thinking player's time must be more than 0 and at most {most:g} s").format(
                    most=MAX_THINK_SECONDS
                )
            )

    @property
    def text(self) -> str:
        """The budget as a spec writes it: ``200`` or ``1.5s``."""
        return str(self.count) if self.count is not None else f"{self.seconds:g}s"


#: A thinking player's maker: its game, its budget a move, the player scoring its leaves
#: (None: the kind's own default, random rollouts for MCTS) and its seed.
Thinker = Callable[[Game, Budget, Player | None, int | None], Player]

#: The most seconds a move the web app lets a thinking player take: a person waits for it, and
#: alpha-beta searches twice a move there (its move, then its values for the page), well
#: within the web's 30 s a move.
WEB_SECONDS = 5.0


@dataclass(frozen=True)
class WebLimits:
    """How long a kind may think a move in the web app, where a person waits for it: at most
    ``most`` steps (simulations, a depth; ``most_led`` with a file scoring its leaves) or
    ``seconds``. ``words`` and ``led_words`` say the most in a refusal (message ids with
    ``{count}``, or ``{depth}``, translated where shown)."""

    most: int
    words: str
    most_led: int | None = None
    led_words: str | None = None
    seconds: float = WEB_SECONDS

    def over(self, budget: Budget, led: bool) -> str | None:
        """The most the web takes, in words, when ``budget`` (``led``: with a file scoring
        the leaves) is over it; else None."""
        if budget.seconds is not None:
            if budget.seconds <= self.seconds:
                return None
            return _("{seconds:g} s a move").format(seconds=self.seconds)
        assert budget.count is not None
        most, words = self.most, self.words
        if led and self.most_led is not None:
            most, words = self.most_led, self.led_words or words
        return None if budget.count <= most else _(words).format(count=most, depth=most)


@dataclass(frozen=True)
class SearchKind:
    """A kind of search player, declared once (:func:`register`): the spec's first word
    (``name``), how its spec is written in lists (``form``) and what a malformed one is told
    (``expected``, a message id), whether its spec takes the player scoring its leaves
    (``file``: "may", "must" or "never"), its maker, how long the web lets it think
    (``web``), and the class of the players it makes (``plays``). ``afresh``: its search
    draws from a generator of its own (not only among tied moves), so a caller that wants a
    game set by its own generator (the Gymnasium environment) searches each move afresh,
    seeded from it."""

    name: str
    form: str
    expected: str
    make: Thinker
    web: WebLimits
    plays: type[Player]
    file: Literal["may", "must", "never"] = "may"
    afresh: bool = False


#: The kinds of thinking player a spec may name, by its first word, in the order declared.
KINDS: list[str] = []

#: The kinds available here, by name (:func:`register`). A kind of :data:`KINDS` not here is
#: refused in one line.
THINKERS: dict[str, SearchKind] = {}


def register(kind: SearchKind) -> SearchKind:
    """Make ``kind`` a kind of thinking player: its specs are read, made, listed, bounded on
    the web and played in the environments from this declaration alone. Returns it."""
    if kind.name not in KINDS:
        KINDS.append(kind.name)
    THINKERS[kind.name] = kind
    return kind


def kind_of(player: Player) -> SearchKind | None:
    """The kind of search player ``player`` is, where it is one of those registered."""
    return next((k for k in THINKERS.values() if isinstance(player, k.plays)), None)


def forms() -> tuple[str, ...]:
    """The thinking players available here, as their specs are written (``mcts:N``)."""
    return tuple(kind.form for kind in THINKERS.values())


def is_thinking(name: str) -> bool:
    """Does ``name`` name a thinking player (``mcts:200``)? When its first word is a kind
    of :data:`KINDS`, whatever follows: a malformed one is refused by :func:`parse`."""
    return name.split(":", 1)[0] in KINDS


_COUNT = re.compile(r"[0-9]+")
_SECONDS = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)s")


def _expected(kind: str) -> str:
    found = THINKERS.get(kind)
    if found is None:
        return _("a count like {kind}:200, or seconds like {kind}:1.5s").format(kind=kind)
    return _(found.expected)


def parse(name: str) -> tuple[str, Budget, str | None]:
    """A thinking player's spec as its kind, its budget and its evaluator's name (None when
    it has none); a malformed spec is refused in one line saying what is expected."""
    kind, _colon, rest = name.partition(":")
    budget_text, colon, file = rest.partition(":")
    expected = _expected(kind)
    shown = echo(name)  # a spec of 100,000 characters is repeated as 80
    if not budget_text:
        raise QarenaError(
            _("{name!r} needs a budget a move: expected {expected}").format(
                name=shown, expected=expected
            )
        )
    if _COUNT.fullmatch(budget_text):
        # Digits only, so the length bounds the work before the number is read.
        count = int(budget_text) if len(budget_text) <= 12 else MAX_THINK_COUNT + 1
        if not 1 <= count <= MAX_THINK_COUNT:
            raise QarenaError(
                _("{name!r}: the count must be from 1 to {most:,}, not {value}").format(
                    name=shown,
                    most=MAX_THINK_COUNT,
                    value=budget_text if len(budget_text) <= 30 else _("a number that large"),
                )
            )
        budget = Budget(count=count)
    elif _SECONDS.fullmatch(budget_text) and len(budget_text) <= 30:
        seconds = float(budget_text[:-1])
        if not 0 < seconds <= MAX_THINK_SECONDS or not math.isfinite(seconds):
            raise QarenaError(
                _("{name!r}: the time must be more than 0 and at most {most:g} s").format(
                    name=shown, most=MAX_THINK_SECONDS
                )
            )
        budget = Budget(seconds=seconds)
    else:
        raise QarenaError(
            _("{name!r} has no budget {text!r}: expected {expected}").format(
                name=shown,
                text=budget_text if len(budget_text) <= 30 else budget_text[:30] + "…",
                expected=expected,
            )
        )
    takes = THINKERS[kind].file if kind in THINKERS else "may"
    if takes == "must" and not file:
        raise QarenaError(
            _("{name!r} needs the player scoring its leaves: expected {expected}").format(
                name=shown, expected=expected
            )
        )
    if takes == "never" and colon:
        raise QarenaError(
            _("{name!r} takes no player scoring its leaves: expected {expected}").format(
                name=shown, expected=expected
            )
        )
    if colon and not file:
        # "mcts:10:" is not "mcts:10": a file left out by mistake is said, not ignored.
        raise QarenaError(
            _(
                "{name!r} ends in a colon with no file after it: expected the player scoring "
                "its leaves, like {example}, or no colon"
            ).format(name=shown, example=f"{kind}:{budget.text}:network")
        )
    return kind, budget, file or None


def make_thinking(
    name: str,
    game: Game,
    seed: int | None = None,
    evaluator_of: Callable[[str], Player] | None = None,
) -> Player:
    """The thinking player ``name`` names (``mcts:200``, ``mcts:1s:network``) for ``game``,
    seeded by ``seed``, named by its spec; refused in one line when the spec is malformed,
    its kind is not available here, or its evaluator is no player of ``game``.
    ``evaluator_of`` gives the player scoring the leaves from its name (default: the one
    player resolution); a server passes its own, which shares a loaded evaluator between
    instances and refuses names it does not offer."""
    kind, budget, file = parse(name)
    found_kind = THINKERS.get(kind)
    if found_kind is None:
        raise QarenaError(
            _("{kind} players are not available here; the thinking players are {names}").format(
                kind=kind, names=", ".join(forms())
            )
        )
    evaluator = None
    if file is not None:
        from qarena.agents.players import player  # players reads thinking's specs

        try:
            evaluator = player(file, game, seed) if evaluator_of is None else evaluator_of(file)
        except QarenaError as e:
            raise QarenaError(
                _("the evaluator of {name!r}: {reason}").format(name=echo(name), reason=e)
            ) from None
    found = found_kind.make(game, budget, evaluator, seed)
    found.name = name
    return found


__all__ = [
    "KINDS",
    "THINKERS",
    "WEB_SECONDS",
    "Budget",
    "SearchKind",
    "Thinker",
    "WebLimits",
    "forms",
    "is_thinking",
    "kind_of",
    "make_thinking",
    "parse",
    "register",
]
