"""How ``qarena eval``'s, ``compete``'s and ``matrix``'s results read at the terminal: the
optimality line, the best reply's lines per seat, win/draw/loss and game-length tables, and one
JSON object for --json."""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table

from qarena.cli.common import out
from qarena.games import LOSS, value_word
from qarena.i18n import _, ngettext, number
from qarena.i18n import seconds as seconds_text
from qarena.judging.best_reply import BestReply
from qarena.judging.evaluation import Evaluation
from qarena.show.matches import Lengths, Record

#: Most rows the length histogram of ``qarena eval --lengths`` shows: longer spans of game
#: lengths are grouped into ranges of equal width.
LENGTH_ROWS = 24


def wdl_title(games: int) -> str:
    """The title of a win/draw/loss table (English says "games" even for one)."""
    return ngettext(
        "win/draw/loss over {games:,} games in each seat",
        "win/draw/loss over {games:,} games in each seat",
        games,
    ).format(games=games)


def wdl(record: Record) -> str:
    s = record.shares()
    return "/".join(number(s[k], ".3f") for k in ("win", "draw", "loss"))


def print_json(record: dict[str, Any]) -> None:
    out.print(json.dumps(record), soft_wrap=True)


def _length_bins(lo: int, hi: int) -> list[tuple[int, int]]:
    """``lo..hi`` as at most LENGTH_ROWS ranges of equal width (the last may be shorter)."""
    width = -(-(hi - lo + 1) // LENGTH_ROWS)
    return [(a, min(a + width - 1, hi)) for a in range(lo, hi + 1, width)]


def lengths_table(result: Evaluation, games: int) -> Table:
    """Games of each length against each opponent, both seats together, with the mean length
    in each seat and the shortest and longest game below."""
    seats = {name: r.lengths for name, r in result.matches.items() if r.lengths is not None}
    totals = {name: s.total for name, s in seats.items()}
    lo = min(t.shortest for t in totals.values())
    hi = max(t.longest for t in totals.values())
    table = Table(
        title=_("games by length in plies, both seats"),
        title_justify="left",
    )
    table.add_column(_("plies"), style="bold")
    for name in seats:
        table.add_column(name, justify="right")

    def count(lengths: Lengths, a: int, b: int) -> str:
        n = sum(lengths.counts[a : b + 1])
        return number(n, ",") if n else "·"

    for a, b in _length_bins(lo, hi):
        table.add_row(str(a) if a == b else f"{a}–{b}", *(count(t, a, b) for t in totals.values()))
    table.add_section()
    table.add_row(_("mean"), *(number(t.mean, ".2f") for t in totals.values()))
    table.add_row("  " + _("agent first"), *(number(s.first.mean, ".2f") for s in seats.values()))
    table.add_row("  " + _("agent second"), *(number(s.second.mean, ".2f") for s in seats.values()))
    table.add_row(_("shortest"), *(str(t.shortest) for t in totals.values()))
    table.add_row(_("longest"), *(str(t.longest) for t in totals.values()))
    return table


def print_reply(result: Evaluation) -> None:
    """The best reply's lines per seat, or the one line saying why there was no search."""
    if result.best_reply is not None:
        for line in reply_lines(result.best_reply):
            out.print(line, markup=False)
    if result.best_reply_note is not None:
        out.print(result.best_reply_note, markup=False)
    if result.classes_note is not None:
        out.print(result.classes_note, markup=False)


def reply_lines(found: BestReply) -> list[str]:
    """A line per seat: whether an opponent who knows its moves can beat it from the start,
    the start's value → what it gets against the best reply, and the line that beats it
    (short enough for 80 columns on tic-tac-toe and Nim). On a board solved by search, what
    the search found (or that it found no line within its budget, which proves nothing) and
    a line below with what it spent."""
    seats = {"first": _("moving first"), "second": _("moving second")}
    lines: list[str] = []
    for name, reply in found.seats.items():
        spent = reply.search
        if not reply.proved:
            assert spent is not None  # only a search stops short of a proof
            text = _(
                "{seat}: no line that beats it found within {positions} positions and "
                "{seconds}, which proves nothing either way"
            )
        elif reply.beaten and spent is not None and reply.secured > LOSS:
            # The search stops at the first mistake it proves: the opponent may force more.
            text = _("{seat}: beaten from the start, {value} → {secured} or worse by {line}")
        elif reply.beaten:
            text = _("{seat}: beaten from the start, {value} → {secured} by {line}")
        else:
            text = _("{seat}: unbeaten from the start, {value} → {secured}")
        lines.append(
            text.format(
                seat=seats[name],
                value=value_word(reply.value),
                secured=value_word(reply.secured),
                line=" ".join(reply.line_text),
                positions=number(spent.max_positions, ",") if spent else "",
                seconds=seconds_text(spent.max_seconds, ",g") if spent else "",
            )
        )
        if spent is not None:
            lines.append(
                _("  (searched {positions} positions in {seconds})").format(
                    positions=number(spent.positions, ","),
                    seconds=seconds_text(spent.seconds, ".1f"),
                )
            )
    return lines


def optimality_text(result: Evaluation) -> str:
    """The optimality line: exact, or by samples with its 95% interval."""
    o = result.optimality
    if result.sample is None:
        return _(
            "optimality {share:.4f}: keeps the value in {optimal:,} of {decisions:,} "
            "decision positions"
        ).format(share=o.share, optimal=o.optimal, decisions=o.decisions)
    low, high = result.sample.interval
    if result.sample.source == "uniform":
        return _(
            "optimality {share:.4f} over {decisions:,} decision positions drawn uniformly from "
            "all of them (95% interval {low:.4f} to {high:.4f})"
        ).format(share=o.share, decisions=o.decisions, low=low, high=high)
    listed = result.sample.source != "sampled"
    # "± m" only where the interval is about even on both sides of the share; near 0 or
    # 1 (Wilson's interval is lopsided there) the interval alone says it.
    even = abs((high - o.share) - (o.share - low)) <= 0.1 * (high - low)
    if even:
        text = (
            _(
                "optimality {share:.3f} ± {margin:.3f} over the {decisions:,} given "
                "positions (95% interval {low:.3f} to {high:.3f})"
            )
            if listed
            else _(
                "optimality {share:.3f} ± {margin:.3f} over {decisions:,} sampled decision "
                "positions (95% interval {low:.3f} to {high:.3f})"
            )
        )
    else:
        text = (
            _(
                "optimality {share:.3f} over the {decisions:,} given positions (95% "
                "interval {low:.3f} to {high:.3f})"
            )
            if listed
            else _(
                "optimality {share:.3f} over {decisions:,} sampled decision positions (95% "
                "interval {low:.3f} to {high:.3f})"
            )
        )
    return text.format(
        share=o.share, margin=result.sample.margin, decisions=o.decisions, low=low, high=high
    )
