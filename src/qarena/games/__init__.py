"""Games: pure rules, no I/O, no randomness; one module each behind the Game interface."""

from qarena.games.base import (
    DRAW,
    LOSS,
    WIN,
    BoardGrid,
    Game,
    GameArrays,
    Move,
    Position,
    value_name,
    value_word,
)
from qarena.games.heap import HeapGame
from qarena.games.nim import Nim
from qarena.games.registry import parse_spec, register, unregister
from qarena.games.subtraction import Subtraction
from qarena.games.tictactoe import TicTacToe

# After the others: games register as they are imported, and messages list them in that order.
from qarena.games.connect4 import ConnectFour  # isort: skip

__all__ = [
    "DRAW",
    "LOSS",
    "WIN",
    "BoardGrid",
    "ConnectFour",
    "Game",
    "GameArrays",
    "HeapGame",
    "Move",
    "Nim",
    "Position",
    "Subtraction",
    "TicTacToe",
    "parse_spec",
    "register",
    "unregister",
    "value_name",
    "value_word",
]
