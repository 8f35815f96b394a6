"""``qarena eval`` and ``qarena.judge`` on a board solved by search (classic Connect Four) carry
the best reply too: the search for a line that beats the player, within ``--beat-seconds``
(``beat_seconds=``) in each seat, ``"proved": false`` where it found none — and then the
terminal says none was found within the budget, never "unbeaten".

Facts from outside the code: a random player may play any move, so an opponent who knows that
wins from the start, and its line replays by the rules alone to the player's loss; the first
player wins classic Connect Four, so moving second the start is lost and never "beaten". The
judging is kept short with two given positions and one game in each seat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import qarena
from qarena.cli import run
from qarena.cli.judged_text import reply_lines
from qarena.errors import QarenaError
from qarena.judging.best_reply import BestReply, SeatReply, best_reply
from qarena.judging.evaluation import unbeaten_text
from qarena.judging.refutation import Spent
from tests.test_best_reply_cli import _ends

#: Two positions of classic Connect Four, as its move digits: judging them is quick.
POSITIONS = "4\n4453\n"


@pytest.fixture
def given(tmp_path: Path) -> Path:
    path = tmp_path / "positions.txt"
    path.write_text(POSITIONS)
    return path


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(["eval", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_eval_json_carries_the_search_s_best_reply_on_connect_four(
    capsys: pytest.CaptureFixture[str], given: Path
) -> None:
    argv = ["random", "--game", "connect4", "--positions", str(given), "-n", "1"]
    code, out, err = _eval(capsys, *argv, "--beat-seconds", "30", "--json")
    assert code == 0, err
    judged = json.loads(out)
    assert judged["oracle"]["family"] == "searched"
    found = judged["best_reply"]
    first, second = found["first"], found["second"]
    assert first["value"] == "win" and first["beaten"] and first["proved"]
    assert first["secured"] == "loss"  # it may play any move: the opponent wins
    assert _ends("connect4", first["line"], True) == "loss"
    assert first["search"]["max_seconds"] == 30 and first["search"]["positions"] > 0
    # Moving second the start is lost: never beaten, the line plays the loss out.
    assert second["value"] == second["secured"] == "loss"
    assert second["proved"] and not second["beaten"]
    assert _ends("connect4", second["line"], False) == "loss"


def test_eval_shows_the_search_s_best_reply_per_seat(
    capsys: pytest.CaptureFixture[str], given: Path
) -> None:
    """The terminal says it per seat, with what the search spent."""
    line = qarena.best_reply("random", "connect4", seats=["first"]).seats["first"].line_text
    argv = ["random", "--game", "connect4", "--positions", str(given), "-n", "1"]
    code, out, err = _eval(capsys, *argv, "--beat-seconds", "30")
    assert code == 0, err
    shown = " ".join(out.split())
    assert f"moving first: beaten from the start, win → loss by {' '.join(line)}" in shown
    assert "moving second: unbeaten from the start, loss → loss" in shown
    assert shown.count("(searched ") == 2


def test_beat_seconds_0_leaves_it_out(capsys: pytest.CaptureFixture[str], given: Path) -> None:
    code, out, err = _eval(
        capsys, "random", "--game", "connect4", "--positions", str(given), "-n", "1",
        "--beat-seconds", "0", "--json",
    )  # fmt: skip
    assert code == 0, err
    judged = json.loads(out)
    assert "best_reply" not in judged and "optimality" in judged
    judgement = qarena.judge("random", "connect4", positions=["4"], games=1, beat_seconds=0)
    assert judgement.best_reply is None


@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "1e9", "86401"])
def test_a_bad_beat_seconds_is_refused_before_any_work(
    capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    # Refused before the file is looked for: the one error is about --beat-seconds.
    code, out, err = _eval(capsys, "missing.npz", "--beat-seconds", bad)
    assert code == 2 and out == ""
    assert err.startswith("error: --beat-seconds must be a number of seconds from 0 to 86,400")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", [-1, float("nan"), True, "5"])
def test_judge_refuses_a_bad_beat_seconds_in_one_line(bad: object) -> None:
    with pytest.raises(QarenaError) as e:
        qarena.judge("random", "connect4", beat_seconds=bad)  # type: ignore[arg-type]
    assert str(e.value).startswith("beat_seconds must be a number of seconds from 0")
    assert "\n" not in str(e.value)


def test_a_search_that_found_nothing_is_never_called_unbeaten() -> None:
    """Perfect play cannot be beaten, but a budget of 6 positions proves nothing: eval's lines,
    the notebook's line and the result's repr say none was found, not "unbeaten"."""
    perfect = qarena.player("perfect", "connect4")
    found = best_reply(perfect, positions=6, seconds=30)
    first, second = found.seats["first"], found.seats["second"]
    assert not first.proved and second.proved and not second.beaten  # a lost start
    lines = reply_lines(found)
    assert lines[0] == (
        "moving first: no line that beats it found within 6 positions and 30 s, which proves "
        "nothing either way"
    )
    assert lines[1].startswith("  (searched 6 positions in ")
    assert lines[2] == "moving second: unbeaten from the start, loss → loss"
    notebook = unbeaten_text(found)
    assert notebook == "unbeaten from the start: moving first unknown, moving second yes"
    assert not found.unbeaten
    assert "first: win, no line that beats it found" in repr(found)


def test_a_searched_line_that_ends_in_a_draw_says_or_worse() -> None:
    """The search stops at the first mistake it proves: a won start's line that ends drawn
    is what the opponent forces at least, so the player gets a draw or worse."""
    spent = Spent(positions=685, seconds=24.0, max_positions=100_000, max_seconds=60.0, whole=False)
    line = ("d", "d", "d", "d")
    drawn = SeatReply("first", 1, 0, (), line, 10, 9, 685, proved=True, search=spent)
    lines = reply_lines(BestReply("connect4:6x7:4", {"first": drawn}))
    assert lines[0] == "moving first: beaten from the start, win → draw or worse by d d d d"
    assert lines[1] == "  (searched 685 positions in 24.0 s)"


@pytest.mark.slow
def test_eval_json_of_the_shipped_network_carries_its_refutation(
    capsys: pytest.CaptureFixture[str], given: Path
) -> None:
    """The shipped network is beaten moving first within eval's default budget (about 7–24 s
    here); moving second its start is lost."""
    code, out, err = _eval(capsys, "network", "--positions", str(given), "-n", "1", "--json")
    assert code == 0, err
    found = json.loads(out)["best_reply"]
    first, second = found["first"], found["second"]
    assert first["value"] == "win" and first["proved"] and first["beaten"]
    assert first["search"]["max_seconds"] == 60
    assert _ends("connect4", first["line"], True) == first["secured"]
    assert second["value"] == second["secured"] == "loss" and not second["beaten"]


def test_a_player_the_search_cannot_ask_leaves_the_judging_standing() -> None:
    """A script of moves has none where the search would ask it: the judging stands, without
    a best reply, and says why in one line; so does a machine whose memory holds too few
    positions for a search worth making."""
    moves = "4453342344565565116767"
    script = qarena.judge(["a"], "connect4:6x7", games=0, positions=[moves])
    assert script.optimality.optimal == 0 and script.best_reply is None
    assert script.best_reply_note is not None
    assert script.best_reply_note.startswith("no search for the best reply: the script")
    assert script.to_json()["best_reply_note"] == script.best_reply_note


def test_too_little_memory_for_a_search_is_said_not_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "500000")  # below 1,000 positions' 1 KB each
    moves = "4453342344565565116767"
    judged = qarena.judge("random", "connect4:6x7", games=0, positions=[moves])
    assert judged.best_reply is None and judged.best_reply_note is not None
    assert "more than this machine can spare" in judged.best_reply_note
