"""Shared fixtures: the specs every conformance test runs over."""

from __future__ import annotations

#: A spread of every registered game: misère and normal, one pile and many, square and not.
SPECS = [
    "nim",
    "nim:1",
    "nim:2,2",
    "nim:1,3,5,7",
    "nim:3,5,7:normal",
    "nim:2,6,7,8",
    "subtraction",
    "subtraction:7:2:normal",
    "subtraction:2:3",
    "tictactoe",
    "tictactoe:3x4:3",
    "tictactoe:2x2",
    "tictactoe:1x5:2",
]
