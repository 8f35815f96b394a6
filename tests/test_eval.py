"""`qarena eval`, `compete`, `matrix` and learning curves, checked against the solver and
against outcome probabilities computed exactly, position by position, in the test."""

from __future__ import annotations

import itertools
import json
import math
from collections import deque
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from qarena.agents.base import Player
from qarena.agents.opponents import opponent
from qarena.agents.players import player as make_player
from qarena.cli.app import run
from qarena.cli.judged_text import LENGTH_ROWS, _length_bins
from qarena.errors import QarenaError
from qarena.exact import GameTables, game_tables, solve
from qarena.games import DRAW, LOSS, WIN, Game, parse_spec
from qarena.judging.evaluation import strategy_mask
from qarena.judging.tables import learner_optimality
from qarena.learn.learners import learner_class, load_learner
from qarena.policyfile import load_policy, save_policy
from qarena.show.matches import Lengths, play_series_lengths
from qarena.training.run import train_run
from tests.conftest import RunScript, at


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    capsys.readouterr()  # what earlier commands printed
    assert run(argv) == 0, capsys.readouterr().err
    record = json.loads(capsys.readouterr().out)
    assert isinstance(record, dict)
    return record


def _train(path: Path, spec: str, *extra: str) -> Path:
    assert run(["train", spec, "--out", str(path), *extra]) == 0
    return path


def _decisions(game: Game, tables: GameTables, agent_values: np.ndarray) -> tuple[int, int]:
    """Walk every position reachable from the start with the game's own rules and count the
    decision positions and those where all of the agent's tied best moves keep the value."""
    solution = solve(game)
    seen = {game.start()}
    queue = deque(seen)
    decisions = optimal = 0
    while queue:
        pos = queue.popleft()
        moves = game.legal_moves(pos)
        for m in moves:
            nxt = game.apply(pos, m)
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
        if not moves:
            continue
        verdicts = solution.move_values(pos)
        if len(set(verdicts.values())) < 2:
            continue
        decisions += 1
        row = at(tables, agent_values, pos)
        top = max(row[m] for m in moves)
        chosen = [m for m in moves if row[m] == top]
        optimal += all(verdicts[m] == max(verdicts.values()) for m in chosen)
    return decisions, optimal


def _exact_outcomes(game: Game, first: dict, second: dict) -> tuple[float, float, float]:
    """Probabilities of win, draw, loss for the first seat when each seat picks uniformly among
    the moves its dict gives for a position (``first[pos]`` / ``second[pos]``)."""

    @cache
    def outcome(pos: tuple[int, ...], ply: int) -> tuple[float, float, float]:
        if game.is_terminal(pos):
            r = game.result(pos) if ply % 2 == 0 else -game.result(pos)
            return (float(r == WIN), float(r == DRAW), float(r == LOSS))
        choices = (first if ply % 2 == 0 else second)[pos]
        parts = [outcome(game.apply(pos, m), ply + 1) for m in choices]
        return tuple(sum(p[i] for p in parts) / len(parts) for i in range(3))  # type: ignore[return-value]

    return outcome(game.start(), 0)


def _greedy(game: Game, tables: GameTables, values: np.ndarray):  # type: ignore[no-untyped-def]
    class Greedy(dict):  # type: ignore[type-arg]
        def __missing__(self, pos: tuple[int, ...]) -> list[int]:
            moves = game.legal_moves(pos)
            row = at(tables, values, pos)
            top = max(row[m] for m in moves)
            return [m for m in moves if row[m] == top]

    return Greedy()


def _uniform(game: Game, perfect: bool):  # type: ignore[no-untyped-def]
    solution = solve(game)

    class Uniform(dict):  # type: ignore[type-arg]
        def __missing__(self, pos: tuple[int, ...]) -> list[int]:
            return solution.optimal_moves(pos) if perfect else game.legal_moves(pos)

    return Uniform()


