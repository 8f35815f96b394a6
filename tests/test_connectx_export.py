"""``qarena export PLAYER --connectx FILE`` (issue 58): the file is judged from outside the
generator — loaded by Kaggle's own ``get_last_callable``, played by Kaggle's own client
(``kaggle_environments.make("connectx")``), its imports read from its syntax tree and run
where qarena cannot be imported, its values compared with ``NTupleNetwork.value``, its book
moves with the solver's."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from qarena.cli.app import run
from qarena.games import parse_spec
from qarena.judging.sets import shipped_set
from qarena.learn.learners import LEARNERS
from qarena.learn.ntuple.files import shipped_network
from qarena.learn.ntuple.network import NTupleNetwork

kaggle = pytest.importorskip(
    "kaggle_environments", reason="kaggle-environments is not installed (a test-only dependency)"
)
from kaggle_environments.agent import get_last_callable  # noqa: E402

GAME = parse_spec("connect4")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("connectx")
    out = {"plain": folder / "plain.py", "book": folder / "book.py"}
    assert run(["export", "network", "--connectx", str(out["plain"])]) == 0
    assert run(["export", "network", "--connectx", str(out["book"]), "--book"]) == 0
    return out


def _load(file: Path) -> Any:
    """The agent as Kaggle takes it from a submission: the file's last callable."""
    return get_last_callable(file.read_text(), path=str(file))


class _Struct(dict[str, Any]):
    """Kaggle's observation and configuration: a dict read by attribute too."""

    def __getattr__(self, name: str) -> Any:
        return self[name]


