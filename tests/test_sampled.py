"""Judging by samples (qarena.judging.sampled, qarena eval --sample/--positions): verdicts by
search equal the enumerating solver's on the same positions, the interval is Wilson's, reruns
agree, and a positions file is read or refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qarena import api
from qarena.agents.players import player
from qarena.cli.app import run
from qarena.exact import solve
from qarena.exact.search import Searcher, SearchSolution
from qarena.games import ConnectFour, parse_spec
from qarena.judging.sampled import evaluate_by_sample, judge_positions, random_openings, wilson


def _game(spec: str) -> ConnectFour:
    game = parse_spec(spec)
    assert isinstance(game, ConnectFour)
    return game


def test_wilson_intervals_are_the_textbook_ones() -> None:
    # Wilson (1927) at 95%: 0 of 10 gives 0 to 0.2775; 10 of 10 gives 0.7225 to 1; 5 of 10
    # gives 0.2366 to 0.7634 (Newcombe 1998, table I).
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    low, high = wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))


def test_verdicts_by_search_are_the_enumerating_solver_s() -> None:
    # Two algorithms judge the same moves: search position by position, and the solution of
    # every reachable position.
    import numpy as np

    game = _game("connect4:4x5")
    searched = SearchSolution(game, Searcher(game, entries=100_003, workers=1))
    enumerated = solve(game)
    positions = random_openings(game, 150, np.random.default_rng(4))
    who = player("random", game, seed=1)
    by_search = judge_positions(who, searched, positions)
    who = player("random", game, seed=1)
    by_enumeration = judge_positions(who, enumerated, positions)
    assert by_search == by_enumeration
    assert 0 < by_search.optimality.optimal < by_search.optimality.decisions


def test_a_sampled_evaluation_reruns_the_same_and_perfect_play_keeps_every_value() -> None:
    game = _game("connect4:4x5")
    searched = SearchSolution(game, Searcher(game, entries=100_003, workers=1))

    def once(name: str) -> dict[str, object]:
        result = evaluate_by_sample(
            player(name, game, seed=3), searched, sample=120, games=2, seed=9
        )
        return result.to_json()

    first = once("random")
    assert first == once("random")
    sample = first["sample"]
    assert isinstance(sample, dict) and 0 < len(sample["positions"]) <= 120
    # Only decision positions are judged: somewhere a move gives the value away.
    for judged in sample["positions"]:
        values = searched.move_values(game.parse_position(judged["position"]))
        assert min(values.values()) < max(values.values())
    perfect = once("perfect")
    assert perfect["optimality"] == 1.0 and perfect["sample"]["interval"][1] == 1.0  # type: ignore[index]
    # Perfect play never loses to random play; against itself 4×5 is a draw (Tromp).
    assert perfect["matches"]["random"]["first"]["loss"] == 0  # type: ignore[index]
    assert perfect["matches"]["perfect"]["first"]["draw"] == 1.0  # type: ignore[index]


def test_eval_judges_the_positions_of_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One position as moves (columns from 1, Pons' form), one in the text form.
    listed = tmp_path / "positions.txt"
    listed.write_text("# two positions\n3\n\n...../...../...../..x..\n", encoding="utf-8")
    code = run(
        [
            "eval",
            "perfect",
            "--game",
            "connect4:4x5",
            "--positions",
            str(listed),
            "--games",
            "1",
            "--json",
        ]
    )
    assert code == 0
    record = json.loads(capsys.readouterr().out)
    judged = record["sample"]["positions"]
    assert record["sample"]["source"] == "given"
    assert [p["position"] for p in judged] == ["...../...../...../..x..", "...../...../...../..x.."]
    assert all(p["kept"] for p in judged) and record["decisions"] == 2


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "holds no positions"),
        ("9\n", "columns are numbered 1 to 5"),
        ("x\n", "columns are a to e from the left"),  # read as a column letter
        ("33333\n", "column 3, which is full"),
        ("3\n1212121\n", "1212121 is finished; there is no move to judge"),
        ("3\n" + "1" * 5_000 + "\n", "has a line longer than any position"),
        ("\ufeff\ufeff3\n", "does not fit the 4x5 board"),  # one mark is skipped, not two
    ],
)
def test_a_bad_positions_file_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    listed = tmp_path / "positions.txt"
    listed.write_text(content, encoding="utf-8")
    code = run(["eval", "random", "--game", "connect4:4x5", "--positions", str(listed)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and expected in err and len(err.splitlines()) == 1


def test_the_api_judges_classic_connect_four_by_search() -> None:
    # Too big to enumerate: the search solver judges. After these 22 moves (Pons' form)
    # BitBully scores the moves a -5, b +5, c +9, d -5, e -5, f +10, g +9: the player to
    # move wins, perfect play keeps the win, and a script that plays a does not.
    moves = "4453342344565565116767"
    perfect = api.judge("perfect", "connect4:6x7", games=0, positions=[moves])
    assert perfect.sample is not None and perfect.optimality.optimal == 1
    script = api.judge(["a"], "connect4:6x7", games=0, positions=[moves])
    assert script.optimality.optimal == 0


def test_eval_by_samples_reruns_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    # The player judged is seeded by --seed too, not only its opponents.
    argv = ["eval", "random", "--game", "connect4:4x5", "--sample", "60", "--games", "2"]
    outputs = []
    for _run in range(2):
        assert run([*argv, "--json", "--seed", "5"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert run([*argv, "--json", "--seed", "6"]) == 0
    assert capsys.readouterr().out != outputs[0]


def test_a_positions_file_may_start_with_a_byte_order_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Notepad and others write UTF-8 with a byte-order mark; it was read as part of the
    # first position, which was then refused.
    listed = tmp_path / "positions.txt"
    listed.write_text("3\n...../...../...../..x..\n", encoding="utf-8-sig")
    assert listed.read_bytes().startswith(b"\xef\xbb\xbf")
    code = run(["eval", "perfect", "--game", "connect4:4x5", "--positions", str(listed),
                "--games", "1", "--json"])  # fmt: skip
    assert code == 0
    judged = json.loads(capsys.readouterr().out)["sample"]["positions"]
    assert [p["position"] for p in judged] == ["...../...../...../..x.."] * 2


def test_a_positions_line_may_end_in_a_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A judging set's line (the moves, then # and each column's value) is a position for
    # --positions too: the comment is dropped, the position judged.
    listed = tmp_path / "positions.txt"
    listed.write_text("# a set\n3 # =+=-.\n...../...../...../..x..   #note\n", encoding="utf-8")
    code = run(["eval", "perfect", "--game", "connect4:4x5", "--positions", str(listed),
                "--games", "1", "--json"])  # fmt: skip
    assert code == 0
    judged = json.loads(capsys.readouterr().out)["sample"]["positions"]
    assert [p["position"] for p in judged] == ["...../...../...../..x.."] * 2


def test_no_position_text_has_a_hash() -> None:
    # --positions drops what follows a '#' on a line: no game's text form may hold one.
    from qarena.games import parse_spec

    for spec in (
        "connect4:4x5",
        "connect4",
        "tictactoe",
        "nim:1,2,3",
        "subtraction",
        "tictactoe:4x4:3",
    ):
        game = parse_spec(spec)
        position = game.start()
        while not game.is_terminal(position):
            assert "#" not in game.format_position(position)
            position = game.apply(position, game.legal_moves(position)[-1])
        assert "#" not in game.format_position(position)


# VmHWM, not ru_maxrss: the latter keeps the peak of the forked pytest process from before exec.
_PEAK = """
import re, sys
from qarena.cli.app import run
code = run(sys.argv[1:])
with open("/proc/self/status", encoding="ascii") as f:
    peak = re.search(r"VmHWM:\\s+(\\d+) kB", f.read()).group(1)
