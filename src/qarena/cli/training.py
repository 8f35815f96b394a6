"""qarena train: learn by self-play or against an opponent, and save a policy file."""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from qarena.cli.common import (
    CanonicalOpt,
    EpisodesOpt,
    SpecArg,
    announce,
    app,
    check_curve_every,
    err,
    out,
    stopped_by,
    styled,
    told_stop,
    with_settings,
)
from qarena.errors import QarenaError
from qarena.fileio import check_target, is_file
from qarena.games import parse_spec
from qarena.games.base import Game
from qarena.i18n import _, ngettext, number
from qarena.judging.tables import Optimality
from qarena.learn.base import read_rewards
from qarena.learn.curve import Curve, CurvePoint
from qarena.learn.learners import load_learner, save_learner
from qarena.learn.presets import record_text
from qarena.learn.settings import ALL_SETTINGS
from qarena.training.run import Progress as RunProgress
from qarena.training.run import (
    RunPlan,
    RunRequest,
    RunResult,
    check_counts,
    request_run,
)

_R = TypeVar("_R")

#: Default runs of this many episodes or more (minutes, at about a million a second) are
#: announced, so nobody waits without knowing why.
LONG_RUN_EPISODES = 100_000_000


def _rewards(text: str) -> tuple[float, float, float]:
    rewards = read_rewards(text)
    if rewards is None:
        raise QarenaError(
            _("--rewards must be three numbers WIN,DRAW,LOSS like 1,0,-1, not {text!r}").format(
                text=text
            )
        )
    return rewards


