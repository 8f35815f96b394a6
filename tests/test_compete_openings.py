"""``qarena compete A B --openings FILE`` and ``qarena.compete(..., openings=...)``: matches
from opening positions, each played from both sides, held to facts known from outside the code
(tic-tac-toe's theory, Allis' first moves of Connect Four)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import qarena
from qarena.budget import MAX_GAMES
from qarena.cli import run
from qarena.errors import QarenaError
from qarena.games.base import DRAW, LOSS, WIN

#: Tic-tac-toe openings and their value for the side to move, from the game's theory (not
#: from qarena's solver): after a corner only the centre holds the draw; a centre met on an
#: edge, or a corner met on an adjacent edge or the opposite corner, loses to a fork.
TICTACTOE = {
    "x../.../...": DRAW,  # o to move: the centre holds
    ".../.x./...": DRAW,  # o to move: a corner holds
    "x../.o./...": DRAW,  # x to move
    "xo./.../...": WIN,  # x to move: corner, then an adjacent edge
    ".../.xo/...": WIN,  # x to move: centre, then an edge
    "x../.../..o": WIN,  # x to move: corners opposite
    "xo./.x./...": LOSS,  # o to move: must block c3, then x forks at a3
}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_perfect_play_from_each_opening_gives_its_known_value() -> None:
    games = 5
    found = qarena.compete("perfect", "perfect", "tictactoe", games=games, openings=[*TICTACTOE])
    assert [o.opening for o in found.openings] == list(TICTACTOE)
    for o in found.openings:
        value = TICTACTOE[o.opening]
        assert o.value == value, o.opening
        # A's record with A to move is the mover's; with B to move, the other side's.
        mover = {WIN: (games, 0, 0), DRAW: (0, games, 0), LOSS: (0, 0, games)}[value]
        assert (o.a_to_move.win, o.a_to_move.draw, o.a_to_move.loss) == mover, o.opening
        assert (o.b_to_move.loss, o.b_to_move.draw, o.b_to_move.win) == mover, o.opening


def test_perfect_play_never_loses_from_a_won_or_drawn_opening() -> None:
    games = 30
    found = qarena.compete("perfect", "random", "tictactoe", games=games, openings=[*TICTACTOE])
    for o in found.openings:
        value = TICTACTOE[o.opening]
        if value != LOSS:  # perfect play to move, on a won or drawn opening
            assert o.a_to_move.loss == 0, o.opening
        if value == WIN:
            assert o.a_to_move.win == games, o.opening
        if value != WIN:  # random play to move, perfect play on the won or drawn side
            assert o.b_to_move.loss == 0, o.opening
        if value == LOSS:
            assert o.b_to_move.win == games, o.opening


def test_the_counts_add_up_and_a_rerun_plays_the_same_games() -> None:
    games = 7
    openings = [*TICTACTOE]
    found = qarena.compete("random", "random", "tictactoe", games=games, seed=3, openings=openings)
    for o in found.openings:
        assert o.a_to_move.games == o.b_to_move.games == games
    assert found.a_first.games == found.b_first.games == games * len(openings)
    assert found.total.games == 2 * games * len(openings)
    again = qarena.compete("random", "random", "tictactoe", games=games, seed=3, openings=openings)
    assert again.openings == found.openings
    # Without openings a match is as it was: from the start, no openings recorded.
    plain = qarena.compete("random", "random", "tictactoe", games=10)
    assert plain.openings == () and plain.a_first.games == 10
    assert "openings" not in plain.to_json()


def test_openings_may_be_components_and_connect_four_moves() -> None:
    game = qarena.game("tictactoe")
    position = game.position_of("xo./.../...")
    found = qarena.compete("random", "random", game, openings=[position])
    assert found.openings[0].opening == "xo./.../..." and found.openings[0].position == position
    assert found.a_first.games == found.b_first.games == 1  # one game each way unless told
    # Allis: the first stone in column a (1) loses, in c (3) draws, in d (4) wins; after it
    # the second player is to move. Past the shipped book's 5 stones no value is searched.
    c4 = qarena.compete("random", "random", "connect4", openings=["1", "3", "4", "444444"])
    assert [o.value for o in c4.openings] == [WIN, DRAW, LOSS, None]
    assert [o.to_move for o in c4.openings] == [1, 1, 1, 0]


@pytest.mark.parametrize(
    ("given", "words"),
    [
        (["x../.../...", "x.q/.../..."], "x.q/.../..."),  # unreadable
        (["xxx/oo./..."], "finished"),
        (["4"], "4"),  # another game's position (Connect Four's move digits)
        ([], "at least 1"),
    ],
)
def test_the_api_refuses_a_bad_opening_before_any_game(given: list[str], words: str) -> None:
    calls = []

    def mine(position: tuple[int, ...]) -> int:
        calls.append(position)
        return qarena.game("tictactoe").legal_moves(position)[0]

    with pytest.raises(QarenaError, match=words.replace(".", r"\.")):
        qarena.compete(mine, "random", "tictactoe", openings=given)
    assert calls == []


def test_compete_openings_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("# tic-tac-toe\n\nx../.../...  # a corner\nxo./.../...\n", encoding="utf-8")
    code, out, err = _run(
        capsys, "compete", "perfect", "random", "--game", "tictactoe", "--openings", str(path)
    )
    assert code == 0, err
    assert "tictactoe:3x3:3, 2 openings, 1 game each way" in " ".join(out.split())
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert rows[0].split("│")[1:4] == [" x../.../... ", " o       ", " draw  "]
    assert rows[1].split("│")[1:4] == [" xo./.../... ", " x       ", " win   "]
    assert rows[1].split("│")[4].strip() == "1/0/0"  # perfect play wins moving in a won one
    assert rows[-1].split("│")[1].strip() == "all"


def test_compete_openings_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("x../.../...\nxo./.../... # corner, edge\n", encoding="utf-8")
    code, out, err = _run(
        capsys,
        *("compete", "perfect", "random", "--game", "tictactoe", "--openings", str(path)),
        *("--games", "4", "--json"),
    )
    assert code == 0, err
    record = json.loads(out)
    assert set(record) == {
        *("game", "a", "b", "games", "a_first", "b_first", "oracle"),
        *("games_each", "openings"),
    }
    assert record["games"] == 8 and record["games_each"] == 4
    assert record["openings"][1] == {
        "opening": "xo./.../...",
        "position": "xo./.../...",
        "to_move": 0,
        "seat": "x",
        "value": "win",
        "a_to_move": {"win": 4, "draw": 0, "loss": 0},
        "b_to_move": record["openings"][1]["b_to_move"],
    }
    assert sum(record["openings"][1]["b_to_move"].values()) == 4
    assert record["a_first"]["loss"] == 0.0


@pytest.mark.parametrize(
    ("lines", "extra", "words"),
    [
        ("x../.../...\nx.q/.../...\n", (), "x.q/.../..."),
        ("x../.../...\nxxx/oo./...\n", (), "finished"),
        ("# nothing but a comment\n\n", (), "holds no positions"),
        ("x../.../...\n.x./.../...\n", ("--games", str(MAX_GAMES)), "more games than a match"),
        ("x../.../...\n", ("--games", "0"), "--games must be at least 1"),
    ],
    ids=["unreadable", "finished", "empty", "too-many-games", "no-games"],
)
def test_compete_openings_refusals_are_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    lines: str,
    extra: tuple[str, ...],
    words: str,
) -> None:
    path = tmp_path / "openings.txt"
    path.write_text(lines, encoding="utf-8")
    args = ("compete", "random", "random", "--game", "tictactoe", "--openings", str(path))
    code, out, err = _run(capsys, *args, *extra)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_compete_openings_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = _run(
        capsys,
        *("compete", "random", "random", "--game", "tictactoe"),
        *("--openings", str(tmp_path / "none.txt")),
    )
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "cannot read positions" in err


@pytest.mark.slow
def test_the_network_moving_after_a_losing_first_move_against_perfect_play() -> None:
    """Classic Connect Four after the first player's losing first stones (columns a, b, f, g,
    the benchmark's file): the shipped network, to move, against perfect play. Measured with
    25 games each (notes: 24 and 21 wins after a and g, mostly draws after b and f), so this
    asserts only what that measurement defends: it wins most games after a and g, and loses
    few anywhere; issue 40's target (95% wins after each) is the benchmark's to measure."""
    openings = Path(__file__).resolve().parents[1] / "benchmarks/openings/c4_losing_first.txt"
    lines = [line.split("#", 1)[0].strip() for line in openings.read_text().splitlines()]
    given = [line for line in lines if line]
    assert given == ["1", "2", "6", "7"]
    games = 5
    found = qarena.compete("network", "perfect", games=games, openings=given)
    for o in found.openings:
        assert o.value == WIN  # Allis: the second player wins after each
        assert o.b_to_move.loss == games  # so perfect play, to move there, wins every game
    edges = [o.a_to_move for o in found.openings if o.opening in ("1", "7")]
    assert sum(r.win for r in edges) > games  # most of its 2 x 5 games after a and g
    assert found.a_first.loss <= found.a_first.games // 4


def test_many_openings_show_only_the_totals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("x../.../...\n" * 31, encoding="utf-8")
    code, out, err = _run(
        capsys, "compete", "random", "random", "--game", "tictactoe", "--openings", str(path)
    )
    assert code == 0, err
    assert "31 openings, 1 game each way" in " ".join(out.split())
    assert "x../.../..." not in out  # no row for each opening
    rows = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]
    assert rows == ["A to move", "B to move", "both"]
    totals = [line.split("│")[2:5] for line in out.splitlines() if line.startswith("│")]
    assert sum(int(n) for n in totals[2]) == 62


def test_a_notebook_shows_each_opening() -> None:
    found = qarena.compete("perfect", "perfect", "tictactoe", games=2, openings=["xo./.../..."])
    shown = found._repr_html_()
    assert "<td>A to move</td><td>2</td><td>0</td><td>0</td>" in shown
    assert "<tr><td>xo./.../...</td><td>win</td><td>2/0/0</td><td>0/0/2</td></tr>" in shown
    plain = qarena.compete("random", "random", "tictactoe", games=2)._repr_html_()
    assert "<td>A first</td>" in plain and "opening" not in plain
