"""The ``qarena`` command. The only layer (with web/) that reads input or prints.

Each command lives in its own module, which registers it on the shared typer app.
"""

from __future__ import annotations

import contextlib
import os
import sys

import typer

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

__all__ = ["app", "main", "run"]


def run(argv: list[str] | None = None) -> int:
    """Run the command line; bad input gives one line on stderr and code 2, never a traceback."""
    try:
        result = app(args=argv, prog_name="qarena", standalone_mode=False)
    except QarenaError as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        return 2
    except typer.TyperException as e:
        if not e.format_message().strip():
            return e.exit_code  # bare `qarena`: the help was shown
        ctx = getattr(e, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        err.print(f"error: {e.format_message()}{hint}", markup=False, soft_wrap=True)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        err.print("stopped.")
        return STOPPED
    if result == STOPPED and not stop_was_told():
        err.print("stopped.")  # Ctrl-C, which typer turned into exit code 130 silently
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
