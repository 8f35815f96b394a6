"""Connect Four: the rules (gravity, columns, the mirror), its text forms, the known counts of
reachable positions, and the tools on a small board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qarena.cli.app import run
from qarena.errors import IllegalMoveError, MoveError, PositionError, SpecError
from qarena.exact import solve
from qarena.games import DRAW, ConnectFour, parse_spec
from tests.test_known_counts import _reachable


def test_specs() -> None:
    assert parse_spec("connect4") == ConnectFour(6, 7, 4)
    assert parse_spec("connect4:4x5").spec == "connect4:4x5:4"
    assert parse_spec("connect4:5x4:3").spec == "connect4:5x4:3"
    with pytest.raises(SpecError, match="cannot fit on a 3x3 board"):
        parse_spec("connect4:3x3")
    with pytest.raises(SpecError, match="not ROWSxCOLS"):
        parse_spec("connect4:4by5")


def test_enumeration_refuses_the_default_board_naming_what_works(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Training needs every position's row; classic Connect Four is solved by search instead.
    assert run(["train", "connect4", "--out", str(tmp_path / "c4.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "connect4:6x7:4 is too large" in err and "positions need" in err and "PB" in err
    assert "search solves it one position at a time: use qarena solve" in err
    assert not (tmp_path / "c4.npz").exists()


def test_pieces_fall_and_full_columns_are_illegal() -> None:
    game = ConnectFour(4, 4, 4)
    p = game.start()
    for text in ("a", "a", "a", "a"):
        p = game.apply(p, game.parse_move(text))
    assert game.format_position(p) == "o.../x.../o.../x..."
    assert game.legal_moves(p) == [1, 2, 3]
    with pytest.raises(IllegalMoveError):
        game.apply(p, game.parse_move("a"))
    with pytest.raises(MoveError, match="not a column"):
        game.parse_move("e")
    assert game.format_move(game.parse_move("D")) == "d"


def test_four_in_a_row_wins() -> None:
    game = ConnectFour(4, 4, 4)
    p = game.start()
    for text in "ababab":
        p = game.apply(p, game.parse_move(text))
    p = game.apply(p, game.parse_move("a"))  # x: four down column a
    assert game.is_terminal(p) and game.result(p) == -1
    assert game.winning_line(p) == "x has 4 in a row (a1 a2 a3 a4)"


def test_positions_must_obey_gravity() -> None:
    game = ConnectFour(4, 4, 4)
    assert game.parse_position("..../..../..../xo..") == (0,) * 12 + (1, 2, 0, 0)
    with pytest.raises(PositionError, match="floating in column b"):
        game.parse_position("..../..../.o../x...")


def test_the_mirror_is_the_only_symmetry() -> None:
    game = ConnectFour(4, 5, 4)
    p = game.apply(game.start(), game.parse_move("e"))
    mirrored = game.apply(game.start(), game.parse_move("a"))
    assert game.canonical(p) == game.canonical(mirrored)
    q = game.apply(p, game.parse_move("e"))
    # The canonical frame maps each move to the mirrored column, and back.
    for move in game.legal_moves(q):
        assert game.uncanonical_move(q, game.canonical_move(q, move)) == move
    # Upside-down is not a symmetry: gravity tells the bottom from the top.
    assert len(game.symmetries) == 2


def test_solver_counts_4x4() -> None:
    """Tromp's count for 4 rows × 4 columns: 161,029 positions (start included)."""
    assert solve(parse_spec("connect4:4x4")).positions == 161_029


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "count"),
    [("connect4:4x4", 161_029), ("connect4:5x4", 1_706_255), ("connect4:4x5", 3_945_711)],
)
def test_known_counts_through_the_game_interface(spec: str, count: int) -> None:
    assert len(_reachable(parse_spec(spec))) == count


@pytest.mark.parametrize(
    ("spec", "count"), [("connect4:5x4", 1_706_255), ("connect4:4x5", 3_945_711)]
)
def test_known_counts_of_the_compiled_search(spec: str, count: int) -> None:
    """The search counts a mirror class's positions once each: the sum over classes is
    Tromp's count."""
    assert solve(parse_spec(spec)).positions == count


@pytest.mark.slow
def test_tromps_count_for_5x5() -> None:
    """69,763,700 positions, and a draw with best play (Tromp's tables of small boards);
    about a minute and 4 GB."""
    solution = solve(parse_spec("connect4:5x5"))
    assert solution.positions == 69_763_700
    assert solution.start_value == DRAW


def test_the_tools_on_a_small_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = str(tmp_path / "c4.npz")
    assert run(["train", "connect4:3x4:3", "-o", policy, "--until-perfect", "--json"]) == 0
    trained = json.loads(capsys.readouterr().out)
    assert trained["optimality"] == 1.0
    assert run(["eval", policy, "--games", "200", "--json"]) == 0
    matches = json.loads(capsys.readouterr().out)["matches"]
    # Perfect play against perfect play keeps the game value in both seats.
    value = solve(parse_spec("connect4:3x4:3")).start_value
    first = matches["perfect"]["first"]
    assert first[{1: "win", 0: "draw", -1: "loss"}[value]] == 1.0
    assert run(["table", policy, "--csv", "-"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "position,move,q" and rows[1].startswith("..../..../....,a,")
    assert run(["explain", "connect4:3x4:3", "--position", "..../..../.x.."]) == 0
    assert "Connect Four 3×4" in capsys.readouterr().out


def test_the_browser_drops_pieces(tmp_path: Path) -> None:
    """A click anywhere in a column plays that column; the API takes column letters."""
    from fastapi.testclient import TestClient

    from qarena.web import create_app

    with TestClient(create_app(tmp_path, train_seconds=5.0)) as client:
        state = client.post("/api/games", json={"game": "connect4:3x3:3"}).json()
        assert state["legal_moves"] == ["a", "b", "c"]
        after = client.post(f"/api/games/{state['id']}/moves", json={"move": "b"}).json()
        assert after["position"].endswith("/.x.")  # x fell to the bottom of column b
        page = client.get(f"/games/{state['id']}").text
        assert page.count('data-move="b"') >= 3  # every cell of column b plays b
        assert "Click a column to drop a piece in it." in page
