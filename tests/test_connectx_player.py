"""A Kaggle ConnectX agent as a qarena player, ``connectx:FILE`` (issue 58), held to facts from
outside qarena: Kaggle's own client (``kaggle_environments``: its loader, its board, its
``negamax`` and ``random`` agents), a tiny minimax written here, and counts made here."""

from __future__ import annotations

import functools
import json
import random
import re
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import qarena
from qarena.agents.connectx import ConnectXPlayer
from qarena.cli import run
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.web import create_app
from tests.conftest import kaggle_environments

SMALL = "connect4:4x4:3"

#: A minimax for any small ConnectX board, written here from the rules alone: the value of a
#: board for the player to move (1 win, 0 draw, -1 loss), memoized. Written into agent files
#: and run in this test too.
MINIMAX = textwrap.dedent(
    """
    import functools

    @functools.lru_cache(maxsize=None)
    def lines(rows, cols, k):
        found = []
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + i * dr, c + i * dc) for i in range(k)]
                    if all(0 <= y < rows and 0 <= x < cols for y, x in cells):
                        found.append(tuple(y * cols + x for y, x in cells))
        return tuple(found)

    def drop(board, col, mark, rows, cols):
        row = max(r for r in range(rows) if board[r * cols + col] == 0)
        cells = list(board)
        cells[row * cols + col] = mark
        return tuple(cells)

    @functools.lru_cache(maxsize=None)
    def move_values(board, rows, cols, k):
        mark = 1 if sum(1 for x in board if x) % 2 == 0 else 2
        found = {}
        for col in range(cols):
            if board[col]:
                continue
            after = drop(board, col, mark, rows, cols)
            if any(all(after[i] == mark for i in line) for line in lines(rows, cols, k)):
                found[col] = 1
            elif all(after):
                found[col] = 0
            else:
                found[col] = -max(move_values(after, rows, cols, k).values())
        return found
    """
)

MINIMAX_AGENT = MINIMAX + textwrap.dedent(
    """
    def agent(observation, configuration):
        values = move_values(
            tuple(observation.board), configuration.rows, configuration.columns,
            configuration.inarow,
        )
        return max(values, key=values.get)
    """
)

