"""The ``qarena`` command. The only layer (with web/) that reads input or prints."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from qarena import __version__
from qarena.errors import QarenaError
from qarena.games import DRAW, Game, parse_spec, value_name
from qarena.solve import check_fits, format_bytes, solve, solver_bytes

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


def _announce(game: Game) -> None:
    check_fits(game, solver_bytes(game))
    if game.num_positions > ANNOUNCE_POSITIONS:
        err.print(
            f"Solving {game.spec}: {game.num_positions:,} encoded positions, "
            f"{format_bytes(solver_bytes(game))} of tables…"
        )


@app.command("solve")
def solve_command(
    spec: SpecArg,
    position: Annotated[
        str | None,
        typer.Option(
            "--position", "-p", help="Position in text form, e.g. '3 5 7' or 'x.o/.x./..o'."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Value and optimal moves of the start position (or of --position), by exact solution."""
    game = parse_spec(spec)
    pos = game.parse_position(position) if position is not None else game.start()
    _announce(game)
    solution = solve(game)
    value = solution.value_of(pos)
    moves = [game.format_move(m) for m in solution.optimal_moves(pos)]
    if as_json:
        record = {
            "game": game.spec,
            "position": game.format_position(pos),
            "value": value_name(value),
            "optimal_moves": moves,
            "positions": solution.positions,
        }
        out.print(json.dumps(record), soft_wrap=True)
        return
    table = Table(
        title=f"{game.title}  [dim]{game.spec}[/]", show_header=False, title_justify="left"
    )
    table.add_column(style="bold")
    table.add_column()
    table.add_row("position", game.format_position(pos))
    side = game.to_move(pos)
    if side is not None:
        table.add_row("to move", "x" if side == 0 else "o")
    if game.is_terminal(pos):
        table.add_row("value", f"{value_name(value)} (the game is over)")
    else:
        verdict = f"{value_name(value)} for the player to move"
        if value != DRAW:
            verdict += f" in {solution.depth_of(pos)} plies with best play"
        table.add_row("value", verdict)
        table.add_row("optimal moves", " ".join(moves))
    table.add_row("positions", f"{solution.positions:,} reachable from the start")
    out.print(table)


def run(argv: list[str] | None = None) -> int:
    """Run the command line; bad input gives one line on stderr and code 2, never a traceback."""
    try:
        result = app(args=argv, prog_name="qarena", standalone_mode=False)
    except QarenaError as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        return 2
    except typer.TyperException as e:
        if not e.format_message().strip():
            return e.exit_code  # bare `qarena`: the help was shown
        ctx = getattr(e, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        err.print(f"error: {e.format_message()}{hint}", markup=False, soft_wrap=True)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        err.print("stopped.")
        return 130
    return result if isinstance(result, int) else 0


def main() -> None:
    """The ``qarena`` console script."""
    sys.exit(run())
