"""Domain errors. Each carries one line a user can act on: what is wrong and the expected form.

What a person gave is repeated in that line through :func:`echo`, so that however long it was,
the line stays short."""

import reprlib

#: Most characters of a person's text an error line repeats (:func:`echo`).
ECHO_CHARS = 80

# Python values as an error line shows them: a tuple of a million numbers is not written out
# in full only to be cut to 80 characters.
_REPR = reprlib.Repr()
_REPR.maxtuple = _REPR.maxlist = _REPR.maxdict = _REPR.maxset = 30
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = ECHO_CHARS


def echo(text: str, most: int = ECHO_CHARS) -> str:
    """A person's text (a position, a move, a value's ``repr``) as an error line repeats it:
    whole when short, else its first characters and "…" (``most`` in all), so a 100 KB
    argument gives a line, not 100 KB."""
    return text if len(text) <= most else text[: most - 1] + "…"


class QarenaError(ValueError):
    """Bad input from a user or a file; the message is shown as is, on one line."""


class SpecError(QarenaError):
    """A game spec such as ``nim:3,5,7`` that cannot be read."""


class PositionError(QarenaError):
    """A position text, or a position that does not belong to the game."""


class MoveError(QarenaError):
    """A move text that cannot be read for the game."""


class IllegalMoveError(MoveError):
    """A well-formed move that is not legal in the given position."""


class TooLargeError(QarenaError):
    """A game whose tables would not fit in this machine's memory."""


def echo_value(value: object) -> str:
    """A Python value a caller gave (``1.5``, ``True``, ``(5, 5, …)``) as an error line
    repeats it: its ``repr``, short."""
    return echo(_REPR.repr(value))