print(code, peak, flush=True)
"""


def _eval_positions(path: str) -> tuple[int, int, str, float]:
    """``qarena eval random --game connect4 --positions PATH`` in a fresh process: its exit
    code, its peak RSS in KB, its stderr and its seconds."""
    import subprocess
    import sys
    import time

    argv = ["eval", "random", "--game", "connect4", "--positions", path]
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _PEAK, *argv], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    code, peak = (int(x) for x in done.stdout.split()[-2:])
    return code, peak, done.stderr, time.monotonic() - started


def test_a_huge_single_line_is_refused_with_bounded_memory(tmp_path: Path) -> None:
    # A 2 GB file of one line cost 4.4 GB and 12.5 s before it was refused: it was read
    # whole. Here 200 MB of zeros (a sparse file) and 200 MB of digits, against the same
    # command on a one-line file: the peak may not grow by more than a few MB.
    small = tmp_path / "small.txt"
    small.write_text("9\n", encoding="ascii")
    sparse = tmp_path / "sparse.txt"
    with sparse.open("wb") as f:
        f.truncate(200 * 1_000_000)
    digits = tmp_path / "digits.txt"
    with digits.open("wb") as f:
        for _chunk in range(200):
            f.write(b"1" * 1_000_000)
    base_code, base_peak, _err, _seconds = _eval_positions(str(small))
    assert base_code == 2
    for huge in (sparse, digits):
        code, peak, err, _seconds = _eval_positions(str(huge))
        assert code == 2 and "has a line longer than any position" in err
        assert err.count("\n") == 1
        assert peak - base_peak < 20_000, (huge.name, peak, base_peak)  # KB


def test_dev_zero_as_positions_is_refused_at_once() -> None:
    # It grew until memory ran out.
    code, peak, err, seconds = _eval_positions("/dev/zero")
    assert code == 2 and "/dev/zero has a line longer than any position" in err
    assert seconds < 30 and peak < 1_000_000  # KB: a generous bound, far from "all of it"


def test_a_sample_s_repr_is_short_however_many_verdicts() -> None:
    """Issue 54: ``repr()`` of a sampled judging's sample printed every verdict (tens of
    kilobytes); now its counts, share and interval, as eval reports them."""
    from qarena.judging.sampled import Sample, Verdict

    game = _game("connect4")
    start = game.start()
    verdicts = tuple(Verdict(start, 3, 1, i % 4 != 0) for i in range(5000))
    sample = Sample(verdicts, "sampled")
    text = repr(sample)
    assert len(text) < 500, len(text)
    low, high = wilson(3750, 5000)
    assert text == (
        f"Sample(sampled: 3,750 of 5,000 kept, share 0.7500, 95% interval [{low:.4f}, {high:.4f}])"
    )
