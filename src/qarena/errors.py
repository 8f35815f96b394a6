"""Domain errors. Each carries one line a user can act on: what is wrong and the expected form."""


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
