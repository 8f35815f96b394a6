"""The ``qarena`` command. The only layer (with web/) that reads input or prints.

Each command lives in its own module, which registers it on the shared typer app.
"""

from __future__ import annotations

import _thread
import contextlib
import errno
import gettext
import os
import re
import sys
import threading
from collections.abc import Iterator
from typing import Any

import typer
import typer.main

from qarena.agents.spec_players import about as spec_players_about

# Imported for their commands: each module registers its own on the app.
from qarena.cli import (  # noqa: F401
    beating,
    competing,
    evaluating,
    experimenting,
    explain,
    exporting,
    inspecting,
    play,
    plotting,
    presets,
    serve,
    solving,
    training,
    warm,
    watch,
)
from qarena.cli.common import STOPPED, app, err, stop_was_told
from qarena.errors import QarenaError
from qarena.games.registry import forms
from qarena.i18n import (
    DEFAULT,
    DOMAIN,
    LOCALES,
    _,
    check_language,
    from_environment,
    gettext_noop,
    speaking,
)
from qarena.learn.learners import TABLE_LEARNERS
from qarena.learn.presets import help_text as presets_text

__all__ = ["app", "main", "run"]

#: Exit code when the output cannot be written (a full disk, a closed pipe).
OUTPUT_LOST = 1
#: Exit code when memory ran out midway (what did not fit was not refused first).
OUT_OF_MEMORY = 1
#: What writing the output meets: a closed pipe, a full disk or quota, a file grown too large, a
#: failing device or terminal.
OUTPUT_ERRORS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


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


#: typer's own words that it does not ask gettext for: the help option's help, and the
#: "Usage: " before each usage line.
HELP_OPTION_HELP = gettext_noop("Show this message and exit.")
USAGE = gettext_noop("Usage: ")


def commands(root: Any) -> Iterator[Any]:
    """``root`` and every command below it, each before its own commands."""
    yield root
    for sub in getattr(root, "commands", {}).values():  # a group's commands
        yield from commands(sub)


def help_slots(command: Any) -> Iterator[tuple[Any, str]]:
    """Where a command keeps its help texts, as (holder, attribute): the command's help and
    short help, and each parameter's help. What the catalog extracts and a run translates."""
    for attr in ("help", "short_help"):
        if getattr(command, attr):
            yield command, attr
    for param in command.params:
        if getattr(param, "help", None):
            yield param, "help"


def _help_fields() -> dict[str, str]:
    """Placeholders of help texts, filled from the registries in the current language, so the
    help names every game and learner there is."""
    # The table learners; the help names the network apart, with what it is for.
    titles = "; ".join(f"{kind} — {cls.title}" for kind, cls in TABLE_LEARNERS.items())
    return {
        "{games}": forms(),
        "{learners}": ", ".join(TABLE_LEARNERS),
        "{learner_titles}": titles,
        "{presets}": presets_text(),
        # The players named by a spec of a declared kind (connectx:FILE), with what running
        # one does.
        "{spec_players}": spec_players_about(),
    }


def help_text(text: str, fields: dict[str, str] | None = None) -> str:
    """A help text as shown: in the current language, its placeholders filled (``fields``:
    ``_help_fields()``), each paragraph on one line. typer keeps the source's line breaks,
    which rich then wraps again: ragged lines at every width but the source's."""
    shown = _(text)
    for name, value in (fields or _help_fields()).items():
        shown = shown.replace(name, value)
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in shown.split("\n\n"))


def _translate_help(root: Any) -> None:
    """Every help text of the command tree as shown in the current language (typer builds the
    tree afresh for each run, so this changes nothing another run sees)."""
    fields = _help_fields()
    for command in commands(root):
        for holder, attr in help_slots(command):
            setattr(holder, attr, help_text(getattr(holder, attr), fields))
        for param in command.params:
            _no_flag_value(param)
        _translate_own_words(command)


