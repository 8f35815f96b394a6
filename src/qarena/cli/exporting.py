"""qarena export: a player as a file another program runs (Kaggle's ConnectX)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from qarena.agents.players import load_file
from qarena.agents.strategies import SHIPPED_PLAYERS, is_builtin
from qarena.budget import format_bytes
from qarena.cli.common import app, err
from qarena.errors import QarenaError
from qarena.fileio import check_target, write_atomic
from qarena.i18n import _


@app.command("export")
def export_command(
    subject: Annotated[
        str,
        typer.Argument(
            metavar="PLAYER",
            help="network (the n-tuple network shipped for classic Connect Four) or an "
            "n-tuple network's file.",
            show_default=False,
        ),
    ],
    connectx: Annotated[
        Path,
        typer.Option(
            "--connectx",
            help="The Kaggle ConnectX submission to write: one Python file (numpy only).",
            show_default=False,
        ),
    ],
    book: Annotated[
        bool,
        typer.Option(
            "--book",
            help="Embed the opening book of the network's board: its first plies play perfectly.",
        ),
    ] = False,
) -> int:
    """Write PLAYER as a Kaggle ConnectX submission: one self-contained Python file that Kaggle
    runs without qarena (numpy and the standard library only), the network's tables embedded,
    its agent an alpha-beta search over the network's values within half of each move's time
    (configuration.actTimeout). It plays the board the network learned (rows, columns, in a
    row) and refuses any other configuration. A file already there is replaced, as --out
    replaces one; the network's own file never is."""
    if is_builtin(subject) and subject not in SHIPPED_PLAYERS:
        raise QarenaError(
            _(
                "{player} is a built-in player: only an n-tuple network (network, or a "
                "network's file) can be exported to Kaggle's ConnectX"
            ).format(player=subject)
        )
    target = os.fspath(connectx)
    inputs = [] if subject in SHIPPED_PLAYERS else [subject]  # never written over
    check_target(target, inputs)
    learner = load_file(subject)
    source = learner.connectx_source(book).encode("utf-8")
    write_atomic(target, source, inputs)
    err.print(
        _("Wrote {file} ({size}): a Kaggle ConnectX submission. Its last callable, agent, is "
          "what Kaggle runs.").format(file=target, size=format_bytes(len(source))),
        soft_wrap=True,
    )  # fmt: skip
    return 0
