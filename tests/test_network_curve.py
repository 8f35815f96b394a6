"""A network's learning curve: refused up front where judging it along perfect play has no
bound, and a stop that reaches a point being judged ends the run as stopped, its games kept."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import qarena
from qarena import threads
from qarena.cli.app import run
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.judging import family as training
from qarena.learn.curve import JUDGED_COLUMNS, UNBEATEN, UNIFORM_COLUMNS, VARIED_COLUMNS, Curve
from qarena.learn.ntuple.config import NetworkConfig
from qarena.learn.ntuple.network import NTupleNetwork
from qarena.training.run import judging_refused, train_run

#: Boards solved by search without an opening book, whose first perfect-play game did not
#: end within 40 s (connect4:7x8 may take hours), and one that cannot be solved here at all.
UNBOUNDED = ["connect4:7x8", "tictactoe:5x8:5", "tictactoe:6x6:4", "tictactoe:12x12:5"]
#: Enumerated here, with the shipped book (6×7), or searched in seconds.
BOUNDED = ["tictactoe", "connect4:4x5", "connect4", "connect4:6x6", "tictactoe:5x5:4"]


@pytest.mark.parametrize("spec", UNBOUNDED)
def test_a_curve_that_cannot_be_judged_in_bounded_time_is_refused(spec: str) -> None:
    why = judging_refused(parse_spec(spec))
    assert why is not None and "\n" not in why


@pytest.mark.parametrize("spec", BOUNDED)
def test_a_curve_judged_in_bounded_time_is_taken(spec: str) -> None:
    assert judging_refused(parse_spec(spec)) is None


def test_the_api_refuses_such_a_curve_before_training() -> None:
    # It ran without end: the first point's search of connect4:7x8 had no bound.
    t0 = time.monotonic()
    with pytest.raises(QarenaError, match="train without curve=True"):
        qarena.train_network("connect4:7x8", curve=True)
    assert time.monotonic() - t0 < 5


def test_the_command_line_refuses_it_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "n.npz"
    argv = ["train", "connect4:7x8", "--learner", "ntuple", "--curve", "--out", str(out)]
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no opening book" in err and "train without --curve" in err
    assert list(tmp_path.iterdir()) == []


def test_a_stop_during_judging_ends_the_run_stopped_with_its_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stop comes while the first point is judged: the judging's search ends (Stopped from
    threads.check, as from any search), the point is dropped, the games are kept."""
    stop = [False]

    def judging(net: NTupleNetwork, games: int, seed: int, **_given: object) -> None:
        stop[0] = True  # Ctrl-C, or a DELETE, while the point is judged
        threads.check()
        raise AssertionError("judging went on after the stop")

    monkeypatch.setattr(training, "judge_along_play", judging)
    net = NTupleNetwork.from_config(parse_spec("tictactoe"), NetworkConfig(tuples=4))
    curve = Curve(every=5_000, games=10, early=True, columns=JUDGED_COLUMNS)
    result = train_run(net, 20_000, curve=curve, should_stop=lambda: stop[0])
    assert result.stopped and result.episodes == 1_000 == net.games
    assert curve.points == [] and result.point is None


