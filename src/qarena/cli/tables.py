"""qarena table: what a trained agent learned, move by move."""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

from qarena.cli.common import PolicyArg, app, err, out, title
from qarena.errors import QarenaError
from qarena.fileio import write_atomic
from qarena.games import value_name
from qarena.learn.base import Learner
from qarena.learn.learners import load_learner
from qarena.learn.policyfile import check_writable
from qarena.solve import solve


def _csv_rows(learner: Learner) -> Iterator[tuple[str, str, str]]:
    t, game = learner.tables, learner.game
    values = learner.table_values()
    for code in np.flatnonzero(learner.played_positions()):
        text = game.format_position(game.decode(int(code)))
        for m in np.flatnonzero(t.legal[code]):
            # Ten significant digits: exact for the values training produces in practice
            # (0.81, not 0.8100000000000001), and 1 / 0 for the matchbox learner.
            yield text, game.format_move(int(m)), f"{float(values[code, m]):.10g}"


def _write_csv(target: str, learner: Learner) -> int:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("position", "move", "q"))
    rows = 0
    for row in _csv_rows(learner):
        writer.writerow(row)
        rows += 1
    if target == "-":
        sys.stdout.write(buffer.getvalue())
        sys.stdout.flush()
    else:
        write_atomic(target, buffer.getvalue().encode())
    return rows


@app.command("table")
def table_command(
    policy: PolicyArg,
    position: Annotated[
        str | None,
        typer.Option("--position", "-p", help="Position in text form (default: the start)."),
    ] = None,
    csv_target: Annotated[
        str | None,
        typer.Option(
            "--csv", metavar="PATH|-", help="Export the whole table as CSV ('-': stdout)."
        ),
    ] = None,
) -> None:
    """What a trained agent learned: its value of every move, next to the solver's verdict."""
    learner = load_learner(policy)
    game = learner.game
    if csv_target is not None:
        if position is not None:
            raise QarenaError("--csv exports every position; leave out --position")
        if csv_target != "-":
            check_writable(Path(csv_target))
        rows = _write_csv(csv_target, learner)
        if csv_target != "-":
            err.print(f"wrote {rows:,} rows to {csv_target}")
        return
    pos = game.parse_position(position) if position is not None else game.start()
    if game.is_terminal(pos):
        raise QarenaError(f"the game is over in {game.format_position(pos)}: no moves to show")
    code = game.encode(pos)
    solution = solve(game)
    values = learner.table_values()[code]
    best = set(np.flatnonzero(learner.best_moves()[code]).tolist())
    verdicts = solution.move_values(pos)
    top = max(verdicts.values())
    heading = "allowed" if learner.kind == "matchbox" else "learned value"
    table = Table(
        title=f"{title(learner)}  [dim]{game.spec}, {learner.episodes:,} episodes[/]",
        title_justify="left",
    )
    table.add_column("move", style="bold")
    table.add_column(heading, justify="right")
    table.add_column("solver: for the mover")
    table.add_column("")
    for m in game.legal_moves(pos):
        v = float(values[m])
        shown = ("yes" if v else "no") if learner.kind == "matchbox" else f"{v:+.4f}"
        verdict = value_name(verdicts[m]) + ("" if verdicts[m] == top else "  ✗ gives value away")
        table.add_row(game.format_move(m), shown, verdict, "← agent's choice" if m in best else "")
    out.print(
        f"position {game.format_position(pos)}: {value_name(solution.value_of(pos))} "
        "for the player to move"
    )
    if not solution.is_reachable(pos):
        out.print("[dim]not reachable from the start: the agent never trained here[/]")
    out.print(table)
