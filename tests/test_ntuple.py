"""n-tuple networks (qarena.learn.ntuple): they learn small boards by self-play, judged exactly
by the solver; symmetric boards share a value; the pure-Python path learns the same tables."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import qarena
from qarena.errors import QarenaError, TooLargeError
from qarena.games import parse_spec
from qarena.games.tictactoe import TicTacToe
from qarena.learn.ntuple.files import load_network, save_network
from qarena.learn.ntuple.network import NTupleNetwork, random_walk_tuples
from qarena.policyfile import save_policy
from tests.conftest import RunScript


def _board(spec: str) -> TicTacToe:
    game = parse_spec(spec)
    assert isinstance(game, TicTacToe)
    return game


def test_random_walk_tuples_are_connected_distinct_cells_and_seeded() -> None:
    game = _board("connect4:6x7")
    layout = random_walk_tuples(game, 70, 8, seed=3)
    assert layout.shape == (70, 8)
    assert (random_walk_tuples(game, 70, 8, seed=3) == layout).all()
    for walk in layout.tolist():
        assert len(set(walk)) == 8 and all(0 <= c < 42 for c in walk)
        for a, b in itertools.pairwise(walk):
            (ra, ca), (rb, cb) = divmod(a, 7), divmod(b, 7)
            assert max(abs(ra - rb), abs(ca - cb)) == 1  # neighbours, diagonals too


@pytest.mark.parametrize("spec", ["connect4:6x7", "tictactoe:4x4:3"])
def test_a_move_s_index_changes_are_the_indices_of_the_board_after_it(spec: str) -> None:
    # Learning weighs moves by the index changes their cells make; reading the whole board
    # afterwards must give the same indices.
    from qarena.kernels import ntuple as k

    game = _board(spec)
    net = NTupleNetwork.new(game, 30, 6, seed=4)
    cells, gravity = net._cells, net._gravity
    start, where, power = k.touches(cells, game.cells)
    size = cells.shape[0] * cells.shape[1]
    now, after = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    shift, touched = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    rng = np.random.default_rng(1)
    position = game.start()
    for _ in range(200):
        if game.is_terminal(position):
            position = game.start()
        board = np.asarray(position, dtype=np.int8)
        k.indices(board, cells, game.cols, gravity, now)
        move = game.legal_moves(position)[int(rng.integers(len(game.legal_moves(position))))]
        cell = k.target_cell(board, move, game.cols, gravity)
        mark = 1 + (game.to_move(position) or 0)
        count = k._changes(board, cell, mark, game.cols, gravity, start, where, power, shift,
                           touched)  # fmt: skip
        for q in touched[:count]:
            now[q] += shift[q]
            shift[q] = 0
        position = game.apply(position, move)
        k.indices(np.asarray(position, dtype=np.int8), cells, game.cols, gravity, after)
        assert (now == after).all()


def test_symmetric_boards_share_a_value() -> None:
    game = _board("connect4:4x5")
    net = NTupleNetwork.new(game, 20, 6, seed=1)
    net.learn(2_000, seed=1)
    mirror = game.symmetries[1]
    rng = np.random.default_rng(0)
    for _ in range(30):
        position = game.start()
        for _ in range(int(rng.integers(1, 12))):
            moves = game.legal_moves(position)
            position = game.apply(position, moves[int(rng.integers(len(moves)))])
            if game.is_terminal(position):
                break
        if game.is_terminal(position):
            continue
        image = tuple(position[mirror.index(c)] for c in range(game.cells))
        assert net.value(image) == pytest.approx(net.value(position), abs=1e-5)


def test_it_learns_tic_tac_toe_judged_by_the_solver() -> None:
    game = _board("tictactoe")
    net = NTupleNetwork.new(game, 30, 5, seed=1)
    untrained = qarena.judge(net, game, games=10).optimality.share
    net.learn(40_000, seed=0)
    learned = qarena.judge(net, game, games=10).optimality.share
    # The share of decision positions where its move keeps the game's value, by the solver.
    assert learned >= 0.95 and learned > untrained


SCRIPT = """
import hashlib
from qarena.games import parse_spec
from qarena.learn.ntuple.network import NTupleNetwork
net = NTupleNetwork.new(parse_spec("{spec}"), 8, 4, seed=2)
moves = net.learn(40, seed=5, epsilon=(0.3, 0.1), lam=0.7)
print(moves, hashlib.sha256(net.weights.tobytes()).hexdigest())
"""


@pytest.mark.parametrize("spec", ["tictactoe", "connect4:4x4"])
def test_the_pure_python_path_learns_the_same_tables(spec: str, run_script: RunScript) -> None:
    script = SCRIPT.format(spec=spec)
    assert run_script(script, jit=False) == run_script(script)


def test_tables_beyond_the_memory_budget_are_refused_before_they_are_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "100000000")
    with pytest.raises(TooLargeError, match="70 tuples of 10 cells need") as e:
        NTupleNetwork.new(_board("connect4:6x7"), 70, 10)
    assert "\n" not in str(e.value)


def test_a_network_file_holds_the_network_and_refuses_what_it_is_not(tmp_path: Path) -> None:
    game = _board("connect4:4x5")
    net = NTupleNetwork.new(game, 12, 5, seed=2)
    net.learn(500, seed=3)
    path = tmp_path / "net.npz"
    save_network(path, net)
    again = load_network(path, game)
    assert (again.tuples == net.tuples).all() and (again.weights == net.weights).all()
    assert again.games == net.games == 500
    position = game.apply(game.start(), 2)
    assert again.values(position) == net.values(position)
    # Most entries are never reached: the file keeps the others only.
    assert 0 < np.count_nonzero(net.weights) < net.weights.size // 4

    with pytest.raises(QarenaError, match="plays connect4:4x5:4, not connect4:6x7:4") as e:
        load_network(path, _board("connect4:6x7"))
    assert "\n" not in str(e.value)
    book = tmp_path / "book.npz"
    save_policy(str(book), {"keys": np.zeros(1, np.uint64)}, {"kind": "book", "game": "x"})
    with pytest.raises(QarenaError, match="is not an n-tuple network"):
        load_network(book)
    # A file that claims more entries than its tables have is refused before it is read.
    meta = {"kind": "ntuple", "game": game.spec, "tuples": 12, "length": 5, "games": 0}
    arrays = {"tuples": net.tuples, "places": np.arange(3, dtype=np.int64),
              "entries": np.ones(3, np.float32)}  # fmt: skip
    for bad in ({"entries": 10**12}, {"length": 40}, {"tuples": "12"}):
        save_policy(str(tmp_path / "bad.npz"), arrays, {**meta, "entries": 3, **bad})
        with pytest.raises(QarenaError, match="is damaged"):
            load_network(tmp_path / "bad.npz")
    off = net.tuples.copy()
    off[0, 0] = game.cells
    save_policy(str(tmp_path / "off.npz"), {**arrays, "tuples": off}, {**meta, "entries": 3})
    with pytest.raises(QarenaError, match="off the board"):
        load_network(tmp_path / "off.npz")


def test_a_network_file_is_a_player_for_eval_and_compete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli import run

    game = _board("tictactoe")
    net = NTupleNetwork.new(game, 30, 5, seed=1)
    net.learn(20_000, seed=0)
    path = tmp_path / "ttt.npz"
    save_network(path, net)
    assert run(["eval", str(path), "--games", "5", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    # The same player judged through the file: the solver's verdict on its every decision.
    assert record["optimality"] == pytest.approx(qarena.judge(net, game).optimality.share)
    assert run(["compete", str(path), "perfect", "--games", "2"]) == 0
    assert "ttt.npz" in capsys.readouterr().out


def test_train_learner_ntuple_with_a_curve_and_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli import run

    out = tmp_path / "ttt.npz"
    args = ["train", "tictactoe", "--learner", "ntuple", "--out", str(out), "--tuples", "20",
            "--tuple-length", "4", "--workers", "1", "--seed", "3"]  # fmt: skip
    assert run([*args, "--episodes", "20000", "--curve", "--every", "10000", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["episodes"] == 20_000 and record["curve_points"] == 2
    net = load_network(out)
    assert net.games == 20_000 and net.config.tuples == 20 and net.config.seed == 3
    assert net.curve is not None and [p.games for p in net.curve.points] == [10_000, 20_000]
    # Tic-tac-toe is a draw: no player wins moving first against perfect play, and the
    # curve's last point is the judgement the command printed.
    last = net.curve.points[-1]
    assert last.record[0] == 0 and record["optimality"] == last.optimality
    assert record["perfect_first"]["loss"] == last.record[2]
    # The judgement is the solver's: along 50 games of perfect play, as a fresh call finds.
    from qarena.exact import oracle
    from qarena.judging.along_play import along_perfect_play

    again, _ = along_perfect_play(net, oracle(net.game), 50, net.config.seed + net.games)
    assert again.share == last.optimality

    # --resume goes on in place: the games add up, the curve goes on, the shape is kept.
    assert run(["train", "tictactoe", "--learner", "ntuple", "--out", str(out), "--resume",
                str(out), "--episodes", "10000", "--curve", "--json"]) == 0  # fmt: skip
    capsys.readouterr()
    more = load_network(out)
    assert more.games == 30_000 and more.config == net.config
    assert more.curve is not None and [p.games for p in more.curve.points][-1] == 30_000
    assert more.seconds > net.seconds

    # qarena plot draws its curve: each line against games and against minutes.
    svg = tmp_path / "curve.svg"
    assert run(["plot", str(out), "-o", str(svg)]) == 0
    drawn = svg.read_text()
    for key in ("optimality", "wins", "losses"):
        assert f'id="{key}-games"' in drawn and f'id="{key}-minutes"' in drawn

    # qarena table and qarena explain --policy show its moves beside the solver's verdicts.
    capsys.readouterr()
    assert run(["table", str(out), "--position", "x../.../..."]) == 0
    shown = capsys.readouterr().out
    assert "n-tuple network" in shown and shown.count("keeps the draw") >= 1
    assert run(["table", str(out), "--top", "3"]) == 2
    assert "keeps no table of positions" in capsys.readouterr().err
    assert run(["explain", "tictactoe", "--policy", str(out), "--json"]) == 0
    policy = json.loads(capsys.readouterr().out)["policy"]
    assert policy["learner"] == "ntuple" and policy["episodes"] == 30_000
    assert policy["moves"] == [more.game.format_move(m) for m in more.choices(more.game.start())]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponent", "random"], "--opponent does not apply to the ntuple learner"),
        (["--gamma", "0.5"], "--gamma does not apply to the ntuple learner"),
        (["--lambda", "2"], "lambda must be in [0, 1], not 2"),
        (["--tuples", "0"], "--tuples must be at least 1, not 0"),
        (["--tuple-length", "11"], "--tuple-length must be at most 10, not 11"),
        (["--alpha-end", "0"], "alpha-end must be in (0, 1], not 0"),
        (["--every", "5"], "--every sets how often --curve records a point; add --curve"),
    ],
)
def test_train_ntuple_refuses_bad_settings_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "n.npz"
    result = subprocess.run(
        [sys.executable, "-m", "qarena", "train", "tictactoe", "--learner", "ntuple", "--out",
         str(out), "--episodes", "10", *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_table_learners_refuse_the_network_s_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli import run

    for args, readers in (
        (["--lambda", "0.5"], "--learner ntuple only"),
        (["--workers", "2"], "--learner ntuple or alphazero only"),
    ):
        assert run(["train", "nim:1,2", "--out", str(tmp_path / "q.npz"), *args]) == 2
        assert "applies to " + readers in capsys.readouterr().err
    assert not (tmp_path / "q.npz").exists()


def test_a_network_is_an_opponent_in_the_browser(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from qarena.web.app import create_app

    with TestClient(create_app(tmp_path), base_url="http://localhost") as client:
        page = client.post("/play", data={"kind": "classic-network", "first": "human"})
        assert page.status_code == 200 and 'id="opponent-note"' in page.text
        assert "n-tuple network" in page.text
        made = client.post("/api/games", json={"game": "connect4:6x7", "opponent": "network"})
        state = made.json()
        assert state["opponent"] == "network" and state["policy"] is None
        assert sorted(state["q"]) == list("abcdefg")
        moved = client.post(f"/api/games/{state['id']}/moves", json={"move": "d"}).json()
        assert moved["history"][0] == "d" and moved["ai_move"] in "abcdefg"
        refused = client.post("/api/games", json={"game": "nim", "opponent": "network"})
        assert refused.status_code == 422 and "board games" in refused.json()["detail"]
        # The watch page plays it against perfect play, each move judged by search.
        watch = client.post("/watch", data={"a": "network", "b": "perfect", "game": "connect4:6x7"})
        assert watch.status_code == 200 and "/watch/" in str(watch.url)
        step = client.post(f"{watch.url.path}/step", data={"at": "0"})
        assert step.status_code == 200 and 'class="mover-0' in step.text


def test_eval_along_perfect_play(capsys: pytest.CaptureFixture[str]) -> None:
    from qarena.cli import run

    # Tic-tac-toe is a draw: perfect play fills the board (9 positions a game), and no one
    # wins moving first against it. Every opening move draws, so the empty board is no
    # decision (only positions where some move gives the value away count); perfect play
    # keeps the value at every decision.
    assert run(["eval", "perfect", "--game", "tictactoe", "--along-perfect", "12", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert 0 < record["decisions"] <= 8 * 12 and record["optimality"] == 1.0
    assert record["first_against_perfect"] == {"win": 0, "draw": 12, "loss": 0}
    assert run(["eval", "random", "--game", "tictactoe", "--along-perfect", "12", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert 0 < record["decisions"] <= 8 * 12 and record["optimality"] < 1
    assert record["first_against_perfect"]["win"] == 0
    assert run(["eval", "random", "--game", "tictactoe", "--along-perfect", "5", "-n", "3"]) == 2
    assert "does not go with it" in capsys.readouterr().err


def test_the_python_api_trains_saves_and_loads_a_network(tmp_path: Path) -> None:
    net = qarena.train_network(
        "tictactoe", 5_000, workers=1, tuples=10, tuple_length=3, seed=1, curve=True
    )
    assert isinstance(net, NTupleNetwork) and net.games == 5_000 and net.config.tuples == 10
    assert net.curve is not None and net.curve.points[-1].games == 5_000
    path = qarena.save(net, tmp_path / "net.npz")
    again = qarena.load(path)
    assert isinstance(again, NTupleNetwork) and (again.weights == net.weights).all()
    more = qarena.train_network("tictactoe", 2_000, workers=1, resume=again)
    assert more.games == 7_000 and more.config == net.config
    # A callback that returns True stops the run between chunks.
    seen: list[int] = []
    stopped = qarena.train_network(
        "connect4:4x5", 50_000, workers=1, tuples=5, tuple_length=3,
        callback=lambda p: seen.append(p.episodes) or True,
    )  # fmt: skip
    assert seen == [stopped.games] and stopped.games < 50_000
    with pytest.raises(QarenaError, match="board games"):
        qarena.train_network("nim", 10)


def test_classic_connect_four_gets_more_tuples_unless_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli import run
    from qarena.learn.ntuple.config import (
        BIG_GAMES,
        BIG_OPENING,
        BIG_TUPLES,
        NetworkConfig,
        default_config,
        default_games,
    )

    # The defaults the command uses: 70 tuples on small boards, more on the 42 cells of
    # classic Connect Four, where 70 keep fewer decisions (BENCHMARKS.md), and random openings
    # there, where self-play alone stays near its main line; ε is the same.
    assert default_config(parse_spec("tictactoe")) == NetworkConfig()
    big = NetworkConfig(tuples=BIG_TUPLES, opening=BIG_OPENING)
    assert default_config(parse_spec("connect4")) == big
    # ... and more games there, where the varied openings' figure still rises past 4 million.
    assert default_games(parse_spec("connect4")) == BIG_GAMES > 4_000_000
    assert default_games(parse_spec("connect4:5x5")) == 4_000_000
    assert default_games(parse_spec("tictactoe")) == 45_000
    for spec, tuples, opening, given in (
        ("connect4", BIG_TUPLES, BIG_OPENING, []),
        ("connect4", 30, 0, ["--tuples", "30", "--opening", "0"]),
        ("connect4:5x5", 70, 0, []),
    ):
        out = tmp_path / f"{spec}-{tuples}.npz"
        args = ["train", spec, "--learner", "ntuple", "--episodes", "2", "--workers", "1"]
        assert run([*args, *given, "--out", str(out), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["tuples"] == tuples
        config = load_network(out).config
        assert (config.tuples, config.opening) == (tuples, opening)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_openings_teach_the_positions_self_play_does_not_reach(seed: int) -> None:
    """--opening: games that open with a few random moves reach boards the network's own play
    does not, so the same games teach it more of the game: its optimality over every position
    of tic-tac-toe, judged by the solver, is higher than without (0.89 → 0.97, 0.93 → 0.98
    measured for these seeds)."""
    from qarena.learn.ntuple.config import NetworkConfig

    game = parse_spec("tictactoe")
    shares = []
    for opening in (0, 4):
        config = NetworkConfig(tuples=10, opening=opening, seed=seed)
        net = NTupleNetwork.from_config(game, config)
        net.learn(3_000, seed=seed)
        shares.append(qarena.judge(net).optimality.share)
    assert shares[1] > shares[0] + 0.02, shares