def test_a_limit_not_the_runs_own_still_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the run's own stop ends it as stopped; an outer deadline is its caller's to say."""

    def judging(net: NTupleNetwork, games: int, seed: int, **_given: object) -> None:
        time.sleep(0.05)
        threads.check()
        raise AssertionError("the deadline had passed")

    monkeypatch.setattr(training, "judge_along_play", judging)
    net = NTupleNetwork.from_config(parse_spec("tictactoe"), NetworkConfig(tuples=4))
    curve = Curve(every=5_000, games=10, early=True, columns=JUDGED_COLUMNS)
    with threads.limit(seconds=0.01), pytest.raises(threads.Stopped):
        train_run(net, 20_000, curve=curve, should_stop=lambda: False)


def test_a_sweep_refuses_such_a_curve_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sweep"
    argv = ["sweep", "connect4:7x8", "--learner", "ntuple", "--curve", "--out", str(out)]
    assert run(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not out.exists()


def test_a_run_that_looks_for_a_stop_learns_the_same_network() -> None:
    """With a stop to look for, one thread's games run on a thread of their own (so a stop is
    seen within a chunk); unstopped, they are the same games: the same network."""
    import numpy as np

    nets = []
    for should_stop in (None, lambda: False):
        net = NTupleNetwork.from_config(parse_spec("connect4:4x5"), NetworkConfig(tuples=6))
        result = train_run(net, 12_000, should_stop=should_stop)
        assert result.episodes == 12_000 and not result.stopped
        nets.append(net)
    assert np.array_equal(nets[0].weights, nets[1].weights)


def test_a_stop_ends_a_long_run_at_once_with_the_games_played() -> None:
    net = NTupleNetwork.from_config(parse_spec("connect4:4x5"), NetworkConfig(tuples=6))
    t0 = time.monotonic()
    result = train_run(net, 10**9, should_stop=lambda: time.monotonic() - t0 > 0.5)
    assert result.stopped and 0 < result.episodes == net.games < 10_000_000
    assert time.monotonic() - t0 < 5


# --- the second yardstick: optimality from varied openings ----------------------------------

PLAIN_CURVE_DATA = {
    "every": 1000,
    "early": True,
    "games": 50,
    "columns": list(JUDGED_COLUMNS),
    "points": [[1000, 1.5, 0.75, 1.0, 0.0, 0.0]],
}
VARIED_CURVE = {
    "every": 1000,
    "early": True,
    "games": 50,
    "columns": list(VARIED_COLUMNS),
    "points": [[1000, 1.5, 0.75, 0.5, 1.0, 0.0, 0.0], [2000, 3.0, 0.8, 0.625, 0.5, 0.25, 0.25]],
}


def test_a_classic_connect_four_curve_records_the_varied_openings_and_others_do_not() -> None:
    c4 = NTupleNetwork.from_config(parse_spec("connect4"), NetworkConfig(tuples=2))
    small = NTupleNetwork.from_config(parse_spec("connect4:4x5"), NetworkConfig(tuples=2))
    searched = NTupleNetwork.from_config(parse_spec("tictactoe:5x5:4"), NetworkConfig(tuples=2))
    assert training._columns(c4, None) == VARIED_COLUMNS
    # Enumerated here: judged over a uniform sample of all positions too, and whether the best
    # reply beats it from the start in each seat; searched: along play.
    assert training._columns(small, None) == (*UNIFORM_COLUMNS, *UNBEATEN)
    assert training._columns(searched, None) == JUDGED_COLUMNS
    # A resumed curve keeps its columns: its earlier points have no varied share.
    old = Curve.from_json(PLAIN_CURVE_DATA)
    assert training._columns(c4, old) == JUDGED_COLUMNS


def test_a_varied_curve_reads_back_and_is_read_where_a_judged_one_is() -> None:
    curve = Curve.from_json(VARIED_CURVE, JUDGED_COLUMNS)
    assert curve.to_json() == VARIED_CURVE and curve.judged
    assert [p.varied for p in curve.points] == [0.5, 0.625]
    assert [p.optimality for p in curve.points] == [0.75, 0.8]
    assert curve.points[1].record == (0.5, 0.25, 0.25)
    # An older judged curve reads with no varied share.
    plain = Curve.from_json(PLAIN_CURVE_DATA, VARIED_COLUMNS)
    assert plain.points[0].varied is None
    bad = {**VARIED_CURVE, "points": [[1000, 1.5, 0.75, 1.5, 1.0, 0.0, 0.0]]}
    with pytest.raises(QarenaError, match="outside"):
        Curve.from_json(bad)


def test_the_varied_line_is_drawn_in_the_web_and_the_plot_only_when_recorded() -> None:
    from qarena.show.curve_svg import curve_svg
    from qarena.show.figures import render_judged_curve

    varied = Curve.from_json(VARIED_CURVE)
    plain = Curve.from_json(PLAIN_CURVE_DATA)
    assert 'class="s-varied"' in curve_svg(varied.points, 2000, judged=True)
    assert "s-varied" not in curve_svg(plain.points, 2000, judged=True)
    net = NTupleNetwork.from_config(parse_spec("connect4"), NetworkConfig(tuples=2))
    net.curve = varied
    assert b'id="varied-games"' in render_judged_curve("n", net, "svg")
    net.curve = plain
    assert b"varied-games" not in render_judged_curve("n", net, "svg")


def test_a_network_file_keeps_its_varied_curve(tmp_path: Path) -> None:
    net = NTupleNetwork.from_config(parse_spec("connect4"), NetworkConfig(tuples=2))
    net.games = 2000
    net.curve = Curve.from_json(VARIED_CURVE)
    path = tmp_path / "n.npz"
    net.save(path)
    back = qarena.load(path)
    assert back.curve is not None and back.curve.to_json() == VARIED_CURVE


def test_a_uniform_sample_estimates_the_exact_share_over_every_position() -> None:
    """The sample draws each decision position alike (a canonical row as often as the
    positions of its class): a half-trained Q-learner's share over 200,000 draws lies within
    the 99.9% interval of its exact share, counted over every decision position."""
    from qarena.judging.sampled import wilson
    from qarena.judging.tables import learner_optimality, optimality_at, uniform_decisions

    learner = qarena.train("tictactoe", episodes=1_500, seed=3)
    exact = learner_optimality(learner)
    assert 0.2 < exact.share < 0.9  # neither end: a wrong weighting would show
    tables = learner.tables
    rows = uniform_decisions(tables, 200_000, seed=1)
    mv = tables.legal[rows]
    # Its greedy moves, ties and all, as its exact share counts them.
    v = np.where(mv, learner.values()[rows], -np.inf)
    found = optimality_at(tables, rows, v == v.max(axis=1, keepdims=True))
    low, high = wilson(found.optimal, found.decisions, z=3.29)
    assert low <= exact.share <= high
    # Every draw is a decision position: its moves do not all have one value.
    values = -tables.value[tables.nxt[rows]].astype(float)
    values[~mv] = np.nan
    assert (np.nanmax(values, axis=1) > np.nanmin(values, axis=1)).all()


def test_a_network_curve_on_a_small_board_agrees_with_judging_it_everywhere() -> None:
    """A network's last curve point over its uniform sample of all positions, against the
    same network judged over every decision position (``qarena.judge``)."""
    from qarena.judging.sampled import wilson
    from qarena.judging.tables import UNIFORM_SAMPLE

    net = qarena.train("connect4:4x4", learner="ntuple", episodes=10_000, curve=True, seed=2)
    assert net.curve is not None and net.curve.columns == (*UNIFORM_COLUMNS, *UNBEATEN)
    last = net.curve.points[-1]
    assert last.uniform is not None
    judged = qarena.judge(net)
    exact = judged.optimality.share
    # Whether it is unbeaten, as the point recorded it, is the best reply's verdict.
    assert judged.best_reply is not None
    reply = judged.best_reply.seats
    assert last.unbeaten == (not reply["first"].beaten, not reply["second"].beaten)
    low, high = wilson(round(last.uniform * UNIFORM_SAMPLE), UNIFORM_SAMPLE, z=3.29)
    assert low <= exact <= high


def test_the_api_draws_a_table_learner_and_a_network_side_by_side() -> None:
    """``qarena.curves``: one chart, a line per learner, by optimality over all positions (the
    Q-learner's exact share at its end, the network's over its sample); refused in one line
    for a learner without a curve or with names that do not match."""
    q = qarena.train("tictactoe", curve=True, seed=1)
    net = qarena.train_network("tictactoe", 2_000, tuples=4, curve=True, workers=1)
    both = qarena.curves(q, net, names=["q", "net"])
    html = both._repr_html_()
    assert html.count('<polyline class="series"') == 2
    table = both.to_pandas()
    assert set(table["name"]) == {"q", "net"}
    from qarena.judging.tables import learner_optimality

    q_last = table[table["name"] == "q"]["optimality"].iloc[-1]
    assert q_last == learner_optimality(q).share  # a table learner's: exact
    net_last = table[table["name"] == "net"]["optimality"].iloc[-1]
    assert net.curve is not None and net_last == net.curve.points[-1].uniform
    with pytest.raises(QarenaError, match="curve=True"):
        qarena.curves(qarena.train("tictactoe", episodes=100))
    with pytest.raises(QarenaError, match="one name per learner"):
        qarena.curves(q, net, names=["q"])


def test_plot_draws_a_network_beside_a_table_learner_only_by_its_uniform_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``qarena plot A B``: a network whose curve judged a uniform sample of all positions is
    a line beside a Q-learner's; one judged along perfect play only is refused in one line
    (it is drawn alone)."""
    q, net, old = tmp_path / "q.npz", tmp_path / "net.npz", tmp_path / "old.npz"
    assert run(["train", "tictactoe", "--curve", "--out", str(q)]) == 0
    args = ["train", "tictactoe", "--learner", "ntuple", "--tuples", "4", "--episodes", "2000"]
    assert run([*args, "--workers", "1", "--curve", "--out", str(net)]) == 0
    figure = tmp_path / "both.svg"
    assert run(["plot", str(q), str(net), "-o", str(figure)]) == 0
    drawn = figure.read_text(encoding="utf-8")
    assert 'id="optimality-0"' in drawn and 'id="optimality-1"' in drawn
    assert 'id="random-win-1"' not in drawn  # the network's curve has no games against random
    trained = NTupleNetwork.from_config(parse_spec("tictactoe"), NetworkConfig(tuples=2))
    trained.games = 1000
    trained.curve = Curve.from_json(PLAIN_CURVE_DATA)
    trained.save(old)
    capsys.readouterr()
    assert run(["plot", str(q), str(old), "-o", str(tmp_path / "no.svg")]) == 2
    err = capsys.readouterr().err
    assert "drawn alone" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "no.svg").exists()


