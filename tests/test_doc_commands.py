"""Every concrete ``qarena`` command that README.md or the documentation site quotes — in
examples, tables or prose — parses as the command line would parse it: its command exists, its
options exist and take what is given, and nothing required is missing. A reader who copies one
never meets "No such option" or "Missing option".

A mention that gives no argument, only the command's name and perhaps options (`qarena train`,
`qarena eval --json`), names a command rather than quoting one to run: its command and options
must exist. Synopses (with ``[…]``, ``A|B``, ``…`` or placeholders such as ``SPEC`` and
``FILE``) are left out; so are ``play`` and ``serve``, which wait for a person. Nothing is run:
parsing stops before any command's code.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from qarena.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
#: README and every page of the documentation site, the guide's (docs/guide/) included.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: A placeholder a synopsis names instead of a value: SPEC, FILE, N, W,D,L.
PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_,]*")
#: Marks of a synopsis rather than a command.
SYNOPSIS = ("[", "|", "…", "...", "<")


def quoted_commands(text: str) -> list[str]:
    """Each ``qarena …`` command of a Markdown page: a line of a code block (after ``$ `` in
    console blocks, continued lines joined) or an inline code span."""
    found = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M):
        for raw in block.replace("\\\n", " ").splitlines():
            line = raw.removeprefix("$ ").strip()
            if line.startswith("qarena "):
                found.append(line)
    prose = re.sub(r"^```[a-z]*\n.*?^```", "", text, flags=re.S | re.M)
    found += [m for m in re.findall(r"`([^`\n]+)`", prose) if m.startswith("qarena ")]
    return found


def concrete(command: str) -> list[str] | None:
    """The arguments of a command to copy, or None for a synopsis. A shell comment and what is
    piped on are not the command's."""
    command = re.split(r"\s+#\s", command)[0]
    command = re.split(r"\s\|\s", command)[0]
    if any(mark in command for mark in SYNOPSIS):
        return None
    try:
        words = shlex.split(command)[1:]
    except ValueError:
        return None
    # Redirections are the shell's; --lang may stand anywhere and is taken out before parsing.
    words = [w for w in words if not re.match(r"\d?[<>]", w)]
    while "--lang" in words:
        i = words.index("--lang")
        del words[i : i + 2]
    words = [w for w in words if not w.startswith("--lang=")]
    if any(PLACEHOLDER.fullmatch(word) for word in words):
        return None
    if any(word in ("play", "serve") for word in words[:3]):
        return None
    return words


def _command(name: str) -> Any:
    root = typer.main.get_command(app)
    with root.make_context("qarena", [name, "--help"], resilient_parsing=True) as ctx:
        command = root.get_command(ctx, name)  # type: ignore[attr-defined]
    if command is None:
        raise typer.BadParameter(f"no such command: {name!r}")
    return command


def parse(args: list[str]) -> None:
    """Parse ``args`` as ``qarena`` would, down to the command, and run nothing. A mention
    without arguments only needs its command and options to exist."""
    root = typer.main.get_command(app)
    options = [a for a in args if a.startswith("-")]
    words = [a for a in args if not a.startswith("-")]
    if not words:
        return
    command = _command(words[0])
    given = args[args.index(words[0]) + 1 :]
    if any(not a.startswith("-") for a in given):
        with (
            root.make_context("qarena", list(args)) as ctx,
            command.make_context(words[0], given, parent=ctx),
        ):
            pass
        return
    known = {name for p in [*root.params, *command.params] for name in p.opts + p.secondary_opts}
    known.add("--help")
    for option in options:
        if option.split("=")[0] not in known:
            raise typer.BadParameter(f"no such option: {option}")


COMMANDS = sorted(
    {
        (page.relative_to(ROOT).as_posix(), command)
        for page in PAGES
        for command in quoted_commands(page.read_text(encoding="utf-8"))
        if concrete(command) is not None
    }
)


def test_commands_are_found() -> None:
    # The pages quote many commands to copy; a broken extraction would test none.
    assert len(COMMANDS) >= 40
    page = "Run `qarena solve nim --json` or\n\n```sh\nqarena train nim \\\n  --out n.npz\n```\n"
    assert quoted_commands(page) == ["qarena train nim    --out n.npz", "qarena solve nim --json"]
    assert concrete("qarena table n.npz --csv - | head -4") == ["table", "n.npz", "--csv", "-"]
    assert concrete("qarena solve SPEC [--json]") is None
    assert concrete("qarena eval FILE") is None
    assert concrete("qarena --lang de solve nim >/dev/full") == ["solve", "nim"]


def test_a_missing_or_unknown_option_is_caught() -> None:
    # train's --out is optional now (a default name); its SPEC is still required.
    with pytest.raises(typer.TyperException, match="spec"):
        parse(["train", "--out", "n.npz"])
    with pytest.raises(typer.TyperException, match="--jason"):
        parse(["solve", "nim", "--jason"])
    with pytest.raises(typer.TyperException, match="--jason"):
        parse(["solve", "--jason"])
    with pytest.raises(typer.TyperException, match="solv"):
        parse(["solv", "nim"])
    parse(["train", "--out"])  # a mention of train's option


@pytest.mark.parametrize(("page", "command"), COMMANDS)
def test_quoted_command_parses(page: str, command: str) -> None:
    args = concrete(command)
    assert args is not None
    try:
        parse(args)
    except typer.TyperException as e:
        pytest.fail(f"{page}: `{command}`: {e.format_message()}")
