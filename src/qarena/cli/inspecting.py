"""qarena table: what a trained agent learned, move by move."""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table
from rich.text import Text

from qarena.agents.players import load_file, plays_as
from qarena.budget import check_count
from qarena.cli.common import PolicyArg, announce, app, err, out, route, styled
from qarena.errors import QarenaError
from qarena.exact import Exact
from qarena.fileio import check_target, write_atomic
from qarena.games import DRAW, LOSS, WIN, Move, Position, value_word
from qarena.i18n import _, gettext_noop, ngettext
from qarena.judging.family import family_of
from qarena.learn.family import Trainable
from qarena.learn.tables.base import Learner
from qarena.show.text import draw

#: Most entries ``--top`` shows at each end.
MAX_TOP = 1000


def _write_csv(target: str, learner: Learner, source: Path) -> int:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("position", "move", "q"))
    rows = 0
    for row in learner.entries():
        writer.writerow(row)
        rows += 1
    if target == "-":
        sys.stdout.write(buffer.getvalue())
        sys.stdout.flush()
    else:
        write_atomic(target, buffer.getvalue().encode(), [source])
    return rows


#: A move that keeps the position's value, by the value; and one that gives it away, by the
#: value given away (the value it leaves is put in).
_KEEPS = {
    WIN: gettext_noop("keeps the win"),
    DRAW: gettext_noop("keeps the draw"),
    LOSS: gettext_noop("lost whatever is played"),
}
_GIVES_AWAY = {
    WIN: gettext_noop("✗ gives the win away ({result})"),
    DRAW: gettext_noop("✗ gives the draw away ({result})"),
}


def verdict(position_value: int, move_value: int) -> str:
    """What a move does to the position's value, from the mover's side."""
    if move_value == position_value:
        return _(_KEEPS[move_value])
    return _(_GIVES_AWAY[position_value]).format(result=value_word(move_value))


@app.command("table")
def table_command(
    policy: PolicyArg,
    position: Annotated[
        str | None,
        typer.Option("--position", "-p", help="Position in text form (default: the start)."),
    ] = None,
    top: Annotated[
        int | None,
        typer.Option(help="Show the N highest and N lowest entries of the whole table."),
    ] = None,
    csv_target: Annotated[
        str | None,
        typer.Option(
            "--csv", metavar="PATH|-", help="Export the whole table as CSV ('-': stdout)."
        ),
    ] = None,
) -> None:
    """What a trained agent learned: its value of every move, next to the solver's verdict."""
    if sum(x is not None for x in (position, top, csv_target)) > 1:
        raise QarenaError(_("--position, --top and --csv are different views; give one of them"))
    if top is not None:
        check_count("--top", top, MAX_TOP)
    if csv_target is not None and csv_target != "-":
        check_target(csv_target, [policy])  # before the policy is even read
    learner = load_file(policy)  # the file's own kind decides, read once
    if top is None and csv_target is None:
        _position_table(learner, position)
        return
    table = family_of(learner).table(learner)
    if table is None:
        raise QarenaError(
            _(
                "{file}: its learner, {learner}, keeps no table of positions: --position shows "
                "its values of one position's moves"
            ).format(file=policy, learner=learner.title)
        )
    if csv_target is not None:
        rows = _write_csv(csv_target, table, policy)
        if csv_target != "-":
            err.print(
                ngettext(
                    "wrote {count:,} rows to {file}", "wrote {count:,} rows to {file}", rows
                ).format(count=rows, file=csv_target)
            )
        return
    if top is not None:
        _top_entries(table, top)


def _heading(learner: Trainable) -> Text:
    # The title as the learner gives it ("n-tuple network", "Q-learning"), as a label.
    return styled(
        "{learner}  [dim]{spec}, {trained}[/]",
        learner=learner.title,
        spec=learner.game.spec,
        trained=learner.trained_count(),
    )


def _position_table(learner: Trainable, position: str | None) -> None:
    """One position's moves as the learner's player values them, best first, with the
    solver's verdict on each (by search on boards too big to enumerate)."""
    game = learner.game
    pos = game.parse_position(position) if position is not None else game.start()
    if game.is_terminal(pos):
        raise QarenaError(
            _("the game is over in {position}: no moves to show").format(
                position=game.format_position(pos)
            )
        )
    announce(game)
    solution = route(game).exact()  # says why where this machine searches it
    solution.value_of(pos)  # refuses a position the game cannot reach, before its values
    agent = plays_as(learner)
    values = agent.move_values(pos)
    best = set(agent.best_at(pos))
    table = Table(title=_heading(learner), title_justify="left")
    _print_moves(solution, pos, table, learner.value_label, values, best, agent.format_value)


def _print_moves(
    solution: Exact,
    pos: Position,
    table: Table,
    label: str,
    values: Mapping[Move, float],
    best: set[Move],
    fmt: Callable[[float, bool], str],
) -> None:
    """A position's moves into ``table``, best first: the player's value of each (its column
    headed ``label``, written by ``fmt``), the solver's verdict and the player's choice; the
    board above it with the values on it (on a grid)."""
    game, value = solution.game, solution.value_of(pos)
    verdicts = solution.move_values(pos)
    moves = sorted(values, key=lambda m: (-values[m], m))
    table.add_column(_("move"), style="bold")
    table.add_column(label, justify="right")
    table.add_column(_("solver"))
    table.add_column("")
    alike = len(moves) > 1 and set(moves) <= best
    if alike:  # a mark on every row says nothing; one line below says it
        best = set()
    for m in moves:
        table.add_row(
            game.format_move(m),
            fmt(values[m], False),
            verdict(value, verdicts[m]),
            _("← agent's choice") if m in best else "",
        )
    out.print(
        _("position {position}: {value} for the player to move").format(
            position=game.format_position(pos), value=value_word(value)
        )
    )
    if game.layout == "grid":
        out.print(draw(game, pos, {m: fmt(values[m], True) for m in moves}))
    out.print(table)
    if alike:
        out.print(_("Every move has the same value: the agent would play any of them."))


def _top_entries(learner: Learner, n: int) -> None:
    """The n highest and n lowest learned values over every position the agent plays."""
    game, t = learner.game, learner.tables
    rows, moves = np.nonzero(t.legal & learner.played_positions()[:, None])
    values = learner.table_values()[rows, moves]
    value = t.value
    move_value = -value[t.nxt[rows, moves]]
    highest = np.lexsort((moves, rows, -values))[:n]  # ties in table order
    lowest = np.lexsort((moves, rows, values))[:n]
    out.print(_heading(learner))
    titles = (
        ngettext("{count:,} highest entries", "{count:,} highest entries", n),
        ngettext("{count:,} lowest entries", "{count:,} lowest entries", n),
    )
    for heading, picked in zip(titles, (highest, lowest), strict=True):
        table = Table(title=heading.format(count=n), title_justify="left")
        table.add_column(_("position"), style="bold")
        table.add_column(_("move"), style="bold")
        table.add_column(_("learned value"), justify="right")
        table.add_column(_("solver"))
        for i in picked:
            row, m = int(rows[i]), int(moves[i])
            table.add_row(
                game.format_position(t.position(row)),
                game.format_move(m),
                learner.format_value(float(values[i])),
                verdict(int(value[row]), int(move_value[i])),
            )
        out.print(table)
