"""Budgets: every size a person or a file can set is checked here before any work starts.

Two kinds of budget:

- **Counts** (spec sizes, episodes, games, check intervals, explanation lines) have fixed caps,
  far above anything useful on one machine, so that no typo starts work that never ends.
- **Memory**: :func:`footprint` estimates the bytes a command will allocate for a game (solver,
  transition tables, a learner's tables, and the temporary arrays of training and evaluation),
  and :func:`check_memory` refuses, before anything is allocated, what would not fit.
  The per-entry figures below are read off the code (array by array) and checked against the
  peak RSS of real runs by ``benchmarks/memory.py`` (BENCHMARKS.md, "Memory estimates").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qarena.errors import QarenaError, TooLargeError

if TYPE_CHECKING:
    from qarena.games.base import Game

# --- counts ---------------------------------------------------------------------------------

#: Longest game spec text.
MAX_SPEC_CHARS = 200
#: Most piles in a nim game (every pile doubles the positions at least: 2**62 is the ceiling).
MAX_PILES = 62
#: Largest pile or heap: games can last that many moves, and move counts are stored as uint16.
MAX_HEAP = 65_535
#: Longest side of a board.
MAX_SIDE = 12
#: Most episodes one training run may ask for (hours at a million episodes a second).
MAX_EPISODES = 10_000_000_000
#: Most games per seat and opponent in one evaluation or match series.
MAX_GAMES = 100_000_000
#: Most optimality checks in one training run (each one judges the whole table).
MAX_CHECKS = 10_000
#: Encodings must fit a signed 64-bit integer, the index type of every table and kernel.
MAX_CODE = 2**62
#: Seeds are unsigned 63-bit numbers.
MAX_SEED = 2**63 - 1


def check_count(flag: str, value: int, most: int, least: int = 1) -> None:
    """Refuse a count outside ``least..most`` with one line naming the option."""
    if value < least:
        raise QarenaError(f"{flag} must be at least {least:,}, not {value:,}")
    if value > most:
        shown = f"{value:,}" if value < 10**30 else "a number that large"
        raise QarenaError(f"{flag} must be at most {most:,}, not {shown}")


def check_seed(value: int, flag: str = "--seed") -> None:
    if not 0 <= value <= MAX_SEED:
        shown = f"{value}" if abs(value) < 10**30 else "a number that large"
        raise QarenaError(f"{flag} must be a whole number from 0 to 2**63 - 1, not {shown}")


def check_checks(flag: str, every: int, episodes: int) -> None:
    """Refuse an interval that would check more than MAX_CHECKS times in ``episodes``."""
    check_count(flag, every, MAX_EPISODES)
    if episodes // every > MAX_CHECKS:
        raise QarenaError(
            f"{flag} {every:,} would check {episodes // every:,} times in {episodes:,} episodes; "
            f"at most {MAX_CHECKS:,} checks a run, so use {flag} {-(-episodes // MAX_CHECKS):,} "
            "or more"
        )


# --- memory ---------------------------------------------------------------------------------

#: Share of the memory the machine reports available that a command may take.
MEMORY_SHARE = 0.6
#: Resident size of a command before it allocates tables: the interpreter, numpy, numba and
#: the compiled kernels loaded from the cache (measured: BENCHMARKS.md, "Memory estimates").
BASE_BYTES = 175_000_000

#: Solver: an int8 value and a uint16 depth per encoded position.
SOLVER_PER_POSITION = 3
#: Transition tables kept per (position, move): next code, canonical next code, canonical
#: move and move list (int32 each); per position: result, mover, reachable (1 byte each),
#: canonical code and move count (int32 each), and the Python loop's per-position slack.
TABLES_PER_ENTRY = 16
TABLES_PER_POSITION = 12
#: While the tables are built: the stable argsort's int64 order, freed before the end.
TABLES_BUILD_PER_ENTRY = 8
#: Judging a table against the solver (optimality): the solver's move values (float64) and
#: the masks and scores of the rows judged.
JUDGE_PER_ENTRY = 17
#: Each opponent a command plays against (evaluation, curves, a training opponent): its move
#: mask (bool) and the temporaries of building it.
OPPONENT_PER_ENTRY = 4
#: Opponents counted when a policy file is loaded: the most any game is evaluated against
#: (nim: random, perfect, Bouton's rule, pole positions).
MOST_OPPONENTS = 4


@dataclass(frozen=True)
class Footprint:
    """Bytes a command allocates for a game, beyond its own resident base."""

    solver: int
    tables: int
    learner: int
    work: int  # the largest set of temporaries alive at once

    @property
    def total(self) -> int:
        return self.solver + self.tables + self.learner + self.work


def _entries(game: Game) -> tuple[int, int]:
    n = game.num_positions
    return n, n * game.num_moves


def footprint(game: Game, what: str, learner: type | None = None, opponents: int = 0) -> Footprint:
    """What ``what`` ("solve", "tables", "learn") allocates for ``game``; with ``learner`` (a
    Learner class), its own tables and working arrays are counted too, and the move masks of
    ``opponents`` fixed opponents."""
    n, e = _entries(game)
    solver = SOLVER_PER_POSITION * n
    if what == "solve":
        return Footprint(solver, 0, 0, 0)
    tables = TABLES_PER_ENTRY * e + TABLES_PER_POSITION * n
    if what == "tables" or learner is None:
        return Footprint(solver, tables, 0, TABLES_BUILD_PER_ENTRY * e)
    state, work = learner.memory(game)  # type: ignore[attr-defined]
    work += OPPONENT_PER_ENTRY * opponents * e
    return Footprint(solver, tables, state, max(TABLES_BUILD_PER_ENTRY * e, work))


def memory_budget() -> int:
    """Bytes a command may take: QARENA_MEMORY_LIMIT if set, else a share of available memory."""
    limit = os.environ.get("QARENA_MEMORY_LIMIT")
    if limit:
        if not limit.isascii() or not limit.isdigit() or len(limit) > 20:
            raise TooLargeError(
                f"QARENA_MEMORY_LIMIT={limit[:40]!r} is not a number of bytes, like 2000000000"
            )
        return int(limit)
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * MEMORY_SHARE)
    except (OSError, ValueError, IndexError):
        pass
    return 4 * 1024**3


def format_bytes(n: int) -> str:
    """``1.2 GB`` style, decimal units; any size, however large."""
    if n >= 10**18:
        return f"{n / 10**18:.1f} EB" if n < 10**21 else "more than 1,000 EB"
    value = float(n)
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if value < 1000 or unit == "PB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def format_count(n: int) -> str:
    """``1,234,567``, or a power of ten for numbers too long to read."""
    return f"{n:,}" if n < 10**15 else f"about 10^{len(str(n)) - 1}"


def check_memory(
    game: Game, what: str, learner: type | None = None, opponents: int = 0
) -> Footprint:
    """Refuse, before anything is allocated, a command whose tables would not fit."""
    need = footprint(game, what, learner, opponents)
    budget = memory_budget()
    n = game.num_positions
    if n >= MAX_CODE or need.total > budget:
        purpose = {"solve": "solve", "tables": "build tables for"}.get(what, "learn")
        raise TooLargeError(
            f"{game.spec} is too large to {purpose} here: {format_count(n)} encoded positions "
            f"need {format_bytes(need.total)}, more than the {format_bytes(budget)} this "
            "machine can spare"
        )
    return need
