"""qarena explain: why a position is won or lost, in the game's own theory where it has one."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from qarena.cli.common import SpecArg, announce, app, out
from qarena.evaluate.explain import (
    Explanation,
    NimExplanation,
    PolicyVerdict,
    SearchExplanation,
    SubtractionExplanation,
    explain,
    has_theory,
    judge_policy,
)
from qarena.games import DRAW, LOSS, WIN, Game, Move, Position, TicTacToe, parse_spec, value_name
from qarena.games.tictactoe import EMPTY
from qarena.learn.base import Learner
from qarena.learn.learners import load_learner
from qarena.solve import Solution, solve

_MARKS = ".xo"


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def _side(game: Game, position: Position) -> str | None:
    """'x' or 'o' for boards; None in impartial games, where seats have no names."""
    side = game.to_move(position)
    return None if side is None else "xo"[side]


# --- heap games ---------------------------------------------------------------------------


def _pile_and_take(game: Game, position: Position, move: Move) -> tuple[int, int]:
    """The pile a heap move takes from (0-based) and how many, read off what it leaves."""
    after = game.apply(position, move)
    pile = next(i for i, (a, b) in enumerate(zip(position, after, strict=True)) if a != b)
    return pile, position[pile] - after[pile]


def _heap_move(game: Game, position: Position, move: Move) -> str:
    """``3:2  take 2 from pile 3, leaving 3 5 5``: the move, and what it leaves."""
    pile, take = _pile_and_take(game, position, move)
    after = game.format_position(game.apply(position, move))
    where = f" from pile {pile + 1}" if len(position) > 1 else ""
    return f"{game.format_move(move)}  take {take}{where}, leaving {after}"


def _over_sentence(misere: bool, what: str) -> str:
    if misere:
        return (
            f"{what}: the opponent took the last object, which loses in misère play, "
            "so the player to move has won."
        )
    return (
        f"{what}: the opponent took the last object, which wins in normal play, "
        "so the player to move has lost."
    )


def _nim_sentences(e: NimExplanation) -> list[str]:
    if e.over:
        return [_over_sentence(e.game.misere, "No objects are left")]
    s = e.nim_sum
    if e.rule == "misere-exception":
        if e.big_piles == 1:
            (move,) = e.winning_moves
            pile, take = _pile_and_take(e.game, e.position, move)
            emptied = take == e.position[pile]
            ones = e.single_piles + (0 if emptied else 1)
            return [
                "Only one pile has more than one object, so the misère exception applies: "
                "leave an odd number of single objects.",
                f"Besides pile {pile + 1} there {'is' if e.single_piles == 1 else 'are'} "
                f"{_plural(e.single_piles, 'pile')} of one, so "
                f"{'empty it' if emptied else 'cut it to one'}: that leaves "
                f"{_plural(ones, 'single object')}, an odd number, and the opponent must take "
                "the last. Win for the player to move.",
            ]
        head = (
            "No pile has more than one object, so the misère exception applies: the single "
            "objects go one per turn, and whoever takes the last loses."
        )
        if e.value == WIN:
            return [
                head,
                f"{_plural(e.single_piles, 'single object')} is an even number: win for the "
                "player to move, by taking any one of them to leave an odd number.",
            ]
        return [
            head,
            f"{_plural(e.single_piles, 'single object')} is an odd number: loss for the player "
            "to move, who will be left the last one.",
        ]
    if e.game.misere:
        regime = (
            f"{e.big_piles} piles have more than one object, so misère play follows Bouton's "
            "rule, as normal play does: the player to move loses exactly when the nim-sum is 0."
        )
    else:
        regime = (
            "Normal play, Bouton's rule: the player to move loses exactly when the nim-sum is 0."
        )
    if e.value == LOSS:
        return [
            regime,
            "The nim-sum is 0: loss for the player to move. Every move changes one pile, so it "
            "leaves a non-zero nim-sum, which the opponent can make 0 again.",
        ]
    sentences = [
        regime,
        f"The nim-sum is {s}, not 0: win for the player to move, by making it 0 — from a pile "
        f"h with h XOR {s} < h, take h − (h XOR {s}).",
    ]
    if e.game.misere:
        sentences.append(
            "Keep it 0 until a move would leave at most one pile with more than one object; "
            "then leave an odd number of single objects instead."
        )
    return sentences


def _subtraction_sentences(e: SubtractionExplanation) -> list[str]:
    if e.over:
        return [_over_sentence(e.game.misere, "The heap is empty")]
    n, k, p, r = e.heap, e.k, e.period, e.remainder
    if e.game.misere:
        rule = (
            f"Misère play: the player to move loses exactly when the heap is one more than a "
            f"multiple of {p} (1, {p + 1}, {2 * p + 1}, …): whatever they take, 1 to {k}, the "
            f"opponent takes the rest of {p}, until only the last object is left for them."
        )
    else:
        rule = (
            f"Normal play: the player to move loses exactly when the heap is a multiple of {p} "
            f"(0, {p}, {2 * p}, …): whatever they take, 1 to {k}, the opponent takes the rest "
            f"of {p}, and takes the last object."
        )
    if e.value == LOSS:
        return [rule, f"{n} mod {p} = {r}: loss for the player to move."]
    (move,) = e.winning_moves
    take = _pile_and_take(e.game, e.position, move)[1]
    return [
        rule,
        f"{n} mod {p} = {r}, not {e.losing_remainder}: win for the player to move, by taking "
        f"{take} to leave {n - take}.",
    ]


def _heap_table(e: NimExplanation | SubtractionExplanation) -> Table:
    table = Table()
    if isinstance(e, NimExplanation):
        table.add_column("")
        table.add_column("objects", justify="right")
        table.add_column("binary", justify="right")
        for i, (h, bits) in enumerate(zip(e.position, e.binary, strict=True)):
            table.add_row(f"pile {i + 1}", str(h), bits)
        table.add_section()
        table.add_row("nim-sum", str(e.nim_sum), e.nim_sum_binary, style="bold")
        return table
    table.show_header = False
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_row("heap", str(e.heap))
    table.add_row("a move takes", f"1..{e.k}")
    table.add_row("k + 1", str(e.period))
    table.add_row(f"{e.heap} mod {e.period}", str(e.remainder))
    return table


# --- boards -----------------------------------------------------------------------------


def _line_of(game: Game, position: Position) -> str | None:
    """'x has 3 in a row (a1 b2 c3)' when a board game is won, else None."""
    if not isinstance(game, TicTacToe):
        return None
    for line in game.lines:
        mark = position[line[0]]
        if mark != EMPTY and all(position[c] == mark for c in line):
            cells = " ".join(game.format_move(c) for c in line)
            return f"{_MARKS[mark]} has {game.k} in a row ({cells})"
    return None


def _ending(game: Game, position: Position) -> str:
    """How a finished game ended, in words."""
    won = _line_of(game, position)
    if won is not None:
        return won
    if isinstance(game, TicTacToe):
        return "the board is full: draw"
    return f"over: {value_name(game.result(position))} for the player to move"


def _grid(game: Game, position: Position) -> str:
    """Rows of ``x o .`` with column letters on top and row numbers at the side (row 1 on
    top), as moves like ``b2`` name them."""
    if not isinstance(game, TicTacToe):
        return game.format_position(position)
    width = len(str(game.rows))
    head = " " * width + "  " + " ".join(string.ascii_lowercase[: game.cols])
    rows = [
        f"{r + 1:>{width}}  "
        + " ".join(_MARKS[position[r * game.cols + c]] for c in range(game.cols))
        for r in range(game.rows)
    ]
    return "\n".join([head, *rows])


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
        won, side = _line_of(game, e.position), _side(game, e.position)
        if won is not None and side is not None:
            return [f"{won}: {side}, to move, has lost."]
        if isinstance(game, TicTacToe):
            return ["The board is full: draw."]
        return [f"The game is over: {value_name(e.value)} for the player to move."]
    how = {
        WIN: "the winner takes the fastest win, the loser holds out longest",
        LOSS: "the winner takes the fastest win, the loser holds out longest",
        DRAW: "neither side can force a win",
    }[e.value]
    won = _line_of(game, e.final)
    ends = f"ends: {won}" if won is not None else "fills the board: draw"
    if won is None and not isinstance(game, TicTacToe):
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
    if isinstance(e, NimExplanation):
        return _nim_sentences(e)
    if isinstance(e, SubtractionExplanation):
        return _subtraction_sentences(e)
    return _search_sentences(e)


def _details(e: Explanation) -> dict[str, Any]:
    game = e.game
    if isinstance(e, NimExplanation):
        return {
            "misere": e.game.misere,
            "piles": list(e.position),
            "binary": list(e.binary),
            "nim_sum": e.nim_sum,
            "nim_sum_binary": e.nim_sum_binary,
            "big_piles": e.big_piles,
            "single_piles": e.single_piles,
        }
    if isinstance(e, SubtractionExplanation):
        return {
            "misere": e.game.misere,
            "heap": e.heap,
            "k": e.k,
            "period": e.period,
            "remainder": e.remainder,
            "losing_remainder": e.losing_remainder,
        }
    winner = _line_of(game, e.final)
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
        if verdict.kind == "matchbox":
            learned = "allowed in its matchbox" if c.learned else "removed from its matchbox"
        else:
            learned = f"learned value {c.learned:+.4f}"
        if c.value == verdict.value:
            judged = f"keeps the {value_name(c.value)}"
            if c.value == LOSS:
                judged += " (every move loses against best play)"
        else:
            leaves = "a won position for the opponent" if c.value == LOSS else "a draw"
            judged = f"gives the {value_name(verdict.value)} away (leaves {leaves})"
        lines.append(f"{prefix}{game.format_move(c.move)} — {judged} · {learned}")
    return lines


@app.command("explain")
def explain_command(
    spec: SpecArg,
    position: Annotated[
        str | None,
        typer.Option(
            "--position", "-p", help="Position in text form, e.g. '3 5 7', '12' or 'x.o/.x./..o'."
        ),
    ] = None,
    policy: Annotated[
        Path | None,
        typer.Option("--policy", help="A policy file from qarena train: judge what it plays here."),
    ] = None,
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
    """
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
        out.print(_heap_table(e))
    for sentence in sentences:
        out.print(Text(sentence))
    if isinstance(e, NimExplanation | SubtractionExplanation) and e.winning_moves:
        out.print("winning moves:")
        for m in e.winning_moves:
            out.print(Text("  " + _heap_move(game, pos, m)))
    elif isinstance(e, NimExplanation | SubtractionExplanation) and e.value == LOSS and not e.over:
        out.print(
            Text("every move loses: " + " ".join(game.format_move(m) for m in e.optimal_moves))
        )
    if verdict is not None and learner is not None:
        for line in _policy_lines(verdict, game, learner.title):
            out.print(Text(line))