def _no_flag_value(param: Any) -> None:
    """A flag's help shows no value type: typer shows ``<bool>`` as if it took a value."""
    if getattr(param, "is_flag", False):
        param.metavar = ""


#: A required argument in typer's usage line, ``{SPEC}``; click's convention is ``SPEC``.
_REQUIRED_ARGUMENT = re.compile(r"\{([^{}]+)\}")


#: typer's help panel titles and fixed help words: its rich_utils module reads them through
#: gettext once, when it is first imported; set again for each run in the run's language.
TYPER_WORDS = (
    ("DEPRECATED_STRING", "(deprecated) "),
    ("DEFAULT_STRING", "[default: {}]"),
    ("ENVVAR_STRING", "[env var: {}]"),
    ("REQUIRED_LONG_STRING", "[required]"),
    ("ARGUMENTS_PANEL_TITLE", "Arguments"),
    ("OPTIONS_PANEL_TITLE", "Options"),
    ("COMMANDS_PANEL_TITLE", "Commands"),
    ("ERRORS_PANEL_TITLE", "Error"),
    ("ABORTED_TEXT", "Aborted."),
    ("RICH_HELP", "Try [blue]'{command_path} {help_option}'[/] for help."),
)


def _typer_words() -> None:
    """typer's fixed help words in the current language, when an earlier run of this process
    imported them in another (an import during this run reads this run's language)."""
    rich_utils = sys.modules.get("typer.rich_utils")
    if rich_utils is not None:
        for name, text in TYPER_WORDS:
            setattr(rich_utils, name, _(text))


def _translate_own_words(command: Any) -> None:
    """The help option's help and the usage line's "Usage: " in the current language: typer
    makes the help option when help is shown, and writes "Usage: " itself, so both are
    translated as they are made (on this run's command objects only)."""
    make_help_option = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = make_help_option(ctx)
        if option is not None and option.help == HELP_OPTION_HELP:
            option.help = _(HELP_OPTION_HELP)
        if option is not None:
            _no_flag_value(option)
        return option

    def format_usage(ctx: Any, formatter: Any) -> None:
        pieces = [_REQUIRED_ARGUMENT.sub(r"\1", p) for p in command.collect_usage_pieces(ctx)]
        formatter.write_usage(ctx.command_path, " ".join(pieces), prefix=_(USAGE))

    command.get_help_option = get_help_option
    command.format_usage = format_usage


