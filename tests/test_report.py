"""qarena report --quick: one self-contained page whose numbers agree with theory and whose
printed commands reproduce its sweeps."""

from __future__ import annotations

import html
import json
import re
import shlex
from pathlib import Path

import pytest

from qarena.cli import run

# Building the report end to end takes about 45 s on 2 cores: with the slow checks, which CI
# runs (`make test-slow`), so that `make test` stays under 8 minutes.
pytestmark = pytest.mark.slow

SECTIONS = (
    "writeups", "discounting", "whom", "alpha-epsilon", "tictactoe", "poles", "learners",
    "alphazero",
)  # fmt: skip
#: Sections that are a table of claims, with no figure.
TABLES_ONLY = ("writeups",)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("report")
    page = folder / "report.html"
    assert run(["report", "--quick", "--out", str(page)]) == 0
    return folder, page.read_text(encoding="utf-8")


def _section(text: str, key: str) -> str:
    start = text.index(f"<section id='{key}'>")
    return text[start : text.index("</section>", start)]


def _rows(section: str) -> list[list[str]]:
    return [
        [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", section)
        if "<td>" in row
    ]


def test_the_page_is_self_contained_with_every_section(report: tuple[Path, str]) -> None:
    _, text = report
    # Nothing is fetched: no script, stylesheet or image from elsewhere.
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", text)
    assert "<script" not in text
    for key in SECTIONS:
        section = _section(text, key)
        assert key in TABLES_ONLY or "src='data:image/png;base64," in section
        commands = re.search(r"<pre>(.*?)</pre>", section, re.S)
        assert commands is not None
        assert all(line.startswith("qarena ") for line in html.unescape(commands[1]).splitlines())


def test_discounting_drags_out_lost_games(report: tuple[Path, str]) -> None:
    rows = _rows(_section(report[1], "discounting"))
    lost = {r[0]: float(r[1]) for r in rows}
    # With γ < 1 a later loss is worth more, so the agent delays; 3-5-7 misère lasts at most
    # 15 plies, and the solver's slowest loss against a hurrying winner is 14.
    assert lost["0.8"] > lost["1.0"]
    assert all(1 <= v <= 15 for v in lost.values())


def test_the_pole_strategy_falls_into_1_1_0(report: tuple[Path, str]) -> None:
    rows = _rows(_section(report[1], "poles"))
    games = {r[0]: r for r in rows if len(r) == 7}
    # Watched endgame: perfect on 3-5-7 (the solver's judgement); the strict rule is not.
    assert games["nim:3,5,7"][1] == "1.000" and games["nim:3,5,7"][2] == "0"
    assert float(games["nim:3,5,7"][3]) < 1.0
    traps = [r for r in rows if len(r) == 6 and r[3].split().count("1") == 2 and "loss" in r[4]]
    assert traps, rows
    for r in traps:
        left = [int(h) for h in r[3].split()]
        assert sorted(h for h in left if h) == [1, 1]  # 1-1-0: the player to move wins


def test_negamax_learners_reach_perfect_play_and_baselines_do_not(
    report: tuple[Path, str],
) -> None:
    rows = [r for r in _rows(_section(report[1], "learners")) if len(r) == 6]
    by = {(r[0], r[1]): r for r in rows}
    for game in ("nim:3,5,7", "subtraction:12:3", "tictactoe:3x3:3"):
        for kind in ("q", "afterstate", "matchbox"):
            assert by[game, kind][5] == "1.000"
        assert by[game, "naive-q"][2].startswith("0 of")


def test_the_printed_sweeps_are_the_report_s_own(
    report: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, text = report
    monkeypatch.chdir(folder)
    commands = html.unescape(re.search(r"<pre>(.*?)</pre>", _section(text, "discounting"), re.S)[1])
    sweep = shlex.split(commands.splitlines()[0])
    assert sweep[:2] == ["qarena", "sweep"]
    # The report's runs folder is given relative to the page's folder here.
    sweep[sweep.index("--out") + 1] = str(folder / "report-runs" / "discounting")
    capsys.readouterr()
    assert run([*sweep[1:], "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["trained"] == 0 and record["skipped"] == record["runs"] > 0


def _twelve_sticks_first_version(opponent: str, learned: bool = True) -> float:
    """The exact share of games the 12-stick write-up's first version wins moving first, once
    it has removed every move that takes the last stick (what losing to random play teaches
    it; ``learned`` False: nothing but the forced last stick, all that losing to the modulus
    rule that takes one stick teaches it): it picks uniformly among the other moves;
    ``opponent`` "random", "rule" (the modulus rule taking one stick where every move loses)
    or "any" (the rule moving at random there)."""
    from functools import cache

    @cache
    def win(n: int, mine: bool) -> float:
        if n == 0:  # the player who took the last stick lost
            return 1.0 if mine else 0.0
        moves = [m for m in (1, 2, 3) if m <= n]
        if mine:
            safe = [m for m in moves if m != n or not learned] or moves
            return sum(win(n - m, False) for m in safe) / len(safe)
        if opponent == "random" or (opponent == "any" and n % 4 == 1):
            return sum(win(n - m, True) for m in moves) / len(moves)
        return win(n - ((n - 1) % 4 or 1), True)

    return win(12, True)


def test_the_write_ups_claims_are_checked(report: tuple[Path, str]) -> None:
    rows = [r for r in _rows(_section(report[1], "writeups")) if len(r) == 5]
    by = {r[1]: r for r in rows}

    def find(words: str) -> list[str]:
        return next(r for claim, r in by.items() if words in claim)

    # 1-3-5-7 misère has nim-sum 0 and a pile above one: lost for the player to move.
    human = find("the human should never be able to win")
    assert human[0].startswith("002") and "loss for the player to move" in human[3]
    assert human[4] == "does not hold"
    # Can it be beaten from the start (qarena beat)? Moving first its start is lost, and a lost
    # start is never "beaten"; moving second it is won, and any seed may give it away.
    first, seeds, second, again = (
        int(x)
        for x in re.findall(r"moving first in (\d+) of (\d+) seeds and moving second in (\d+) "
                            r"of (\d+)", human[3])[0]
    )  # fmt: skip
    assert first == 0 and seeds == again > 0 and 0 <= second <= seeds
    # Measured with the course's own code: 0.97-1.0 after 10,000 games; the figure of 10,000
    # games is the notebook's (002), the solution (004) gives none.
    course = find("в конечном итоге наш ИИ узнает")
    assert course[0].startswith("004") and "10000" not in course[1] and "10,000" not in course[1]
    assert all(float(x) >= 0.95 for x in re.findall(r"[01]\.\d{3}", course[3]))
    # The term paper's learner with ε = 0.1 is perfect (5 seeds of 5 with its own code) ...
    assert find("plays the winning strategy")[3].startswith("optimality 1.000")
    # ... and with pure exploration far from it (0.67-0.68 with its own code).
    mean = float(re.findall(r"\d\.\d{3}", find("pure exploration")[3])[0])
    assert 0.5 < mean < 0.8
    # It drags lost games out at γ = 1 as well: 13.4-14.0 plies with its own code, where the
    # longest game of 3-5-7 has 15; qarena's q, whose backup ignores the opponent's exploring
    # replies, does not: the paper's own explanation (the opponent's exploration) holds.
    # "lost games ... last S plies at γ 0.8 and F at γ 1, ...; qarena's q learner at γ 1 ...: Q"
    drag = find("zufällige Exploration des Gegenspielers")
    assert "discount" not in drag[1]
    slow, _, flat, q = (float(x) for x in re.findall(r"\d+\.\d+", drag[3]))
    assert flat > q + 2 and slow > q + 2 and max(slow, flat) <= 15
    assert drag[4] == "holds"
    assert find("endgame is watched")[3].startswith("optimality 1.000")
    assert find("no pole position")[3].startswith("0 replies")
    # The 12-stick first version, moving first, 100,000 games: each share within three
    # standard errors of the exact chance of what it learned. Against random play and against
    # the rule moving at random where it loses it learns never to take the last stick;
    # against the rule taking one stick there it never meets a heap of 2 to 4 it could empty.
    games = 100_000

    def close(share: float, exact: float) -> bool:
        return abs(share - exact) <= 3 * (exact * (1 - exact) / games) ** 0.5 + 5e-5

    assert abs(_twelve_sticks_first_version("random") - 0.6973) < 1e-4
    first = find("70.078%")
    shares = [float(x) / 100 for x in re.findall(r"(\d+\.\d\d)%", first[3])]
    assert len(shares) == 10  # three shares, each with its interval, and the write-up's noise
    assert close(shares[0], _twelve_sticks_first_version("random"))
    assert close(shares[3], _twelve_sticks_first_version("random", learned=False))
    assert close(shares[6], _twelve_sticks_first_version("random"))
    assert all(shares[i + 1] <= shares[i] <= shares[i + 2] for i in (0, 3, 6))
    assert shares[2] - shares[1] < 0.01  # tighter than the gaps it judges (0.3 and 20 points)
    # Trained against random play and against the rule moving at random: both 70%, as the
    # write-up says; against the rule taking one stick: half.
    assert first[4] == "holds in part"
    optimal = find("4.884%")
    shares = [float(x) / 100 for x in re.findall(r"(\d+\.\d\d)%", optimal[3])]
    assert len(shares) == 12
    assert close(shares[0], _twelve_sticks_first_version("rule"))
    assert close(shares[3], _twelve_sticks_first_version("any"))
    assert close(shares[6], _twelve_sticks_first_version("rule", learned=False))
    assert close(shares[9], _twelve_sticks_first_version("any"))
    # 3.7% and 6.6%: the write-up's 4.9% lies between its optimal player's two readings.
    assert shares[0] < 0.04884 < shares[3] and optimal[4] == "does not hold"
    assert find("alle Spiele zu gewinnen")[3].startswith("wins 100.00% to 100.00%")
    # Tic-tac-toe is a draw with best play: the blog's two agents, by its own rule and
    # settings, draw every game with each other and never lose to perfect play (20 seeds of
    # 20 at 20,000 games, 4 of 4 at 10,000, measured for the learner beside its tests).
    for words in ("unentschieden zu erreichen", "schon 20000 Epochen"):
        blog = find(words)
        assert blog[0].startswith("003") and "tictactoe-blog" in blog[3]
        drawn, games = (
            int(x.replace(",", "")) for x in re.findall(r"draw ([\d,]+) of ([\d,]+)", blog[3])[0]
        )
        assert drawn == games > 0 and " 0 games lost to perfect play" in blog[3]
        assert blog[4] == "holds"
        assert re.search(r"beats it from the start moving first in \d+ of \d+ seeds", blog[3])
        assert "--learner game-backup" in blog[2] and "--alpha 0.099" in blog[2]


def test_alphazero_is_judged_beside_a_table_and_an_n_tuple_network(
    report: tuple[Path, str],
) -> None:
    """Three learners on tic-tac-toe, each judged over every decision position: the table
    perfect (Q-learning's default run on tic-tac-toe is), the AlphaZero learner's short run
    better than random play (whose share the solver gives over the same positions)."""
    import qarena

    rows = {r[0]: r for r in _rows(_section(report[1], "alphazero"))}
    assert set(rows) == {"Q-learning", "n-tuple network", "AlphaZero"}
    assert rows["Q-learning"][3] == "1.0000"
    random_share = qarena.judge("random", "tictactoe", games=2).optimality.share
    assert random_share < float(rows["AlphaZero"][3]) < 1.0
    assert float(rows["n-tuple network"][3]) < 1.0
