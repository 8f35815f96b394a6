"""`qarena play`: whole games typed into the real program through a pseudo-terminal."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from qarena.cli import play
from qarena.cli.app import run
from qarena.exact import solve
from qarena.games import LOSS, Nim, Subtraction, TicTacToe, parse_spec, value_name
from qarena.match import spot as match
from qarena.show.text import draw
from tests.conftest import default_sigint

QARENA = Path(sys.executable).parent / "qarena"
MOVE = "Your move: "
AGAIN = r"Play again\? \[y/n\] "
# The first run may compile the numba kernels (cached on disk afterwards).
FIRST_TIMEOUT = 120


def _spawn(*args: str) -> tuple[pexpect.spawn, io.StringIO]:
    # TERM=dumb: rich prints plain text, so a style never splits a phrase the test looks for.
    env = {**os.environ, "TERM": "dumb"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        str(QARENA),
        ["play", *args],
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 120),
        env=env,
        preexec_fn=default_sigint,
    )
    log = io.StringIO()
    child.logfile_read = log
    return child, log


def _expect_line(child: pexpect.spawn, pattern: str) -> None:
    """``pattern`` is printed, then the move prompt comes back."""
    child.expect(pattern)
    child.expect(MOVE)


def _ended(child: pexpect.spawn, log: io.StringIO, code: int = 0) -> str:
    child.expect(pexpect.EOF)
    child.close()
    text = log.getvalue()
    assert child.exitstatus == code, text
    assert "Traceback" not in text
    return text


def test_misere_nim_garbage_help_undo_and_a_forced_win() -> None:
    game = Nim((1, 2))
    # Taking both of pile 2 leaves the AI the last match, which loses in misère play.
    assert solve(game).value_of((1, 0)) == LOSS
    child, log = _spawn("nim:1,2", "--seed", "1")
    child.expect(
        r"Training a Q-learning agent on nim:1,2 by self-play… perfect play", FIRST_TIMEOUT
    )
    child.expect("You move first.")
    child.expect(r"Pile 1 \(1\)  \|\r\n")
    child.expect(r"Pile 2 \(2\)  \| \|\r\n")
    child.expect("Your turn.")
    child.expect("AI's value")
    child.expect(r"2:2\s+\+\d\.\d+\s+← the AI would play this")
    child.expect(MOVE)
    for garbage, message in [
        ("hello", r"Move 'hello' is not PILE:COUNT"),
        ("9:9", r"There is no pile 9; piles are 1\.\.2\."),
        ("1:5", r"Cannot take 5 from pile 1"),
        ("", r"Type a move, like 1:1, or \? for help\."),
        ("?", r"Moves: PILE:COUNT takes COUNT matches from pile PILE.*Commands: u undoes"),
        ("u", r"Nothing to undo: you have not moved yet\."),
    ]:
        child.sendline(garbage)
        _expect_line(child, message)
    child.sendline("2:1")  # leaves 1 1: a loss for the AI... and then for us, so take it back
    child.expect(r"The AI takes 1 from pile \d \((1|2):1\)\.")
    child.expect("Your turn.")
    child.expect(MOVE)
    child.sendline("2:2")
    _expect_line(child, r"Pile 2 (has only 1; you cannot take 2|is empty)\.")
    child.sendline("u")
    child.expect(r"Took back your move 2:1 and the AI's reply (1|2):1\.")
    child.expect(r"Pile 2 \(2\)  \| \|")
    child.expect(MOVE)
    child.sendline("2:2")
    child.expect(r"The AI takes 1 from pile 1 \(1:1\)\.")  # its only move
    child.expect(r"The AI took the last match\. You win!")
    child.expect("Score: you 1 – AI 0 – draws 0")
    child.expect(AGAIN)
    child.sendline("maybe")
    child.expect("Please answer y or n.")
    child.expect(AGAIN)
    child.sendline("n")
    child.expect("Goodbye.")
    text = _ended(child, log)
    assert "The AI wins." not in text


def test_a_perfect_ai_never_loses_tictactoe() -> None:
    assert solve(TicTacToe()).start_value == 0  # a draw with best play
    child, log = _spawn("tictactoe", "--seed", "7", "--first", "random")
    child.expect(r"perfect play after", FIRST_TIMEOUT)
    games = 3
    for game in range(games):
        child.expect(r"Coin toss: you play (x and move first|o; the AI \(x\) moves first)\.")
        # The same plan each game; a cell already taken is refused and the next one tried.
        plan = ["b2", "a1", "c1", "a3", "c3", "a2", "c2", "b1", "b3"]
        while child.expect([MOVE, AGAIN]) == 0:
            child.sendline(plan.pop(0))
        child.sendline("y" if game < games - 1 else "n")
    text = _ended(child, log)
    endings = re.findall(r"(You win!|The AI wins\.|Draw\.)", text)
    assert len(endings) == games
    assert "You win!" not in endings
    assert f"Score: you 0 – AI {endings.count('The AI wins.')} – " in text
    assert "Final score" not in text  # the score was just shown
    # The board: letters across the top, row numbers down the side.
    assert re.search(r"^    a   b   c", text, re.MULTILINE)
    assert re.search(r"^2 │( [ xo] │){3}", text, re.MULTILINE)


def test_ai_first_undo_back_to_after_its_opening_and_ctrl_c() -> None:
    child, log = _spawn("nim:1,2,3", "--first", "ai", "--seed", "3")
    child.expect("The AI moves first.", FIRST_TIMEOUT)
    child.expect("The AI's turn.")
    child.expect(r"The AI takes (\d) from pile (\d) \((\d):(\d)\)\.")
    take, pile = int(child.match.group(1)), int(child.match.group(2))
    assert child.match.group(3, 4) == (str(pile), str(take))
    piles = [1, 2, 3]
    piles[pile - 1] -= take
    child.expect("Your turn.")
    child.expect(MOVE)
    child.sendline("u")
    _expect_line(child, r"Nothing to undo: you have not moved yet\.")
    mine = f"{next(i for i, n in enumerate(piles) if n) + 1}:1"
    child.sendline(mine)
    child.expect("The AI takes")
    child.expect(MOVE)
    child.sendline("u")
    # Back to the position after the AI's opening, which cannot be taken back.
    child.expect(rf"Took back your move {mine} and the AI's reply \d:\d\.")
    for i, n in enumerate(piles):
        child.expect(rf"Pile {i + 1} \({n}\)")
    child.expect("Your turn.")
    child.expect(MOVE)
    child.sendline("u")
    _expect_line(child, "Nothing to undo")
    child.sendintr()
    child.expect("Goodbye.")
    _ended(child, log, 130)


def test_end_of_input_at_the_move_prompt() -> None:
    child, log = _spawn("subtraction:5:2", "--seed", "2")
    child.expect(r"Heap \(5\)  \| \| \| \| \|\r\n", FIRST_TIMEOUT)
    child.expect(r"A move takes 1 to 2\.")
    child.expect(MOVE)
    child.sendeof()
    child.expect("Goodbye.")
    text = _ended(child, log)
    assert "Final score" not in text  # no game was finished


def test_end_of_input_at_play_again() -> None:
    child, log = _spawn("nim:1", "--seed", "4")
    child.expect(MOVE, FIRST_TIMEOUT)
    child.sendline("1:1")
    # Misère: whoever takes the last match loses.
    child.expect(r"You took the last match\. The AI wins\.")
    child.expect(AGAIN)
    child.sendeof()
    child.expect("Goodbye.")
    _ended(child, log)


def test_hint_shows_the_solver_and_no_show_q_hides_the_values() -> None:
    game = Nim((1, 2, 3), misere=False)
    start = game.start()
    verdicts = solve(game).move_values(start)
    assert solve(game).value_of(start) == LOSS  # 1 ^ 2 ^ 3 == 0
    child, log = _spawn("nim:1,2,3:normal", "--hint", "--no-show-q", "--seed", "5")
    child.expect(r"Solver: with best play from here, a loss for you\.", FIRST_TIMEOUT)
    child.expect(MOVE)
    child.sendeof()
    text = _ended(child, log)
    for move, value in verdicts.items():
        # The verdict, then how soon the winner wins: the plies after this move over two.
        after = game.apply(start, move)
        theirs = (1 + solve(game).depth_of(after)) // 2
        count = f"in {theirs} of the AI's moves" if theirs > 1 else "the AI wins next move"
        line = rf"{game.format_move(move)}\s+{value_name(value)}:? {count}\s*\r\n"
        assert re.search(line, text), line
    assert "AI's value" not in text
    assert "would play" not in text


def test_no_table_without_values_or_hints() -> None:
    child, log = _spawn("nim:1,2", "--no-show-q", "--first", "human", "--seed", "1")
    child.expect(MOVE, FIRST_TIMEOUT)
    child.sendline("q")
    child.expect("Goodbye.")
    text = _ended(child, log)
    assert "your move" not in text
    assert "Solver" not in text


def _misere_nim_1_2_after_2_1(*flags: str) -> str:
    """Play 2:1 in misère nim 1-2, then the last match the AI leaves; what the game printed
    from its title on (the training line above it tells the time taken)."""
    child, log = _spawn("nim:1,2", "--seed", "1", *flags)
    child.expect(MOVE, FIRST_TIMEOUT)
    child.sendline("2:1")
    child.expect(r"The AI takes 1 from pile (\d) \(\d:1\)\.")
    left = 3 - int(child.match.group(1))  # piles 1,1: the AI took one, the other is left
    child.expect(MOVE)
    child.sendline(f"{left}:1")
    child.expect(AGAIN)
    child.sendline("n")
    text = _ended(child, log)
    return text[text.index("Nim 1-2") :]


def test_ai_values_show_what_the_ai_saw_where_it_moved() -> None:
    game = Nim((1, 2))
    tied = game.apply(game.start(), game.parse_move("2:1"))
    verdicts = solve(game).move_values(tied)
    without = _misere_nim_1_2_after_2_1("--hint")
    shown = _misere_nim_1_2_after_2_1("--hint", "--ai-values")
    assert "where it moved" not in without and "it played this" not in without
    # The table follows the AI's move: its two moves from 1,1, its values, the solver's word
    # for it, and a mark on the move it played, the one the line above names.
    block = re.search(
        r"The AI takes 1 from pile (\d) \(\d:1\)\.\r\n"
        r"The AI's values where it moved:\r\n"
        r"AI's move\s+AI's value\s+solver \(for the AI\)\s*\r\n"
        r"─+\r\n"
        r"((?:[^\r\n]+\r\n){2})"
        r"1:1 and 2:1 shared its best value; it picked among them at random\.\r\n",
        shown,
    )
    assert block is not None, shown
    rows = [
        re.fullmatch(r"(\S+)\s+([+-]\d\.\d{4})\s+(\w+).*?(← it played this)?\s*", row)
        for row in block.group(2).splitlines()
    ]
    assert all(rows), block.group(2)
    cells = [row.groups() for row in rows if row]
    assert [row[0] for row in cells] == ["1:1", "2:1"]
    assert cells[0][1] == cells[1][1]
    assert [row[2] for row in cells] == [value_name(verdicts[m]) for m in sorted(verdicts)]
    played = [row[0] for row in cells if row[3]]
    assert played == [f"{block.group(1)}:1"]
    # Without --ai-values the game reads exactly as with it, less the AI's tables.
    assert re.sub(r"The AI's values where it moved:\r\n(?:[^\r\n]+\r\n)+", "", shown) == without


def test_play_from_a_policy_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.npz"
    assert run(["train", "nim:1,2,3", "--out", str(policy), "--until-perfect"]) == 0
    capsys.readouterr()
    # The first player loses nim 1-2-3 against perfect play, and the agent plays perfectly.
    assert solve(parse_spec("nim:1,2,3")).start_value == LOSS
    child, log = _spawn(str(policy), "--seed", "6")
    child.expect(r"Loaded an agent for nim:1,2,3 from .*p\.npz: Q-learning", FIRST_TIMEOUT)
    child.expect(r"it plays perfectly")
    tries = ["3:1", "2:1", "1:1"]
    turns = 0
    while child.expect([MOVE, AGAIN]) == 0:
        child.sendline(tries[turns % 3])
        turns += 1
    child.sendline("n")
    text = _ended(child, log)
    assert "The AI wins." in text
    assert "You win!" not in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "nosuch"], "error: unknown game 'nosuch'"),
        (["play", "missing.npz"], "error: no such policy file: missing.npz"),
        (["play", "nim", "--first", "me"], "error: unknown --first 'me'; expected one of human"),
        (["play", "nim", "--seed", "-1"], "error: --seed must be"),
    ],
)
def test_bad_input_is_one_error_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), captured.err
    assert captured.out == ""


def test_corrupt_policy_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a policy")
    assert run(["play", str(bad)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines


def test_training_on_the_spot_stops_when_time_is_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(match, "TRAIN_SECONDS", -1.0)
    learner = play._trained(parse_spec("nim:1,2"))
    assert learner.episodes == 0
    message = capsys.readouterr().err
    assert re.fullmatch(
        r"Training a Q-learning agent on nim:1,2 by self-play… time is up after 0 episodes "
        r"\(0\.\d\d s\): it plays the best move in \d+\.\d% of positions, so it can slip\.\n",
        message,
    ), message


# --- the drawings, directly ---------------------------------------------------------------------


def _text(renderable: object) -> str:
    console = Console(width=120, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def test_draw_nim_rows_align_and_empty_piles_show_no_sticks() -> None:
    game = Nim((3, 12, 7))
    lines = _text(draw(game, (0, 12, 7))).splitlines()
    assert lines == [
        "Pile 1 (0)",
        "Pile 2 (12)  | | | | | | | | | | | |",
        "Pile 3 (7)   | | | | | | |",
    ]


def test_draw_subtraction_says_what_a_move_may_take() -> None:
    game = Subtraction.make(12, 3)
    assert _text(draw(game, (12,))).splitlines() == [
        "Heap (12)  | | | | | | | | | | | |",
        "A move takes 1 to 3.",
    ]
    assert _text(draw(game, (2,))).splitlines()[1] == "A move takes 1 to 2."
    assert _text(draw(game, (0,))).splitlines() == ["Heap (0)"]


def test_draw_board_puts_moves_and_notes_in_their_cells() -> None:
    game = TicTacToe(3, 4, 3)
    position = game.apply(game.apply(game.start(), game.parse_move("b2")), game.parse_move("d1"))
    notes = {game.parse_move("a3"): "+0.81", game.parse_move("b2"): "hidden"}
    lines = _text(draw(game, position, notes)).splitlines()
    assert lines[0].split() == ["a", "b", "c", "d"]
    rows = [line for line in lines if re.match(r"\s*\d │", line)]
    assert [row.split()[0] for row in rows] == ["1", "2", "3"]
    cells = [[cell.strip() for cell in row.split("│")[1:-1]] for row in rows]
    assert cells == [["", "", "", "o"], ["", "x", "", ""], ["+0.81", "", "", ""]]
    # The letters sit over their column.
    assert lines[0].index("b") == rows[1].index("x")


def test_perfect_play_plays_a_board_searched_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With 50 MB to spare, 4 rows × 5 columns (enumerated where it fits: its family) is too
    # big to enumerate here, so the search solver answers it, and the command says so. Its
    # default opponent stays its family's (an agent trained on the spot, refused here in one
    # line saying why); perfect play, asked for, plays. A person who plays the columns from
    # the left (a full one is refused, and the next tried) cannot beat perfect play.
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "50000000")
    refused = subprocess.run(
        [str(QARENA), "play", "connect4:4x5"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1  # why, in one line
    assert "connect4:4x5:4 is too large to solve here" in refused.stderr
    child, log = _spawn("connect4:4x5", "--seed", "3", "--hint", "--opponent", "perfect")
    child.expect("is solved by search here, not enumerated", FIRST_TIMEOUT)
    child.expect("Playing against perfect play", FIRST_TIMEOUT)
    moves = 0
    while child.expect([MOVE, AGAIN], timeout=FIRST_TIMEOUT) == 0:
        child.sendline("abcde"[moves % 5])
        moves += 1
        assert moves < 200
    child.sendline("n")
    text = _ended(child, log)
    assert "You win!" not in text and "Solver: with best play from here" in text
    assert text.count("is solved by search here") == 1  # --hint does not say it again


def test_perfect_play_can_be_asked_for_on_any_board() -> None:
    child, log = _spawn("tictactoe", "--opponent", "perfect", "--seed", "1", "--first", "ai")
    child.expect("Playing against perfect play", FIRST_TIMEOUT)
    plan = ["a1", "c1", "a3", "c3", "b1", "a2", "c2", "b3", "b2"]
    while child.expect([MOVE, AGAIN]) == 0:
        child.sendline(plan.pop(0))
    child.sendline("n")
    text = _ended(child, log)
    assert "You win!" not in text