def _config(**changes: Any) -> _Struct:
    return _Struct({"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2, **changes})


def _observe(board: list[int]) -> _Struct:
    mark = 1 if sum(1 for c in board if c) % 2 == 0 else 2
    return _Struct({"board": board, "mark": mark, "remainingOverageTime": 60})


def _board(columns: str) -> list[int]:
    """Kaggle's board after the moves (columns 1-7, as the judging sets write them)."""
    board = [0] * 42
    for ply, ch in enumerate(columns):
        col = int(ch) - 1
        row = max(r for r in range(6) if board[r * 7 + col] == 0)
        board[row * 7 + col] = 1 + ply % 2
    return board


def test_kaggle_takes_the_agent_as_the_last_callable(files: dict[str, Path]) -> None:
    agent = _load(files["plain"])
    assert agent.__name__ == "agent"
    move = agent(_observe([0] * 42), _config())
    assert move in range(7)


def test_the_file_imports_only_numpy_and_the_standard_library(files: dict[str, Path]) -> None:
    tree = ast.parse(files["book"].read_text())
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
    }
    assert imported - sys.stdlib_module_names == {"numpy"}
    # Run where neither qarena nor kaggle_environments can be imported.
    script = (
        "import sys\n"
        "sys.modules['qarena'] = None\n"
        "sys.modules['kaggle_environments'] = None\n"
        "space = {}\n"
        f"exec(compile(open({str(files['book'])!r}).read(), 'submission.py', 'exec'), space)\n"
        "config = {'rows': 6, 'columns': 7, 'inarow': 4, 'actTimeout': 2}\n"
        "print(space['agent']({'board': [0] * 42, 'mark': 1}, config))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"  # the book's one winning first move: the centre


def test_its_values_are_the_networks(files: dict[str, Path]) -> None:
    net = shipped_network(GAME)
    assert isinstance(net, NTupleNetwork)
    value = _load(files["plain"]).__globals__["value"]
    checked = 0
    for which in ("main", "varied"):
        jset = shipped_set(GAME, which)
        assert jset is not None
        for text in jset.texts[::25]:
            moves = text.split("#")[0].strip()
            moves = "" if moves == "0" else moves
            board = _board(moves)
            assert value(board) == net.value(tuple(board))  # the very float
            checked += 1
    assert checked > 200


def test_it_takes_a_win_and_blocks_a_loss(files: dict[str, Path]) -> None:
    agent = _load(files["plain"])
    # x (to move) has three across the bottom, columns 2-4: column 1 or 5 wins at once.
    assert agent(_observe(_board("223344")), _config()) in (0, 4)
    # o (to move) meets x's three in column 1 and has no win of its own: it blocks.
    assert agent(_observe(_board("12131")), _config()) == 0
    # x (to move) meets o's three across the bottom (columns 4-6, column 7 taken): column 3.
    assert agent(_observe(_board("741516")), _config()) == 2


def test_another_board_is_refused_in_one_line(files: dict[str, Path]) -> None:
    agent = _load(files["plain"])
    with pytest.raises(ValueError, match=r"connect4:6x7:4") as caught:
        agent(_observe([0] * 30), _config(rows=5, columns=6))
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="5 in a row"):
        agent(_observe([0] * 42), _config(inarow=5))


def test_with_the_book_its_first_moves_are_perfect(files: dict[str, Path]) -> None:
    from qarena.exact.book import shipped_book
    from qarena.exact.searcher import Searcher

    agent = _load(files["book"])
    solver = Searcher(GAME, workers=1, book=shipped_book(GAME))
    rng = random.Random(5)
    for trial in range(40):
        stones = trial % 5  # 0 to 4 stones: every move leads to a position of the book's
        moves = "".join(str(rng.randint(1, 7)) for _ in range(stones))
        board = _board(moves)
        best = solver.best_moves(tuple(board))
        assert agent(_observe(board), _config()) in best, moves


def _play(env_agents: list[Any]) -> Any:
    env = kaggle.make("connectx", debug=True)
    env.run(env_agents)
    return env


@pytest.mark.parametrize("seat", [0, 1])
def test_it_beats_kaggles_random_in_either_seat(files: dict[str, Path], seat: int) -> None:
    for _game in range(2):
        agents: list[Any] = ["random", "random"]
        agents[seat] = str(files["book"])
        env = _play(agents)
        us = env.state[seat]
        assert us.status == "DONE" and us.reward == 1
        for logs in env.logs:
            log = logs[seat] if seat < len(logs) else {}
            assert log.get("duration", 0.0) < 2.0  # within Kaggle's actTimeout


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_it_beats_kaggles_negamax_in_either_seat(files: dict[str, Path], seat: int) -> None:
    for _game in range(3):
        agents: list[Any] = ["negamax", "negamax"]
        agents[seat] = str(files["book"])
        env = _play(agents)
        us = env.state[seat]
        assert us.status == "DONE" and us.reward == 1


# --- the command's refusals -----------------------------------------------------------------


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert run(argv) == 2
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1, said
    return said


def test_what_is_not_a_network_of_connect_four_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "sub.py")
    assert "built-in" in _refused(capsys, ["export", "random", "--connectx", out])
    table = str(tmp_path / "nim.npz")
    assert run(["train", "nim:1,2", "--out", table, "--episodes", "50"]) == 0
    capsys.readouterr()
    assert "cannot be exported" in _refused(capsys, ["export", table, "--connectx", out])
    zero = str(tmp_path / "az.npz")
    az = LEARNERS["alphazero"]
    small_board = parse_spec("connect4:4x5:4")
    az.create(small_board, az.default_config(small_board)).save(zero)
    assert "cannot be exported" in _refused(capsys, ["export", zero, "--connectx", out])
    board = str(tmp_path / "ttt.npz")
    NTupleNetwork.new(parse_spec("tictactoe:3x3:3"), 2, 2).save(board)
    assert "not Connect Four" in _refused(capsys, ["export", board, "--connectx", out])
    _refused(capsys, ["export", str(tmp_path / "missing.npz"), "--connectx", out])
    # A book only where one is shipped: a network of a smaller board has none.
    small = str(tmp_path / "small.npz")
    NTupleNetwork.new(parse_spec("connect4:5x6:4"), 2, 2).save(small)
    assert "--book" in _refused(capsys, ["export", small, "--connectx", out, "--book"])
    assert not Path(out).exists()


def test_the_network_file_itself_is_never_written_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = tmp_path / "small.npz"
    NTupleNetwork.new(parse_spec("connect4:5x6:4"), 2, 2).save(small)
    before = small.read_bytes()
    _refused(capsys, ["export", str(small), "--connectx", str(small)])
    assert small.read_bytes() == before


def test_a_smaller_board_plays_its_own_configuration(tmp_path: Path) -> None:
    small = tmp_path / "small.npz"
    out = tmp_path / "small.py"
    NTupleNetwork.new(parse_spec("connect4:5x6:4"), 3, 3, seed=1).save(small)
    assert run(["export", str(small), "--connectx", str(out)]) == 0
    agents: list[Any] = [str(out), "random"]
    env = kaggle.make("connectx", configuration={"rows": 5, "columns": 6}, debug=True)
    env.run(agents)
    assert env.state[0].status == "DONE"
    with pytest.raises(ValueError, match="connect4:5x6:4"):
        _load(out)(_observe([0] * 42), _config())