def _within(sample: float, p: float, n: int) -> bool:
    """A sampled share within 5 standard errors of its exact probability (or exactly it, when
    the outcome is certain). Fails by chance about once in 1.7 million."""
    return abs(sample - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12


@pytest.mark.parametrize(
    ("spec", "episodes"), [("nim:2,3,4", "300"), ("tictactoe", "2000"), ("subtraction:9:3", "20")]
)
def test_eval_of_an_under_trained_agent(
    spec: str, episodes: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _train(tmp_path / "weak.npz", spec, "--episodes", episodes)
    record = _json(capsys, ["eval", str(path), "--games", "4000", "--json"])
    learner = load_learner(path)
    game = learner.game
    assert set(record) == {
        "game", "optimality", "decisions", "optimal_decisions", "matches", "oracle", "best_reply"
    }  # fmt: skip
    assert record["oracle"] == {"family": "enumerated", "route": "enumerated"}
    assert record["game"] == game.spec
    decisions, optimal = _decisions(game, learner.tables, learner.values())
    assert (record["decisions"], record["optimal_decisions"]) == (decisions, optimal)
    assert record["optimality"] == optimal / decisions
    expected = {"random", "perfect"}
    expected |= {"bouton", "poles", "poles-strict"} if spec.startswith("nim") else set()
    expected |= {"subtraction"} if spec.startswith("subtraction") else set()
    matches = record["matches"]
    assert isinstance(matches, dict) and set(matches) == expected
    agent = _greedy(game, learner.tables, learner.values())
    for name in ("random", "perfect"):
        opp = _uniform(game, name == "perfect")
        for seat, (a, b) in (("first", (agent, opp)), ("second", (opp, agent))):
            win, draw, loss = _exact_outcomes(game, a, b)
            if seat == "second":
                win, loss = loss, win
            shares = matches[name][seat]
            assert set(shares) == {"win", "draw", "loss"}
            assert math.isclose(sum(shares.values()), 1.0)
            for key, p in (("win", win), ("draw", draw), ("loss", loss)):
                assert _within(shares[key], p, 4000), (name, seat, key, shares[key], p)


def test_a_perfect_agent_wins_what_theory_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nim = _train(tmp_path / "nim.npz", "nim", "--until-perfect")
    record = _json(capsys, ["eval", str(nim), "--json", "--games", "500"])
    assert record["optimality"] == 1.0
    assert solve(parse_spec("nim")).start_value == WIN
    for name in ("perfect", "bouton"):
        # 3-5-7 is won for the first player: a perfect agent wins first and loses second.
        assert record["matches"][name]["first"]["win"] == 1.0  # type: ignore[index]
        assert record["matches"][name]["second"]["loss"] == 1.0  # type: ignore[index]
    ttt = _train(tmp_path / "ttt.npz", "tictactoe", "--until-perfect")
    record = _json(capsys, ["eval", str(ttt), "--json", "--games", "500"])
    matches = record["matches"]
    assert matches["perfect"]["first"]["draw"] == 1.0  # type: ignore[index]
    assert matches["perfect"]["second"]["draw"] == 1.0  # type: ignore[index]
    assert matches["random"]["first"]["loss"] == 0.0  # type: ignore[index]
    assert matches["random"]["second"]["loss"] == 0.0  # type: ignore[index]


def test_eval_table_and_seeds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _train(tmp_path / "p.npz", "nim:1,2,3", "--episodes", "200")
    assert run(["eval", str(path), "--games", "300"]) == 0
    text = capsys.readouterr().out
    for name in ("random", "perfect", "bouton", "poles", "agent moves first", "optimality"):
        assert name in text
    a = _json(capsys, ["eval", str(path), "--json", "--seed", "5"])
    b = _json(capsys, ["eval", str(path), "--json", "--seed", "5"])
    assert a == b


def test_compete_both_orders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    strong = _train(tmp_path / "strong.npz", "nim", "--until-perfect")
    weak = _train(tmp_path / "weak.npz", "nim", "--episodes", "100", "-l", "matchbox")
    record = _json(capsys, ["compete", str(strong), str(weak), "--games", "400", "--json"])
    assert record["game"] == "nim:3,5,7" and record["games"] == 400
    # The perfect agent moving first from a won start never loses.
    assert record["a_first"] == {"win": 1.0, "draw": 0.0, "loss": 0.0}
    b_first = record["b_first"]
    assert isinstance(b_first, dict) and math.isclose(sum(b_first.values()), 1.0)
    # Against itself, the side moving first wins every game of 3-5-7.
    mirror = _json(capsys, ["compete", str(strong), str(strong), "--json", "--games", "100"])
    assert mirror["a_first"]["win"] == 1.0 and mirror["b_first"]["loss"] == 1.0  # type: ignore[index]
    assert run(["compete", str(strong), str(weak)]) == 0
    text = capsys.readouterr().out
    assert "A first" in text and "B first" in text and "1,000 games in each order" in text


def test_compete_refuses_agents_of_different_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _train(tmp_path / "a.npz", "nim:1,2", "--episodes", "10")
    b = _train(tmp_path / "b.npz", "nim:1,3", "--episodes", "10")
    capsys.readouterr()
    assert run(["compete", str(a), str(b)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nim:1,3" in err and "nim:1,2" in err


def test_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    record = _json(capsys, ["matrix", "nim:1,2,3", "--json", "--games", "200"])
    assert record["game"] == "nim:1,2,3" and record["learner"] == "q"
    rows = record["rows"]
    assert isinstance(rows, dict) and list(rows) == ["self", "random", "perfect"]
    for row in rows.values():
        assert set(row["matches"]) == {"random", "perfect"}
        for seats in row["matches"].values():
            for shares in seats.values():
                assert math.isclose(sum(shares.values()), 1.0)
    # Self-play with the default episodes learns perfect play (tests/test_defaults.py); 1-2-3
    # has nim-sum 0, lost for the first player, so against perfect play the seat decides.
    assert solve(parse_spec("nim:1,2,3")).start_value == LOSS
    assert rows["self"]["optimality"] == 1.0
    assert rows["self"]["matches"]["perfect"]["first"]["loss"] == 1.0
    assert rows["self"]["matches"]["perfect"]["second"]["win"] == 1.0
    assert run(["matrix", "nim:1,2", "--episodes", "50", "-l", "matchbox"]) == 0
    text = capsys.readouterr().out
    assert "trained vs" in text and "50 episodes each" in text


def test_curve_points_resume_and_no_effect_on_learning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.npz"
    record = _json(
        capsys,
        [
            "train",
            "tictactoe",
            "--curve",
            "--every",
            "100",
            "--episodes",
            "1000",
            "--out",
            str(path),
            "--json",
        ],
    )
    assert record["curve_points"] == 10
    learner = load_learner(path)
    assert learner.curve is not None
    assert [p.episodes for p in learner.curve.points] == list(range(100, 1001, 100))
    last = learner.curve.points[-1]
    assert last.optimality == learner_optimality(learner).share
    for p in learner.curve.points:
        for shares in p.matches.values():
            assert math.isclose(sum(shares), 1.0) and all(0 <= s <= 1 for s in shares)
    # Recording a curve plays its own seeded games: the learned tables are the same without.
    plain = _train(tmp_path / "plain.npz", "tictactoe", "--episodes", "1000")
    assert np.array_equal(load_learner(plain).values(), learner.values())
    # Resuming continues the curve at the same spacing; an uneven end gets a point too.
    _json(
        capsys,
        [
            "train",
            "tictactoe",
            "--resume",
            str(path),
            "--curve",
            "--episodes",
            "250",
            "--out",
            str(path),
            "--json",
        ],
    )
    resumed = load_learner(path)
    assert resumed.curve is not None
    assert [p.episodes for p in resumed.curve.points][-4:] == [1000, 1100, 1200, 1250]
    # Resuming without --curve keeps the curve as it was.
    _json(
        capsys,
        [
            "train",
            "tictactoe",
            "--resume",
            str(path),
            "--episodes",
            "100",
            "--out",
            str(path),
            "--json",
        ],
    )
    again = load_learner(path)
    assert again.curve is not None and again.curve.points == resumed.curve.points


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--every", "10"], "add --curve"),
        (["--curve", "--every", "0"], "--every must be at least 1"),
        (["--curve", "--every", "1", "--episodes", "10000"], "at most 5,000"),
    ],
)
def test_curve_options_refused(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.npz"
    assert run(["train", "nim:1,2", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_malformed_curve_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _train(tmp_path / "good.npz", "nim:1,2", "--episodes", "100", "--curve")
    data = load_policy(good, lambda meta: {k: (v.shape, v.dtype) for k, v in _arrays(good).items()})
    meta = {k: v for k, v in data.meta.items() if k not in ("sha256", "format", "format_version")}
    meta["curve"]["points"][0][1] = 1.5  # a share above 1
    bad = tmp_path / "bad.npz"
    save_policy(bad, data.arrays, meta)
    for argv in (["eval", str(bad)], ["table", str(bad)]):
        assert run(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {bad}: ") and "outside [0, 1]" in err


def _arrays(path: Path) -> dict[str, np.ndarray]:
    return load_learner(path).arrays()


def test_eval_refuses_bad_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _train(tmp_path / "p.npz", "nim:1,2", "--episodes", "10")
    for argv in (
        ["eval", str(path), "--games", "0"],
        ["eval", str(path), "--seed", "-1"],
        ["eval", str(tmp_path / "missing.npz")],
        ["matrix", "nim:1,2", "--episodes", "0"],
        ["compete", str(path), str(path), "--games", "-3"],
    ):
        assert run(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, argv


MATCH_SCRIPT = """
import sys
from qarena.games import parse_spec
from qarena.exact.space import game_tables
from qarena.judging.evaluation import strategy_mask
from qarena.show.matches import play_series
t = game_tables(parse_spec(sys.argv[1]))
r = play_series(t, strategy_mask(t, "random"), strategy_mask(t, "perfect"), 500, 7, "x")
print(r.win, r.draw, r.loss)
"""


def test_pure_python_matches_agree(run_script: RunScript) -> None:
    outs = [run_script(MATCH_SCRIPT, "tictactoe", jit=jit) for jit in (True, False)]
    assert outs[0] == outs[1] and sum(map(int, outs[0].split())) == 500


def test_default_curve_shows_the_start_of_learning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.npz"
    _json(
        capsys,
        ["train", "nim:1,2,3", "--curve", "--episodes", "3000", "--out", str(path), "--json"],
    )
    curve = load_learner(path).curve
    assert curve is not None and curve.every == 30 and curve.early
    episodes = [p.episodes for p in curve.points]
    # 1, 2, 5, 10, 20 before the first multiple of 30, then every 30 up to 3,000.
    assert episodes == [1, 2, 5, 10, 20, *range(30, 3001, 30)]


def test_a_full_curve_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from qarena.learn.curve import MAX_POINTS, Curve, CurvePoint
    from qarena.learn.learners import save_learner

    path = _train(tmp_path / "f.npz", "nim:1,2", "--episodes", "10")
    learner = load_learner(path)
    shares = {"random": (1.0, 0.0, 0.0), "perfect": (0.5, 0.0, 0.5)}
    points = [CurvePoint(e, 1.0, shares) for e in range(1, MAX_POINTS)]
    learner.curve = Curve(1, points=points)
    save_learner(path, learner)
    before = path.read_bytes()
    capsys.readouterr()
    argv = ["train", "nim:1,2", "--resume", str(path), "--curve", "--out", str(path)]
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "learning curve is full" in err
    assert err.count("\n") == 1 and path.read_bytes() == before


def test_compete_takes_built_in_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """3-5-7 misère is a first-player win: a perfect player moving first wins every game, and
    two perfect players (Bouton's rule is one) split by who moves first."""
    record = _json(capsys, ["compete", "perfect", "random", "--game", "nim", "--json"])
    assert record["a_first"] == {"win": 1.0, "draw": 0.0, "loss": 0.0}
    record = _json(capsys, ["compete", "bouton", "perfect", "--game", "nim", "--json"])
    assert record["a_first"]["win"] == 1.0 and record["b_first"]["loss"] == 1.0  # type: ignore[index]
    # Against a trained agent, the game comes from its file; tic-tac-toe's perfect players draw.
    policy = _train(tmp_path / "ttt.npz", "tictactoe", "--no-canonical")
    record = _json(capsys, ["compete", str(policy), "perfect", "--json", "--games", "200"])
    assert record["game"] == "tictactoe:3x3:3"
    assert record["a_first"]["draw"] == 1.0 and record["b_first"]["draw"] == 1.0  # type: ignore[index]
    # One agent per symmetry class against one per position: they meet among all positions.
    shared = _train(tmp_path / "shared.npz", "tictactoe")
    record = _json(capsys, ["compete", str(shared), str(policy), "--json", "--games", "200"])
    assert record["a_first"]["draw"] == 1.0 and record["b_first"]["draw"] == 1.0  # type: ignore[index]


# --- eval --lengths: how many plies the games lasted ------------------------------------------


def _counts(histogram: dict[str, int]) -> dict[int, int]:
    return {int(plies): n for plies, n in histogram.items()}


@pytest.mark.parametrize(
    ("spec", "shortest", "longest"),
    [
        # Nim 3-5-7: a move takes from one pile, so at least 3 moves; at most one object a
        # move, so at most 15.
        ("nim", 3, 15),
        ("nim:3,5,7:normal", 3, 15),
        # One heap of 12, 1..3 a move: 4 moves at least, 12 at most.
        ("subtraction", 4, 12),
        # Five marks make the first line of three; nine fill the board.
        ("tictactoe", 5, 9),
    ],
)
def test_eval_lengths(
    spec: str, shortest: int, longest: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _train(tmp_path / "p.npz", spec, "--episodes", "200")
    games = 600
    plain = _json(capsys, ["eval", str(path), "--json", "--games", str(games)])
    record = _json(capsys, ["eval", str(path), "--json", "--games", str(games), "--lengths"])
    lengths = record.pop("lengths")
    # Counting lengths plays the same games: everything else is as without --lengths.
    assert record == plain
    assert isinstance(lengths, dict) and set(lengths) == set(plain["matches"])  # type: ignore[call-overload]
    game = parse_spec(spec)
    for name, seats in lengths.items():
        assert set(seats) == {"first", "second"}
        for seat, histogram in seats.items():
            counts = _counts(histogram)
            assert sum(counts.values()) == games, (name, seat)
            assert all(shortest <= plies <= longest for plies in counts), (name, seat, counts)
            if spec.startswith(("nim", "subtraction")):
                # Whoever moves last takes the last object: in misère play that player loses.
                # The agent moving first makes the odd plies; second, the even ones.
                last_is_agent = 1 if seat == "first" else 0
                misere = not spec.endswith(":normal")
                wins = sum(n for p, n in counts.items() if (p % 2 == last_is_agent) != misere)
                shares = plain["matches"][name][seat]  # type: ignore[index]
                assert wins == round(shares["win"] * games), (name, seat)
    if game.layout == "grid":
        # A decided game ends on a line; a drawn one fills the board.
        for name, seats in lengths.items():
            for seat, histogram in seats.items():
                draws = round(plain["matches"][name][seat]["draw"] * games)  # type: ignore[index]
                assert _counts(histogram).get(9, 0) >= draws


def _hurrying(tables: GameTables) -> np.ndarray:
    """Best play as the solver's depths measure it, built here from the tables: the winner
    picks among the wins that end soonest, the loser among the moves that hold out longest."""
    mask = np.zeros(tables.nxt.shape, dtype=np.bool_)
    for row in np.flatnonzero(tables.live):
        moves = np.flatnonzero(tables.legal[row])
        after = tables.nxt[row, moves]
        value, depth = -tables.value[after].astype(int), tables.depth[after].astype(int)
        best = value == value.max()
        if value.max() == WIN:
            best &= depth == depth[best].min()
        elif value.max() == LOSS:
            best &= depth == depth.max()
        mask[row, moves[best]] = True
    return mask


@pytest.mark.parametrize("spec", ["nim", "nim:2,6,7:normal", "subtraction:13:3", "tictactoe:3x4:3"])
def test_best_play_lasts_the_solvers_depth(spec: str) -> None:
    game = parse_spec(spec)
    solution = solve(game)
    assert solution.start_value != DRAW  # depth is the length only of decided games
    tables = game_tables(game)
    best = _hurrying(tables)
    record, lengths = play_series_lengths(tables, best, best, 300, 1, "hurry")
    assert lengths.histogram() == {solution.depth_of(game.start()): 300}
    assert record.win == (300 if solution.start_value == WIN else 0)


def test_perfect_tictactoe_fills_the_board() -> None:
    # Perfect players draw tic-tac-toe, and a drawn game ends only when the board is full.
    tables = game_tables(parse_spec("tictactoe"))
    perfect = strategy_mask(tables, "perfect")
    record, lengths = play_series_lengths(tables, perfect, perfect, 500, 3, "perfect")
    assert record.draw == 500 and lengths.histogram() == {9: 500}
    assert (lengths.shortest, lengths.longest, lengths.mean, lengths.games) == (9, 9, 9.0, 500)


def test_lengths_add_up() -> None:
    a, b = Lengths((0, 2, 3)), Lengths((1, 0, 0, 4))
    assert (a + b).counts == (1, 2, 3, 4) == (b + a).counts
    assert (a + b).histogram() == {0: 1, 1: 2, 2: 3, 3: 4}
    assert (a.shortest, a.longest, a.games) == (1, 2, 5) and a.mean == (2 + 6) / 5
    empty = Lengths((0, 0))
    assert (empty.games, empty.shortest, empty.longest, empty.mean) == (0, 0, 0, 0.0)


def test_eval_lengths_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _train(tmp_path / "p.npz", "nim", "--episodes", "300")
    capsys.readouterr()
    assert run(["eval", str(path), "--games", "200"]) == 0
    plain = capsys.readouterr().out
    assert run(["eval", str(path), "--games", "200", "--lengths"]) == 0
    text = capsys.readouterr().out
    # The usual report is printed as it was, then the lengths.
    assert text.startswith(plain) and "games by length" not in plain
    added = text[len(plain) :]
    assert "games by length in plies, both seats" in added
    for word in ("plies", "random", "perfect", "bouton", "poles", "mean", "shortest", "longest"):
        assert word in added
    record = _json(capsys, ["eval", str(path), "--games", "200", "--json", "--lengths"])
    lengths = record["lengths"]
    assert isinstance(lengths, dict)
    # Each row of the table is one length, both seats added up.
    rows = []
    for line in added.splitlines():
        cells = [c.strip() for c in line.strip("│").split("│")]
        if len(cells) == 6 and cells[0].isdigit():
            plies = cells[0]
            rows.append(int(plies))
            names = ("random", "perfect", "bouton", "poles", "poles-strict")
            for name, cell in zip(names, cells[1:], strict=True):
                n = sum(lengths[name][seat].get(plies, 0) for seat in ("first", "second"))
                assert cell == (f"{n:,}" if n else "·"), (plies, name)
    # Every length from the shortest game to the longest has its row.
    every = {int(p) for seats in lengths.values() for h in seats.values() for p in h}
    assert rows == list(range(min(every), max(every) + 1))


def test_length_rows_are_grouped_for_long_games() -> None:
    assert _length_bins(3, 15) == [(p, p) for p in range(3, 16)]
    bins = _length_bins(2, 440)
    assert len(bins) <= LENGTH_ROWS and bins[0][0] == 2 and bins[-1][1] == 440
    assert all(b[1] + 1 == c[0] for b, c in itertools.pairwise(bins))


def test_a_built_in_player_is_judged_like_an_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["eval", "perfect", "--game", "tictactoe", "--games", "200", "--json"]) == 0
    perfect = json.loads(capsys.readouterr().out)
    # Perfect play keeps every value and never loses tic-tac-toe, whoever it meets.
    assert perfect["optimality"] == 1.0
    assert all(s[seat]["loss"] == 0 for s in perfect["matches"].values() for seat in s)
    assert run(["eval", "bouton", "--game", "nim:3,5,7:normal", "--json"]) == 0
    # Bouton's rule is perfect play in normal Nim.
    assert json.loads(capsys.readouterr().out)["optimality"] == 1.0
    assert run(["eval", "poles-strict", "--game", "nim:3,5,7", "--json"]) == 0
    # The strict pole-position rule leaves 1-1-0, a win for the player who faces it in misère.
    assert json.loads(capsys.readouterr().out)["optimality"] < 1.0
    assert run(["eval", "poles", "--game", "nim:3,5,7", "--json"]) == 0
    # Watching the endgame as the term paper says, the strategy is perfect on 3-5-7.
    assert json.loads(capsys.readouterr().out)["optimality"] == 1.0
    assert run(["eval", "poles"]) == 2
    assert "name the game with --game" in capsys.readouterr().err


def _takes(name: str, heap: int) -> list[int]:
    """The judges of seed 001, written out: random play takes 1 to 3 sticks, the modulus rule
    leaves a heap of 1 mod 4 (one stick where it cannot)."""
    if name == "random":
        return list(range(1, min(3, heap) + 1))
    return [(heap - 1) % 4 or 1]


def _first_win_chance(game: Game, agent: Player, judge: str) -> float:
    """The exact chance that ``agent``, moving first and picking uniformly among its choices,
    beats the ``judge`` in a one-heap misère subtraction game, take 1 to 3: worked out by
    recursion over the heap, apart from the matches the command plays."""

    @cache
    def chance(heap: int, agent_moves: bool) -> float:
        if agent_moves:
            takes = [heap - game.apply((heap,), m)[0] for m in agent.choices((heap,))]
        else:
            takes = _takes(judge, heap)
        total = 0.0
        for take in takes:
            # Misère: whoever takes the last stick loses.
            left = heap - take
            total += (0.0 if agent_moves else 1.0) if left == 0 else chance(left, not agent_moves)
        return total / len(takes)

    return chance(game.start()[0], True)


def test_matrix_rule_players_four_way(capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 001's table in one command: trained against itself, random play and the modulus
    rule, judged against random play and the modulus rule, the agent moving first; each cell
    within 4.5 standard errors of the exact chance of the same trained agent."""
    spec, episodes, games = "subtraction:12:3", 3000, 4000
    argv = ["matrix", spec, "-l", "elimination", "--trainers", "self,random,subtraction"]
    argv += ["--judges", "random,subtraction", "--seat", "first", "--episodes", str(episodes)]
    record = _json(capsys, [*argv, "--games", str(games), "--json"])
    rows = record["rows"]
    assert isinstance(rows, dict) and list(rows) == ["self", "random", "subtraction"]
    assert record["seat"] == "first"
    game = parse_spec(spec)
    cls = learner_class("elimination")
    for trained_against, row in rows.items():
        assert set(row["matches"]) == {"random", "subtraction"}
        learner = cls(game, cls.default_config(seed=0))
        opp = opponent(learner.tables, trained_against)
        train_run(learner, episodes, opp, "both" if trained_against == "self" else "first")
        agent = make_player(learner, game)
        for name in ("random", "subtraction"):
            counts = row["counts"][name]["first"]
            assert counts["win"] + counts["loss"] == games and counts["draw"] == 0
            exact = _first_win_chance(game, agent, name)
            se = math.sqrt(max(exact * (1 - exact), 1e-9) / games)
            assert abs(counts["win"] / games - exact) <= 4.5 * se + 1e-9, (trained_against, name)
    # Against the modulus rule, moving first from 12, only perfect play wins: an agent that
    # never learns the whole line loses most of its games there, whatever it learned from.
    for row in rows.values():
        assert row["counts"]["subtraction"]["first"]["win"] < games // 2
    # Unknown or repeated names are one line each.
    for bad in (["--trainers", "self,chess"], ["--judges", "random,random"], ["--seat", "x"]):
        assert run(["matrix", spec, *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and ("--trainers" in err or "--judges" in err or "x" in err)


def test_eval_uniform_estimates_the_exact_share_and_is_refused_where_it_cannot_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``qarena eval FILE --uniform N``: the share over N decision positions drawn uniformly
    from all of them lies within the 99.9%-sure bounds of the exact share over every one
    (a half-trained Q-learner on Connect Four 4×4, judged both ways); another way of judging
    with it, or a game solved by search, is refused in one line."""
    from qarena.judging.sampled import wilson

    path = tmp_path / "q.npz"
    assert run(["train", "connect4:4x4", "--episodes", "20000", "--out", str(path)]) == 0
    capsys.readouterr()
    assert run(["eval", str(path), "--json", "--games", "2"]) == 0
    exact = json.loads(capsys.readouterr().out)["optimality"]
    assert 0.1 < exact < 0.95
    assert run(["eval", str(path), "--uniform", "50000", "--json", "--games", "2"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["sample"]["source"] == "uniform" and found["decisions"] == 50_000
    low, high = wilson(found["optimal_decisions"], found["decisions"], z=3.29)
    assert low <= exact <= high
    assert run(["eval", str(path), "--uniform", "1000", "--games", "2"]) == 0
    assert "drawn uniformly from all of them" in capsys.readouterr().out
    for argv, says in (
        (
            ["eval", str(path), "--uniform", "10", "--sample", "10"],
            "--sample does not go with --uniform",
        ),
        (
            ["eval", str(path), "--uniform", "10", "--lengths"],
            "--lengths does not go with --uniform",
        ),
        (["eval", "random", "--game", "connect4", "--uniform", "10"], "is solved by search here"),
        (["eval", str(path), "--uniform", "0"], "--uniform must be at least 1"),
    ):
        assert run(argv) == 2, argv
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, err


def test_the_api_judges_by_a_uniform_sample_in_its_own_words() -> None:
    import qarena

    found = qarena.judge("perfect", "tictactoe", uniform=2_000, games=2)
    assert found.optimality.share == 1.0 and found.optimality.decisions == 2_000
    assert found.sample is not None and found.sample.source == "uniform"
    with pytest.raises(QarenaError, match=r"^sample does not go with uniform$"):
        qarena.judge("perfect", "tictactoe", uniform=10, sample=10)


def test_eval_says_before_a_long_wait_that_uniform_estimates_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every decision position of Connect Four 5×5 asked of a network takes most of an hour:
    eval says so on stderr, with the option that estimates it in a minute; not on 4×5."""
    from qarena.cli.evaluating import _hint_uniform

    _hint_uniform(parse_spec("connect4:5x5"))
    said = capsys.readouterr().err
    assert "--uniform 100000" in said and "connect4:5x5:4" in said
    _hint_uniform(parse_spec("connect4:4x5"))
    assert capsys.readouterr().err == ""
