"""What every command shares: the typer app, the two consoles, common arguments."""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text
from typer.core import TyperGroup

from qarena import __version__
from qarena.budget import MAX_EPISODES, check_count, estimate_positions, footprint, format_bytes
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.games import Game
from qarena.i18n import _
from qarena.learn.family import Trainable
from qarena.learn.settings import ALL_SETTINGS, watch

#: The commands in the order people use them (help lists them so): play, in the terminal or the
#: browser; teach an agent and judge it, against others too; watch it and look inside; the
#: solver's answers; many runs at once; then the one-off set-up. Registration order is the
#: modules' import order, which is alphabetical.
WORKFLOW = (
    "play",
    "serve",
    "train",
    "eval",
    "compete",
    "beat",
    "matrix",
    "watch",
    "table",
    "explain",
    "solve",
    "book",
    "sweep",
    "plot",
    "report",
    "presets",
    "export",
    "warm-up",
)


class _WorkflowGroup(TyperGroup):
    """The root group, listing its commands in ``WORKFLOW`` order (any other after them)."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: i for i, name in enumerate(WORKFLOW)}
        return sorted(names, key=lambda name: rank.get(name, len(WORKFLOW)))


app = typer.Typer(
    name="qarena",
    cls=_WorkflowGroup,
    help="Teach machines, and people, to play small combinatorial games.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)

#: Both consoles print text as it is: a path, a spec, a position or a player's name is never read
#: as rich markup (``[/x].npz`` would not print) or emoji codes. The few headings that style
#: their words go through ``styled``.
out = Console(highlight=False, markup=False, emoji=False)
err = Console(stderr=True, highlight=False, markup=False, emoji=False)


def styled(template: str, /, **fields: object) -> Text:
    """``template``, styled with rich markup (``[bold]{game}[/]``), filled with ``fields``, whose
    text is shown as it is: only the template's own markup styles. Numbers keep their format
    specifications (``{count:,}``)."""
    safe = {
        name: value
        if isinstance(value, numbers.Number) and not isinstance(value, bool)
        else escape(str(value))
        for name, value in fields.items()
    }
    return Text.from_markup(template.format(**safe), emoji=False)


#: Games above this many encoded positions take long enough to say so before solving.
ANNOUNCE_POSITIONS = 1_000_000

SpecArg = Annotated[
    str,
    typer.Argument(
        metavar="SPEC",
        help="Game spec: {games}.",
    ),
]


def _version(value: bool) -> None:
    if value:
        out.print(f"qarena {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="The language to speak: en, de or ru (default: QARENA_LANG, else en); may come "
            "anywhere on the command line.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Teach machines, and people, to play small combinatorial games."""


#: Exit code after Ctrl-C.
STOPPED = 130


class _Stop:
    """Whether the running command has told the person it stopped (typer turns Ctrl-C into
    exit code 130 without a word; ``run`` says "stopped." unless the command did), and the
    signal that asked for the stop, where a command caught one (SIGTERM: exit 143)."""

    told = False
    signum: int | None = None


def stopped_by(signum: int) -> None:
    """Note the signal a command caught to stop cleanly (its exit code is 128 + it)."""
    _Stop.signum = signum


def told_stop() -> int:
    """Mark that the command said how it stopped; returns the exit code to return: 130 after
    Ctrl-C, 128 + the signal after another signal the command caught (SIGTERM: 143)."""
    _Stop.told = True
    return STOPPED if _Stop.signum is None else 128 + _Stop.signum


def stop_was_told() -> bool:
    return _Stop.told


def route(game: Game) -> Oracle:
    """The game's oracle (``qarena.exact.Oracle``); where this machine answers it by another
    route than the game's own (its tables do not fit here, so it is searched), says why in one
    line on stderr: a result must not depend on the machine without saying so."""
    return print_route(Oracle.of(game))


def print_route(answers: Oracle) -> Oracle:
    """``answers``, once its reason (if any) is printed: for a command that says it after its
    work, so that a refusal midway stays the one line it prints."""
    if answers.reason is not None:
        err.print(answers.reason, markup=False, soft_wrap=True)
    return answers


