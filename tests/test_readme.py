"""Every deterministic example in README.md and in the documentation site's pages (docs/, the
guide in docs/guide/ included) prints what the page shows.

Each page's ```console blocks are run in order in one folder of the page's own, as a reader
would type them (later examples on a page use files its earlier ones wrote; no page uses
another's). A ``play`` transcript is replayed with what it shows typed
after each prompt as input; ``serve`` is left out; blocks that elide output with "…" only need
their commands to run; times, rates and the machine's free
memory are masked before comparing, since they differ from run to run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "guide"
#: Each page with console examples, and how many of its examples at least are compared (the
#: rest only need their commands to run: elided outputs, files written).
PAGES = {
    ROOT / "README.md": 5,
    DOCS / "index.md": 2,
    DOCS / "cli.md": 6,
    GUIDE / "solving.md": 7,
    GUIDE / "training.md": 3,
    GUIDE / "judging.md": 5,
    GUIDE / "inspecting.md": 4,
    GUIDE / "playing.md": 1,
    GUIDE / "connect4.md": 5,
    GUIDE / "alphazero.md": 1,
    GUIDE / "kaggle.md": 3,
    GUIDE / "experiments.md": 1,
}

#: What varies between runs and machines, and what it is shown as when comparing.
MASKS = [
    (re.compile(r"\d+(\.\d+)? GB this machine can spare"), "<memory> this machine can spare"),
    (re.compile(r"\d[\d,]*(\.\d+)? s\b"), "<seconds> s"),
    (re.compile(r"[\d,]+ moves/s"), "<rate> moves/s"),
    (re.compile(r"[\d,]+ games/s"), "<rate> games/s"),
    # Threads sharing a search table find cutoffs in a different order from run to run.
    (re.compile(r"[\d,]+ positions in <seconds>"), "<n> positions in <seconds>"),
    (re.compile(r'"(train_seconds|steps_per_second)": [\d.e+-]+'), r'"\1": <n>'),
]
#: Lines of a shown output that come from stderr.
STDERR_STARTS = ("error:", "Searching", "Solving", "wrote", "Wrote", "Training")


def _blocks(page: Path) -> list[list[tuple[str, list[str]]]]:
    """Each console block as its commands, each with the output lines the page shows."""
    blocks = []
    for body in re.findall(r"```console\n(.*?)\n```", page.read_text(encoding="utf-8"), re.S):
        commands: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], []))
            elif commands:
                commands[-1][1].append(line)
        blocks.append(commands)
    return blocks


#: The prompts of ``qarena play``; what follows one on a transcript's line is what was typed.
PROMPTS = re.compile(r"(Your move: |Play again\? \[y/n\] )")


def _typed(shown: list[str]) -> list[str]:
    """What a play transcript's reader typed: the text after each prompt, in order."""
    return [m.group(2) for line in shown if (m := re.match(PROMPTS.pattern + "(.*)$", line))]


def _echoed(got: str, typed: list[str]) -> str:
    """A play's output with piped input as a terminal shows it: each answer after its prompt,
    then the line break the reader typed (a pipe echoes neither)."""
    pieces = PROMPTS.split(got)
    answers = iter(typed)
    for i in range(2, len(pieces), 2):
        answer = next(answers, None)
        if answer is not None:
            pieces[i] = answer + "\n" + pieces[i]
    return "".join(pieces)


def _mask(text: str) -> str:
    for pattern, shown in MASKS:
        text = pattern.sub(shown, text)
    # A masked number of another width pads its table differently: compare the words.
    text = re.sub(r" +", " ", re.sub(r"([─━═])\1+", r"\1", text))
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def test_every_page_with_examples_is_run() -> None:
    """A page that shows console examples is in PAGES, so none goes untested; and each page in
    PAGES shows some."""
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    with_examples = {page for page in pages if _blocks(page)}
    assert with_examples == set(PAGES)


@pytest.mark.slow
@pytest.mark.parametrize("page", list(PAGES), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_examples_print_what_the_page_shows(page: Path, tmp_path: Path) -> None:
    qarena = f"{sys.executable} -m qarena"
    env = {k: v for k, v in os.environ.items() if k != "QARENA_MEMORY_LIMIT"}
    env["COLUMNS"] = "80"
    checked = 0
    for block in _blocks(page):
        elided = any(line == "…" for _, shown in block for line in shown)
        for command, shown in block:
            if command.startswith("qarena serve"):
                continue
            # A play transcript is replayed: what the reader typed goes in on stdin.
            typed = _typed(shown) if command.startswith("qarena play") else None
            argv = re.sub(r"^qarena ", qarena + " ", command)
            result = subprocess.run(
                argv,
                shell=True,
                check=False,
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                input="".join(f"{line}\n" for line in typed) if typed is not None else None,
                timeout=300,
            )
            want = [line for line in shown if line != ""]
            expects_error = any(line.startswith("error:") for line in want)
            if not expects_error and "| head" not in command:
                assert result.returncode == 0, f"{command}: {result.stderr[-500:]}"
            if elided or not want:
                continue
            from_stderr = any(line.startswith(STDERR_STARTS) for line in want)
            got = (result.stderr if from_stderr else "") + result.stdout
            if typed is not None:
                got = _echoed(got, typed)
            assert _mask(got) == _mask("\n".join(shown)), command
            checked += 1
    assert checked >= PAGES[page]
