"""Game specs: one short text names a game everywhere (CLI, files, web, API).

``nim`` = ``nim:3,5,7`` (misère), ``nim:3,5,7:normal``; ``subtraction`` = ``subtraction:12:3``
(misère), ``subtraction:12:3:normal``; ``tictactoe`` = ``tictactoe:3x3:3``, ``tictactoe:4x4:4``.
Each game module registers its own form (see :mod:`qarena.games.registry`).
"""

from __future__ import annotations

# Importing the package registers the built-in games before any spec is parsed.
import qarena.games  # noqa: F401
from qarena.games.registry import forms, parse_spec

__all__ = ["forms", "parse_spec"]