def announce(game: Game) -> None:
    """Refuse a game clearly too large to search here; say so before a long search. (A
    learner's own tables are checked against the positions the search finds, before they are
    allocated.) Whether the game is enumerated here, searched, or neither is the oracle's to
    say (:class:`~qarena.exact.Oracle`), not decided again here."""
    answers = Oracle.of(game)
    if answers.refusal is not None:
        raise answers.refusal  # neither enumerated nor searched here: enumeration's own words
    if answers.searched:
        return  # solved by search, one position at a time; what cannot be says so itself
    positions = estimate_positions(game)
    if positions > ANNOUNCE_POSITIONS:
        err.print(
            _("Searching {spec}: about {count:,} positions, up to {need}…").format(
                spec=game.spec, count=positions, need=format_bytes(footprint(game, "solve").total)
            )
        )


def check_curve_every(every: int | None, curve: bool) -> None:
    """Refuse --every without --curve, or out of range."""
    if every is not None and not curve:
        raise QarenaError(_("--every sets how often --curve records a point; add --curve"))
    if every is not None:
        check_count("--every", every, MAX_EPISODES)


def title(learner: Trainable | type[Trainable]) -> str:
    """The learner's title with a capital, to head a table."""
    return learner.title[0].upper() + learner.title[1:]


PositionOpt = Annotated[
    str | None,
    typer.Option(
        "--position",
        "-p",
        help="Position in text form, e.g. '3 5 7', '12' or 'x.o/.x./..o'; on Connect Four also "
        "the moves that lead there, as letters (ddc) or column numbers (443).",
    ),
]

PolicyArg = Annotated[Path, typer.Argument(metavar="FILE", help="A policy file from qarena train.")]

#: Whether a table learns one entry per symmetry class or every position (train and sweep).
CanonicalOpt = Annotated[
    bool | None,
    typer.Option(
        "--canonical/--no-canonical",
        help="One table entry per symmetry class, or every position (--no-canonical). "
        "Default: one per class; with --preset, the write-up's own table.",
        show_default=False,
    ),
]
LearnerOpt = Annotated[str, typer.Option("--learner", "-l", help="The learner: {learners}.")]

EpisodesOpt = Annotated[
    int | None,
    typer.Option(help="Episodes to train (default: scaled to the game's size)."),
]

#: The two players of compete and watch: policy files or built-in players, and the game when
#: neither is a file.
PlayerA = Annotated[
    str,
    typer.Argument(
        metavar="A",
        help="A policy file, or a built-in player: random, perfect, strongest, or the game's "
        "rule player (bouton, poles and poles-strict for nim, subtraction for the subtraction "
        "game); or {spec_players}.",
    ),
]
PlayerB = Annotated[str, typer.Argument(metavar="B", help="The other player, likewise.")]
PlayersGameOpt = Annotated[
    str | None,
    typer.Option("--game", help="The game, when neither player is a policy file."),
]


# --- the training settings, from their one declaration ------------------------------------

_PYTHON_TYPES: dict[str, type] = {"float": float, "int": int, "choice": str, "rewards": str}


def setting_parameters(sweep: bool) -> list[inspect.Parameter]:
    """The options of the training settings (``qarena.learn.settings.SETTINGS``): one value
    each for ``train``; for ``sweep`` comma-separated lists (reward triples separated by ';'
    or the option repeated), and no ``--seed`` (a sweep has ``--seeds``)."""
    params = []
    for s in ALL_SETTINGS:
        if sweep and s.name == "seed":
            continue
        if sweep:
            python: Any = list[str] if s.kind == "rewards" else str
        else:
            python = _PYTHON_TYPES[s.kind]
        option = typer.Option(s.option, help=s.help, show_default=False)
        annotation = Annotated[python | None, option]
        params.append(
            inspect.Parameter(
                s.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
        )
    return params


F = TypeVar("F", bound=Callable[..., Any])


def with_settings(after: str, sweep: bool = False) -> Callable[[F], F]:
    """A command whose ``**settings`` are the training settings' options, shown in its help
    after the option ``after``; typer reads the signature this makes."""

    def decorate(func: F) -> F:
        signature = inspect.signature(func, eval_str=True)
        own = [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in signature.parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        at = next(i for i, p in enumerate(own) if p.name == after) + 1

        def sign() -> None:
            added = setting_parameters(sweep)
            func.__signature__ = signature.replace(  # type: ignore[attr-defined]
                parameters=[*own[:at], *added, *own[at:]]
            )
            func.__annotations__ = {
                **{p.name: p.annotation for p in own},
                **{p.name: p.annotation for p in added},
            }

        sign()
        # A learner kind registered later (its own settings) has its options too: typer
        # reads the signature each time the command line is run.
        watch(sign)
        return func

    return decorate
