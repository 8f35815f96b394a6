"""The command line's help as a person reads it: wrapped to the terminal, in English and
German, naming every registered game and learner, flags without a value type, shell
completion."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections import Counter

import pytest
import typer.main

from qarena.cli import run
from qarena.cli.app import app
from qarena.errors import SpecError
from qarena.games import Game, registry
from qarena.learn.learners import TABLE_LEARNERS as LEARNERS
from qarena.learn.tables.qlearning import QLearner

#: Every command's help: the root's, and each command's.
HELPS = [[], *([name] for name in typer.main.get_command(app).commands)]  # type: ignore[attr-defined]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GAP = re.compile(r"\s{2,}(?=\S)")


def _help(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    columns: int = 200,
    lang: str = "en",
) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.delenv("TERMINAL_WIDTH", raising=False)
    code = run(["--lang", lang, *command, "--help"])
    out = ANSI.sub("", capsys.readouterr().out)
    assert code == 0, out
    return out


def _early(line: str, following: str, column: int, width: int) -> bool:
    """Whether ``following`` goes on with ``line``'s text in the column starting at
    ``column``, and its first word would have fit on ``line`` (``width`` characters)."""
    words = following.split()
    if not words or words[0].startswith("["):  # typer puts [default: …] on a line of its own
        return False
    if len(following) - len(following.lstrip()) != column:
        return False
    if len(line) <= column or line[column - 1] != " " or line[column] == " ":
        return False  # this line has no text in that column
    return len(line.rstrip()) + 1 + len(words[0]) <= width


def ragged(text: str) -> list[str]:
    """Lines of wrapped text that end early: the next line goes on with the same text and its
    first word would have fit. Rich wraps a paragraph at the last word that fits, so only a
    line break of the source's makes such a line. In a panel (a table in a box) the text
    wrapped is the last column's, which starts where the lines indented the most start."""
    found = []
    lines = text.splitlines()
    width = max(len(line) for line in lines)
    panel: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("│"):
            panel.append(line[1:-1])
            continue
        if panel:  # a panel just ended: check its rows
            # Where each row's last column starts: after its last gap of two spaces or more.
            starts = [m[-1].end() for row in panel if (m := list(_GAP.finditer(row.rstrip())))]
            column = Counter(starts).most_common(1)[0][0] if starts else 0
            for row, following in itertools.pairwise(panel):
                # A panel's text ends before its border and the cell's padding of one.
                if _early(row, following, column, width - 3):
                    found.append(f"{row.strip()!r} + {following.split()[0]!r}")
            panel = []
        following = lines[i + 1] if i + 1 < len(lines) else ""
        # Text outside panels has a margin of one on either side.
        if not line.startswith(("╭", "╰")) and _early(line, following, 1, width - 1):
            found.append(f"{line.strip()!r} + {following.split()[0]!r}")
    return found


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("columns", [80, 100, 132])
def test_help_is_wrapped_to_the_terminal_not_to_the_source(
    columns: int, lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for command in HELPS:
        out = _help(capsys, monkeypatch, command, columns, lang)
        assert max(len(line) for line in out.splitlines()) <= columns
        assert ragged(out) == [], (command, out)


def test_the_ragged_line_check_finds_a_source_line_break() -> None:
    def panel(*rows: str) -> str:
        inner = 40
        top, bottom = "╭─ Commands " + "─" * (inner - 10) + "╮", "╰" + "─" * inner + "╯"
        return "\n".join([top, *(f"│ {r:<{inner - 1}}│" for r in rows), bottom])

    wrapped = panel("eval     How good an agent is, and its", "         greedy play, in turn.")
    assert ragged(wrapped) == []
    broken = panel("eval     How good an agent is,", "         and its greedy play.")
    assert ragged(broken) == ["'eval     How good an agent is,' + 'and'"]
    assert ragged(" Usage: qarena\n\n A line that\n was broken.      \n") == [
        "'A line that' + 'was'"
    ]


def test_help_names_every_registered_learner_and_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One more of each, registered here: the help is read from the registries.
    monkeypatch.setitem(LEARNERS, "extra-learner", QLearner)

    def parse(text: str, parts: list[str]) -> Game:
        raise SpecError(text)

    registry.register("extragame", parse, form="extragame[:N] like 'extragame:3'")
    try:
        for command in (["train"], ["matrix"], ["sweep"]):
            text = " ".join(_help(capsys, monkeypatch, command).split())
            for kind in LEARNERS:
                assert kind in text, (command, kind)
            for name in registry.names():
                assert f"{name}[" in text, (command, name)
            assert "extragame[:N] like 'extragame:3'" in text
            assert "extra-learner" in text
    finally:
        registry.unregister("extragame")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_flags_show_no_value_and_usage_reads_spec(
    lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for command in HELPS:
        out = _help(capsys, monkeypatch, command, lang=lang)
        assert "<bool>" not in out, (command, out)
        usage = next(line for line in out.splitlines() if "qarena" in line)
        assert "{" not in usage, usage
    out = _help(capsys, monkeypatch, ["train"], lang=lang)
    assert re.search(r"qarena train \[OPTIONS\] SPEC\s*$", out, re.MULTILINE), out
    assert re.search(r"--until-perfect\s+Stop as soon", out) or lang == "de"


def test_shell_completion_is_offered_in_the_run_s_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _help(capsys, monkeypatch, [])
    assert "--install-completion" in out and "--show-completion" in out
    assert "Install completion for the current shell." in out
    out = _help(capsys, monkeypatch, [], lang="de")
    assert "Die Vervollständigung für die aktuelle Shell installieren." in out


def test_shell_completion_completes_commands() -> None:
    """What a shell's completion script asks: the words that complete ``qarena tr``."""
    env = {**os.environ, "_QARENA_COMPLETE": "complete_bash", "COMP_WORDS": "qarena tr"}
    env["COMP_CWORD"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", "from qarena.cli.app import main; main()"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["train"]
