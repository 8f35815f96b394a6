"""Games: pure rules, no I/O, no randomness; one module each behind the Game interface."""

from qarena.games.base import DRAW, LOSS, WIN, Game, GameArrays, Move, Position, value_name
from qarena.games.nim import HeapGame, Nim
from qarena.games.spec import parse_spec
from qarena.games.subtraction import Subtraction
from qarena.games.tictactoe import TicTacToe

__all__ = [
    "DRAW",
    "LOSS",
    "WIN",
    "Game",
    "GameArrays",
    "HeapGame",
    "Move",
    "Nim",
    "Position",
    "Subtraction",
    "TicTacToe",
    "parse_spec",
    "value_name",
]
