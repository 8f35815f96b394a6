"""``qarena presets [NAME]``: the write-ups' methods qarena trains by, each value with the lines
of the write-up it comes from."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from qarena.cli.common import app, out, styled
from qarena.i18n import _
from qarena.learn.presets import PRESETS, Preset, preset, source_rows, to_json


@app.command("presets")
def presets_command(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="A preset: every value it gives, with the write-up's lines it comes from.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> int:
    """The write-ups' methods that qarena train --preset takes: without NAME one row each;
    with NAME every value it gives, as the option of qarena train that gives it, with the
    lines of its write-up and a note where qarena's reading is an interpretation."""
    if name is None:
        if as_json:
            out.print(json.dumps({"presets": [to_json(p) for p in PRESETS]}), soft_wrap=True)
        else:
            out.print(_listing())
        return 0
    found = preset(name)  # an unknown name: one line listing them
    if as_json:
        out.print(json.dumps(to_json(found, detail=True), ensure_ascii=False), soft_wrap=True)
    else:
        out.print(_detail(found))
    return 0


def _listing() -> Table:
    # No rules between columns: the six fit 80 characters.
    table = Table(
        title=_("Presets"), title_justify="left", box=None, pad_edge=False, collapse_padding=True
    )
    rows = []
    for p in PRESETS:
        against = "self" if p.opponent == "self" else f"{p.opponent}, {p.seat}"
        episodes = _("default") if p.episodes is None else f"{p.episodes:,}"
        rows.append((p.name, p.source, p.game, p.learner, episodes, against))
    headings = (
        _("preset"),
        _("write-up"),
        _("game"),
        _("learner"),
        _("episodes"),
        _("opponent, seat"),
    )
    # Each column as wide as its values or its heading's longest word (a longer heading
    # wraps): the names, games and learners, typed again, are never cut, and the six fit 80
    # characters in every language.
    for i, heading in enumerate(headings):
        wide = max(*(len(row[i]) for row in rows), *(len(word) for word in heading.split()))
        table.add_column(
            heading, header_style="bold underline", min_width=wide, max_width=wide, overflow="fold"
        )
    for row in rows:
        table.add_row(*row)
    table.caption = _("Each one's values and where its write-up gives them: qarena presets NAME")
    table.caption_justify = "left"
    return table


def _detail(p: Preset) -> Table:
    table = Table(
        title=styled("[bold]{name}[/]  {source}", name=p.name, source=p.source_text),
        caption=_(p.description),
        title_justify="left",
        caption_justify="left",
    )
    table.add_column(_("value"))
    table.add_column(_("where"))
    table.add_column(_("note"))
    for row in source_rows(p):
        table.add_row(row.option, row.where or "—", row.note)
    return table
