"""Players named by a spec ``KIND:REST`` that neither think nor are a built-in's name: a
Kaggle ConnectX agent, ``connectx:FILE``. Each kind is a :class:`SpecKind`, declared once in
its own module and :func:`register`\\ ed here — its spec's first word, how lists write it, what
the help says of it, its maker, and whether making one runs code from outside qarena (a file's
own code: the web app never makes such a player, :func:`refuse_code`) — so that the one
resolution (:func:`qarena.agents.strategies.is_builtin`, :func:`~qarena.agents.strategies.
make_agent`), the help and the web read the declaration, never the kind's name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from qarena.agents.base import Player
from qarena.errors import QarenaError, echo
from qarena.games.base import Game
from qarena.i18n import _

#: A spec kind's maker: the spec whole (its name), what follows the kind's colon, the game,
#: the seed.
SpecMaker = Callable[[str, str, Game, int | None], Player]


@dataclass(frozen=True)
class SpecKind:
    """A kind of player named by a spec, declared once (:func:`register`): the spec's first
    word (``name``), how it is written in lists (``form``: ``connectx:FILE``), what the help
    says of it (``about``, a message id), its maker, ``runs_code``: making it runs code
    that is not qarena's (a file's), which the web app never does and the help says, and the
    ``game`` it plays when none is named."""

    name: str
    form: str
    about: str
    make: SpecMaker
    runs_code: bool = False
    #: The game it plays when none is named (a spec), as ``network`` plays classic Connect
    #: Four: None when a game must be named.
    game: str | None = None
    #: Whether it can play a game: lists of a game's players name it only there.
    plays: Callable[[Game], bool] = lambda _game: True


#: The spec kinds available, by their first word, in the order declared.
SPEC_KINDS: dict[str, SpecKind] = {}


def register(kind: SpecKind) -> SpecKind:
    """Make ``kind`` a kind of player named by a spec: read, made, listed in the help and
    refused by the web (where it runs code) from this declaration alone. Returns it."""
    SPEC_KINDS[kind.name] = kind
    return kind


def spec_kind(name: str) -> SpecKind | None:
    """The kind ``name`` is a spec of (``connectx:FILE``: its first word before a colon)."""
    first, colon, _rest = name.partition(":")
    return SPEC_KINDS.get(first) if colon else None


def forms(game: Game | None = None) -> tuple[str, ...]:
    """The spec kinds available, as their specs are written (``connectx:FILE``): those that
    can play ``game`` when it is given."""
    return tuple(k.form for k in SPEC_KINDS.values() if game is None or k.plays(game))


def about() -> str:
    """What the help says of every spec kind, in the current language: ``connectx:FILE``, a
    Kaggle ConnectX agent (running it runs the file's code)..."""
    return "; ".join(_(kind.about) for kind in SPEC_KINDS.values())


def make_spec_player(name: str, game: Game, seed: int | None = None) -> Player:
    """The player the spec ``name`` names for ``game``, named by the spec; a kind with
    nothing after its colon is refused in one line."""
    kind = spec_kind(name)
    assert kind is not None, name  # callers ask spec_kind first
    rest = name.partition(":")[2]
    if not rest:
        raise QarenaError(
            _("{name!r} names no file: expected {form}").format(name=echo(name), form=kind.form)
        )
    found = kind.make(name, rest, game, seed)
    found.name = name
    return found


def runs_code(name: str) -> bool:
    """Whether the player ``name`` names would run code that is not qarena's: a spec of a kind
    declared ``runs_code``, alone or as the file a thinking player's leaves are scored by
    (``mcts:200:connectx:FILE``)."""
    parts = name.split(":")
    return any((kind := SPEC_KINDS.get(part)) is not None and kind.runs_code for part in parts[:-1])


def refuse_code(name: str) -> None:
    """Refuse, in one line, a player that would run code that is not qarena's: what a server
    calls on every player's name it is given (a person's file must never run there)."""
    if runs_code(name):
        raise QarenaError(
            _(
                "{name!r} runs a file's own code, which the web app never does; run it on the "
                "command line (qarena eval, play, watch or compete)"
            ).format(name=echo(name))
        )


__all__ = [
    "SPEC_KINDS",
    "SpecKind",
    "SpecMaker",
    "about",
    "forms",
    "make_spec_player",
    "refuse_code",
    "register",
    "runs_code",
    "spec_kind",
]
