"""The report's frame: where and how its sweeps run (:class:`Lab`), and what a section holds
(its question, finding, figures, tables and commands)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qarena.experiments.backends import plan_sweep, run_plan
from qarena.experiments.folder import RunRow, SweepFolder
from qarena.experiments.grid import Fixed, Grid, sweep_command
from qarena.games import parse_spec
from qarena.i18n import _

#: The learners without the negamax form, kept as baselines.
BASELINES = ("naive-q", "elimination")
#: Games in each seat for the report's matches (quick: fewer).
GAMES = 1_000
QUICK_GAMES = 200


@dataclass(frozen=True)
class Figure:
    alt: str
    png: bytes
    command: str | None = None  # the qarena plot command that draws it, when there is one


@dataclass(frozen=True)
class TableData:
    header: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]
    caption: str = ""
    #: Columns of words rather than numbers: left-aligned, and the column of commands (its
    #: index) set as code that wraps anywhere.
    words: bool = False
    code_column: int = -1


@dataclass
class Section:
    key: str
    title: str
    question: str
    finding: str = ""
    figures: list[Figure] = field(default_factory=list)
    tables: list[TableData] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    seconds: float = 0.0


Progress = Callable[[str], None]


@dataclass
class Lab:
    """Where and how the report's sweeps run."""

    runs: Path
    quick: bool
    workers: int | None = None
    backend: str = "local"
    ray_address: str | None = None
    say: Progress | None = None

    @property
    def games(self) -> int:
        return QUICK_GAMES if self.quick else GAMES

    @property
    def baseline_episodes(self) -> int:
        return 1_000_000 if self.quick else 10_000_000

    def seeds(self, full: int) -> tuple[int, ...]:
        return tuple(range(2 if self.quick else full))

    def folder(self, name: str) -> Path:
        return self.runs / name

    def out(self, name: str) -> str:
        return str(self.folder(name))

    def sweep(
        self, name: str, spec: str, grid: Grid, **options: Any
    ) -> tuple[SweepFolder, list[RunRow], str]:
        """Run (or resume) a sweep into the runs folder; its rows and its command."""
        game = parse_spec(spec)
        fixed = Fixed(game.spec, games=self.games, **options)
        folder = SweepFolder(self.folder(name))
        settings = grid.settings(game)
        with folder.locked():
            plan = plan_sweep(
                folder,
                fixed,
                settings,
                workers=self.workers,
                backend=self.backend,
                ray_address=self.ray_address,
            )
            say = self.say
            if say is not None:
                say(
                    _("{sweep}: {count} of {total} runs to train").format(
                        sweep=name, count=len(plan.tasks), total=len(settings)
                    )
                )
            trained = [0]

            def one_more(_output: object) -> None:
                # A sweep may take minutes: each finished run is news to someone waiting.
                trained[0] += 1
                if say is not None:
                    say(
                        _("{sweep}: {done} of {count} runs trained").format(
                            sweep=name, done=trained[0], count=len(plan.tasks)
                        )
                    )

            if run_plan(plan, one_more):
                raise KeyboardInterrupt
        return folder, plan.rows(), sweep_command(grid, fixed, self.out(name))


def mean_of(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def decimals(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


def run_path(folder: SweepFolder, row: RunRow) -> str:
    return str(folder.path(row.run))


def shares_where(rows: Sequence[RunRow], **match: str) -> list[float]:
    """The optimality of the runs whose columns hold the given values."""
    return [r.optimality for r in rows if all(r.settings[k] == v for k, v in match.items())]


def span_of(values: Sequence[float]) -> str:
    low, high = min(values), max(values)
    return decimals(low) if low == high else f"{decimals(low)}–{decimals(high)}"
