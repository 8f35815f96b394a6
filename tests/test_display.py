"""How qarena's objects show in a REPL or a notebook: a short line each (no array dumps), and
an HTML table where a notebook can show one."""

from __future__ import annotations

import re

from qarena.exact import solve
from qarena.games import parse_spec
from qarena.i18n import speaking
from qarena.judging.evaluation import evaluate
from qarena.learn.learners import make_learner
from qarena.training.run import train_run


def _short(text: str) -> None:
    assert "\n" not in text and len(text) <= 200 and "array(" not in text, text


def test_a_solution_says_the_game_s_value_in_a_line() -> None:
    solution = solve(parse_spec("nim"))
    text = repr(solution)
    _short(text)
    # Misère 3-5-7 is a first-player win (nim-sum 1, piles above one: Bouton); every pile
    # size from 0 up is reachable, 4 × 6 × 8 = 192 positions.
    assert re.fullmatch(
        r"Solution\(nim:3,5,7: win for the first player in \d+ plies with best play; "
        r"192 positions reachable\)",
        text,
    )
    _short(repr(solution.tables))
    assert repr(solve(parse_spec("tictactoe"))).startswith("Solution(tictactoe:3x3:3: draw ")


def test_a_learner_and_its_curve_show_briefly() -> None:
    learner = make_learner("q", parse_spec("nim"))
    learner.curve = None
    train_run(learner, 3_000)
    text = repr(learner)
    _short(text)
    assert text == "QLearner(nim:3,5,7, learner='q', episodes=3,000, seed=0, rows=88)"
    page = learner._repr_html_()
    assert page.startswith("<table>") and "nim:3,5,7" in page and "3,000" in page
    assert re.search(r"<th[^>]*>alpha</th><td[^>]*>1\.0</td>", page)
    with speaking("de"):
        assert "3.000" in learner._repr_html_()


def test_an_evaluation_shows_its_optimality_and_matches() -> None:
    learner = make_learner("q", parse_spec("nim"))
    learner.train(3_000)
    result = evaluate(learner, games=100, seed=0)
    text = repr(result)
    _short(text)
    assert text.startswith("Evaluation(nim:3,5,7: optimality ")
    assert "random" in text and "perfect" in text
    page = result._repr_html_()
    assert "<table>" in page and page.count("<tr>") == 1 + len(result.matches)
    assert "agent moves first" in page


def test_a_board_is_the_web_app_s_drawing_with_each_move_s_value() -> None:
    import qarena
    from qarena.show.display import Board

    game = qarena.game("tictactoe")
    solution = qarena.solution(game)
    board = qarena.board(game, "x../.o./...", solution)
    assert isinstance(board, Board)
    _short(repr(board))
    page = board._repr_html_()
    # Seven empty cells, each a move with the solver's value written in it; X to move keeps
    # the draw (tic-tac-toe is a draw, and this position is one).
    assert page.count('class="note"') == 7 and "<svg" in page
    assert "draw" in page and "<style>" in page
    assert qarena.board(game)._repr_html_().count('class="cell empty') == 9


def test_curves_evaluations_and_sweeps_as_dataframes(tmp_path: object) -> None:
    import pytest

    pd = pytest.importorskip("pandas")
    import qarena

    agent = qarena.train("nim:2,3", curve=True)
    assert agent.curve is not None
    frame = agent.curve.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(agent.curve.points)
    assert list(frame.columns[:2]) == ["episodes", "optimality"]
    judged = qarena.judge(agent, games=50).to_pandas()
    # One row per opponent and seat; shares of each row add up to one.
    assert set(judged["seat"]) == {"first", "second"}
    assert ((judged["win"] + judged["draw"] + judged["loss"]).round(9) == 1).all()


def test_a_learner_s_table_as_a_dataframe_is_qarena_table_s_csv(tmp_path: object) -> None:
    import csv
    import io
    from pathlib import Path

    import pytest

    pytest.importorskip("pandas")
    import qarena
    from qarena.cli import run

    agent = qarena.train("nim:3,5,7", until_perfect=True)
    frame = agent.to_pandas()
    path = Path(str(tmp_path)) / "nim.npz"
    qarena.save(agent, path)
    out = Path(str(tmp_path)) / "nim.csv"
    assert run(["table", str(path), "--csv", str(out)]) == 0
    rows = list(csv.reader(io.StringIO(out.read_text())))[1:]
    assert [tuple(r[:2]) for r in rows] == list(zip(frame["position"], frame["move"], strict=True))
    assert [float(r[2]) for r in rows] == list(frame["value"])
    # Perfect play, judged by the solver: in every position, the best valued moves are among
    # the moves that keep the position's value.
    game, solution = agent.game, qarena.solution(agent.game)
    for text, moves in frame.groupby("position", sort=False):
        position = game.parse_position(text)
        best = moves[moves["value"] == moves["value"].max()]["move"]
        keep = {game.format_move(m) for m in solution.optimal_moves(position)}
        assert set(best) <= keep, text


def _grid(text: str) -> tuple[list[str], list[list[str]]]:
    """A board's text drawing read back: the column letters across the top, and each row's
    cells (the text between the rules ``│``, stripped), top row first."""
    lines = text.splitlines()
    letters = lines[0].split()
    rows = []
    for line in lines[1:]:
        label, sep, rest = line.partition("│")
        if sep and label.strip().isdigit():
            assert int(label) == len(rows) + 1, line  # rows numbered 1, 2, 3… downwards
            rows.append([cell.strip() for cell in rest.split("│")[:-1]])
    return letters, rows