#: click's and typer's error lines (which they do not ask gettext for), as patterns, and the
#: same lines with named placeholders, to be translated. The first that matches the whole line
#: is used; a line none matches is shown as it is. The English templates give back exactly the
#: English lines.
CLICK_MESSAGES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.DOTALL), template)
    for pattern, template in (
        (
            r"No such option: (?P<name>.+?) \(Possible options: (?P<options>.+)\)",
            gettext_noop("No such option: {name} (Possible options: {options})"),
        ),
        (r"No such option: (?P<name>.+)", gettext_noop("No such option: {name}")),
        (r"Missing argument (?P<name>.+)\.", gettext_noop("Missing argument {name}.")),
        (r"Missing option (?P<name>.+)\.", gettext_noop("Missing option {name}.")),
        (r"Missing parameter: (?P<name>.+)", gettext_noop("Missing parameter: {name}")),
        (
            r"Invalid value for (?P<name>.+?): (?P<problem>.+)",
            gettext_noop("Invalid value for {name}: {problem}"),
        ),
        (r"Invalid value: (?P<problem>.+)", gettext_noop("Invalid value: {problem}")),
        (
            r"Got unexpected extra argument \((?P<args>.*)\)",
            gettext_noop("Got unexpected extra argument ({args})"),
        ),
        (
            r"Got unexpected extra arguments \((?P<args>.*)\)",
            gettext_noop("Got unexpected extra arguments ({args})"),
        ),
        (
            r"Got unexpected extra argument\(s\) \((?P<args>.*)\)",
            gettext_noop("Got unexpected extra argument(s) ({args})"),
        ),
        (
            r"Option (?P<name>.+) requires an argument\.",
            gettext_noop("Option {name} requires an argument."),
        ),
        (
            r"Option (?P<name>.+) requires (?P<count>[0-9]+) arguments\.",
            gettext_noop("Option {name} requires {count} arguments."),
        ),
        (
            r"Option (?P<name>.+) does not take a value\.",
            gettext_noop("Option {name} does not take a value."),
        ),
        (
            r"Argument (?P<name>.+) takes (?P<count>[0-9]+) values\.",
            gettext_noop("Argument {name} takes {count} values."),
        ),
        (
            r"(?P<message>.+)\. Did you mean (?P<suggestions>.+)\?",
            gettext_noop("{message}. Did you mean {suggestions}?"),
        ),
    )
)
#: What is wrong with a value (the part after "Invalid value for ...: "): pydantic's words,
#: which typer passes on, and click's.
VALUE_PROBLEMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.DOTALL), template)
    for pattern, template in (
        (
            r"Input should be a valid integer, unable to parse string as an integer",
            gettext_noop("Input should be a valid integer, unable to parse string as an integer"),
        ),
        (
            r"Input should be a valid integer, got a number with a fractional part",
            gettext_noop("Input should be a valid integer, got a number with a fractional part"),
        ),
        (r"Input should be a valid integer", gettext_noop("Input should be a valid integer")),
        (
            r"Input should be a valid number, unable to parse string as a number",
            gettext_noop("Input should be a valid number, unable to parse string as a number"),
        ),
        (r"Input should be a valid number", gettext_noop("Input should be a valid number")),
        (
            r"Input should be a valid boolean, unable to interpret input",
            gettext_noop("Input should be a valid boolean, unable to interpret input"),
        ),
        (r"Input should be a valid boolean", gettext_noop("Input should be a valid boolean")),
        (
            r"(?P<value>.+) is not a valid integer\.",
            gettext_noop("{value} is not a valid integer."),
        ),
        (r"(?P<value>.+) is not a valid float\.", gettext_noop("{value} is not a valid float.")),
        (
            r"(?P<value>.+) is not a valid integer range\.",
            gettext_noop("{value} is not a valid integer range."),
        ),
        (
            r"(?P<value>.+) is not one of (?P<choices>.+)\.",
            gettext_noop("{value} is not one of {choices}."),
        ),
        (
            r"(?P<value>.+) is not a valid choice\.",
            gettext_noop("{value} is not a valid choice."),
        ),
        (
            r"Value (?P<value>.+) is not a valid (?P<kind>\w+)\.",
            gettext_noop("Value {value} is not a valid {kind}."),
        ),
    )
)


def _translated(message: str, table: tuple[tuple[re.Pattern[str], str], ...]) -> str | None:
    for pattern, template in table:
        match = pattern.fullmatch(message)
        if match is not None:
            fields = match.groupdict()
            if "problem" in fields:
                fields["problem"] = (
                    _translated(fields["problem"], VALUE_PROBLEMS) or (fields["problem"])
                )
            if "message" in fields:
                fields["message"] = click_message(fields["message"])
            return _(template).format(**fields)
    return None


def click_message(message: str) -> str:
    """One of click's or typer's error lines in the current language (as it is when it is none
    of those known, or already translated)."""
    return _translated(message, CLICK_MESSAGES) or message


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


