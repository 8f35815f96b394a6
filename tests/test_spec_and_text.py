"""Specs and text forms, exactly as users type and read them."""

from __future__ import annotations

import pytest

from qarena.errors import IllegalMoveError, MoveError, PositionError, SpecError
from qarena.games import Nim, Subtraction, TicTacToe, parse_spec


@pytest.mark.parametrize(
    ("text", "game"),
    [
        ("nim", Nim(piles=(3, 5, 7))),
        ("nim:3,5,7", Nim(piles=(3, 5, 7))),
        ("nim:3,5,7:misere", Nim(piles=(3, 5, 7))),
        ("nim:3,5,7:normal", Nim(piles=(3, 5, 7), misere=False)),
        ("nim:1,3,5,7", Nim(piles=(1, 3, 5, 7))),
        ("subtraction", Subtraction.make(12, 3)),
        ("subtraction:12:3", Subtraction.make(12, 3)),
        ("subtraction:12:3:normal", Subtraction.make(12, 3, misere=False)),
        ("subtraction:20", Subtraction.make(20, 3)),
        ("tictactoe", TicTacToe(3, 3, 3)),
        ("tictactoe:3x3:3", TicTacToe(3, 3, 3)),
        ("tictactoe:4x4:4", TicTacToe(4, 4, 4)),
        ("tictactoe:3x4:3", TicTacToe(3, 4, 3)),
        ("tictactoe:4x4", TicTacToe(4, 4, 4)),
    ],
)
def test_specs_name_games(text: str, game: object) -> None:
    parsed = parse_spec(text)
    assert parsed == game
    assert parse_spec(parsed.spec) == parsed


def test_canonical_spec_text() -> None:
    assert parse_spec("nim").spec == "nim:3,5,7"
    assert parse_spec("nim:3,5,7:normal").spec == "nim:3,5,7:normal"
    assert parse_spec("subtraction").spec == "subtraction:12:3"
    assert parse_spec("tictactoe").spec == "tictactoe:3x3:3"


@pytest.mark.parametrize(
    "text",
    [
        "nim:-3",
        "nim:abc",
        "nim:0",
        "nim:",
        "nim:3,,5",
        "nim:3:sideways",
        "nim:1:normal:x",
        "subtraction:0",
        "subtraction:12:0",
        "subtraction:x",
        "tictactoe:3x3:4",
        "tictactoe:0x3:3",
        "tictactoe:3by3",
        "tictactoe:3x3:0",
        "chess",
        "",
        "tictactoe:3x27:3",
    ],
)
def test_bad_specs_are_refused(text: str) -> None:
    with pytest.raises(SpecError):
        parse_spec(text)


def test_nim_text_forms() -> None:
    game = parse_spec("nim")
    assert game.start() == (3, 5, 7)
    assert game.format_position((3, 5, 7)) == "3 5 7"
    assert game.parse_position("1 0 7") == (1, 0, 7)
    move = game.parse_move("3:2")
    assert game.apply((3, 5, 7), move) == (3, 5, 5)
    assert game.format_move(move) == "3:2"
    for bad in ["4:1", "0:1", "z9", "1:4", "3:0", "3-2"]:
        with pytest.raises(MoveError):
            game.parse_move(bad)
    for bad in ["3 5", "3 5 7 1", "4 5 7", "a b c", "", "3 -5 7"]:
        with pytest.raises(PositionError):
            game.parse_position(bad)
    with pytest.raises(IllegalMoveError):
        game.apply((3, 5, 1), game.parse_move("3:2"))


def test_subtraction_text_forms() -> None:
    game = parse_spec("subtraction")
    assert game.format_position(game.start()) == "12"
    assert game.apply((12,), game.parse_move("3")) == (9,)
    assert game.format_move(game.parse_move("2")) == "2"
    for bad in ["4", "0", "x", "1:1"]:
        with pytest.raises(MoveError):
            game.parse_move(bad)
    for bad in ["13", "-1", "twelve"]:
        with pytest.raises(PositionError):
            game.parse_position(bad)


def test_board_text_forms() -> None:
    game = parse_spec("tictactoe")
    assert game.parse_move("a1") == 0  # top-left
    assert game.parse_move("b2") == 4  # centre
    assert game.parse_move("c3") == 8
    assert game.parse_move("c1") == 2  # columns are letters, rows count from the top
    p = game.parse_position("x.o/.x./..o")
    assert p == (1, 0, 2, 0, 1, 0, 0, 0, 2)
    assert game.format_position(p) == "x.o/.x./..o"
    assert game.to_move(p) == 0
    assert game.format_position(game.apply(p, game.parse_move("a3"))) == "x.o/.x./x.o"
    wide = parse_spec("tictactoe:3x4:3")
    assert wide.format_move(wide.parse_move("d2")) == "d2"
    assert wide.format_position(wide.start()) == "..../..../...."
    for bad in ["z9", "d1", "a4", "b", "2b", ""]:
        with pytest.raises(MoveError):
            game.parse_move(bad)
    for bad in [
        "x.o/.x.",
        "x.o/.x./..q",
        "xx./.../...",
        "ooo/xx./xx.",
        "xxx/ooo/x..",
        "xxx/oo./o..",
    ]:
        with pytest.raises(PositionError):
            game.parse_position(bad)


def test_square_boards_have_eight_symmetries() -> None:
    game = parse_spec("tictactoe")
    assert len(game.symmetries) == 8
    assert len(parse_spec("tictactoe:3x4:3").symmetries) == 4
    corners = {
        game.canonical(game.apply(game.start(), game.parse_move(c)))
        for c in ["a1", "c1", "a3", "c3"]
    }
    edges = {
        game.canonical(game.apply(game.start(), game.parse_move(c)))
        for c in ["b1", "a2", "c2", "b3"]
    }
    assert len(corners) == 1
    assert len(edges) == 1
    assert corners != edges


def test_nim_canonical_form_sorts_piles() -> None:
    game = parse_spec("nim")
    assert game.canonical((3, 0, 2)) == game.canonical((2, 3, 0)) == (0, 2, 3)
    # Sorted positions always fit the encoding, even when the starting piles are not sorted.
    unsorted = parse_spec("nim:7,5,3")
    assert unsorted.canonical((7, 0, 0)) == (7, 0, 0)
    assert unsorted.canonical((0, 5, 3)) == (5, 3, 0)


def test_keypad_digits_are_the_cells_of_a_3x3_board_as_a_numeric_keypad() -> None:
    from qarena.errors import MoveError
    from qarena.games import parse_spec

    game = parse_spec("tictactoe")
    # A numeric keypad: 7 8 9 on top, 4 5 6 in the middle, 1 2 3 at the bottom.
    layout = {"7": "a1", "8": "b1", "9": "c1", "4": "a2", "5": "b2", "6": "c2"}
    layout |= {"1": "a3", "2": "b3", "3": "c3"}
    for digit, cell in layout.items():
        assert game.parse_move(digit) == game.parse_move(cell)
    assert "numeric keypad" in game.move_help(game.start())
    for spec in ("tictactoe:4x4", "connect4:3x3:3"):
        other = parse_spec(spec)
        with pytest.raises(MoveError):
            other.parse_move("5")
        assert "keypad" not in other.move_help(other.start())
