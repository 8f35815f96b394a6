"""Judging sets (qarena.judging.sets): the shipped sets of classic Connect Four checked
against an independent solver (BitBully), the reader's refusals, and judging on facts from
outside (perfect play keeps every value, random play far fewer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qarena.agents.players import player as make_player
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.judging import sets
from qarena.judging.sets import JudgingSet, judge_set, read_set, shipped_set

C4 = parse_spec("connect4")
HEAD = "# qarena judging set: connect4:6x7:4\n# title: a test\n"


def _sample(jset: JudgingSet, count: int) -> JudgingSet:
    """``count`` positions spread evenly over the set."""
    step = max(1, len(jset) // count)
    picked = range(0, len(jset), step)
    return JudgingSet(
        jset.game,
        jset.title,
        tuple(jset.positions[i] for i in picked),
        tuple(jset.values[i] for i in picked),
        texts=tuple(jset.texts[i] for i in picked),
    )


def _shipped(which: str) -> JudgingSet:
    jset = shipped_set(C4, which)
    assert jset is not None
    return jset


def test_the_shipped_sets_are_classic_connect_four_s_only() -> None:
    main, varied = _shipped("main"), _shipped("varied")
    assert main.game.spec == varied.game.spec == "connect4:6x7:4"
    assert main.title == "main line" and varied.title == "varied openings"
    # along_perfect_play(games=500, seed=0) judges 3,323 decisions (BENCHMARKS.md); the varied
    # set is sized for a 95% interval of about ±0.6 points near 97%.
    assert len(main) == 3_323 and 2_000 <= len(varied) <= 3_500
    assert f"positions: {len(varied)}" in varied.notes
    assert shipped_set(parse_spec("tictactoe"), "main") is None
    with pytest.raises(QarenaError, match="not a shipped judging set"):
        shipped_set(C4, "other")


def test_the_main_line_starts_at_the_empty_board_with_its_known_values() -> None:
    # Allis (1988): the first player wins only in the centre column; c and e draw.
    main = _shipped("main")
    assert main.positions[0] == C4.start()
    assert main.values[0] == {0: -1, 1: -1, 2: 0, 3: 1, 4: 0, 5: -1, 6: -1}


def test_the_varied_set_s_values_are_bitbully_s() -> None:
    # An independent solver: the sign of BitBully's score of every move is the stored value,
    # on 60 positions spread over the set. Every position of the set is a decision (some move
    # gives the value away), and each is there once.
    bitbully = pytest.importorskip("bitbully")
    varied = _shipped("varied")
    assert all(min(v.values()) < max(v.values()) for v in varied.values)
    assert len(set(varied.positions)) == len(varied)
    engine = bitbully.BitBully()  # its opening book answers the early positions at once
    sample = _sample(varied, 60)
    assert len(sample) >= min(60, len(varied))
    for text, values in zip(sample.texts, sample.values, strict=True):
        moves = "" if text == "0" else "".join(str(int(c) - 1) for c in text)
        theirs = dict(engine.score_all_moves(bitbully.Board(moves)))
        assert values == {m: (s > 0) - (s < 0) for m, s in theirs.items()}, text


def test_the_main_line_s_positions_are_decisions() -> None:
    main = _shipped("main")
    assert all(min(v.values()) < max(v.values()) for v in main.values)


@pytest.mark.parametrize("which", ["main", "varied"])
def test_perfect_play_keeps_every_value_and_random_play_far_fewer(which: str) -> None:
    jset = _shipped(which)
    # Perfect play searches each position: a few suffice (each a fact from our solver only;
    # BitBully's agreement with the values is checked above).
    perfect = judge_set(make_player("perfect", C4, seed=1), _sample(jset, 6))
    assert perfect.total.kept == perfect.total.total >= 6
    assert perfect.total.interval[1] == 1.0
    rand = judge_set(make_player("random", C4, seed=1), jset)
    assert rand.total.total == len(jset)
    # At a decision at least one of at most 7 moves gives the value away; random play keeps
    # well under nine in ten (about half).
    assert rand.total.share < 0.8
    low, high = rand.total.interval
    assert low < rand.total.share < high
    # The kinds split the positions: each counted once.
    assert sum(t.total for t in rand.kinds.values()) == rand.total.total
    assert sum(t.kept for t in rand.kinds.values()) == rand.total.kept
    assert {k[0] for k in rand.kinds} <= set(sets.SIDES)
    assert rand.to_json()["total"] == len(jset)


def test_a_position_s_kind_counts_stones_for_its_phase() -> None:
    values = {0: 1, 1: -1, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0}
    assert sets.kind_of(C4, C4.start(), values) == ("first", "win", "opening")
    twelve = C4.position_of("123456712345")
    assert sets.kind_of(C4, twelve, {0: 0, 1: -1}) == ("first", "draw", "opening")
    thirteen = C4.position_of("1234567123456")
    assert sets.kind_of(C4, thirteen, {0: -1, 1: -1}) == ("second", "loss", "middle")
    # Only the count of stones matters: 13 x and 12 o, however placed.
    twenty_five = (1,) * 13 + (2,) * 12 + (0,) * 17
    assert sets.kind_of(C4, twenty_five, {0: 0}) == ("second", "draw", "end")


def test_a_set_is_read_back_with_its_values(tmp_path: Path) -> None:
    path = tmp_path / "set.txt"
    path.write_text(HEAD + "# made by hand\n0 # --=+=--\n\n4453 # ==+=-=-  \n", "utf-8")
    jset = read_set(path)
    assert jset.title == "a test" and jset.notes == ("made by hand",)
    assert jset.texts == ("0", "4453") and jset.positions[1] == C4.position_of("4453")
    assert jset.values[1] == {0: 0, 1: 0, 2: 1, 3: 0, 4: -1, 5: 0, 6: -1}
    assert sets.values_text(C4, jset.values[1]) == "==+=-=-"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("4458 # =======\n", "line 3: move 4 of '4458' is column 8"),
        ("4453 # ==+=-=\n", "line 3: 6 values, but the game has 7 moves"),
        ("4453 # ==+=-=-=\n", "line 3: 8 values"),
        ("4453 # ==+=x=-\n", "line 3: 'x' is not a value"),
        ("4444445 # ===+===\n", "line 3: move d is not legal, but it has a value"),
        ("4453 # ===.===\n", "line 3: move d is legal, but its value is '.'"),
        ("1212121 # =======\n", "line 3: 1212121 is finished"),
        ("4453\n", "line 3: expected a position, then #"),
        ("# only notes\n", "holds no positions"),
    ],
)
def test_a_bad_set_is_refused_in_one_line_naming_file_and_line(
    tmp_path: Path, body: str, expected: str
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(HEAD + body, "utf-8")
    with pytest.raises(QarenaError) as caught:
        read_set(path)
    message = str(caught.value)
    assert expected in message and str(path) in message and "\n" not in message


def test_a_set_must_name_its_game(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("4453 # ==+=-=-\n", "utf-8")
    with pytest.raises(QarenaError, match="line 1: a judging set starts with"):
        read_set(path)
    path.write_text("# qarena judging set: nogame\n4453 # ==+=-=-\n", "utf-8")
    with pytest.raises(QarenaError, match="line 1:"):
        read_set(path)


def test_sizes_are_checked_before_the_positions_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.txt"
    path.write_text(HEAD + "4 # =======\n" * 4, "utf-8")
    monkeypatch.setattr(sets, "MAX_SET_POSITIONS", 3)
    with pytest.raises(QarenaError, match="more than 3 positions"):
        read_set(path)
    monkeypatch.setattr(sets, "MAX_SET_BYTES", 50)
    with pytest.raises(QarenaError, match="larger than any judging set"):
        read_set(path)
    monkeypatch.setattr(sets, "MAX_SET_BYTES", 10**6)
    path.write_text(HEAD + "4" * 5000 + " # =======\n", "utf-8")
    with pytest.raises(QarenaError, match="line 3: longer than any line"):
        read_set(path)


def test_a_set_judges_only_players_of_its_game() -> None:
    with pytest.raises(QarenaError, match="is of connect4:6x7:4"):
        judge_set(make_player("random", parse_spec("tictactoe")), _shipped("main"))