class _StopFlag:
    """Ctrl-C or SIGTERM (``kill``, a scheduler's stop) during training asks the run to stop,
    which it sees within a second wherever it is, and what was learned is saved whole."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.set = False
        self._old: dict[int, Any] = {}

    def _handle(self, signum: int, frame: object) -> None:
        self.set = True
        if signum != signal.SIGINT:
            stopped_by(signum)

    def __enter__(self) -> _StopFlag:
        self._old = {s: signal.signal(s, self._handle) for s in self.SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for s, old in self._old.items():
            signal.signal(s, old)


def _share(o: Optimality) -> str:
    return _("{share:.4f} ({optimal:,} of {decisions:,} decision positions)").format(
        share=o.share, optimal=o.optimal, decisions=o.decisions
    )


@app.command("train")
@with_settings(after="seat")
def train_command(  # noqa: PLR0913 - the command's options
    spec: SpecArg,
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Policy file to write (.npz; default: a new file named after the game and "
            "learner in the current folder, like nim-1-2-3-q.npz).",
            show_default=False,
        ),
    ] = None,
    learner_kind: Annotated[
        str | None,
        typer.Option(
            "--learner",
            "-l",
            help="The learner: {learner_titles}; or ntuple (an n-tuple network, for boards of "
            "any size), or alphazero (a policy-value network learning through its search; "
            # The backslash keeps rich from reading "[deep]" as a style tag in --help.
            "pip install 'qarena\\[deep]'). Default: q.",
            show_default=False,
        ),
    ] = None,
    episodes: EpisodesOpt = None,
    opponent_name: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="self, random, perfect, strongest, bouton, subtraction, poles, poles-strict, "
            "or a policy file. Default: self.",
            show_default=False,
        ),
    ] = None,
    seat: Annotated[
        str | None,
        typer.Option(
            help="Against an opponent: first, second, or both (alternating). Default: both.",
            show_default=False,
        ),
    ] = None,
    preset_name: Annotated[
        str | None,
        typer.Option(
            "--preset",
            help="Every setting of a write-up's method (learner, settings, opponent, seat, "
            "episodes); options given as well override it. One of: {presets}.",
            show_default=False,
        ),
    ] = None,
    canonical: CanonicalOpt = None,
    until_perfect: Annotated[
        bool,
        typer.Option("--until-perfect", help="Stop as soon as the solver finds the play perfect."),
    ] = False,
    check_every: Annotated[
        int | None,
        typer.Option(help="Check optimality every N episodes (--until-perfect: 1% of the run)."),
    ] = None,
    resume: Annotated[Path | None, typer.Option(help="Continue training this policy file.")] = None,
    curve: Annotated[
        bool,
        typer.Option(
            "--curve",
            help="Record a learning curve (optimality, wins against random and perfect) "
            "in the policy file; draw it with qarena plot.",
        ),
    ] = False,
    every: Annotated[
        int | None,
        typer.Option(help="With --curve: a point every K episodes (default: 1% of the run)."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="n-tuple network: threads of self-play sharing its tables; AlphaZero: "
            "processes (or Ray actors) playing its games (default: every core).",
            show_default=False,
        ),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(help="AlphaZero: where its games are played, local (processes here) or ray."),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(help="With --backend ray: the cluster to join (default: start one here)."),
    ] = None,
    minutes: Annotated[
        float | None,
        typer.Option(
            help="Stop training after M minutes of wall time, saving and judging the learner "
            "as at the end of its episodes (with a large --episodes: train for M minutes).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    **settings: Any,
) -> int:
    """Train an agent by self-play or against an opponent, and save it as a policy file."""
    game = parse_spec(spec)
    given = {s.name: settings[s.name] for s in ALL_SETTINGS}
    if given["rewards"] is not None:
        given["rewards"] = _rewards(given["rewards"])
    # The one set-up of a run's request, as qarena.train's and the web's: a preset fills what
    # was not given, and what the learner kind has no use for is refused.
    request = request_run(
        game,
        learner_kind,
        given,
        preset=preset_name,
        opponent=opponent_name,
        seat=seat,
        episodes=episodes,
        canonical=canonical,
        until_perfect=until_perfect,
        check_every=check_every,
        curve=curve,
        every=every,
        workers=workers,
        backend=backend,
        ray_address=ray_address,
        minutes=minutes,
    )
    chosen = out_file is None
    if out_file is None:
        out_file = default_out(game, request.kind)
    run = _Run(out_file, request.episodes, resume, curve, every, as_json)
    code = _train(request, run)
    if chosen and out_file.exists():
        err.print(_("No --out given: saved to {file}.").format(file=out_file), soft_wrap=True)
    return code


#: The most default names tried (nim-1-2-3-q.npz, then -2 … ) before refusing.
DEFAULT_NAMES = 1000


def default_out(game: Game, learner_kind: str) -> Path:
    """A new file in the current folder named after the game and learner, never an existing
    one: a run without --out must not replace an earlier run's file."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", f"{game.spec} {learner_kind}").strip("-")
    for n in range(1, DEFAULT_NAMES + 1):
        path = Path(f"{stem}.npz" if n == 1 else f"{stem}-{n}.npz")
        if not path.exists():
            return path
    raise QarenaError(
        _("{file} and {count:,} more like it exist already; name the file with --out").format(
            file=f"{stem}.npz", count=DEFAULT_NAMES - 1
        )
    )


def _train(request: RunRequest, run: _Run) -> int:
    """The train command once its request is checked and its file known, for every learner
    kind: what is its own (the files, the progress bar, the summary) around the run
    ``request.plan`` sets up."""
    game, out_file, resume = request.game, run.out_file, run.resume
    cls = request.learner
    check_curve_every(run.every, run.curve)
    check_counts(run.episodes, request.check_every, run.every, request.workers)
    # The one input --out may name is --resume's file: training goes on in place, and the file
    # is read whole and verified before the new one replaces it atomically.
    opponent = request.opponent
    inputs = [opponent] if isinstance(opponent, str) and is_file(opponent) else []
    check_target(out_file, inputs)
    resumed = None
    if resume is not None:
        resumed = load_learner(resume, game, cls.kind)
    elif request.tables:
        announce(game)  # its tables are the game's: a long search is said before it starts
    plan = request.plan(resume=resumed, resumed_from=None if resume is None else str(resume))
    _say_default_run(game, plan, run.episodes)
    title = _("{learner} on {spec}").format(learner=cls.title, spec=game.spec)
    result = _with_progress(title, plan.total, cls.unit, plan.run)
    save_learner(out_file, plan.learner, inputs)
    # What a run says of itself follows how its learner is judged: over every position, or
    # along perfect-play games (its curve's last point).
    if request.tables:
        summary = _run_record(result, plan, game, cls.kind) if run.as_json else None
        table = None if run.as_json else _run_table(result, plan, game, cls.title, out_file)
    else:
        summary = _judged_record(result, plan, game) if run.as_json else None
        table = None if run.as_json else _judged_table(result, plan, game, out_file)
    if summary is not None:
        out.print(json.dumps(summary), soft_wrap=True)
    else:
        out.print(table)
    if result.stopped:
        return _interrupted(result.episodes)
    return 0


