"""The report's rows for the Nim write-ups (000, 002, 004), built on a quick lab and checked
against the write-ups' figures and computations made here, apart from the rows' own code: the
write-ups' tie rule read straight off the tables, optimality by ``qarena.judge`` and the best
reply by ``qarena.best_reply`` on a plain function that plays that rule."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import qarena
from qarena.exact import game_tables, solve
from qarena.experiments.report.claims.common import Claims
from qarena.experiments.report.claims.nim import (
    _course_claims,
    _paper_claims,
    first_highest,
    mean_interval,
    writeup_order,
)
from qarena.experiments.report.lab import Lab
from qarena.games import parse_spec
from qarena.games.base import Position
from qarena.judging.tables import optimality_of_values
from qarena.learn.learners import load_table
from qarena.learn.tables.base import Learner


def _pairs(position: tuple[int, ...]) -> list[tuple[int, int]]:
    """The moves as the write-ups' own code lists them, written out here again."""
    found = set()
    for i, pile in enumerate(position):
        for j in range(1, pile + 1):
            found.add((i, j))
    return list(found)


def _first_highest_player(learner: Learner) -> Callable[[Position], str]:
    """The write-ups' ``max`` over the learner's values, as a plain function of a position:
    the first pair of highest value in the write-ups' order."""
    values = learner.values()
    tables = learner.tables

    def move(position: Position) -> str:
        row = tables.row_of(position)
        pairs = _pairs(tuple(position))
        scores = [values[row, learner.game.move_for(i, j)] for i, j in pairs]  # type: ignore[attr-defined]
        i, j = pairs[scores.index(max(scores))]
        return f"{i + 1}:{j}"

    return move


def _optimality(play: Callable[[Position], str], spec: str) -> float:
    """The share of decision positions (every ordering of the piles apart) where ``play``'s
    move keeps the solver's value. Computed here: ``qarena.judge`` asks a function at one
    ordering of the piles only, as if its moves were the same under every reordering."""
    game = parse_spec(spec)
    solution = solve(game)
    tables = game_tables(game, canonical=False)
    kept = []
    for row in np.flatnonzero(tables.live):
        position = tables.position(int(row))
        values = solution.move_values(position)
        if len(set(values.values())) > 1:
            kept.append(values[game.parse_move(play(position))] == max(values.values()))
    return float(np.mean(kept))


def _beaten_first(play: Callable[[Position], str], spec: str) -> bool:
    """Can an opponent who knows ``play``'s moves beat it moving first (misère Nim: who takes
    the last object loses)? A plain search over every position, apart from qarena's."""
    game = parse_spec(spec)
    memo: dict[tuple[tuple[int, ...], bool], bool] = {}

    def wins(position: tuple[int, ...], mine: bool) -> bool:  # does ``play`` win from here
        if not any(position):
            return mine  # the other side took the last object
        key = (position, mine)
        if key not in memo:
            if mine:
                memo[key] = wins(game.apply(position, game.parse_move(play(position))), False)
            else:
                memo[key] = all(wins(game.apply(position, m), True) for m in
                                game.legal_moves(position))  # fmt: skip
        return memo[key]

    return not wins(game.start(), True)


def test_the_write_ups_order_is_python_s_set_order_and_not_qarena_s() -> None:
    game = parse_spec("nim:3,5,7")
    order = writeup_order((3, 5, 7))
    assert order == _pairs((3, 5, 7))
    assert order[:3] == [(0, 1), (2, 4), (1, 2)]
    # The same moves as qarena's, in another order (qarena's runs pile by pile, count up).
    ours = [game.format_move(m) for m in game.legal_moves((3, 5, 7))]
    theirs = [f"{i + 1}:{j}" for i, j in order]
    assert sorted(ours) == sorted(theirs) and ours != theirs


def test_first_highest_takes_the_first_tie_in_the_write_ups_order(tmp_path: Path) -> None:
    learner = qarena.train("nim:1,3,5,7", preset="cs50-nim", episodes=200, seed=1)
    assert not learner.config.canonical  # the write-up's own table
    # Make every value at the start equal: the rule must pick the write-ups' first move.
    tables = learner.tables
    learner.q[tables.start] = np.where(tables.legal[tables.start], 0.25, learner.q[tables.start])
    mask = first_highest(learner)
    assert mask.sum(axis=1).max() == 1
    first = writeup_order((1, 3, 5, 7))[0]
    assert mask[tables.start, learner.game.move_for(*first)]
    # Against a function playing the same rule, written here: the same optimality.
    share = _optimality(_first_highest_player(learner), "nim:1,3,5,7")
    assert optimality_of_values(tables, mask.astype(np.float64)).share == pytest.approx(share)