def _interrupt_again(hook: Any) -> Any:
    """``sys.unraisablehook`` for the command line: a Ctrl-C that lands in a callback Python
    cannot raise from (numba's compiler cache, while a kernel compiles) is raised again in the
    main thread, where the command stops as at any Ctrl-C, instead of printing a traceback."""

    def handle(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # From another thread, once this hook has returned: raised inside the hook, the
            # interrupt would be "ignored" and printed again.
            threading.Timer(0.01, _thread.interrupt_main).start()
            return
        hook(unraisable)

    return handle


def run(argv: list[str] | None = None) -> int:
    """Run the command line; bad input gives one line on stderr and code 2, never a traceback."""
    if not getattr(sys.unraisablehook, "qarena", False):
        sys.unraisablehook = _interrupt_again(sys.unraisablehook)
        sys.unraisablehook.qarena = True  # type: ignore[attr-defined]
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        told = from_environment()  # the language of a bad --lang's error line
    except QarenaError:
        told = DEFAULT
    with speaking(told):
        try:
            code = _language(args)
        except QarenaError as e:
            err.print(_("error: {message}").format(message=e), markup=False, soft_wrap=True)
            return 2
    with speaking(code), _library_language(code):
        return _run(args)


def _run(args: list[str]) -> int:
    command = typer.main.get_command(app)
    _translate_help(command)
    _typer_words()
    try:
        result = command.main(args=args, prog_name="qarena", standalone_mode=False)
        if sys.stdout is not None:  # None: started with stdout closed
            sys.stdout.flush()  # output still buffered fails here, where it is caught
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
            _("error: {message}").format(message=click_message(e.format_message())) + hint,
            markup=False,
            soft_wrap=True,
        )
        return 2
    except MemoryError:
        # The budget refuses what will not fit before it starts; an allocation refused all the
        # same (an estimate short, another process's memory) is still one line, not a traceback,
        # but code 1: it is a failure midway, not a refusal (tests/test_malformed.py tells them
        # apart).
        err.print(
            _("error: {message}").format(
                message=_(
                    "this machine ran out of memory; set QARENA_MEMORY_LIMIT lower to have such "
                    "work refused before it starts"
                )
            ),
            markup=False,
            soft_wrap=True,
        )
        return OUT_OF_MEMORY
    except (typer.Abort, KeyboardInterrupt):
        err.print(_("stopped."))
        return STOPPED
    except SystemError as e:
        if not interrupted(e):
            raise
        err.print(_("stopped."))
        return STOPPED
    except OSError as e:
        if e.errno not in OUTPUT_ERRORS:
            raise
        return _output_lost(e)
    if result == STOPPED and not stop_was_told():
        err.print(_("stopped."))  # Ctrl-C, which typer turned into exit code 130 silently
    return result if isinstance(result, int) else 0


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` is Ctrl-C: a KeyboardInterrupt, or one that reached Python inside a
    compiled (numba) call, which reports it as a SystemError caused by the KeyboardInterrupt."""
    seen: BaseException | None = error
    for _depth in range(10):  # a chain of causes is short; never follow a loop forever
        if seen is None:
            return False
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _output_lost(error: OSError) -> int:
    """The output could not be written (a full disk, a closed pipe): files qarena writes turn
    their own errors into one-line QarenaErrors, so an OSError that gets here is the output's.
    One line says so, unless the reader has gone (a closed pipe, as in ``| head``); code 1."""
    if error.errno != errno.EPIPE:
        reason = error.strerror or str(error)
        with contextlib.suppress(OSError):  # stderr may be just as full
            err.print(
                _("error: {message}").format(
                    message=_("cannot write the output ({reason})").format(reason=reason)
                ),
                soft_wrap=True,
            )
    return OUTPUT_LOST


def main() -> None:
    """The ``qarena`` console script."""
    code = run()
    # Every file qarena writes is complete, fsynced and closed by now: skip the interpreter's
    # teardown (numba's alone takes a few tenths of a second), so Ctrl-C ends at once.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if "multiprocessing.synchronize" in sys.modules:
        # A process pool ran (sweep, report): its semaphores are released by multiprocessing's
        # exit handlers, which os._exit skips; its resource tracker would then warn of leaks.
        sys.exit(code)
    os._exit(code)