FIRST_AGENT = """
def agent(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""


@functools.cache
def _minimax() -> dict[str, Any]:
    space: dict[str, Any] = {}
    exec(MINIMAX, space)
    return space


def _file(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _kaggle_file(folder: Path, which: str) -> str:
    """An agent file as a Kaggle user writes one around Kaggle's own agent."""
    kaggle_environments()
    return _file(
        folder,
        f"{which}.py",
        f"from kaggle_environments.envs.connectx.connectx import {which}_agent\n",
    )


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(["eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """A command refused: exit 2, one line, no traceback; the line."""
    code = run(list(args))
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --- Kaggle's own agents, played and judged -------------------------------------------------


@pytest.mark.slow  # Kaggle's pure-Python agents, judged and played
def test_kaggle_s_own_agents_are_judged_and_played(tmp_path: Path) -> None:
    shares = {}
    for which in ("negamax", "random"):
        name = f"connectx:{_kaggle_file(tmp_path, which)}"
        # Judged exactly on a uniform sample of a small board's decision positions, and played
        # in both seats.
        judged = qarena.judge(name, SMALL, games=2, uniform=400, seed=1, beat_seconds=0)
        assert judged.optimality.decisions == 400 and judged.sample is not None
        assert set(judged.matches) == {"random", "perfect"}
        shares[which] = judged.optimality.share
        # And it plays games through the Python API, against qarena's perfect play.
        assert qarena.compete(name, "perfect", SMALL, games=2) is not None
    # Kaggle's negamax looks 4 plies ahead: on 4×4 it keeps the value far more often.
    assert shares["negamax"] > shares["random"] + 0.2, shares


@pytest.mark.slow  # Kaggle's pure-Python agents, judged and played
def test_eval_judges_a_kaggle_agent_on_classic_connect_four_by_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _kaggle_file(tmp_path, "random")
    code, out, err = _eval(
        capsys, f"connectx:{path}", "--game", "connect4", "--sample", "10", "--games", "1",
        "--beat-seconds", "0", "--json",
    )  # fmt: skip
    assert code == 0, err
    record = json.loads(out)
    assert record["game"] == "connect4:6x7:4" and 1 <= record["decisions"] <= 10
    # By samples, each judged by search, with its interval.
    low, high = record["sample"]["interval"]
    assert 0 <= low <= record["optimality"] <= high <= 1
    assert len(record["sample"]["positions"]) == record["decisions"]


def test_what_an_agent_prints_leaves_the_json_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, "chatty.py", "print('loading')\n" + FIRST_AGENT.replace(
        "    return", "    print('thinking', obs.step)\n    return"
    ))  # fmt: skip
    code, out, err = _eval(
        capsys, f"connectx:{path}", "--game", SMALL, "--uniform", "50", "--games", "1", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["decisions"] == 50
    assert "thinking" not in out + err and "loading" not in out + err


# --- facts counted here ---------------------------------------------------------------------


@pytest.mark.slow  # every decision position of 4×4 asked of a Python agent
def test_an_agent_playing_by_minimax_is_perfect(tmp_path: Path) -> None:
    path = _file(tmp_path, "minimax.py", MINIMAX_AGENT)
    judged = qarena.judge(f"connectx:{path}", SMALL, games=2, beat_seconds=0)
    assert judged.optimality.share == 1.0
    assert judged.matches["perfect"].first.win == 2  # 4×4, 3 in a row: the first player wins


@pytest.mark.slow  # every decision position of 4×4 asked of a Python agent
def test_a_first_column_agent_s_share_is_counted_here_too(tmp_path: Path) -> None:
    rows, cols, k = 4, 4, 3
    move_values = _minimax()["move_values"]
    drop = _minimax()["drop"]
    # Every reachable position where the game goes on and its moves differ in value.
    seen: set[tuple[int, ...]] = set()
    todo = [(0,) * (rows * cols)]
    decisions = kept = 0
    while todo:
        board = todo.pop()
        if board in seen:
            continue
        seen.add(board)
        values = move_values(board, rows, cols, k)
        if len(set(values.values())) > 1:
            decisions += 1
            kept += values[min(values)] == max(values.values())  # its first legal column
        mark = 1 if sum(1 for x in board if x) % 2 == 0 else 2
        for col in values:
            after = drop(board, col, mark, rows, cols)
            if not _ended(after, mark, rows, cols, k):
                todo.append(after)
    path = _file(tmp_path, "first.py", FIRST_AGENT)
    judged = qarena.judge(f"connectx:{path}", SMALL, games=1, beat_seconds=0).optimality
    assert (judged.decisions, judged.optimal) == (decisions, kept)


def _ended(board: tuple[int, ...], mark: int, rows: int, cols: int, k: int) -> bool:
    lines = _minimax()["lines"](rows, cols, k)
    return all(board) or any(all(board[i] == mark for i in line) for line in lines)


# --- Kaggle's loader, board and clock -------------------------------------------------------


def test_kaggle_s_loader_and_ours_give_the_same_moves(tmp_path: Path) -> None:
    kaggle = kaggle_environments()
    from kaggle_environments.agent import get_last_callable
    from kaggle_environments.utils import structify

    path = _kaggle_file(tmp_path, "negamax")
    theirs = get_last_callable(Path(path).read_text(), path=path)
    configuration = structify(dict(kaggle.make("connectx").configuration))
    game = parse_spec("connect4")
    ours = ConnectXPlayer(game, path)
    rng = random.Random(3)
    position = game.start()
    for ply in range(12):
        board = list(position)
        observation = structify(
            {"board": board, "mark": ply % 2 + 1, "step": ply, "remainingOverageTime": 60}
        )
        random.seed(ply)  # negamax breaks ties with the random module
        expected = theirs(observation, configuration)
        random.seed(ply)
        assert ours.act(position) == expected, (ply, game.format_position(position))
        position = game.apply(position, rng.choice(game.legal_moves(position)))


@pytest.mark.parametrize(("spec", "rows", "cols", "k"), [("connect4", 6, 7, 4), (SMALL, 4, 4, 3)])
def test_kaggle_s_board_is_qarena_s_position(spec: str, rows: int, cols: int, k: int) -> None:
    kaggle = kaggle_environments()
    env = kaggle.make("connectx", configuration={"rows": rows, "columns": cols, "inarow": k})
    env.reset()
    game = parse_spec(spec)
    position = game.start()
    for ply, column in enumerate([2, 2, 1, 1, 0]):  # on 4×4, 3 in a row: x wins
        env.step([column, None] if ply % 2 == 0 else [None, column])
        position = game.apply(position, column)
        assert env.state[0].observation.board == list(position)
    assert position[(rows - 1) * cols + 2] == 1 and position[(rows - 2) * cols + 2] == 2


def test_the_agent_is_asked_as_kaggle_asks(tmp_path: Path) -> None:
    kaggle = kaggle_environments()
    asked: list[tuple[Any, Any]] = []

    def agent(observation: Any, configuration: Any) -> int:
        asked.append((observation, configuration))
        return 1

    game = parse_spec("connect4:4x5:3")
    position = game.apply(game.start(), 2)
    ConnectXPlayer(game, "agent.py", agent=agent).act(position)
    observation, configuration = asked[0]
    spec = kaggle.make("connectx", configuration={"rows": 4, "columns": 5, "inarow": 3})
    # Read as attributes and as keys, as Kaggle's Struct reads.
    assert observation.board == observation["board"] == list(position)
    assert (observation.mark, observation.step, observation.remainingOverageTime) == (2, 1, 60)
    theirs = {key: value for key, value in dict(spec.configuration).items()}
    assert {key: configuration[key] for key in theirs} == theirs
    assert configuration.actTimeout == 2 and configuration.__raw_path__ == "agent.py"


def test_an_agent_of_one_parameter_is_given_the_observation_only(tmp_path: Path) -> None:
    path = _file(tmp_path, "one.py", "def act(obs):\n    return obs.board.index(0) % 4\n")
    player = qarena.player(f"connectx:{path}", SMALL)
    assert player.act(parse_spec(SMALL).start()) == 0


def test_a_file_imports_its_neighbours_and_its_last_callable_plays(tmp_path: Path) -> None:
    _file(tmp_path, "helper_cx_58.py", "COLUMN = 2\n")
    path = _file(
        tmp_path,
        "main.py",
        "import helper_cx_58\ndef first(o, c):\n    return 0\n"
        "def last(o, c):\n    return helper_cx_58.COLUMN\n",
    )
    player = qarena.player(f"connectx:{path}", SMALL)
    assert player.act(parse_spec(SMALL).start()) == 2
    assert str(tmp_path) not in __import__("sys").path  # its folder importable while it loads


# --- refusals -------------------------------------------------------------------------------


def test_a_file_that_cannot_be_an_agent_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.py"
    with big.open("wb") as f:  # a gigabyte, sparse: refused before it is read
        f.truncate(2**30)
    cases = {
        str(tmp_path / "missing.py"): "there is no such file",
        str(big): "more than the",
        _file(tmp_path, "syntax.py", "def agent(:\n"): "is not Python",
        str(tmp_path / "bytes.py"): "not UTF-8",
        _file(tmp_path, "raises.py", "raise RuntimeError('no weights')\n"): "RuntimeError: no",
        _file(tmp_path, "exits.py", "import sys\nsys.exit(3)\n"): "SystemExit",
        _file(tmp_path, "nothing.py", "X = 1\n"): "nothing callable",
        str(tmp_path): "is not a file",
    }
    (tmp_path / "bytes.py").write_bytes(b"\xff\xfe\x00def agent")
    for path, words in cases.items():
        start = time.perf_counter()
        line = _refused(capsys, "eval", f"connectx:{path}", "--game", SMALL)
        assert words in line and f"connectx:{path}"[:60] in line, line
        assert time.perf_counter() - start < 10


def test_a_game_that_is_not_connect_four_is_refused_before_the_file_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    path = _file(
        tmp_path, "agent.py", f"open({str(marker)!r}, 'w').close()\ndef a(o, c): return 0\n"
    )
    line = _refused(capsys, "eval", f"connectx:{path}", "--game", "tictactoe")
    assert "Connect Four" in line and "tictactoe" in line
    assert not marker.exists()
    assert "names no file" in _refused(capsys, "eval", "connectx:", "--game", SMALL)


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ("4", "off the board"),
        ("-1", "off the board"),
        ("'2'", "a whole number"),
        ("1.0", "a whole number"),
        ("True", "a whole number"),
        ("None", "a whole number"),
        ("1 // 0", "ZeroDivisionError"),
        ("0 if obs.board[0] == 0 else 0", "is full"),
    ],
)
def test_a_bad_answer_is_one_line_naming_the_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], answer: str, words: str
) -> None:
    path = _file(tmp_path, "bad.py", f"def agent(obs, config):\n    return {answer}\n")
    game = parse_spec(SMALL)
    position = game.start()
    if words == "is full":  # column a filled by both players
        for _ in range(4):
            position = game.apply(position, 0)
    player = qarena.player(f"connectx:{path}", SMALL)
    with pytest.raises(QarenaError) as e:
        player.act(position)
    text = str(e.value)
    assert words in text and game.format_position(position) in text, text
    assert "\n" not in text


def test_a_bad_answer_at_the_command_line_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, "bad.py", "def agent(obs, config):\n    return 9\n")
    line = _refused(capsys, "eval", f"connectx:{path}", "--game", SMALL, "--beat-seconds", "0")
    assert "off the board" in line and re.search(r"\.\.\.\.(/\.\.\.\.){3}", line), line


def test_the_clock_is_kaggle_s_a_move_and_an_overage_a_game(tmp_path: Path) -> None:
    game = parse_spec(SMALL)

    def slow(observation: Any, configuration: Any) -> int:
        time.sleep(0.3)
        return 0

    # 0.2 s a move and 0.25 s of overage a game: the first move takes 0.1 s of it, the second
    # another, the third is past both.
    player = ConnectXPlayer(game, "slow.py", agent=slow, act_timeout=0.2, overage=0.25)
    position = game.start()
    for _ in range(2):
        position = game.apply(position, player.act(position))
    assert 0 < player.remaining < 0.1
    start = time.perf_counter()
    with pytest.raises(QarenaError, match=r"took more than .* in \.\.\.\."):
        player.act(position)
    assert time.perf_counter() - start < 0.3  # refused when its time is up, not when it ends
    # A new game (fewer pieces than the last position asked) has its overage anew.
    assert player.act(game.start()) == 0


def test_an_agent_that_never_answers_is_refused_in_its_time() -> None:
    game = parse_spec(SMALL)

    def stuck(observation: Any, configuration: Any) -> int:
        time.sleep(30)
        return 0

    player = ConnectXPlayer(game, "stuck.py", agent=stuck, act_timeout=0.1, overage=0.1)
    start = time.perf_counter()
    with pytest.raises(QarenaError, match=r"took more than 0\.2 s"):
        player.act(game.start())
    assert time.perf_counter() - start < 1


# --- said, and never run from the web -------------------------------------------------------


@pytest.mark.parametrize("command", ["eval", "compete", "watch", "play", "beat"])
def test_the_help_says_running_a_file_runs_its_code(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    for lang, words in (("en", "runs the file's code"), ("de", "Code"), ("ru", "код")):
        assert run(["--lang", lang, command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "connectx:FILE" in text and words in text, (lang, text)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "web")) as c:
        yield c


def test_the_web_never_runs_a_file_s_code(
    tmp_path: Path, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    _file(tmp_path, "a.py", f"open({str(marker)!r}, 'w').close()\ndef a(o, c): return 0\n")
    monkeypatch.chdir(tmp_path)  # a short name, within the API's fields' length
    name = "connectx:a.py"
    said = "runs a file's own code"
    # Watch: the page's form, in either seat.
    for a, b in ((name, "random"), ("perfect", name)):
        page = client.post("/watch", data={"a": a, "b": b, "game": SMALL, "delay": "1"})
        assert said in page.text.replace("&#39;", "'"), page.text[:500]
    # Play: the API's new game and the home page's form, as the opponent and as the file
    # scoring a thinking player's leaves.
    for opponent in (name, f"mcts:10:{name}"):
        r = client.post("/api/games", json={"game": SMALL, "first": "human", "opponent": opponent})
        assert r.status_code in (400, 422) and said in r.text, r.text
        page = client.post("/play", data={"kind": "spec", "spec": SMALL, "opponent": opponent})
        assert said in page.text.replace("&#39;", "'")
    # Compare: the policies asked for by id.
    page = client.get("/compare", params={"id": name})
    assert said in page.text.replace("&#39;", "'")
    # Train: the opponent.
    r = client.post("/api/train", json={"game": SMALL, "opponent": name, "episodes": 10})
    assert r.status_code in (400, 422) and said in r.text, r.text
    assert not marker.exists()


def test_the_web_refuses_by_the_declaration_not_the_name() -> None:
    from qarena.agents.spec_players import SPEC_KINDS, runs_code

    assert SPEC_KINDS["connectx"].runs_code
    assert runs_code("connectx:a.py") and runs_code("mcts:10:connectx:a.py")
    assert not runs_code("mcts:10:network") and not runs_code("connectx")
    web = Path(qarena.__file__).parent / "web"
    # No code of the web's names the kind (a comment may say what is refused).
    quoted = re.compile(r"[\"']connectx")
    named = [p.name for p in web.rglob("*.py") if quoted.search(p.read_text(encoding="utf-8"))]
    assert named == []


#: An agent that draws its column from Python's shared generator, as Kaggle's agents do.
DRAWING_AGENT = """
import random

def agent(obs, config):
    return random.choice([c for c in range(config.columns) if obs.board[c] == 0])
"""


def test_a_seeded_agent_that_draws_answers_alike_at_a_position(tmp_path: Path) -> None:
    """With a seed, the generator a Kaggle agent draws from is seeded from it and the position
    before each ask: the same seed gives the same moves whatever was asked before, and the
    agent still draws (other seeds, other moves); without one it goes on drawing."""
    path = _file(tmp_path, "drawing.py", DRAWING_AGENT)
    game = parse_spec("connect4")
    positions = [game.start()]
    for move in (3, 3, 2, 4, 0):
        positions.append(game.apply(positions[-1], move))

    def moves(seed: int | None, order: list[int]) -> dict[int, int]:
        who = qarena.player(f"connectx:{path}", game, seed=seed)
        return {i: who.act(positions[i]) for i in order}

    forward = moves(7, list(range(len(positions))))
    assert moves(7, list(reversed(range(len(positions))))) == forward
    seen = {tuple(moves(seed, list(range(len(positions)))).values()) for seed in range(8)}
    assert len(seen) > 1  # the seed decides, not a fixed answer
    random.seed(0)
    unseeded = qarena.player(f"connectx:{path}", game)
    drawn = {unseeded.act(positions[0]) for _ in range(40)}
    assert len(drawn) > 1  # one position, several columns: nothing seeded it


def test_a_kaggle_agent_plays_connectx_s_default_board_when_no_game_is_named(
    tmp_path: Path,
) -> None:
    """ConnectX's default configuration is 6 rows, 7 columns, 4 in a row
    (``connectx.json``): with no game named, that is the board the agent plays."""
    kaggle = kaggle_environments()
    defaults = kaggle.make("connectx").configuration
    path = _file(tmp_path, "leftmost.py", FIRST_AGENT)
    who = qarena.player(f"connectx:{path}")
    assert who.game.spec == f"connect4:{defaults.rows}x{defaults.columns}:{defaults.inarow}"
