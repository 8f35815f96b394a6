"""The ``qarena`` command. The only layer (with web/) that reads input or prints.

Each command lives in its own module, which registers it on the shared typer app.
"""

from __future__ import annotations

import contextlib
import gettext
import os
import sys
from collections.abc import Iterator
from typing import Any

import typer
import typer.main

# Imported for their commands: each module registers its own on the app.
from qarena.cli import (  # noqa: F401
    evaluating,
    experimenting,
    explain,
    inspecting,
    play,
    plotting,
    serve,
    solving,
    training,
    watch,
)
from qarena.cli.common import STOPPED, app, err, stop_was_told
from qarena.errors import QarenaError
from qarena.i18n import DOMAIN, LOCALES, _, check_language, from_environment, speaking

__all__ = ["app", "main", "run"]


def _language(args: list[str]) -> str:
    """The language asked for, ``--lang CODE`` (or ``--lang=CODE``) anywhere on the command
    line, else QARENA_LANG, else English; the option is taken out of ``args``."""
    chosen = None
    i = 0
    while i < len(args):
        if args[i] == "--lang":
            if i + 1 >= len(args):
                raise QarenaError(_("--lang needs a language, like --lang de"))
            chosen = args[i + 1]
            del args[i : i + 2]
        elif args[i].startswith("--lang="):
            chosen = args[i].split("=", 1)[1]
            del args[i]
        elif args[i] == "--":
            break
        else:
            i += 1
    return check_language(chosen) if chosen is not None else from_environment()


def _translate_help(command: Any) -> None:
    """Every help text of the command tree in the current language (typer builds the tree
    afresh for each run, so this changes nothing another run sees)."""
    if command.help:
        command.help = _(command.help)
    if command.short_help:
        command.short_help = _(command.short_help)
    for param in command.params:
        text = getattr(param, "help", None)
        if text:
            param.help = _(text)
    for sub in getattr(command, "commands", {}).values():  # a group's commands
        _translate_help(sub)


@contextlib.contextmanager
def _library_language(code: str) -> Iterator[None]:
    """click's and typer's own texts ("Usage:", "Options", their error lines) in ``code``:
    they ask the process-wide gettext, which reads LANGUAGE; put back afterwards."""
    old = os.environ.get("LANGUAGE")
    gettext.bindtextdomain(DOMAIN, str(LOCALES))
    gettext.textdomain(DOMAIN)
    os.environ["LANGUAGE"] = code
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("LANGUAGE", None)
        else:
            os.environ["LANGUAGE"] = old


def run(argv: list[str] | None = None) -> int:
    """Run the command line; bad input gives one line on stderr and code 2, never a traceback."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _language(args)
    except QarenaError as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        return 2
    with speaking(code), _library_language(code):
        return _run(args)


def _run(args: list[str]) -> int:
    command = typer.main.get_command(app)
    _translate_help(command)
    try:
        result = command.main(args=args, prog_name="qarena", standalone_mode=False)
    except QarenaError as e:
        err.print(_("error: {message}").format(message=e), markup=False, soft_wrap=True)
        return 2
    except typer.TyperException as e:
        if not e.format_message().strip():
            return e.exit_code  # bare `qarena`: the help was shown
        ctx = getattr(e, "ctx", None)
        hint = (
            _(" (see '{command} --help')").format(command=ctx.command_path)
            if ctx is not None
            else ""
        )
        err.print(
            _("error: {message}").format(message=e.format_message()) + hint,
            markup=False,
            soft_wrap=True,
        )
        return 2
    except (typer.Abort, KeyboardInterrupt):
        err.print(_("stopped."))
        return STOPPED
    if result == STOPPED and not stop_was_told():
        err.print(_("stopped."))  # Ctrl-C, which typer turned into exit code 130 silently
    return result if isinstance(result, int) else 0


def main() -> None:
    """The ``qarena`` console script."""
    code = run()
    # Every file qarena writes is complete, fsynced and closed by now: skip the interpreter's
    # teardown (numba's alone takes a few tenths of a second), so Ctrl-C ends at once.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