def _say_default_run(game: Game, plan: RunPlan, episodes: int | None) -> None:
    """Say how long a default run is where it is long: a table learner's of many episodes,
    and always a run of games of self-play (minutes on a big board)."""
    if episodes is not None:
        return
    if plan.learner.unit == "games":
        err.print(
            _(
                "{spec}: the default run is {count:,} games of self-play; --episodes N trains "
                "fewer."
            ).format(spec=game.spec, count=plan.total)
        )
    elif plan.total >= LONG_RUN_EPISODES:
        err.print(
            _(
                "{spec} has many moves to learn: the default run is {count:,} episodes, which "
                "can take a long while; --episodes N trains fewer."
            ).format(spec=game.spec, count=plan.total)
        )


@dataclass(frozen=True)
class _Run:
    """The options every kind of run takes: its file, its length, the file it goes on from,
    its curve, and how its summary is printed."""

    out_file: Path
    episodes: int | None
    resume: Path | None
    curve: bool
    every: int | None
    as_json: bool


#: A run, started with the callback its progress goes to and the check for a stop asked for.
_Start = Callable[[Callable[[RunProgress], None], Callable[[], bool]], _R]


def _with_progress(
    title: str, total: int, unit: Literal["episodes", "games"], start: _Start[_R]
) -> _R:
    """Run ``start`` under a progress bar (on a terminal) and Ctrl-C asking for a stop between
    chunks, so the save after it is never torn."""
    progress = _progress()
    shown = {"optimality": ""}

    def show(p: RunProgress) -> None:
        if p.optimality is not None:
            shown["optimality"] = _("optimality {share:.4f}").format(share=p.optimality.share)
        if p.point is not None:
            shown["optimality"] = _("optimality {share:.4f}").format(share=p.point.optimality)
            if p.point.varied is not None:
                shown["optimality"] = _(
                    "optimality {share:.4f} along perfect play, {varied:.4f} from varied openings"
                ).format(share=p.point.optimality, varied=p.point.varied)
            if p.point.uniform is not None:
                shown["optimality"] = _(
                    "optimality {share:.4f} along perfect play, {uniform:.4f} over all positions "
                    "(a sample)"
                ).format(share=p.point.optimality, uniform=p.point.uniform)
        rate = ""
        if p.seconds > 0:
            per = p.episodes / p.seconds
            rate = (
                _("{rate:,.0f} episodes/s").format(rate=per)
                if unit == "episodes"
                else _("{rate:,.0f} games/s").format(rate=per)
            )
        progress.update(task, completed=p.episodes, rate=rate, optimality=shown["optimality"])

    with _StopFlag() as stop, progress:
        task = progress.add_task(title, total=total, rate="", optimality="")
        return start(show, lambda: stop.set)


def _point_text(p: CurvePoint) -> str:
    win, draw, loss = p.record
    if p.varied is not None:
        return _(
            "optimality {share:.4f} along perfect play, {varied:.4f} from varied openings; "
            "moving first against perfect play: {win:.0%} won, {draw:.0%} drawn, {loss:.0%} lost"
        ).format(share=p.optimality, varied=p.varied, win=win, draw=draw, loss=loss)
    if p.uniform is not None:
        return _(
            "optimality {share:.4f} along perfect play, {uniform:.4f} over a uniform sample of "
            "all positions; moving first against perfect play: {win:.0%} won, {draw:.0%} drawn, "
            "{loss:.0%} lost"
        ).format(share=p.optimality, uniform=p.uniform, win=win, draw=draw, loss=loss)
    return _(
        "optimality {share:.4f} along perfect play; moving first against perfect play: "
        "{win:.0%} won, {draw:.0%} drawn, {loss:.0%} lost"
    ).format(share=p.optimality, win=win, draw=draw, loss=loss)


