"""Games in words for people: the rules, how to type a move, what a move did, why one is not
legal. Shared by the terminal game and the web app; nothing here prints. Each game words
itself (see the words methods of :class:`qarena.games.base.Game`); these ask it."""

from __future__ import annotations

from qarena.games.base import Game, Move, Position


def rules(game: Game) -> str:
    """The game in a sentence or two."""
    return game.rules_text()


def move_help(game: Game, position: Position) -> str:
    """How to type a move, with an example legal in ``position``."""
    return game.move_help(position)


def played(game: Game, move: Move) -> str:
    """What a move does, after a subject: "takes 2 from pile 3 (3:2)", "plays b2"."""
    return game.move_words(move)


def illegal(game: Game, position: Position, move: Move) -> str:
    """Why a well-formed move is not legal in ``position``."""
    return game.illegal_words(position, move)


def ending(game: Game, position: Position, last_mover: str, *, addressed: bool = False) -> str:
    """Why the game ended in ``position``, as seen from outside, naming ``last_mover`` ("The AI",
    "A"): who took the last match, who made a line. With ``addressed`` the last mover is the
    person the text is for: "You took the last match" (a sentence of its own in each language,
    since the verb agrees with its subject)."""
    return game.ending_words(position, last_mover, addressed)


def sentence(text: str) -> str:
    """A message as a sentence: a capital (unless it opens with a move such as ``b2``) and a
    full stop."""
    text = text.strip()
    if text.split(" ", 1)[0].isalpha():
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
