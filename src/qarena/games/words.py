"""Games in words for people: the rules, how to type a move, what a move did, why one is not
legal. Shared by the terminal game and the web app; nothing here prints."""

from __future__ import annotations

from qarena.games.base import Game, Move, Position
from qarena.games.nim import HeapGame
from qarena.games.subtraction import Subtraction
from qarena.games.tictactoe import TicTacToe


def rules(game: Game) -> str:
    """The game in a sentence or two."""
    if isinstance(game, HeapGame):
        end = "loses" if game.misere else "wins"
        take = (
            f"Take 1 to {game.k} matches from the heap."
            if isinstance(game, Subtraction)
            else "Take one or more matches from a single pile."
        )
        return f"{take} Whoever takes the last match {end}."
    if isinstance(game, TicTacToe):
        return (
            f"Take turns marking empty cells; x moves first. {game.k} in a row "
            "(across, down or diagonally) wins."
        )
    return ""


def move_help(game: Game, position: Position) -> str:
    """How to type a move, with an example legal in ``position``."""
    example = game.format_move(game.legal_moves(position)[0])
    if isinstance(game, Subtraction):
        return f"Moves: how many matches to take, 1 to {game.k}; for example {example}."
    if isinstance(game, HeapGame):
        pile, take = example.split(":")
        return (
            f"Moves: PILE:COUNT takes COUNT matches from pile PILE; for example {example} "
            f"takes {take} from pile {pile}."
        )
    if isinstance(game, TicTacToe):
        return f"Moves: a column letter and a row number, like {example}; a1 is the top-left cell."
    return f"Moves: like {example}."


def played(game: Game, move: Move) -> str:
    """What a move does, after a subject: "takes 2 from pile 3 (3:2)", "plays b2"."""
    text = game.format_move(move)
    if isinstance(game, Subtraction):
        return f"takes {text}"
    if isinstance(game, HeapGame):
        pile, take = text.split(":")
        return f"takes {take} from pile {pile} ({text})"
    return f"plays {text}"


def illegal(game: Game, position: Position, move: Move) -> str:
    """Why a well-formed move is not legal in ``position``."""
    text = game.format_move(move)
    if isinstance(game, Subtraction):
        return f"There are only {position[0]} left; take 1 to {min(position[0], game.k)}."
    if isinstance(game, HeapGame):
        pile, take = (int(p) for p in text.split(":"))
        left = position[pile - 1]
        if left == 0:
            return f"Pile {pile} is empty."
        return f"Pile {pile} has only {left}; you cannot take {take}."
    if isinstance(game, TicTacToe):
        return f"{text} is taken; pick an empty cell."
    return f"{text} is not legal here."


def ending(game: Game, position: Position, last_mover: str) -> str:
    """Why the game ended in ``position``, as seen from outside, naming ``last_mover`` ("You",
    "The AI"): who took the last match, who made a line."""
    if isinstance(game, HeapGame):
        return f"{last_mover} took the last match."
    if isinstance(game, TicTacToe):
        if game.winner(position):
            return f"{last_mover} made {game.k} in a row."
        return "The board is full."
    return "The game is over."


def sentence(text: str) -> str:
    """A message as a sentence: a capital (unless it opens with a move such as ``b2``) and a
    full stop."""
    text = text.strip()
    if text.split(" ", 1)[0].isalpha():
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