def test_a_curve_judged_along_play_only_is_refused_beside_others_in_every_front_end(
    tmp_path: Path,
) -> None:
    """A network's curve without optimality over all positions (judged along perfect play
    only) is refused beside others in one line by the API and the web's Compare page."""
    from fastapi.testclient import TestClient

    from qarena.web.app import create_app

    q = qarena.train("tictactoe", curve=True)
    old = NTupleNetwork.from_config(parse_spec("tictactoe"), NetworkConfig(tuples=2))
    old.games = 1000
    old.curve = Curve.from_json(PLAIN_CURVE_DATA)
    assert not old.curve.everywhere and q.curve is not None and q.curve.everywhere
    with pytest.raises(QarenaError, match="drawn alone"):
        qarena.curves(q, old)
    path = tmp_path / "old.npz"
    old.save(path)
    with TestClient(create_app(tmp_path / "data")) as client:
        r = client.post(
            "/policies/upload",
            files={"file": ("old.npz", path.read_bytes(), "application/octet-stream")},
            follow_redirects=False,
        )
        pid = r.headers["location"].split("added=")[1]
        page = client.get("/compare", params={"id": pid})
        assert page.status_code == 422 and "judged along perfect-play games only" in page.text


def test_the_reports_alphazero_section_says_it_did_not_run_without_pytorch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from qarena.experiments.report.lab import Lab
    from qarena.experiments.report.questions import alphazero_judged

    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else found(name, *a)
    )
    section = alphazero_judged(Lab(tmp_path, quick=True))
    assert "needs PyTorch" in section.finding and not section.figures and not section.commands
