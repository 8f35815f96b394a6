"""A training run under way at the terminal: its progress bar (on a terminal only) and
Ctrl-C or SIGTERM asking it to stop, which it sees within a second, so that the save after it
is never torn."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from qarena.cli.common import err, stopped_by
from qarena.i18n import _
from qarena.training.run import Progress as RunProgress

_R = TypeVar("_R")


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


#: A run, started with the callback its progress goes to and the check for a stop asked for.
_Start = Callable[[Callable[[RunProgress], None], Callable[[], bool]], _R]


def with_progress(
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
