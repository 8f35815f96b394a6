"""qarena sweep and qarena report: one training run for every combination of settings, on
every core or a Ray cluster, with one table of results; and the report built from sweeps."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from qarena.budget import (
    MAX_EPISODES,
    check_count,
)
from qarena.cli.common import (
    CanonicalOpt,
    SpecArg,
    announce,
    app,
    check_curve_every,
    err,
    out,
    route,
    styled,
    told_stop,
    with_settings,
)
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.experiments.backends import BACKENDS, run_plan, set_up_sweep
from qarena.experiments.folder import MEASURED, SETTING_COLUMNS, RunRow, SweepFolder
from qarena.experiments.grid import (
    NETWORK_AXES,
    Grid,
    flag,
    parse_seeds,
    with_preset,
)
from qarena.experiments.lists import parse_floats, parse_ints, parse_names, parse_rewards
from qarena.experiments.report import Lab, build_report, render_html
from qarena.experiments.sweep_figures import varying
from qarena.fileio import check_target, is_dir, write_atomic
from qarena.games import Game, parse_spec
from qarena.i18n import _, ngettext, number
from qarena.learn.learners import LEARNERS
from qarena.learn.presets import canonical_of
from qarena.learn.settings import ALL_SETTINGS, KIND_SETTINGS, NAMES
from qarena.learn.tables.base import SCHEDULES, SEATS, START_ORDERS

#: Most worker processes a sweep starts.
MAX_WORKERS = 1_024
#: Rows shown in the summary table; results.csv has them all.
SHOWN_ROWS = 30


def _grid(  # noqa: PLR0913 - the sweep's lists
    learners: str | None,
    lists: dict[str, str | None],
    rewards: list[str] | None,
    opponents: str | None,
    seats: str | None,
    episodes: str | None,
    seeds: str,
    game: Game,
    preset: str | None = None,
) -> Grid:
    values: dict[str, tuple[Any, ...]] = {}
    # Each axis read as its declaration types it (a registered kind's own settings too).
    for s in ALL_SETTINGS:
        text = lists.get(s.name)
        if s.kind == "float" and text is not None:
            values[s.name] = parse_floats(flag(s.name), text)
    for s in KIND_SETTINGS:
        text = lists[s.name]
        if s.kind == "int" and text is not None:
            values[s.name] = parse_ints(s.option, text, int(s.high or 0))
    if lists["schedule"] is not None:
        values["schedule"] = parse_names("--epsilon-schedule", lists["schedule"], SCHEDULES)
    if lists["start_order"] is not None:
        values["start_order"] = parse_names("--start-order", lists["start_order"], START_ORDERS)
    if rewards:
        values["rewards"] = parse_rewards(rewards)
    # A list not given is the preset's one value (qarena's default without a preset).
    return with_preset(
        preset,
        game,
        None if learners is None else parse_names("--learner", learners, tuple(LEARNERS)),
        values,
        None if opponents is None else parse_names("--opponent", opponents),
        None if seats is None else parse_names("--seat", seats, SEATS),
        None if episodes is None else parse_ints("--episodes", episodes, MAX_EPISODES),
        parse_seeds(seeds),
    )


def _summary(rows: list[RunRow], curve: bool) -> Table:
    """The runs by what tells them apart (the columns that vary), with their results."""
    # Blank cells are settings a run's learner lacks: they tell no runs apart.
    columns = varying(rows, SETTING_COLUMNS) or ["learner"]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for column in columns:
        table.add_column(column.replace("_", " "), no_wrap=True)
    table.add_column(_("episodes"), justify="right")
    table.add_column(_("optimality"), justify="right")
    if curve:
        table.add_column(_("perfect at"), justify="right")
    # Where measured (every board whose tables fit): can the strongest opponent beat it?
    replied = any(r.unbeaten != (None, None) for r in rows)
    if replied:
        table.add_column(_("unbeaten 1st/2nd"), justify="right", no_wrap=True)
    for name in MEASURED:
        table.add_column(_("{opponent} w/d/l").format(opponent=name), justify="right", no_wrap=True)
    for row in rows[:SHOWN_ROWS]:
        cells = [row.column(c) for c in columns]
        cells += [number(row.episodes, ","), number(row.optimality, ".4f")]
        if curve:
            cells.append("-" if row.perfect_at is None else number(row.perfect_at, ","))
        if replied:
            words = {True: _("yes"), False: _("no"), None: "-"}
            cells.append("/".join(words[u] for u in row.unbeaten))
        for name in MEASURED:
            cells.append("/".join(f"{share:.2f}" for share in row.against[name]))
        table.add_row(*cells)
    return table


#: Where runs are trained: sweep and report take the same options.
WorkersOpt = Annotated[
    int | None, typer.Option(help="Runs at once (default: the number of cores).")
]
BackendOpt = Annotated[str, typer.Option(help="local (processes here) or ray.")]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(help="With --backend ray: the cluster to join (default: start one here)."),
]


def check_backend(backend: str, ray_address: str | None, workers: int | None) -> None:
    if workers is not None:
        check_count("--workers", workers, MAX_WORKERS)
    if backend not in BACKENDS:
        raise QarenaError(
            _("unknown backend {backend!r}; expected {backends}").format(
                backend=backend, backends=", ".join(BACKENDS)
            )
        )
    if ray_address is not None and backend != "ray":
        raise QarenaError(_("--ray-address applies to --backend ray"))
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        # Refused before the folder is made, not once the sweep has started.
        raise QarenaError(_("--backend ray needs Ray; install it with: pip install 'qarena[ray]'"))


@app.command("sweep")
@with_settings(after="learners", sweep=True)
def sweep_command(  # noqa: PLR0913 - the command's options
    spec: SpecArg,
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="The sweep's folder (made if new; resumed if not).",
            show_default=False,
        ),
    ],
    learners: Annotated[
        str | None,
        typer.Option(
            "--learner",
            "-l",
            help="Learners, comma-separated, of {learners}, ntuple (an n-tuple network), "
            "alphazero (a policy-value network). Default: q.",
            show_default=False,
        ),
    ] = None,
    opponents: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="self, random, perfect, strongest, the game's rule players, policy files. "
            "Default: self.",
            show_default=False,
        ),
    ] = None,
    seats: Annotated[
        str | None,
        typer.Option(
            "--seat",
            help="Against an opponent: first, second, both. Default: both.",
            show_default=False,
        ),
    ] = None,
    preset_name: Annotated[
        str | None,
        typer.Option(
            "--preset",
            help="A write-up's method beneath the lists (one value each where none is "
            "given): {presets}.",
            show_default=False,
        ),
    ] = None,
    episodes: Annotated[
        str | None, typer.Option(help="Episode counts (default: the learner's for the game).")
    ] = None,
    seeds: Annotated[str, typer.Option(help="Seeds: a range 0-4, a list 0,3,7, or both.")] = "0",
    canonical: CanonicalOpt = None,
    curve: Annotated[
        bool,
        typer.Option("--curve", help="Record each run's learning curve (for plots, perfect_at)."),
    ] = False,
    every: Annotated[
        int | None, typer.Option(help="With --curve: a point every K episodes.")
    ] = None,
    until_perfect: Annotated[
        bool,
        typer.Option(
            "--until-perfect",
            help="Stop each run as soon as the solver finds its play perfect (its perfect_at).",
        ),
    ] = False,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help=(
                "Games in each seat against random and perfect play (default: 1,000; 10 on a "
                "board judged by samples, where perfect play searches each move)."
            ),
            show_default=False,
        ),
    ] = None,
    workers: WorkersOpt = None,
    backend: BackendOpt = "local",
    ray_address: RayAddressOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    **options: Any,
) -> int:
    """Train one agent for every combination of the settings given as comma-separated lists
    (reward triples separated by ';', or --rewards repeated), each run exactly as qarena train
    with those settings, and measure each one. Runs are saved as policy files under DIR/runs/,
    one row each in DIR/results.csv; run the same command again to resume an interrupted
    sweep."""
    game = parse_spec(spec)
    check_backend(backend, ray_address, workers)
    check_curve_every(every, curve)
    answers = Oracle.of(game)
    if games is None:
        games = answers.games  # the family's, whatever the memory free here
    check_count("--games", games, 1_000_000)
    lists: dict[str, Any] = {
        name: options[name] for name in (*NAMES, *NETWORK_AXES) if name != "seed"
    }
    rewards = lists.pop("rewards")
    announce(game)
    grid = _grid(learners, lists, rewards, opponents, seats, episodes, seeds, game, preset_name)
    runs = set_up_sweep(
        game,
        grid,
        games=games,
        canonical=canonical_of(preset_name, canonical),
        curve=curve,
        every=every,
        until_perfect=until_perfect,
    )
    settings = runs.settings
    folder = SweepFolder(out_dir)
    with folder.locked():
        plan = runs.plan(folder, workers=workers, backend=backend, ray_address=ray_address)
        if plan.note is not None:
            err.print(plan.note)
        route(game)  # planned: says why where this machine judges by search
        skipped = plan.skipped
        if skipped and not as_json:
            err.print(
                ngettext(
                    "{count:,} of {total:,} runs were finished before: skipped",
                    "{count:,} of {total:,} runs were finished before: skipped",
                    len(settings),
                ).format(count=skipped, total=len(settings))
            )

        progress = Progress(
            TextColumn("{task.description}", style="bold", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(_("runs")),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        )
        with progress:
            bar = progress.add_task(
                _("sweep of {spec}").format(spec=game.spec),
                total=len(settings),
                completed=skipped,
            )
            interrupted = run_plan(plan, lambda _run: progress.advance(bar))
    ours = plan.rows()
    trained = len(ours) - skipped
    if as_json:
        record = {
            "game": game.spec,
            "out": str(out_dir),
            "results": str(folder.results),
            "runs": len(settings),
            "trained": trained,
            "skipped": skipped,
            "rows": [row.cells() for row in ours],
        }
        if interrupted:
            record["interrupted"] = True
        out.print(json.dumps(record), soft_wrap=True)
    else:
        out.print(
            styled(
                ngettext(
                    "[bold]Sweep of {game}[/]  [dim]{spec}: {count:,} runs, {trained:,} trained "
                    "now[/]",
                    "[bold]Sweep of {game}[/]  [dim]{spec}: {count:,} runs, {trained:,} trained "
                    "now[/]",
                    len(settings),
                ),
                game=game.title,
                spec=game.spec,
                count=len(settings),
                trained=trained,
            )
        )
        summary = _summary(ours, curve)
        # Wider than the screen: printed whole (the lines wrap), never a result squeezed out.
        wide = Measurement.get(out, out.options.update(max_width=1_000), summary).maximum
        width = out.width
        try:
            out.width = max(width, wide)
            out.print(summary)
        finally:
            out.width = width
        if len(ours) > SHOWN_ROWS:
            more = len(ours) - SHOWN_ROWS
            out.print(
                ngettext(
                    "… and {count:,} more rows in {file}",
                    "… and {count:,} more rows in {file}",
                    more,
                ).format(count=more, file=folder.results)
            )
        else:
            out.print(_("results: {file}").format(file=folder.results), soft_wrap=True)
    if interrupted:
        left = len(settings) - len(ours)
        err.print(
            ngettext(
                "interrupted: {done:,} of {total:,} runs are finished and saved; run the same "
                "command again to train the other {left:,}.",
                "interrupted: {done:,} of {total:,} runs are finished and saved; run the same "
                "command again to train the other {left:,}.",
                len(settings),
            ).format(done=len(ours), total=len(settings), left=left)
        )
        return told_stop()
    return 0


@contextlib.contextmanager
def _report_progress() -> Iterator[Callable[[str], None]]:
    """Where the report is, on stderr alone (its output may be a redirected file, which gets
    only the page's line): a spinner on a terminal; elsewhere (a log, a pipe) a line at each
    step, where a spinner shows nothing, so a run of minutes is not silent."""
    if err.is_terminal:
        with err.status(_("starting…")) as status:
            yield lambda text: status.update(_("report: {text}").format(text=text))
        return
    err.print(_("report: {text}").format(text=_("starting…")), soft_wrap=True)
    yield lambda text: err.print(_("report: {text}").format(text=text), soft_wrap=True)


@app.command("report")
def report_command(
    out_file: Annotated[
        Path,
        typer.Option("--out", "-o", help="The page to write (.html)."),
    ] = Path("report.html"),
    quick: Annotated[
        bool,
        typer.Option(
            "--quick", help="Fewer seeds, episodes and games: a couple of minutes on 2 cores."
        ),
    ] = False,
    runs: Annotated[
        Path | None,
        typer.Option(
            help="Folder for the report's sweeps (default: beside the page, named after it "
            "with -runs); finished runs there are reused.",
            show_default=False,
        ),
    ] = None,
    workers: WorkersOpt = None,
    backend: BackendOpt = "local",
    ray_address: RayAddressOpt = None,
) -> int:
    """Run a fixed set of experiments (discounting, whom to learn from, α and ε, tic-tac-toe's
    episodes, the pole-position strategy, the learners compared) and write one self-contained
    HTML page: each question with its figure, its numbers and the commands that reproduce
    them. The experiments are sweeps, on every core."""
    if out_file.suffix.lower() not in (".html", ".htm"):
        raise QarenaError(_("--out {file} must name an .html file").format(file=out_file))
    check_backend(backend, ray_address, workers)
    check_target(out_file)
    folder = runs if runs is not None else out_file.with_name(out_file.stem + "-runs")
    if os.path.lexists(folder) and not is_dir(folder):
        raise QarenaError(_("--runs {folder} is not a folder").format(folder=folder))
    t0 = time.monotonic()
    with _report_progress() as say:
        lab = Lab(folder, quick, workers, backend, ray_address, say=say)
        try:
            sections = build_report(lab)
        except KeyboardInterrupt:
            err.print(
                _(
                    "interrupted: the finished runs are kept in {folder}; run the same command "
                    "again to go on."
                ).format(folder=folder)
            )
            return told_stop()
    seconds = time.monotonic() - t0
    write_atomic(out_file, render_html(sections, lab, seconds))
    out.print(
        ngettext(
            "wrote {file}: {count} sections in {seconds:.0f} s; runs in {folder}",
            "wrote {file}: {count} sections in {seconds:.0f} s; runs in {folder}",
            len(sections),
        ).format(file=out_file, count=len(sections), seconds=seconds, folder=folder),
        markup=False,
        soft_wrap=True,
    )
    return 0