def test_a_mean_s_interval_counts_seeds() -> None:
    mean, low, high = mean_interval([0.5, 0.7])
    assert mean == pytest.approx(0.6) and low == 0.0 and high == 1.0  # t(1) = 12.7: wide
    # Five seeds: mean 0.58, standard deviation 0.0837, t(4) = 2.776, so ± 0.1039.
    mean, low, high = mean_interval([0.5, 0.6, 0.7, 0.6, 0.5])
    assert (mean, low, high) == pytest.approx((0.58, 0.4761, 0.6839), abs=1e-4)
    assert mean_interval([1.0, 1.0]) == (1.0, 1.0, 1.0)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lab, dict[str, tuple[str, ...]]]:
    lab = Lab(tmp_path_factory.mktemp("lab"), quick=True)
    claims = Claims()
    _course_claims(lab, claims)
    _paper_claims(lab, claims)
    return lab, {row[1]: row for row in claims}


def _find(rows: dict[str, tuple[str, ...]], words: str) -> tuple[str, ...]:
    return next(r for claim, r in rows.items() if words in claim)


def _runs(lab: Lab, sweep: str, **settings: str) -> list[Learner]:
    """The sweep's run files with these settings, read back apart from the rows' code."""
    found = []
    for path in sorted((lab.folder(sweep) / "runs").glob("*.npz")):
        learner = load_table(path)
        config = learner.config
        if all(f"{getattr(config, k)}" == v for k, v in settings.items()):
            found.append(learner)
    return found


def _shares(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"optimality (\d\.\d{3})", text)]


def test_the_solution_s_row_plays_its_own_rule_with_no_verdict(
    rows: tuple[Lab, dict[str, tuple[str, ...]]],
) -> None:
    lab, by = rows
    row = _find(by, "в конечном итоге наш ИИ узнает")
    assert row[0] == "004 · Фон" and row[4] == "no verdict"
    runs = _runs(lab, "writeups-solution", alpha="0.5")
    assert len(runs) == len(lab.seeds(5)) == 2
    judged = [_optimality(_first_highest_player(r), "nim:1,3,5,7") for r in runs]
    assert _shares(row[3])[0] == pytest.approx(sum(judged) / len(judged), abs=5e-4)
    assert "2 seeds" in row[3]


def test_the_human_can_win_by_the_best_reply_in_the_notebook_s_own_setting(
    rows: tuple[Lab, dict[str, tuple[str, ...]]],
) -> None:
    lab, by = rows
    row = _find(by, "the human should never be able to win")
    assert row[0] == "002 · Training and Playing"
    # 1-3-5-7 misère: nim-sum 0 with a pile above one, lost for the player to move.
    assert solve(parse_spec("nim:1,3,5,7")).value_of((1, 3, 5, 7)) < 0
    assert "loss for the player to move" in row[3] and row[4] == "does not hold"
    # Moving first the human wins where the best reply beats the AI moving second: the
    # notebook picks at random among ties, as qarena does.
    runs = _runs(lab, "writeups-course", alpha="0.5")
    beaten = sum(qarena.best_reply(r).seats["second"].beaten for r in runs)
    assert f"the best reply wins against the AI in {beaten} of 2 seeds" in row[3]


def test_alpha_one_is_judged_by_its_seeds(rows: tuple[Lab, dict[str, tuple[str, ...]]]) -> None:
    lab, by = rows
    row = _find(by, "optimal alpha for a purely deterministic game")
    assert row[0] == "002 · Influence of Hyperparameters"
    for alpha in ("0.5", "1.0", "0.1"):
        runs = _runs(lab, "writeups-course", alpha=alpha)
        shares = [qarena.judge(r, games=1).optimality.share for r in runs]
        beaten = sum(qarena.best_reply(r).seats["second"].beaten for r in runs)
        part = re.search(rf"α {alpha}: optimality (\d\.\d{{3}}).*?second in (\d) of", row[3])
        assert part is not None
        assert float(part[1]) == pytest.approx(sum(shares) / len(shares), abs=5e-4)
        assert int(part[2]) == beaten
    # The verdict follows the intervals over the seeds: two seeds seldom tell them apart.
    intervals = [
        tuple(float(x) for x in m)
        for m in re.findall(r"interval (\d\.\d{3})–(\d\.\d{3}) over", row[3])
    ]
    one, others = intervals[1], [intervals[0], intervals[2]]
    if any(o[0] > one[1] for o in others):
        assert row[4] == "does not hold"
    elif all(one[0] > o[1] for o in others):
        assert row[4] == "holds"
    else:
        assert row[4] == "no verdict" and "cannot tell" in row[3]


