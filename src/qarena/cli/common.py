"""What every command shares: the typer app, the two consoles, common arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from qarena import __version__
from qarena.games import Game
from qarena.learn.base import Learner
from qarena.solve import check_fits, format_bytes, solver_bytes

app = typer.Typer(
    name="qarena",
    help="Teach machines, and people, to play small combinatorial games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

#: Games above this many encoded positions take long enough to say so before solving.
ANNOUNCE_POSITIONS = 1_000_000

SpecArg = Annotated[
    str,
    typer.Argument(
        metavar="SPEC",
        help="Game spec: nim[:3,5,7[:normal]], subtraction[:12:3[:normal]], tictactoe[:4x4:4].",
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
) -> None:
    """Teach machines, and people, to play small combinatorial games."""


def announce(game: Game) -> None:
    """Refuse a game too large to solve; say so before a long solve."""
    check_fits(game, solver_bytes(game))
    if game.num_positions > ANNOUNCE_POSITIONS:
        err.print(
            f"Solving {game.spec}: {game.num_positions:,} encoded positions, "
            f"{format_bytes(solver_bytes(game))} of tables…"
        )


def title(learner: Learner | type[Learner]) -> str:
    """The learner's title with a capital, to head a table."""
    return learner.title[0].upper() + learner.title[1:]


PolicyArg = Annotated[Path, typer.Argument(metavar="FILE", help="A policy file from qarena train.")]

LearnerOpt = Annotated[str, typer.Option("--learner", "-l", help="q, afterstate or matchbox.")]

EpisodesOpt = Annotated[
    int | None,
    typer.Option(help="Episodes to train (default: scaled to the game's size)."),
]
