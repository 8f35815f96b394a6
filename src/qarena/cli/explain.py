"""qarena explain: why a position is won or lost, in the game's own theory where it has one."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from qarena.budget import MAX_LISTED, check_count
from qarena.cli.common import PositionOpt, SpecArg, announce, app, out
from qarena.errors import QarenaError
from qarena.evaluate.explain import (
    Explanation,
    LosingPositions,
    PolicyVerdict,
    SearchExplanation,
    Theory,
    explain,
    has_theory,
    judge_policy,
    losing_positions,
)
from qarena.games import DRAW, LOSS, WIN, Game, Position, parse_spec, value_name
from qarena.games.words import sentence
from qarena.learn.base import Learner
from qarena.learn.learners import learner_class, load_learner
from qarena.solve import Solution, game_tables, solve

_MARKS = ".xo"
#: Positions ``explain --losing`` lists unless told otherwise.
DEFAULT_LIMIT = 200


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def _side(game: Game, position: Position) -> str | None:
    """'x' or 'o' for boards; None in impartial games, where seats have no names."""
    return game.seat(position)


def _theory_table(e: Theory) -> Table:
    spec = e.table()
    table = Table(show_header=spec.header is not None)
    if spec.header is None:
        table.add_column(style="bold")
        table.add_column(justify="right")
    else:
        for i, name in enumerate(spec.header):
            table.add_column(name, justify="right" if i else "left")
    for row in spec.rows:
        table.add_row(*row)
    if spec.total is not None:
        table.add_section()
        table.add_row(*spec.total, style="bold")
    return table


# --- boards -----------------------------------------------------------------------------


def _ending(game: Game, position: Position) -> str:
    """How a finished game ended, in words."""
    return game.end_words(position)


def _grid(game: Game, position: Position) -> str:
    """Rows of ``x o .`` with column letters on top and row numbers at the side (row 1 on
    top), as moves like ``b2`` name them."""
    if game.layout != "grid":
        return game.format_position(position)
    rows, cols = game.grid_size()
    width = len(str(rows))
    head = " " * width + "  " + " ".join(string.ascii_lowercase[:cols])
    lines = [
        f"{r + 1:>{width}}  " + " ".join(_MARKS[position[r * cols + c]] for c in range(cols))
        for r in range(rows)
    ]
    return "\n".join([head, *lines])


def _variation(e: SearchExplanation) -> list[tuple[str | None, str]]:
    """(player, move text) for each move of the principal variation."""
    game, pos, out_ = e.game, e.position, []
    for m in e.principal_variation:
        out_.append((_side(game, pos), game.format_move(m)))
        pos = game.apply(pos, m)
    return out_


def _search_verdict(e: SearchExplanation) -> str:
    side = _side(e.game, e.position)
    mover = side or "the player to move"
    if e.value == DRAW:
        return f"draw for {mover} with best play"
    plies = _plural(e.depth or 0, "ply", "plies")
    return f"{value_name(e.value)} for {mover} in {plies} with best play"


def _search_sentences(e: SearchExplanation) -> list[str]:
    game = e.game
    if e.over:
        won, side = game.winning_line(e.position), _side(game, e.position)
        if won is not None and side is not None:
            return [f"{won}: {side}, to move, has lost."]
        if game.layout == "grid":
            return [sentence(game.end_words(e.position))]
        return [f"The game is over: {value_name(e.value)} for the player to move."]
    how = {
        WIN: "the winner takes the fastest win, the loser holds out longest",
        LOSS: "the winner takes the fastest win, the loser holds out longest",
        DRAW: "neither side can force a win",
    }[e.value]
    won = game.winning_line(e.final)
    ends = f"ends: {won}" if won is not None else "fills the board: draw"
    if won is None and game.layout != "grid":
        ends = f"ends {_ending(game, e.final)}"
    return [f"No closed-form rule: the solver searched every position. Best play ({how}) {ends}."]


def _print_search(e: SearchExplanation) -> None:
    game, pos = e.game, e.position
    table = Table(show_header=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("position", Text(game.format_position(pos)))
    side = _side(game, pos)
    if side is not None:
        table.add_row("to move", side)
    if e.over:
        table.add_row("value", f"{value_name(e.value)} (the game is over)")
    else:
        table.add_row("value", _search_verdict(e))
        table.add_row("optimal moves", Text(" ".join(game.format_move(m) for m in e.optimal_moves)))
        line = "  ".join(f"{p} {m}" if p else m for p, m in _variation(e))
        table.add_row("best play", Text(line))
        table.add_row("end", Text(_ending(game, e.final)))
    out.print(table)
    out.print(Text(_grid(game, e.final)))


# --- output ---------------------------------------------------------------------------------


def _sentences(e: Explanation) -> list[str]:
    if isinstance(e, SearchExplanation):
        return _search_sentences(e)
    return e.sentences()


def _details(e: Explanation) -> dict[str, Any]:
    if not isinstance(e, SearchExplanation):
        return e.details()
    game = e.game
    winner = game.winning_line(e.final)
    return {
        "depth": e.depth,
        "principal_variation": [m for _, m in _variation(e)],
        "final_position": game.format_position(e.final),
        "winner": winner[0] if winner else None,
    }


def _policy_record(path: Path, verdict: PolicyVerdict, game: Game) -> dict[str, Any]:
    return {
        "file": str(path),
        "learner": verdict.kind,
        "episodes": verdict.episodes,
        "moves": [game.format_move(c.move) for c in verdict.choices],
        "learned_values": [c.learned for c in verdict.choices],
        "move_values": [value_name(c.value) for c in verdict.choices],
        "keeps_value": verdict.keeps_value,
    }


def _policy_lines(verdict: PolicyVerdict, game: Game, title: str) -> list[str]:
    who = f"agent ({title}, {_plural(verdict.episodes, 'episode')})"
    lines, prefix = [], f"{who} plays "
    if len(verdict.choices) > 1:
        lines.append(f"{who} ties {len(verdict.choices)} moves and picks among them at random:")
        prefix = "  "
    for c in verdict.choices:
        learned = learner_class(verdict.kind).describe_value(c.learned)
        if c.value == verdict.value:
            judged = f"keeps the {value_name(c.value)}"
            if c.value == LOSS:
                judged += " (every move loses against best play)"
        else:
            leaves = "a won position for the opponent" if c.value == LOSS else "a draw"
            judged = f"gives the {value_name(verdict.value)} away (leaves {leaves})"
        lines.append(f"{prefix}{game.format_move(c.move)} — {judged} · {learned}")
    return lines


# --- the losing positions ---------------------------------------------------------------


def _lost_in(depth: int) -> str:
    return "game over" if depth == 0 else _plural(depth, "ply", "plies")


def _losing_record(found: LosingPositions) -> dict[str, Any]:
    t = found.tables
    game = t.game
    listed = []
    for row in found.rows:
        pos = t.position(row)
        listed.append(
            {
                "position": game.format_position(pos),
                "to_move": _side(game, pos),
                "plies": int(t.depth[row]),
                "over": not bool(t.live[row]),
                "class_size": int(t.orbit[row]),
            }
        )
    return {
        "game": game.spec,
        "canonical": t.canonical,
        "positions": t.positions,
        "classes": t.rows,
        "losing": found.losing,
        "losing_classes": found.losing_rows,
        "finished": found.terminal,
        "listed": listed,
        "more": found.more,
    }


def _print_losing(found: LosingPositions, limit: int) -> None:
    t = found.tables
    game = t.game
    # Class sizes only say something where some class holds more than one position.
    classes = t.canonical and t.rows != t.positions
    count = (
        f"{found.losing:,} of {_plural(t.positions, 'position')} "
        f"{'is a loss' if found.losing == 1 else 'are losses'} for the player to move"
    )
    if classes:
        count += f", {found.losing_rows:,} of {t.rows:,} up to symmetry"
    out.print(f"[bold]{game.title}[/]  [dim]{game.spec}[/]")
    out.print(Text(count))
    if found.rows:
        table = Table()
        table.add_column("position", style="bold")
        if not game.impartial:
            table.add_column("to move")
        table.add_column("lost in", justify="right")
        if classes:
            table.add_column("class size", justify="right")
        for row in found.rows:
            pos = t.position(row)
            cells = [game.format_position(pos)]
            if not game.impartial:
                cells.append(_side(game, pos) or "")
            cells.append(_lost_in(int(t.depth[row])))
            if classes:
                cells.append(f"{int(t.orbit[row]):,}")
            table.add_row(*(Text(c) for c in cells))
        out.print(table)
    if found.more:
        what = "classes" if classes else "positions"
        out.print(Text(f"… and {found.more:,} more {what}, past --limit {limit:,}"))
    if classes:
        out.print(Text("One position is shown for each class; class size counts them all."))
    if found.terminal == 1:
        finished = "1 of them is a finished game, where the player to move has already lost"
    elif found.terminal:
        finished = (
            f"{found.terminal:,} of them are finished games, where the player to move has "
            "already lost"
        )
    else:
        finished = "No finished game is lost for the player to move, so none is listed"
    out.print(Text(finished + "."))


def _losing_command(spec: str, limit: int, canonical: bool, as_json: bool) -> None:
    game = parse_spec(spec)
    announce(game)
    found = losing_positions(game_tables(game, canonical), limit)
    if as_json:
        out.print(json.dumps(_losing_record(found)), soft_wrap=True, markup=False)
    else:
        _print_losing(found, limit)


@app.command("explain")
def explain_command(
    spec: SpecArg,
    position: PositionOpt = None,
    policy: Annotated[
        Path | None,
        typer.Option("--policy", help="A policy file from qarena train: judge what it plays here."),
    ] = None,
    losing: Annotated[
        bool,
        typer.Option("--losing", help="List the positions lost for the player to move, instead."),
    ] = False,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            metavar="N",
            help=f"With --losing: list the first N (default {DEFAULT_LIMIT}); the count "
            "covers them all.",
        ),
    ] = None,
    no_canonical: Annotated[
        bool,
        typer.Option(
            "--no-canonical", help="With --losing: list every position, not one per symmetry."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Why the start position (or --position) is won, lost or drawn.

    Nim: Bouton's rule (the nim-sum, with the misère exception). Subtraction:
    the period k+1. Boards: the solver's value and principal variation.
    --policy: what a trained agent plays here, judged by the solver.

    --json prints one object: game, position, to_move (x, o or null), value
    (for the player to move), optimal_moves, rule (bouton, misere-exception,
    subtraction or search), explanation (the sentences shown), details, policy.
    details, nim: {misere, piles, binary, nim_sum, nim_sum_binary, big_piles,
    single_piles}; subtraction: {misere, heap, k, period, remainder,
    losing_remainder}; boards: {depth (null for a draw), principal_variation,
    final_position, winner}.
    policy: null, or {file, learner, episodes, moves (all its tied greedy
    moves), learned_values, move_values (the solver's, for the mover),
    keeps_value (true when every greedy move keeps the position's value)}.

    --losing lists instead the positions reachable from the start that are lost
    for the player to move (nim: those Bouton's rule loses), sorted, one per
    symmetry class unless --no-canonical, finished games included where the
    player to move has lost; --limit N caps the rows (default 200). --json:
    {game, canonical, positions, classes, losing, losing_classes, finished
    (lost finished positions), listed: [{position, to_move, plies (to the end
    with best play, 0 when over), over, class_size}], more (rows not listed)}.
    """
    if losing:
        if position is not None or policy is not None:
            raise QarenaError(
                "--losing lists positions; --position and --policy explain one: give one or "
                "the other"
            )
        if limit is None:
            limit = DEFAULT_LIMIT
        # The listing's length is held to the budget before the game is even parsed.
        check_count("--limit", limit, MAX_LISTED, least=0)
        _losing_command(spec, limit, not no_canonical, as_json)
        return
    for flag, given in (("--limit", limit is not None), ("--no-canonical", no_canonical)):
        if given:
            raise QarenaError(f"{flag} goes with --losing")
    game = parse_spec(spec)
    pos = game.parse_position(position) if position is not None else game.start()
    solution: Solution | None = None
    learner: Learner | None = None
    if policy is not None or not has_theory(game):
        # Nim and subtraction need no solver to be explained, however large.
        announce(game)
        learner = load_learner(policy, game) if policy is not None else None
        solution = solve(game)
    e = explain(game, pos, solution)
    verdict = None
    if learner is not None and solution is not None:
        verdict = judge_policy(learner, solution, pos)
    sentences = _sentences(e)

    if as_json:
        record = {
            "game": game.spec,
            "position": game.format_position(pos),
            "to_move": _side(game, pos),
            "value": value_name(e.value),
            "optimal_moves": [game.format_move(m) for m in e.optimal_moves],
            "rule": e.rule,
            "explanation": sentences,
            "details": _details(e),
            "policy": _policy_record(policy, verdict, game) if policy and verdict else None,
        }
        out.print(json.dumps(record), soft_wrap=True, markup=False)
        return

    out.print(f"[bold]{game.title}[/]  [dim]{game.spec}[/]")
    if isinstance(e, SearchExplanation):
        _print_search(e)
    else:
        verdict_text = f"{value_name(e.value)} for the player to move"
        if e.over:
            verdict_text = f"{value_name(e.value)} (the game is over)"
        out.print(Text(f"position {game.format_position(pos)}: {verdict_text}"))
        out.print(_theory_table(e))
    for line in sentences:
        out.print(Text(line))
    if isinstance(e, Theory) and e.winning_moves:
        out.print("winning moves:")
        for m in e.winning_moves:
            out.print(Text("  " + e.describe_move(m)))
    elif isinstance(e, Theory) and e.value == LOSS and not e.over:
        out.print(
            Text("every move loses: " + " ".join(game.format_move(m) for m in e.optimal_moves))
        )
    if verdict is not None and learner is not None:
        for line in _policy_lines(verdict, game, learner.title):
            out.print(Text(line))