def _progress() -> Progress:
    """The bar a run shows while it trains: on a terminal only, for people watching it."""
    return Progress(
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("{task.fields[optimality]}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def _summary(title: str | Text) -> Table:
    """A run's two-column summary under ``title``."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    return table


def _interrupted(count: int) -> int:
    err.print(
        ngettext(
            "interrupted after {count:,} episodes; what was learned is saved.",
            "interrupted after {count:,} episodes; what was learned is saved.",
            count,
        ).format(count=count)
    )
    return told_stop()


def _run_record(result: RunResult, plan: RunPlan, game: Game, kind: str) -> dict[str, Any]:
    """``train --json``'s object for a table learner's run."""
    rate = result.steps / result.seconds if result.seconds > 0 else 0.0
    record: dict[str, Any] = {
        "game": game.spec,
        "learner": kind,
        "episodes": result.episodes,
        "train_seconds": round(result.seconds, 6),
        "steps": result.steps,
        "steps_per_second": round(rate),
        "optimality": result.exact.share,
    }
    if plan.learner.preset is not None:
        record["preset"] = plan.learner.preset
    if plan.until_perfect:
        record["perfect_at"] = result.perfect_at
    if plan.curve is not None:
        record["curve_points"] = len(plan.curve.points)
    _unbeaten_record(record, plan.curve)
    _end_record(record, result, plan)
    return record


def _end_record(record: dict[str, Any], result: RunResult, plan: RunPlan) -> None:
    """How the run ended, in ``train --json``'s object: its time budget, whether it was
    spent, whether the run was interrupted."""
    if plan.minutes is not None:
        record["minutes"] = plan.minutes
        record["time_up"] = result.timed_out
    if result.stopped:
        record["interrupted"] = True


def _time_row(table: Table, result: RunResult, plan: RunPlan) -> None:
    """A row saying the run ended on its time budget, when it did."""
    if result.timed_out and plan.minutes is not None:
        table.add_row(
            _("time budget"),
            _("spent ({minutes:g} minutes): training ended before its episodes were done").format(
                minutes=plan.minutes
            ),
        )


def _curve_text(curve: Curve) -> str:
    return ngettext(
        "{points:,} points, one every {every:,} episodes",
        "{points:,} points, one every {every:,} episodes",
        curve.every,
    ).format(points=len(curve.points), every=curve.every)


def _unbeaten_text(curve: Curve) -> str | None:
    """Where the curve records the best reply: in each seat, the point from which on no
    opponent who knows the learner's moves could beat it from the start, or that it was
    beaten at the last point."""
    since = curve.unbeaten_since()
    if since is None:
        return None
    seats = {"first": _("moving first"), "second": _("moving second")}
    parts = []
    for seat, at in since.items():
        verdict = (
            _("beaten at the last point")
            if at is None
            else _("at every point from {count:,} on").format(count=at)
        )
        parts.append(_("{seat}: {verdict}").format(seat=seats[seat], verdict=verdict))
    return "; ".join(parts)


def _unbeaten_record(record: dict[str, Any], curve: Curve | None) -> None:
    """``train --json``'s ``"unbeaten_since"``: per seat, the episodes (games) from whose
    point on the learner was unbeaten from the start (null: beaten at the last point)."""
    since = None if curve is None else curve.unbeaten_since()
    if since is not None:
        record["unbeaten_since"] = since


def _run_table(result: RunResult, plan: RunPlan, game: Game, title: str, out_file: Path) -> Table:
    """``train``'s summary of a table learner's run."""
    learner, opp = plan.learner, plan.opponent
    table = _summary(
        styled(_("{learner} on {game}  [dim]{spec}[/]"), learner=title, game=game.title,
               spec=game.spec)
    )  # fmt: skip
    table.add_row(
        _("opponent"),
        opp.name
        if opp.self_play
        else _("{opponent}, learner's seat: {seat}").format(opponent=opp.name, seat=plan.seat),
    )
    if learner.preset is not None:
        table.add_row(_("preset"), record_text(learner.preset))
    episodes_text = number(result.episodes, ",")
    if learner.episodes != result.episodes:
        episodes_text = _("{count:,} ({total:,} in all)").format(
            count=result.episodes, total=learner.episodes
        )
    table.add_row(_("episodes"), episodes_text)
    rate = result.steps / result.seconds if result.seconds > 0 else 0.0
    table.add_row(
        _("training"),
        ngettext(
            "{seconds:.3f} s, {steps:,} moves, {rate:,.0f} moves/s",
            "{seconds:.3f} s, {steps:,} moves, {rate:,.0f} moves/s",
            result.steps,
        ).format(seconds=result.seconds, steps=result.steps, rate=rate),
    )
    _time_row(table, result, plan)
    table.add_row(_("optimality"), _share(result.exact))
    if plan.until_perfect:
        table.add_row(
            _("perfect play"),
            ngettext(
                "after {count:,} episodes", "after {count:,} episodes", result.perfect_at
            ).format(count=result.perfect_at)
            if result.perfect_at is not None
            else _("not reached; train longer with --episodes"),
        )
    if plan.curve is not None:
        table.add_row(_("learning curve"), _curve_text(plan.curve))
        unbeaten = _unbeaten_text(plan.curve)
        if unbeaten is not None:
            table.add_row(_("unbeaten from the start"), unbeaten)
    table.add_row(_("saved to"), str(out_file))
    return table


def _judged_record(result: RunResult, plan: RunPlan, game: Game) -> dict[str, Any]:
    """``train --json``'s object for a learner judged along play (``--learner ntuple``)."""
    net, threads = plan.learner, plan.workers
    rate = result.episodes / result.seconds if result.seconds > 0 else 0.0
    record: dict[str, Any] = {
        "game": game.spec,
        "learner": net.kind,
        "episodes": result.episodes,
        "train_seconds": round(result.seconds, 6),
        "steps": result.steps,
        "games_per_second": round(rate),
        "workers": threads,
        **net.shape(),
    }
    if result.point is not None:
        win, draw, loss = result.point.record
        record["optimality"] = result.point.optimality
        if result.point.varied is not None:
            record["varied_optimality"] = result.point.varied
        if result.point.uniform is not None:
            record["uniform_optimality"] = result.point.uniform
        record["perfect_first"] = {"win": win, "draw": draw, "loss": loss}
        record["curve_points"] = len(net.curve.points) if net.curve is not None else 0
    _unbeaten_record(record, plan.curve)
    _end_record(record, result, plan)
    return record


def _judged_table(result: RunResult, plan: RunPlan, game: Game, out_file: Path) -> Table:
    """``train``'s summary for a learner judged along play (``--learner ntuple``)."""
    net, threads, run_curve = plan.learner, plan.workers, plan.curve
    table = _summary(
        styled(_("{learner} on {game}  [dim]{spec}[/]"), learner=net.title, game=game.title,
               spec=game.spec)
    )  # fmt: skip
    for label, text in net.summary():
        table.add_row(label, text)
    games_text = number(result.episodes, ",")
    if net.episodes != result.episodes:
        games_text = _("{count:,} ({total:,} in all)").format(
            count=result.episodes, total=net.episodes
        )
    table.add_row(_("games of self-play"), games_text)
    rate = result.episodes / result.seconds if result.seconds > 0 else 0.0
    table.add_row(
        _("training"),
        ngettext(
            "{seconds:,.1f} s on {threads} thread, {rate:,.0f} games/s",
            "{seconds:,.1f} s on {threads} threads, {rate:,.0f} games/s",
            threads,
        ).format(seconds=result.seconds, threads=threads, rate=rate),
    )
    _time_row(table, result, plan)
    if result.point is not None:
        table.add_row(_("judged"), _point_text(result.point))
    if net.curve is not None and run_curve is not None:
        table.add_row(_("learning curve"), _curve_text(run_curve))
        unbeaten = _unbeaten_text(run_curve)
        if unbeaten is not None:
            table.add_row(_("unbeaten from the start"), unbeaten)
    table.add_row(_("saved to"), str(out_file))
    return table
