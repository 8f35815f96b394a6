"""Learning curves from Python: learners' curves side by side (:func:`curves`), by the
measure they share, drawn on one chart in a notebook (:class:`Curves`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qarena.api.games import python_call
from qarena.errors import QarenaError
from qarena.i18n import _, option
from qarena.learn.curve import CurvePoint
from qarena.learn.family import Trainable
from qarena.optional import need
from qarena.show import display
from qarena.show.figures import check_beside


@dataclass(frozen=True)
class Curves:
    """Learners' learning curves side by side, by the measure they share: optimality over all
    decision positions (a table learner's counted over every one, a network's over its curve's
    uniform sample of them) after each count of episodes (a network's games of self-play).
    A notebook draws them on one chart; :meth:`to_pandas` gives the points."""

    names: tuple[str, ...]
    learners: tuple[Trainable, ...]

    def _points(self) -> list[list[CurvePoint]]:
        return [list(le.curve.points) if le.curve is not None else [] for le in self.learners]

    def __repr__(self) -> str:
        lines = [
            f"{name}: {len(points)} points to {points[-1].episodes:,}, optimality "
            f"{points[-1].everywhere:.4f}"
            for name, le, points in zip(self.names, self.learners, self._points(), strict=True)
        ]
        return "\n".join(lines)

    def to_pandas(self) -> Any:
        """A row per point: the run's name, its learner kind, its episodes (games), and its
        optimality over all positions; pandas must be installed."""
        pd = need("pandas", "pandas")
        rows = [
            (name, le.kind, p.episodes, p.everywhere)
            for name, le, points in zip(self.names, self.learners, self._points(), strict=True)
            for p in points
        ]
        return pd.DataFrame(rows, columns=["name", "learner", "episodes", "optimality"])

    def _repr_html_(self) -> str:
        return display.curves_html(list(zip(self.names, self._points(), strict=True)))


@python_call
def curves(*learners: Trainable, names: Sequence[str] | None = None) -> Curves:
    """The learning curves of ``learners`` (each trained with ``curve=True``), to be drawn
    side by side: table learners and networks alike, by optimality over all decision
    positions. A network's curve shows it where its board is enumerated (its points judge a
    uniform sample of all positions there). ``names`` label them (default: each learner's
    kind, numbered)."""
    if not learners:
        raise QarenaError(_("no runs to plot"))
    labels = (
        tuple(names)
        if names is not None
        else tuple(f"{i + 1}: {le.title}" for i, le in enumerate(learners))
    )
    if len(labels) != len(learners):
        raise QarenaError(
            _("give one name per learner (names: {names}, learners: {learners})").format(
                names=len(labels), learners=len(learners)
            )
        )
    for label, le in zip(labels, learners, strict=True):
        if le.curve is None or not le.curve.points:
            raise QarenaError(
                _("{name} has no learning curve; train it with {curve}").format(
                    name=label, curve=option("--curve")
                )
            )
        check_beside(label, le)
    return Curves(labels, tuple(learners))
