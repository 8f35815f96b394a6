"""qarena watch: two players move by move, each move judged by the solver, and a summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qarena.cli import run


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _watch(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code, out, err = _run(capsys, "watch", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_perfect_play_keeps_every_value_and_the_opener_wins_3_5_7(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Misère 3-5-7 is a first-player win (its nim-sum is 1): whoever opens wins with best play.
    record = _watch(capsys, "perfect", "perfect", "--game", "nim:3,5,7", "--games", "4")
    assert [g["first"] for g in record["games"]] == ["A", "B", "A", "B"]
    assert [g["winner"] for g in record["games"]] == ["A", "B", "A", "B"]
    assert all(m["kept"] for g in record["games"] for m in g["moves"])
    for g in record["games"]:
        players = [m["player"] for m in g["moves"]]
        assert players == [("A", "B")[(i + (g["first"] == "B")) % 2] for i in range(len(players))]
        # The loser takes the last match, so the winner made the next-to-last move.
        assert players[-1] != g["winner"]
    summary = record["summary"]
    assert summary["A"]["win"] == summary["B"]["win"] == 2


def test_perfect_never_loses_tictactoe_and_random_misses_wins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = _watch(capsys, "random", "perfect", "--game", "tictactoe", "--games", "20")
    assert record["summary"]["B"]["loss"] == 0
    assert all(m["kept"] for g in record["games"] for m in g["moves"] if m["player"] == "B")
    b = record["summary"]["B"]
    assert b["kept"] == b["moves"] and b["win"] + b["draw"] == 20


def test_a_trained_agent_shows_its_values_and_plays_its_best(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "nim.npz"
    assert run(["train", "nim:3,5,7", "-o", str(policy)]) == 0
    capsys.readouterr()
    record = _watch(capsys, str(policy), "poles", "--games", "2")
    for g in record["games"]:
        for m in g["moves"]:
            if m["player"] == "A":
                values = m["values"]
                assert max(values.values()) == values[m["move"]]
            else:
                assert m["values"] is None
    # A perfect agent (trained to perfect play by default) never gives up a won position.
    assert all(m["kept"] for g in record["games"] for m in g["moves"] if m["player"] == "A")
    code, out, _ = _run(capsys, "watch", str(policy), "poles", "--games", "2")
    assert code == 0
    assert out.count("A plays") + out.count("B plays") == sum(
        len(g["moves"]) for g in record["games"]
    )
    assert "A's value" in out and "kept the value" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["random", "perfect"], "name the game with --game"),
        (["random", "perfect", "--game", "nim", "--games", "0"], "--games must be at least 1"),
        (["random", "perfect", "--game", "nim", "--delay", "-1"], "--delay must be from 0"),
        (["random", "nobody.npz", "--game", "nim"], "no such policy file"),
        (["random", "bouton", "--game", "tictactoe"], "bouton"),
    ],
)
def test_bad_watch_is_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    code, out, err = _run(capsys, "watch", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err
