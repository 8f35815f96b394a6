"""`qarena train` and `qarena table`: output formats, resuming, Ctrl-C, and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from qarena.cli.app import run
from qarena.games import parse_spec
from qarena.judging.tables import learner_optimality
from qarena.learn.learners import load_learner
from tests.conftest import at, default_sigint

QARENA = [sys.executable, "-m", "qarena"]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    assert run(argv) == 0
    record = json.loads(capsys.readouterr().out)
    assert isinstance(record, dict)
    return record


def test_train_json_and_policy_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ttt.npz"
    record = _json(
        capsys,
        ["train", "tictactoe", "--episodes", "30000", "--starts", "0", "--out", str(out), "--json"],
    )
    keys = {"game", "learner", "episodes", "train_seconds", "steps", "steps_per_second"}
    assert set(record) == keys | {"optimality"}
    assert record["game"] == "tictactoe:3x3:3"
    assert record["learner"] == "q"
    assert record["episodes"] == 30_000
    steps = record["steps"]
    # A tic-tac-toe game lasts 5 to 9 moves.
    assert isinstance(steps, int) and 5 * 30_000 <= steps <= 9 * 30_000
    assert record["optimality"] == 1.0
    learner = load_learner(out)
    assert (learner.kind, learner.episodes, learner.steps) == ("q", 30_000, steps)
    assert learner_optimality(learner).share == 1.0
    assert [p.name for p in tmp_path.iterdir()] == ["ttt.npz"]


@pytest.mark.parametrize("kind", ["q", "afterstate", "matchbox"])
def test_every_learner_trains_from_the_command_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.npz"
    record = _json(capsys, ["train", "nim", "-l", kind, "--out", str(out), "--json"])
    assert record["learner"] == kind
    assert record["optimality"] == 1.0
    assert load_learner(out, parse_spec("nim"), kind).episodes == record["episodes"]


def test_until_perfect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["train", "nim:2,6,7,8", "--episodes", "3000000", "--until-perfect"]
    argv += ["--check-every", "10000", "--out", str(tmp_path / "n.npz"), "--json"]
    record = _json(capsys, argv)
    assert record["optimality"] == 1.0
    assert record["perfect_at"] == record["episodes"]
    episodes = record["episodes"]
    assert isinstance(episodes, int) and episodes % 10_000 == 0 and episodes < 3_000_000


def test_resume_continues_the_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    _json(capsys, ["train", "nim", "--episodes", "5000", "--out", str(first), "--json"])
    argv = ["train", "nim", "--resume", str(first), "--episodes", "7000", "--epsilon", "0.05"]
    record = _json(capsys, [*argv, "--out", str(second), "--json"])
    assert record["episodes"] == 7_000
    learner = load_learner(second)
    assert learner.episodes == 12_000
    assert learner.config.epsilon == 0.05
    assert load_learner(first).episodes == 5_000  # the resumed file itself is untouched


def test_policy_file_as_opponent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A learner trained against a perfect-playing policy file, moving second in a game the
    first player wins, loses every game: the file's greedy play is the opponent."""
    strong = tmp_path / "strong.npz"
    _json(capsys, ["train", "nim", "--out", str(strong), "--json"])
    argv = ["train", "nim", "--opponent", str(strong), "--seat", "second", "--episodes", "2000"]
    _json(capsys, [*argv, "--out", str(tmp_path / "weak.npz"), "--json"])
    weak = load_learner(tmp_path / "weak.npz")
    # It only ever moved in lost positions, so every value it learned is a loss.
    touched = weak.state()["q"][weak.state()["q"] != 0]
    assert touched.size > 0 and np.all(touched < 0)


def test_table_shows_moves_and_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "s.npz"
    _json(
        capsys, ["train", "subtraction:3:2", "--episodes", "2000", "--out", str(policy), "--json"]
    )
    assert run(["table", str(policy), "--position", "3"]) == 0
    text = capsys.readouterr().out
    assert "win for the player to move" in text
    lines = [line for line in text.splitlines() if "0.9000" in line or "0.8100" in line]
    assert len(lines) == 2
    take2, take1 = lines  # best first
    assert take1.split()[1] == "1" and take2.split()[1] == "2"
    assert "-0.8100" in take1 and "gives the win away (loss)" in take1
    assert "agent's choice" not in take1
    assert "+0.9000" in take2 and "keeps the win" in take2 and "agent's choice" in take2


