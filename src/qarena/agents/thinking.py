"""Players that think: a player named by a spec, like a game, that searches before it moves.

``KIND:BUDGET[:FILE]``: ``mcts:200`` (200 simulations a move), ``mcts:1.5s`` (a second and a
half a move), ``mcts:200:network`` (FILE, a policy file or a shipped player's name, scores
the leaves), ``alphabeta:4:FILE``. The kind is the spec's first word and names a maker in
:data:`THINKERS`; the budget is a :class:`Budget`. Every front end reads such a name through
the one player resolution (:func:`qarena.agents.players.player`, by way of
:func:`~qarena.agents.strategies.is_builtin` and
:func:`~qarena.agents.strategies.make_agent`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

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

#: The kinds of thinking player a spec may name, by its first word.
KINDS = ("mcts", "alphabeta")


def _mcts(game: Game, budget: Budget, evaluator: Player | None, seed: int | None) -> Player:
    from qarena.agents.mcts import make_mcts

    return make_mcts(game, budget, evaluator, seed)


def _alphabeta(game: Game, budget: Budget, evaluator: Player | None, seed: int | None) -> Player:
    from qarena.agents.alphabeta import make_alphabeta

    assert evaluator is not None  # parse() refuses alphabeta without its FILE
    return make_alphabeta(game, budget.count, budget.seconds, evaluator, seed)


#: The makers of the kinds available here. A kind of :data:`KINDS` not registered is refused.
THINKERS: dict[str, Thinker] = {"mcts": _mcts, "alphabeta": _alphabeta}

#: How each kind's spec is written, for the lists of players a refusal names.
FORMS = {"mcts": "mcts:N", "alphabeta": "alphabeta:D:FILE"}


def forms() -> tuple[str, ...]:
    """The thinking players available here, as their specs are written (``mcts:N``)."""
    return tuple(FORMS.get(kind, f"{kind}:N") for kind in THINKERS)


def is_thinking(name: str) -> bool:
    """Does ``name`` name a thinking player (``mcts:200``)? When its first word is a kind
    of :data:`KINDS`, whatever follows: a malformed one is refused by :func:`parse`."""
    return name.split(":", 1)[0] in KINDS


_COUNT = re.compile(r"[0-9]+")
_SECONDS = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)s")


def _expected(kind: str) -> str:
    if kind == "alphabeta":
        return _("a depth like alphabeta:4:FILE, or seconds like alphabeta:1s:FILE")
    return _("a count of simulations like mcts:200, or seconds like mcts:1.5s")


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
    if kind == "alphabeta" and not file:
        raise QarenaError(
            _("{name!r} needs the player scoring its leaves: expected {expected}").format(
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
    maker = THINKERS.get(kind)
    if maker is None:
        raise QarenaError(
            _("{kind} players are not available here; the thinking players are {names}").format(
                kind=kind, names=", ".join(forms())
            )
        )
    evaluator = None
    if file is not None:
        from qarena.agents.players import player

        try:
            evaluator = player(file, game, seed) if evaluator_of is None else evaluator_of(file)
        except QarenaError as e:
            raise QarenaError(
                _("the evaluator of {name!r}: {reason}").format(name=echo(name), reason=e)
            ) from None
    found = maker(game, budget, evaluator, seed)
    found.name = name
    return found


__all__ = [
    "FORMS",
    "KINDS",
    "THINKERS",
    "Budget",
    "Thinker",
    "forms",
    "is_thinking",
    "make_thinking",
    "parse",
]
