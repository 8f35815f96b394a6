"""qarena explain: why a position is won or lost, in the game's own theory where it has one."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from qarena.agents.players import load_file
from qarena.budget import MAX_LISTED, check_count
from qarena.cli.common import PositionOpt, SpecArg, announce, app, out, route, styled
from qarena.errors import QarenaError
from qarena.exact import Exact, game_tables
from qarena.games import DRAW, LOSS, WIN, Game, Position, parse_spec, value_name, value_word
from qarena.games.words import sentence
from qarena.i18n import DEFAULT, _, gettext_noop, ngettext, number, speaking
from qarena.learn.family import Trainable
from qarena.show.explain import (
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

_MARKS = ".xo"
#: Positions ``explain --losing`` lists unless told otherwise.
DEFAULT_LIMIT = 200


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
    if e.value == DRAW:
        if side is None:
            return _("draw for the player to move with best play")
        return _("draw for {mover} with best play").format(mover=side)
    plies = e.depth or 0
    if side is None:
        text = ngettext(
            "{value} for the player to move in {count:,} ply with best play",
            "{value} for the player to move in {count:,} plies with best play",
            plies,
        )
    else:
        text = ngettext(
            "{value} for {mover} in {count:,} ply with best play",
            "{value} for {mover} in {count:,} plies with best play",
            plies,
        )
    return text.format(value=value_word(e.value), mover=side, count=plies)


#: The last sentence of a search explanation, by whether the game is decided (a win for one
#: side) and how best play ends: a line made ("line"), a full board ("full"), else in words.
_BEST_PLAY = {
    (True, "line"): gettext_noop(
        "Best play (the winner takes the fastest win, the loser holds out longest) ends: {line}."
    ),
    (False, "line"): gettext_noop("Best play (neither side can force a win) ends: {line}."),
    (True, "full"): gettext_noop(
        "Best play (the winner takes the fastest win, the loser holds out longest) fills the "
        "board: draw."
    ),
    (False, "full"): gettext_noop(
        "Best play (neither side can force a win) fills the board: draw."
    ),
    (True, "words"): gettext_noop(
        "Best play (the winner takes the fastest win, the loser holds out longest) ends {ending}."
    ),
    (False, "words"): gettext_noop("Best play (neither side can force a win) ends {ending}."),
}
#: How the solver knows, by whether it enumerated every position or searched each one.
_HOW = {
    True: gettext_noop("No closed-form rule: the solver searched every position."),
    False: gettext_noop(
        "No closed-form rule: the search solver solved each position along the line."
    ),
}


def _search_sentences(e: SearchExplanation) -> list[str]:
    game = e.game
    if e.over:
        won, side = game.winning_line(e.position), _side(game, e.position)
        if won is not None and side is not None:
            return [_("{line}: {side}, to move, has lost.").format(line=won, side=side)]
        if game.layout == "grid":
            return [sentence(game.end_words(e.position))]
        return [
            _("The game is over: {value} for the player to move.").format(value=value_word(e.value))
        ]
    won = game.winning_line(e.final)
    if won is not None:
        ends = "line"
    elif game.layout == "grid":
        ends = "full"
    else:
        ends = "words"
    text = _(_BEST_PLAY[e.value != DRAW, ends])
    return [_(_HOW[e.exhaustive]), text.format(line=won, ending=_ending(game, e.final))]


def _print_search(e: SearchExplanation) -> None:
    game, pos = e.game, e.position
    table = Table(show_header=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row(_("position"), Text(game.format_position(pos)))
    side = _side(game, pos)
    if side is not None:
        table.add_row(_("to move"), side)
    if e.over:
        table.add_row(_("value"), _("{value} (the game is over)").format(value=value_word(e.value)))
    else:
        table.add_row(_("value"), _search_verdict(e))
        table.add_row(
            _("optimal moves"), Text(" ".join(game.format_move(m) for m in e.optimal_moves))
        )
        line = "  ".join(f"{p} {m}" if p else m for p, m in _variation(e))
        table.add_row(_("best play"), Text(line))
        table.add_row(_("end"), Text(_ending(game, e.final)))
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
    return {
        "depth": e.depth,
        "principal_variation": [m for _player, m in _variation(e)],
        "final_position": game.format_position(e.final),
        "winner": game.winner_mark(e.final),
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


#: What a move does to the position's value, by the position's value and the move's.
_KEEPS = {
    WIN: gettext_noop("keeps the win"),
    DRAW: gettext_noop("keeps the draw"),
    LOSS: gettext_noop("keeps the loss (every move loses against best play)"),
}
_GIVES_AWAY = {
    (WIN, DRAW): gettext_noop("gives the win away (leaves a draw)"),
    (WIN, LOSS): gettext_noop("gives the win away (leaves a won position for the opponent)"),
    (DRAW, LOSS): gettext_noop("gives the draw away (leaves a won position for the opponent)"),
}


def _judged(value: int, move_value: int) -> str:
    """What a move that leaves ``move_value`` does in a position of ``value``, in words."""
    if move_value == value:
        return _(_KEEPS[value])
    return _(_GIVES_AWAY[value, move_value])


def _policy_lines(verdict: PolicyVerdict, game: Game, title: str) -> list[str]:
    n = verdict.episodes
    lines = []
    tied = len(verdict.choices) > 1
    if tied:
        lines.append(
            ngettext(
                "agent ({learner}, {count:,} episode) ties {ties} moves and picks among them at "
                "random:",
                "agent ({learner}, {count:,} episodes) ties {ties} moves and picks among them at "
                "random:",
                n,
            ).format(learner=title, count=n, ties=len(verdict.choices))
        )
    for c in verdict.choices:
        learned = c.learned_text
        move, judged = game.format_move(c.move), _judged(verdict.value, c.value)
        if tied:
            lines.append(f"  {move} — {judged} · {learned}")
        else:
            lines.append(
                ngettext(
                    "agent ({learner}, {count:,} episode) plays {move} — {judged} · {learned}",
                    "agent ({learner}, {count:,} episodes) plays {move} — {judged} · {learned}",
                    n,
                ).format(learner=title, count=n, move=move, judged=judged, learned=learned)
            )
    return lines


# --- the losing positions ---------------------------------------------------------------


def _lost_in(depth: int) -> str:
    if depth == 0:
        return _("game over")
    return ngettext("{count:,} ply", "{count:,} plies", depth).format(count=depth)


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
    if classes:
        count = ngettext(
            "{losing:,} of {positions:,} positions is a loss for the player to move, "
            "{losing_classes:,} of {classes:,} up to symmetry",
            "{losing:,} of {positions:,} positions are losses for the player to move, "
            "{losing_classes:,} of {classes:,} up to symmetry",
            found.losing,
        )
    else:
        count = ngettext(
            "{losing:,} of {positions:,} positions is a loss for the player to move",
            "{losing:,} of {positions:,} positions are losses for the player to move",
            found.losing,
        )
    count = count.format(
        losing=found.losing,
        positions=t.positions,
        losing_classes=found.losing_rows,
        classes=t.rows,
    )
    out.print(styled("[bold]{title}[/]  [dim]{spec}[/]", title=game.title, spec=game.spec))
    out.print(Text(count))
    if found.rows:
        table = Table()
        table.add_column(_("position"), style="bold")
        if not game.impartial:
            table.add_column(_("to move"))
        table.add_column(_("lost in"), justify="right")
        if classes:
            table.add_column(_("class size"), justify="right")
        for row in found.rows:
            pos = t.position(row)
            cells = [game.format_position(pos)]
            if not game.impartial:
                cells.append(_side(game, pos) or "")
            cells.append(_lost_in(int(t.depth[row])))
            if classes:
                cells.append(number(int(t.orbit[row]), ","))
            table.add_row(*(Text(c) for c in cells))
        out.print(table)
    if found.more:
        # English says "more classes" even for one; other languages may have both forms.
        if classes:
            more = ngettext(
                "… and {count:,} more classes, past --limit {limit:,}",
                "… and {count:,} more classes, past --limit {limit:,}",
                found.more,
            )
        else:
            more = ngettext(
                "… and {count:,} more positions, past --limit {limit:,}",
                "… and {count:,} more positions, past --limit {limit:,}",
                found.more,
            )
        out.print(Text(more.format(count=found.more, limit=limit)))
    if classes:
        out.print(Text(_("One position is shown for each class; class size counts them all.")))
    if found.terminal:
        finished = ngettext(
            "{count:,} of them is a finished game, where the player to move has already lost.",
            "{count:,} of them are finished games, where the player to move has already lost.",
            found.terminal,
        ).format(count=found.terminal)
    else:
        finished = _("No finished game is lost for the player to move, so none is listed.")
    out.print(Text(finished))


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
                _(
                    "--losing lists positions; --position and --policy explain one: give one "
                    "or the other"
                )
            )
        if limit is None:
            limit = DEFAULT_LIMIT
        # The listing's length is held to the budget before the game is even parsed.
        check_count("--limit", limit, MAX_LISTED, least=0)
        _losing_command(spec, limit, not no_canonical, as_json)
        return
    for flag, given in (("--limit", limit is not None), ("--no-canonical", no_canonical)):
        if given:
            raise QarenaError(_("{flag} goes with --losing").format(flag=flag))
    game = parse_spec(spec)
    pos = game.parse_position(position) if position is not None else game.start()
    solution: Exact | None = None
    learner: Trainable | None = None
    if policy is not None or not has_theory(game):
        # Nim and subtraction need no solver to be explained, however large.
        announce(game)
        if policy is not None:
            learner = load_file(policy, game)  # the file's own kind decides
        solution = route(game).exact()  # says why where this machine searches it
    e = explain(game, pos, solution)
    verdict = None
    if learner is not None and solution is not None:
        verdict = judge_policy(learner, solution, pos)
    if as_json:
        with speaking(DEFAULT):  # JSON is data: its sentences are always the English ones
            sentences = _sentences(e)
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
    _print_explanation(game, pos, e)
    if verdict is not None and learner is not None:
        title = learner.title
        for line in _policy_lines(verdict, game, title):
            out.print(Text(line))


def _print_explanation(game: Game, pos: Position, e: Explanation) -> None:
    """An explanation for people: the verdict, the theory's table or the search's line, the
    sentences, and the moves that win (or that every move loses)."""
    sentences = _sentences(e)
    out.print(styled("[bold]{title}[/]  [dim]{spec}[/]", title=game.title, spec=game.spec))
    if isinstance(e, SearchExplanation):
        _print_search(e)
    else:
        if e.over:
            verdict_text = _("position {position}: {value} (the game is over)")
        else:
            verdict_text = _("position {position}: {value} for the player to move")
        out.print(
            Text(verdict_text.format(position=game.format_position(pos), value=value_word(e.value)))
        )
        out.print(_theory_table(e))
    for line in sentences:
        out.print(Text(line))
    if isinstance(e, Theory) and e.winning_moves:
        out.print(_("winning moves:"))
        for m in e.winning_moves:
            out.print(Text("  " + e.describe_move(m)))
    elif isinstance(e, Theory) and e.value == LOSS and not e.over:
        out.print(
            Text(
                _("every move loses: {moves}").format(
                    moves=" ".join(game.format_move(m) for m in e.optimal_moves)
                )
            )
        )