def test_csv_export_is_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Misère subtraction, heap 3, take 1 or 2, learned with α = 1, γ = 0.9: the Q-values are
    the discounted game values: taking the last counter loses (-1), leaving 1 wins in 2 plies
    (0.9), leaving 2 loses in 3 plies (-0.81)."""
    policy = tmp_path / "s.npz"
    _json(
        capsys, ["train", "subtraction:3:2", "--episodes", "2000", "--out", str(policy), "--json"]
    )
    target = tmp_path / "q.csv"
    assert run(["table", str(policy), "--csv", str(target)]) == 0
    expected = "position,move,q\n1,1,-1\n2,1,0.9\n2,2,-1\n3,1,-0.81\n3,2,0.9\n"
    assert target.read_bytes() == expected.encode()
    capsys.readouterr()
    assert run(["table", str(policy), "--csv", "-"]) == 0
    assert capsys.readouterr().out == expected


def test_csv_rows_are_canonical_positions_and_legal_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tic-tac-toe has 765 positions up to symmetry, 627 of them not over, holding 3,500
    legal moves between them (counted here through the Game interface)."""
    policy = tmp_path / "m.npz"
    _json(capsys, ["train", "tictactoe", "-l", "matchbox", "--out", str(policy), "--json"])
    assert run(["table", str(policy), "--csv", "-"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "position,move,q"
    game = parse_spec("tictactoe")
    seen: set[str] = set()
    for row in rows[1:]:
        pos_text, move_text, q = row.split(",")
        pos = game.parse_position(pos_text)
        assert game.canonical(pos) == pos and not game.is_terminal(pos)
        assert game.parse_move(move_text) in game.legal_moves(pos)
        assert q in {"0", "1"}
        seen.add(pos_text)
    assert len(seen) == 627
    assert len(rows) - 1 == sum(len(game.legal_moves(game.parse_position(p))) for p in seen)


def test_ctrl_c_saves_what_was_learned(tmp_path: Path) -> None:
    out = tmp_path / "long.npz"
    assert run(["train", "nim", "--episodes", "100", "--out", str(out)]) == 0  # warm the cache
    # The signal must come once training runs: on a loaded machine (the suite runs on both
    # cores) the imports alone may take longer than the first wait, and a Ctrl-C then ends
    # the command before anything is learned (exit 130, no file), so it waits longer again.
    for wait in (4, 10, 25):
        proc = subprocess.Popen(
            [*QARENA, "train", "tictactoe", "--episodes", "2000000000", "--out", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=default_sigint,  # noqa: PLW1509 - only resets a signal, takes no lock
        )
        time.sleep(wait)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130, stderr
        assert "Traceback" not in stderr
        if "interrupted after" in stderr:
            break
        assert load_learner(out).episodes == 100  # the file of the warm-up run, untouched
    assert "interrupted after" in stderr
    learner = load_learner(out)
    assert 0 < learner.episodes < 2_000_000_000
    assert [p.name for p in tmp_path.iterdir()] == ["long.npz"]


BAD = [
    (["--learner", "sarsa"], "unknown learner 'sarsa'"),
    (["--opponent", "grandmaster"], "unknown opponent 'grandmaster'"),
    (["--alpha", "0"], "alpha must be in (0, 1]"),
    (["--alpha", "1.5"], "alpha must be in (0, 1]"),
    (["--gamma", "-0.1"], "gamma must be in [0, 1]"),
    (["--gamma", "1.01"], "gamma must be in [0, 1]"),
    (["--epsilon", "2"], "epsilon must be in [0, 1]"),
    (["--episodes", "0"], "--episodes must be at least 1"),
    (["--episodes", "-5"], "--episodes must be at least 1"),
    (["--episodes", "many"], "Invalid value for '--episodes'"),
    (["--rewards", "1,0"], "--rewards must be three numbers"),
    (["--rewards", "1,x,-1"], "--rewards must be three numbers"),
    (["--epsilon-schedule", "cosine"], "unknown epsilon schedule 'cosine'"),
    (["--seat", "first"], "--seat applies only against an --opponent"),
    (["--learner", "matchbox", "--alpha", "0.5"], "--alpha does not apply to the matchbox"),
    (["--resume", "missing.npz"], "no such policy file"),
    (["--check-every", "0"], "--check-every must be at least 1"),
    (["--seed", "-1"], "seed must be a whole number from 0"),
    (["--initial", "nan"], "the initial value must be a finite number"),
    (["--epsilon-schedule", "exp", "--epsilon-end", "0"], "needs epsilon and its end above 0"),
    (["--minutes", "0"], "--minutes must be a number of minutes above 0 and at most 10,080"),
    (["--minutes", "nan"], "--minutes must be a number of minutes above 0"),
    (["--minutes", "1e9"], "--minutes must be a number of minutes above 0"),
]


def test_time_budget_ends_a_run_as_its_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--minutes ends a run far longer than the budget as a normal end: exit 0, the learner
    saved with the episodes it learned, judged over every position, no interruption."""
    out = tmp_path / "t.npz"
    asked = 10**9  # about two minutes of Q-learning on tic-tac-toe
    argv = ["train", "tictactoe", "--episodes", str(asked), "--minutes", "0.01"]
    record = _json(capsys, [*argv, "--out", str(out), "--json"])
    assert record["time_up"] is True and record["minutes"] == 0.01
    assert "interrupted" not in record
    assert 0 < int(str(record["episodes"])) < asked
    learner = load_learner(out)
    assert learner.episodes == record["episodes"]
    assert learner_optimality(learner).share == record["optimality"]
    # Given time enough, the episodes end the run and the budget is reported unspent.
    record = _json(capsys, ["train", "nim", "--episodes", "500", "--minutes", "5",
                            "--out", str(out), "--json"])  # fmt: skip
    assert record["time_up"] is False and record["episodes"] == 500


@pytest.mark.parametrize(("extra", "message"), BAD)
def test_bad_training_input(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    assert run(["train", "nim", *extra, "--out", "p.npz"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and message in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_bad_output_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["train", "nim", "--out", str(tmp_path / "nowhere" / "p.npz")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert run(["train", "nim", "--out", str(tmp_path)]) == 2
    assert "folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_resume_of_another_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "nim.npz"
    _json(capsys, ["train", "nim", "--episodes", "1000", "--out", str(policy), "--json"])
    before = policy.read_bytes()
    assert run(["train", "tictactoe", "--resume", str(policy), "--out", str(policy)]) == 2
    assert "it is a policy for nim:3,5,7, not tictactoe:3x3:3" in capsys.readouterr().err
    assert run(["train", "nim", "-l", "matchbox", "--resume", str(policy), "--out", str(policy)])
    assert "--learner q, not --learner matchbox" in capsys.readouterr().err
    assert policy.read_bytes() == before


def test_table_refuses_damaged_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.npz"
    _json(capsys, ["train", "nim", "--episodes", "1000", "--out", str(policy), "--json"])
    data = bytearray(policy.read_bytes())
    data[len(data) // 2] ^= 0x10
    policy.write_bytes(bytes(data))
    assert run(["table", str(policy)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    policy.write_bytes(bytes(data[: len(data) // 3]))
    assert run(["table", str(policy)]) == 2
    assert "not a qarena policy file" in capsys.readouterr().err


def test_table_of_a_finished_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "t.npz"
    _json(capsys, ["train", "tictactoe", "--episodes", "100", "--out", str(policy), "--json"])
    assert run(["table", str(policy), "-p", "xxx/oo./..."]) == 2
    assert "the game is over" in capsys.readouterr().err


def test_bad_table_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.npz"
    _json(capsys, ["train", "nim", "--episodes", "1000", "--out", str(policy), "--json"])
    cases = [
        (["table", str(tmp_path / "missing.npz")], "no such policy file"),
        (["table", str(policy), "--csv", "-", "--position", "3 5 7"], "give one of them"),
        (["table", str(policy), "--top", "0"], "--top must be at least 1"),
        (["table", str(policy), "--csv", str(tmp_path / "no" / "q.csv")], "does not exist"),
        (["table", str(policy), "--position", "9 9"], "has 2 piles but nim:3,5,7 has 3"),
    ]
    for argv, message in cases:
        assert run(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err, err
        assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.npz"]


def test_no_canonical_cannot_change_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "p.npz"
    _json(capsys, ["train", "nim", "--episodes", "1000", "--out", str(policy), "--json"])
    assert run(["train", "nim", "--resume", str(policy), "--no-canonical", "--out", "x.npz"]) == 2
    assert "--no-canonical cannot change that" in capsys.readouterr().err


def test_table_top_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same exact values as the CSV test: two entries at 0.9 (leave 1), two at -1 (take
    the last counter), one at -0.81."""
    policy = tmp_path / "s.npz"
    _json(
        capsys, ["train", "subtraction:3:2", "--episodes", "2000", "--out", str(policy), "--json"]
    )
    assert run(["table", str(policy), "--top", "2"]) == 0
    text = capsys.readouterr().out
    highest, lowest = text.split("2 lowest entries")
    rows = [line.split("│")[1:4] for line in highest.splitlines() if line.startswith("│")]
    assert [[c.strip() for c in r] for r in rows] == [["2", "1", "+0.9000"], ["3", "2", "+0.9000"]]
    rows = [line.split("│")[1:4] for line in lowest.splitlines() if line.startswith("│")]
    assert [[c.strip() for c in r] for r in rows] == [["1", "1", "-1.0000"], ["2", "2", "-1.0000"]]
    assert "lost whatever is played" in lowest and "gives the win away" in lowest


def test_table_draws_the_board_with_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "t.npz"
    _json(capsys, ["train", "tictactoe", "--episodes", "20000", "--out", str(policy), "--json"])
    assert run(["table", str(policy), "--position", "xx./oo./..."]) == 0
    text = capsys.readouterr().out
    learner = load_learner(policy)
    game = learner.game
    pos = game.parse_position("xx./oo./...")
    values = at(learner.tables, learner.table_values(), pos)
    grid = [line for line in text.splitlines() if line[:1] in "123"]
    assert len(grid) == 3 and "a" in text.splitlines()[1]
    # c1 completes x's row: the agent's best cell, shown in row 1, third column.
    assert grid[0].split("│")[3].strip() == f"{values[game.parse_move('c1')]:+.2f}"
    assert grid[0].split("│")[1].strip() == "x" and grid[1].split("│")[2].strip() == "o"
