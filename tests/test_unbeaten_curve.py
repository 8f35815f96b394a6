"""Learning curves follow "unbeaten from the start" over training: each point of a curve on a
game enumerated here records, per seat, whether the best reply beats the learner there."""

from __future__ import annotations

import pytest

import qarena
from qarena.errors import QarenaError
from qarena.learn.curve import COLUMNS, UNBEATEN, Curve
from qarena.show.curve_svg import curve_svg
from qarena.training.run import Progress


def test_each_point_is_the_best_replys_verdict_then() -> None:
    """At every point, while training goes on, the learner judged by ``qarena.best_reply``
    (the full search, with its lines) gives the verdicts the point recorded; a point whose
    optimality is 1 (the value kept everywhere) is unbeaten in both seats, as it must be; a
    table just started is beaten in both (it has learned nothing of the game)."""
    agent = qarena.train("tictactoe", episodes=1, seed=7, curve=True, every=100)
    checked: list[tuple[int, tuple[bool, bool]]] = []

    def check(p: Progress) -> None:
        if p.point is None:
            return
        reply = qarena.best_reply(agent)
        seats = (not reply.seats["first"].beaten, not reply.seats["second"].beaten)
        assert p.point.unbeaten == seats, p.point.episodes
        checked.append((p.point.episodes, seats))

    qarena.train("tictactoe", resume=agent, episodes=3_999, curve=True, callback=check)
    assert agent.curve is not None and agent.curve.columns == (*COLUMNS, *UNBEATEN)
    assert len(checked) >= 30
    first = agent.curve.points[0]
    assert first.episodes == 1 and first.unbeaten == (False, False)
    for point in agent.curve.points:
        if point.optimality == 1.0:
            assert point.unbeaten == (True, True)
    # Both verdicts change over the run: it is beaten early and unbeaten at its end here.
    assert {s for _e, s in checked} >= {(False, False), (True, True)}
    since = agent.curve.unbeaten_since()
    assert since is not None and since["first"] is not None and since["second"] is not None
    assert all(
        p.unbeaten == (True, True)
        for p in agent.curve.points
        if p.episodes >= max(since["first"], since["second"])
    )


def test_a_curve_without_the_verdicts_still_reads_and_a_bad_verdict_is_refused() -> None:
    old = {"every": 10, "early": False, "games": 5, "columns": list(COLUMNS),
           "points": [[10, 0.5, 0.4, 0.2, 0.4, 0.0, 0.5, 0.5]]}  # fmt: skip
    curve = Curve.from_json(old, (*COLUMNS, *UNBEATEN))
    assert not curve.unbeaten and curve.unbeaten_since() is None
    assert curve.points[0].unbeaten is None and curve.to_json() == old
    new = {**old, "columns": [*COLUMNS, *UNBEATEN], "points": [[10, 0.5, 0.4, 0.2, 0.4, 0.0,
           0.5, 0.5, 1, 0]]}  # fmt: skip
    read = Curve.from_json(new, COLUMNS)
    assert read.points[0].unbeaten == (True, False) and read.to_json() == new
    assert read.unbeaten_since() == {"first": 10, "second": None}
    half = {**new, "points": [[10, 0.5, 0.4, 0.2, 0.4, 0.0, 0.5, 0.5, 0.5, 0]]}
    with pytest.raises(QarenaError, match="malformed point"):
        Curve.from_json(half)


def test_the_web_chart_draws_the_verdicts_as_steps() -> None:
    agent = qarena.train("nim:1,2,3", episodes=500, seed=1, curve=True, every=100)
    assert agent.curve is not None
    points = agent.curve.points
    svg = curve_svg(points, 500)
    assert svg.count('class="s-unbeaten"') == 2  # the line and its legend's sample
    line = svg.split('<polyline class="s-unbeaten" points="')[1].split('"')[0]
    assert len(line.split()) == 2 * len(points) - 1
    old = [type(p)(p.episodes, p.optimality, p.matches) for p in points]
    assert "s-unbeaten" not in curve_svg(old, 500)
