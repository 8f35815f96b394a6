"""What a newcomer meets first on the command line: the help's order, train without --out,
Connect Four's moves in --position, the AI's table when every move is alike (issue 36)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from qarena.cli import run
from qarena.cli.play import _loaded, _Session
from qarena.games import ConnectFour, TicTacToe, parse_spec
from qarena.i18n import speaking
from qarena.learn.ntuple.files import save_network
from qarena.learn.ntuple.network import NTupleNetwork
from qarena.show.text import draw


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_lists_every_command_in_workflow_order(capsys: pytest.CaptureFixture[str]) -> None:
    import typer.main

    from qarena.cli.app import app
    from qarena.cli.common import WORKFLOW

    code, out, _ = _run(capsys, "--help")
    assert code == 0
    listed = re.findall(r"^│ ([a-z][a-z-]*)\s", out, re.MULTILINE)
    # Every registered command is listed, warm-up too (a newcomer who installed qarena some
    # other way than make install runs it once), each once.
    registered = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert sorted(listed) == sorted(registered) and "warm-up" in listed
    # Each has its place in the order: a new command is placed, not left to trail at the end.
    assert set(registered) <= set(WORKFLOW), "give the new command its place in WORKFLOW"
    # As people use them: play, in the terminal or the browser, first; then train and judge.
    assert listed[:4] == ["play", "serve", "train", "eval"]
    assert listed.index("compete") < listed.index("solve") < listed.index("sweep")
    assert listed[-1] == "warm-up"


@pytest.mark.parametrize("lang", ["en", "de", "ru"])
def test_lang_help_names_every_language(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    code, out, _ = _run(capsys, "--lang", lang, "--help")
    assert code == 0
    assert re.search(r"\bru\b", out), out


def test_train_without_out_picks_a_new_file_and_says_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    names = []
    for _ in range(2):
        code, _out, err = _run(capsys, "train", "nim:1,2", "--episodes", "50")
        assert code == 0
        names.append(err.strip().splitlines()[-1])
    # The second run does not replace the first's file: each says its own on the last line.
    assert names == [
        "No --out given: saved to nim-1-2-q.npz.",
        "No --out given: saved to nim-1-2-q-2.npz.",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nim-1-2-q-2.npz", "nim-1-2-q.npz"]


def test_train_without_out_names_the_learner(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _out, err = _run(capsys, "train", "nim:1,2", "-l", "afterstate", "--episodes", "50")
    assert code == 0 and err.strip().endswith("saved to nim-1-2-afterstate.npz.")


def test_train_with_out_says_nothing_more(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _out, err = _run(
        capsys, "train", "nim:1,2", "--episodes", "50", "-o", str(tmp_path / "a.npz")
    )
    assert code == 0 and "No --out given" not in err


def test_connect_four_positions_take_letters_as_play_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = ConnectFour(6, 7, 4)
    assert game.parse_position("dd") == game.parse_position("44")
    assert game.parse_position("DdE") == game.parse_position("445")
    code, out, _ = _run(capsys, "solve", "connect4:4x4:3", "--position", "dd", "--json")
    assert code == 0
    assert json.loads(out)["position"] == "..../..../...o/...x"


def test_a_letter_beyond_the_board_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _run(capsys, "solve", "connect4:4x4:3", "--position", "dz")
    assert code == 2
    assert err.strip().endswith("move 2 of 'dz' is column z; columns are a to d from the left")
    assert len(err.strip().splitlines()) == 1


def _text(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_connect_four_values_are_drawn_where_the_pieces_land() -> None:
    game = ConnectFour(4, 4, 3)
    pos = game.parse_position("dd")
    lines = _text(draw(game, pos, {m: f"v{m}" for m in game.legal_moves(pos)})).splitlines()
    row = {line.split()[0]: line for line in lines if line[:1].isdigit()}
    # Row 4 is the bottom: a, b and c land there; d lands on row 2, above the two pieces.
    assert "v0" in row["4"] and "v1" in row["4"] and "v2" in row["4"]
    assert "v3" in row["2"]
    assert "v" not in row["1"]
    # On tic-tac-toe a move is its cell: b2's note in row 2.
    board = TicTacToe(3, 3, 3)
    lines = _text(draw(board, board.start(), {4: "v4"})).splitlines()
    assert "v4" in next(line for line in lines if line.startswith("2 "))


def _session(agent: NTupleNetwork) -> _Session:
    return _Session(
        game=agent.game,
        agent=agent,
        first="human",
        show_q=True,
        hint=False,
        ai_values=False,
        rng=np.random.default_rng(0),
        solution=None,
    )


def test_when_every_move_is_alike_no_row_is_marked() -> None:
    game = parse_spec("connect4")
    untrained = NTupleNetwork.new(game, 4, 2)  # every value 0
    text = _text(_session(untrained)._options_table(game.start()))
    assert "← the AI would play this" not in text
    assert text.count("Every move has the same value: the AI would play any of them.") == 1


def test_the_ai_s_choice_is_marked_when_moves_differ() -> None:
    game = parse_spec("tictactoe:3x3:3")
    net = NTupleNetwork.new(game, 4, 2)
    net.learn(200)
    pos = game.start()
    text = _text(_session(net)._options_table(pos))
    marks = text.count("← the AI would play this")
    assert marks == len(net.choices(pos)) < len(game.legal_moves(pos))
    assert "Every move has the same value" not in text


def test_table_of_an_untrained_network_marks_no_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "n.npz"
    save_network(path, NTupleNetwork.new(parse_spec("connect4:4x4:3"), 4, 2))
    code, out, _ = _run(capsys, "table", str(path))
    assert code == 0
    assert "← agent's choice" not in out
    assert "Every move has the same value: the agent would play any of them." in out


def test_loaded_agent_line_has_no_wrong_article(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "a.npz"
    assert run(["train", "nim:1,2", "-l", "afterstate", "--episodes", "50", "-o", str(path)]) == 0
    capsys.readouterr()
    with speaking("en"):
        _loaded(path)
    err = capsys.readouterr().err
    assert "a afterstate" not in err
    assert re.match(r"Loaded an agent for nim:1,2 from .*a\.npz: afterstate TD\(0\), 50 ", err)


def test_the_web_footer_does_not_say_tabular_only(tmp_path: Path) -> None:
    from qarena.web.app import create_app

    # An app of its own: leaving a TestClient runs the app's shutdown, which would stop the
    # session's shared app (the browser tests' server) from searching.
    with TestClient(create_app(tmp_path)) as client:
        page = client.get("/").text
    assert "tabular reinforcement learning" not in page
    assert "agents that learn small games, judged by exact solutions" in page
