"""The options ``qarena eval``, ``compete`` and ``matrix`` share: their games, their seed and
--json, and the check of a count of games."""

from __future__ import annotations

from typing import Annotated

import typer

from qarena.budget import MAX_GAMES, check_count

GamesOpt = Annotated[
    int, typer.Option("--games", "-n", help="Games in each seat against each opponent.")
]


SeedOpt = Annotated[int, typer.Option(help="Seed for the opponents' and ties' random choices.")]


JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def check_games(games: int) -> None:
    check_count("--games", games, MAX_GAMES)
