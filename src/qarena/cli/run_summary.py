"""What ``qarena train`` says of a run when it ends: its summary table, or with --json one
object, as its learner is judged (over every position for a table learner, along perfect-play
games for a network), with its curve, its time budget and where it was unbeaten from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from qarena.cli.common import styled
from qarena.games.base import Game
from qarena.i18n import _, ngettext, number
from qarena.judging.tables import Optimality
from qarena.learn.curve import Curve, CurvePoint
from qarena.learn.presets import record_text
from qarena.training.run import RunPlan, RunResult


def _share(o: Optimality) -> str:
    return _("{share:.4f} ({optimal:,} of {decisions:,} decision positions)").format(
        share=o.share, optimal=o.optimal, decisions=o.decisions
    )


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


def _summary(title: str | Text) -> Table:
    """A run's two-column summary under ``title``."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    return table


def run_record(result: RunResult, plan: RunPlan, game: Game, kind: str) -> dict[str, Any]:
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


def run_table(result: RunResult, plan: RunPlan, game: Game, title: str, out_file: Path) -> Table:
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


def judged_record(result: RunResult, plan: RunPlan, game: Game) -> dict[str, Any]:
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


def judged_table(result: RunResult, plan: RunPlan, game: Game, out_file: Path) -> Table:
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
