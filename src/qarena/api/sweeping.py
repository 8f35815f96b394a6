"""Sweeps from Python (:func:`sweep`, as ``qarena sweep``): a run for every combination of the
settings' values, into a folder, and its rows (:class:`Sweep`)."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qarena.api.games import GameLike, game, python_call
from qarena.api.training import given_by_name
from qarena.budget import check_count
from qarena.exact import Oracle
from qarena.experiments.backends import run_plan, set_up_sweep
from qarena.experiments.folder import BEST_REPLY_COLUMNS, SETTING_COLUMNS, RunRow, SweepFolder
from qarena.experiments.grid import NETWORK_AXES, with_preset
from qarena.learn.presets import canonical_of
from qarena.learn.settings import NAMES
from qarena.optional import need
from qarena.show import display

Values = float | Sequence[float] | None


def _axes() -> frozenset[str]:
    """The keywords a sweep takes its axes by (``seeds``: train's ``seed``, one value or a
    list): read from the declaration at each call, so a learner kind registered since
    (``learners.register``) has its own settings as axes, as ``qarena sweep`` has them."""
    return frozenset({*NAMES, *NETWORK_AXES, "seeds"} - {"seed"})


def _axis(value: Any) -> tuple[Any, ...] | None:
    """A setting's values: None (not swept), one value, or a list of them."""
    if value is None:
        return None
    if isinstance(value, str | int | float):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class Sweep:
    """A sweep's folder and its rows (one per run, the rows of ``results.csv``, typed:
    ``row.optimality`` is a number, ``row.cells()`` the row as the file holds it)."""

    folder: Path
    rows: list[RunRow]
    interrupted: bool = False

    def columns(self) -> list[str]:
        """The settings that tell runs apart, then the results."""
        varying = [c for c in SETTING_COLUMNS if len({r.column(c) for r in self.rows} - {""}) > 1]
        measured = [c for c in BEST_REPLY_COLUMNS if any(r.column(c) for r in self.rows)]
        return [*(varying or ["learner"]), "episodes", "optimality", "perfect_at", *measured]

    def __repr__(self) -> str:
        return f"Sweep({os.fspath(self.folder)}: {len(self.rows)} runs)"

    def to_pandas(self) -> Any:
        """Every column of every run as a pandas DataFrame (numbers as numbers)."""
        pd = need("pandas", "pandas")
        frame = pd.DataFrame([r.cells() for r in self.rows])
        for column in frame.columns:
            converted = pd.to_numeric(frame[column], errors="coerce")
            if converted.notna().sum() == frame[column].astype(bool).sum():
                frame[column] = converted
        return frame

    def _repr_html_(self) -> str:
        columns = self.columns()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{html.escape(_cell(r.column(c)))}</td>" for c in columns)
            + "</tr>"
            for r in self.rows
        )
        title = html.escape(repr(self))
        return f"<p>{title}</p><table><tr>{head}</tr>{body}</table>"


def _cell(text: str) -> str:
    """A results.csv cell as a table shows it: long fractions (shares) to four places."""
    whole, dot, fraction = text.partition(".")
    if not dot or len(fraction) <= 4 or not (whole.lstrip("-") + fraction).isdigit():
        return text
    return f"{float(text):.4f}"


@python_call
def sweep(  # noqa: PLR0913 - qarena.sweep's axes, by keyword
    spec: GameLike,
    out: str | os.PathLike[str],
    learner: str | Sequence[str] | None = None,
    *,
    preset: str | None = None,
    opponent: str | Sequence[str] | None = None,
    seat: str | Sequence[str] | None = None,
    episodes: int | Sequence[int] | None = None,
    seeds: int | Sequence[int] = 0,
    canonical: bool | None = None,
    curve: bool = False,
    every: int | None = None,
    until_perfect: bool = False,
    games: int | None = None,
    workers: int | None = None,
    backend: str = "local",
    progress: bool = False,
    alpha: Values = None,
    gamma: Values = None,
    epsilon: Values = None,
    epsilon_end: Values = None,
    schedule: str | Sequence[str] | None = None,
    rewards: tuple[float, float, float] | Sequence[tuple[float, float, float]] | None = None,
    initial: Values = None,
    starts: Values = None,
    start_order: str | Sequence[str] | None = None,
    alpha_second: Values = None,
    epsilon_second: Values = None,
    tuples: Values = None,
    tuple_length: Values = None,
    alpha_end: Values = None,
    lam: Values = None,
    opening: Values = None,
    channels: Values = None,
    blocks: Values = None,
    simulations: Values = None,
    **more: Any,
) -> Sweep:
    """Train a run for every combination of the values given (a value or a list of values per
    setting), as ``qarena sweep`` does, into the folder ``out`` (made if new, resumed if not:
    finished runs are kept). Opponents are names or policy files; ``learner`` may name
    ``"ntuple"``, an n-tuple network, whose own settings are ``tuples``, ``tuple_length``,
    ``alpha_end``, ``lam`` and ``opening``, or ``"alphazero"``, whose own are ``channels``,
    ``blocks`` and ``simulations``; a kind registered with ``learners.register`` takes its own
    settings by their names too. ``games`` in each seat against random and perfect
    play: the game's oracle's (1,000, or 10 on a searched board; never the free memory). ``preset``
    names a write-up's method (:mod:`qarena.learn.presets`) whose values fill the axes not
    given, and whose kind of table the runs share unless ``canonical`` is given; each row
    records it and what the run overrode. Returns the rows."""
    g = game(spec)
    if games is None:
        games = Oracle.of(g).games
    check_count("games", games, 1_000_000)
    # train's `seed` is the sweep's `seeds` axis: one value or a list, either name.
    named = {**locals(), "seeds": None if seeds == 0 else seeds}
    local = given_by_name("sweep", more, _axes(), {"seed": "seeds"}, named)
    seeds = 0 if local["seeds"] is None else local["seeds"]
    values: dict[str, tuple[Any, ...]] = {}
    for name in (*NAMES, *NETWORK_AXES):
        if name == "seed":
            continue
        given = local.get(name)  # a registered kind's own setting comes through ``more``
        if name == "rewards" and given is not None and not isinstance(given[0], Sequence):
            given = [given]
        axis = _axis(given)
        if axis is not None:
            values[name] = tuple(tuple(map(float, v)) for v in axis) if name == "rewards" else axis
    # Each axis not given is the preset's one value (qarena's default without a preset).
    grid = with_preset(
        preset,
        g,
        _axis(learner),
        values,
        _axis(opponent),
        _axis(seat),
        _axis(episodes),
        _axis(seeds) or (0,),
    )
    runs = set_up_sweep(
        g, grid, games=games, canonical=canonical_of(preset, canonical), curve=curve, every=every,
        until_perfect=until_perfect,
    )  # fmt: skip
    settings = runs.settings
    folder = SweepFolder(Path(out))
    with folder.locked():
        plan = runs.plan(folder, workers=workers, backend=backend)
        if not progress:
            interrupted = run_plan(plan)
        else:
            done = [plan.skipped]

            def advance(_run: object) -> None:
                done[0] += 1
                bar.update(done[0])

            with display.progress(g.spec, len(settings), "runs", plan.skipped) as bar:
                interrupted = run_plan(plan, advance)
    return Sweep(Path(out), plan.rows(), interrupted)