def test_the_paper_s_rows_with_its_own_tie_rule(
    rows: tuple[Lab, dict[str, tuple[str, ...]]],
) -> None:
    lab, by = rows
    game = parse_spec("nim:3,5,7")
    greedy = _runs(lab, "writeups-paper-first", gamma="0.8", epsilon="0.1")
    explore = _runs(lab, "writeups-paper-first", gamma="0.8", epsilon="1.0")
    assert len(greedy) == len(explore) == 2
    # ε 0.1: every position kept, in every seed (5 of 5 with the paper's own code).
    row = _find(by, "following the winning strategy exactly")
    for r in greedy:
        assert _optimality(_first_highest_player(r), game.spec) == 1.0
    assert row[3].count("optimality 1.000") == 1 and row[4] == "holds"
    # Moving first, one object: read off the start's values directly.
    row = _find(by, "moving first, it always takes a single object")
    ones = 0
    for r in greedy:
        move = _first_highest_player(r)(game.start())
        ones += move.endswith(":1")
        assert move in row[3]
    assert f"one object in {ones} of 2 seeds" in row[3]
    assert row[4] == ("holds" if ones == 2 else "holds in part" if ones else "does not hold")
    # Pure exploration: no figure claimed for "about as good as a person".
    row = _find(by, "about as well as a person without a plan")
    assert row[4] == "no verdict"
    # Late and early: the solver's move values against each move the function plays.
    solution = solve(game)
    tables = game_tables(game, canonical=False)
    row = _find(by, "decides well at the end and less so early")
    late_better = 0
    for r in explore:
        play = _first_highest_player(r)
        kept: dict[str, list[bool]] = {"late": [], "early": []}
        for position in (tables.position(int(i)) for i in np.flatnonzero(tables.live)):
            values = solution.move_values(position)
            if len(set(values.values())) < 2 or 5 < sum(position) < 11:
                continue
            chosen = values[game.parse_move(play(position))]
            kept["late" if sum(position) <= 5 else "early"].append(chosen == max(values.values()))
        late_better += np.mean(kept["late"]) > np.mean(kept["early"])
    assert f"better late than early in {late_better} of 2 seeds" in row[3]
    assert row[4] == "holds" and late_better == 2
    # Lost games dragged out: each seed's figure across seeds, never more than 15 plies.
    row = _find(by, "drawing the lost game out")
    slow = re.search(r"last (\d+\.\d) \(95% interval (\d+\.\d)–(\d+\.\d) over 2 seeds; "
                     r"each (\d+\.\d)–(\d+\.\d)\) plies at γ 0\.8", row[3])  # fmt: skip
    assert slow is not None
    mean, low, high, least, most = (float(x) for x in slow.groups())
    assert low <= least <= mean <= most <= high <= 15
    loser = float(re.findall(r"at random among its moves: (\d+\.\d)", row[3])[0])
    assert row[4] == ("holds" if least > loser else "holds in part" if most > loser else
                      "does not hold")  # fmt: skip
    # Other boards: the best reply to the function playing the paper's rule.
    row = _find(by, "1-2-3-4-5 or 2-6-7-8")
    beaten = 0
    for spec in ("nim:1,2,3,4,5", "nim:2,6,7,8"):
        name = "writeups-paper-first-" + spec.replace(":", "-").replace(",", "-")
        for r in _runs(lab, name):
            assert solve(r.game).value_of(r.game.start()) > 0  # won for the first to move
            beaten += _beaten_first(_first_highest_player(r), spec)
    assert row[4] == ("holds" if beaten == 0 else "holds in part" if beaten < 4 else
                      "does not hold")  # fmt: skip