def test_a_board_s_str_is_the_terminal_s_drawing_of_tic_tac_toe() -> None:
    import qarena

    game = qarena.game("tictactoe")
    text = str(qarena.board(game, "x.o/.x./..o"))
    letters, rows = _grid(text)
    assert letters == ["a", "b", "c"] and len(rows) == 3
    # Each cell holds the mark the position's text gives it, read row by row.
    position = game.parse_position("x.o/.x./..o")
    marks = {0: "", 1: "x", 2: "o"}
    assert [c for row in rows for c in row] == [marks[v] for v in position]
    assert rows[0] == ["x", "", "o"] and rows[2] == ["", "", "o"]
    assert all(line == line.rstrip() for line in text.splitlines())
    _short(repr(qarena.board(game)))  # repr stays one line


def test_a_board_s_str_writes_each_move_s_value_where_it_goes() -> None:
    import qarena
    from qarena.games import value_word

    game = qarena.game("tictactoe")
    solution = qarena.solve(game)
    position = game.parse_position("x../.o./...")
    _letters, rows = _grid(str(qarena.board(game, position, solution)))
    cells = [c for row in rows for c in row]
    # Every empty cell is a legal move and shows the solver's word for it; marks stay marks.
    for move, value in solution.move_values(position).items():
        assert cells[move] == value_word(int(value))
    assert cells[0] == "x" and cells[4] == "o"
    assert sum(c in ("win", "draw", "loss") for c in cells) == len(game.legal_moves(position))


def test_a_board_s_str_draws_connect_four_with_gravity() -> None:
    import qarena

    game = qarena.game("connect4")
    rows_n, cols_n = game.grid_size()
    letters, rows = _grid(str(qarena.board(game)))
    assert letters == list("abcdefg")[:cols_n] and len(rows) == rows_n == 6
    assert all(cell == "" for row in rows for cell in row)
    # A piece dropped in column d lands in the bottom row (the last drawn), not row 1.
    after = game.apply(game.start(), game.parse_move("d"))
    _letters, rows = _grid(str(qarena.board(game, after)))
    assert rows[-1][letters.index("d")] == "x"
    assert sum(cell != "" for row in rows for cell in row) == 1


def test_a_board_s_str_draws_nim_s_heaps_and_lists_the_values() -> None:
    import qarena
    from qarena.games import value_word

    game = qarena.game("nim:3,5,7")
    lines = str(qarena.board(game, "1 0 4")).splitlines()
    # One row per pile, each with as many matches as the pile holds (an empty pile, none).
    assert len(lines) == 3
    for line, count in zip(lines, (1, 0, 4), strict=True):
        assert f"({count})" in line and line.count("|") == count
    solution = qarena.solve(game)
    position = game.parse_position("1 0 4")
    text = str(qarena.board(game, position, solution))
    listed = dict(line.split() for line in text.splitlines()[4:])
    values = solution.move_values(position)
    assert text.splitlines()[3].split() == ["move", "value"]
    assert listed == {game.format_move(m): value_word(int(v)) for m, v in values.items()}
    assert len(listed) == len(game.legal_moves(position)) == 5  # 1 from pile 1, 1–4 from pile 3


def test_progress_outside_a_notebook_is_the_terminal_s_bar(capsys: object) -> None:
    import pytest

    import qarena
    from qarena.i18n import speaking
    from qarena.show.display import ProgressLine

    assert isinstance(capsys, pytest.CaptureFixture)
    agent = qarena.train("nim:2,3", episodes=2_000, progress=True)
    assert agent.episodes == 2_000
    out = capsys.readouterr().out
    assert "q nim:2,3" in out and "2000/2000" in out  # rich's bar, in its last state
    line = ProgressLine("q nim:2,3", 1_500, 2_000, 1.25)
    assert repr(line) == "q nim:2,3: 1,500 of 2,000 episodes in 1.2 s"
    assert '<progress value="1500" max="2000">' in line._repr_html_()
    assert repr(ProgressLine("nim", 1, 1, 0.0, "runs")) == "nim: 1 of 1 run in 0.0 s"
    with speaking("de"):
        assert "1.500" in repr(line)


def test_the_html_of_every_object_is_well_formed_with_cells_in_rows(tmp_path: object) -> None:
    from pathlib import Path

    import qarena
    from tests.html_check import html_errors

    # The check finds what it is for: a header cell outside a row, an element left open.
    assert html_errors("<table><th>a</th><tr><td>1</td></tr></table>")
    assert html_errors("<table><tr><td>1</td></tr>")
    assert html_errors("<div><p>a</div></p>")
    assert not html_errors("<table><tr><th>a</th></tr><tr><td>1</td></tr></table>")

    game = qarena.game("nim:1,2")
    agent = qarena.train(game, episodes=500)
    playout = qarena.play(agent, "random", seed=1)
    pages = {
        "playout": playout._repr_html_(),
        "competition": qarena.compete(agent, "random", games=20)._repr_html_(),
        "evaluation": qarena.judge(agent, games=20)._repr_html_(),
        "learner": agent._repr_html_(),
        "board": qarena.board("tictactoe", "x../.o./...", qarena.solve("tictactoe"))._repr_html_(),
        "sweep": qarena.sweep(game, Path(str(tmp_path)) / "s", episodes=200)._repr_html_(),
    }
    for name, page in pages.items():
        assert html_errors(page) == [], name
    # The playout's table: a header row, then one row per move.
    assert pages["playout"].count("<tr>") == 1 + len(playout.turns)
