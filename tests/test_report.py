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

SECTIONS = ("discounting", "whom", "alpha-epsilon", "tictactoe", "poles", "learners")


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
        assert "src='data:image/png;base64," in section
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
