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

import numbers
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from qarena.errors import QarenaError, TooLargeError, echo_value
from qarena.i18n import _, gettext_noop, number, option, spoken

try:  # POSIX only: without it there is no address-space limit to respect
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

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
#: Most table entries a learner's DataFrame holds (text per entry: about 200 bytes each).
MAX_FRAME_ENTRIES = 5_000_000
#: Most optimality checks in one training run (each one judges the whole table).
MAX_CHECKS = 10_000
#: Most lines one explanation lists (``explain --losing --limit``): positions are decoded and
#: printed one at a time, and far fewer than this are read by anyone.
MAX_LISTED = 100_000
#: Encodings must fit a signed 64-bit integer, the index type of every table and kernel.
MAX_CODE = 2**62
#: Seeds are unsigned 63-bit numbers.
MAX_SEED = 2**63 - 1
#: A thinking player's budget a move (``mcts:N``, ``mcts:Ns``): at most this many
#: simulations (or search steps), or this many seconds.
MAX_THINK_COUNT = 1_000_000
MAX_THINK_SECONDS = 60.0
#: Largest agent file ``connectx:FILE`` reads (a Kaggle submission with its weights in it is a
#: few megabytes; compiling a source takes several times its size in memory).
MAX_AGENT_FILE_BYTES = 32 * 2**20


def whole(flag: str, value: object) -> int:
    """``value`` as a whole number, or a one-line refusal naming ``flag``: what Python callers
    pass is checked here (a str, 1.5 or True is not a count; numpy's integers are)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise QarenaError(
        _("{flag} must be a whole number, not {value}").format(flag=flag, value=echo_value(value))
    )


def check_count(flag: str, value: int, most: int, least: int = 1) -> None:
    """Refuse a count outside ``least..most`` (or not a whole number) with one line naming
    the option (its keyword for a Python caller)."""
    flag = option(flag)
    value = whole(flag, value)
    if value < least:
        raise QarenaError(
            _("{flag} must be at least {least:,}, not {value:,}").format(
                flag=flag, least=least, value=value
            )
        )
    if value > most:
        shown = number(value, ",") if value < 10**30 else _("a number that large")
        raise QarenaError(
            _("{flag} must be at most {most:,}, not {value}").format(
                flag=flag, most=most, value=shown
            )
        )


def check_seed(value: int, flag: str = "--seed") -> None:
    flag = option(flag)
    value = whole(flag, value)
    if not 0 <= value <= MAX_SEED:
        shown = f"{value}" if abs(value) < 10**30 else _("a number that large")
        raise QarenaError(
            _("{flag} must be a whole number from 0 to 2**63 - 1, not {value}").format(
                flag=flag, value=shown
            )
        )


def check_checks(flag: str, every: int, episodes: int) -> None:
    """Refuse an interval that would check more than MAX_CHECKS times in ``episodes``."""
    flag = option(flag)
    check_count(flag, every, MAX_EPISODES)
    if episodes // every > MAX_CHECKS:
        raise QarenaError(
            _(
                "{flag} {every:,} would check {checks:,} times in {episodes:,} episodes; at most "
                "{most:,} checks a run, so use {flag} {least:,} or more"
            ).format(
                flag=flag,
                every=every,
                checks=episodes // every,
                episodes=episodes,
                most=MAX_CHECKS,
                least=-(-episodes // MAX_CHECKS),
            )
        )


# --- memory ---------------------------------------------------------------------------------

#: Share of the memory the machine reports available that a command may take.
MEMORY_SHARE = 0.6
#: Resident size of a command before it allocates tables: the interpreter, numpy, numba and
#: the compiled kernels loaded from the cache (measured: BENCHMARKS.md, "Memory estimates").
BASE_BYTES = 175_000_000

#: A space (the reachable positions, transitions, values and depths; kernels/space.py) per
#: position: code and class size (int64 each), move count (int32), result, mover and value (one
#: byte each), depth (uint16), place in the search's order (int32).
SPACE_PER_POSITION = 29
#: ... and per (position, move): next position and move list (int32 each), legal (bool).
SPACE_PER_ENTRY = 9
#: The search before the tables exist, per position: its codes and hash set as they grow by
#: doubling (the old and new arrays at once), and the sorted copy.
SPACE_BUILD_PER_POSITION = 64
#: Greedy play over the whole table (its best moves, for evaluation and matches): the legal
#: values as float64 and two masks. (Judging optimality goes in chunks of rows: no more.)
JUDGE_PER_ENTRY = 10
#: Each opponent a command plays against (evaluation, curves, a training opponent): its move
#: mask (bool) and the temporaries of building it.
OPPONENT_PER_ENTRY = 4
#: Opponents counted when a policy file is loaded: the most any game is evaluated against
#: (nim: random, perfect, Bouton's rule, pole positions).
MOST_OPPONENTS = 4


@dataclass(frozen=True)
class Footprint:
    """Bytes a command allocates for a game, beyond its own resident base."""

    positions: int  # the positions the estimate is for (counted, or estimated before a search)
    tables: int
    learner: int
    work: int  # the largest set of temporaries alive at once while learning or judging
    search: int = 0  # the search's arrays, gone before the tables are allocated

    @property
    def total(self) -> int:
        return max(self.search, self.tables + self.learner + self.work)


def estimate_positions(game: Game, canonical: bool = True) -> int:
    """Positions a search of ``game`` will find, estimated before searching: the game's bound on
    reachable positions, shared among its symmetries when canonical positions are on."""
    bound = game.position_bound()
    return -(-bound // game.symmetry_count) if canonical else bound


class Sized(Protocol):
    """What a learner class tells the budget: bytes of its own tables and of its largest set
    of temporaries, for a game whose tables have ``rows`` rows (``Learner.memory``)."""

    def memory(self, game: Game, rows: int, opponents: int = 0) -> tuple[int, int]: ...


def footprint(
    game: Game,
    what: str,
    learner: Sized | None = None,
    opponents: int = 0,
    positions: int | None = None,
    canonical: bool = True,
) -> Footprint:
    """What ``what`` ("solve", "tables", "learn") allocates for ``game``, whose space has
    ``positions`` positions (default: :func:`estimate_positions`); with ``learner`` (a Learner
    class), its own tables and working arrays are counted too, and the move masks of
    ``opponents`` fixed opponents."""
    n = estimate_positions(game, canonical) if positions is None else positions
    e = n * game.num_moves
    tables = SPACE_PER_POSITION * n + SPACE_PER_ENTRY * e
    search = SPACE_BUILD_PER_POSITION * n
    if what in ("solve", "tables") or learner is None:
        return Footprint(n, tables, 0, 0, search)
    state, work = learner.memory(game, n, opponents)
    work += OPPONENT_PER_ENTRY * opponents * e
    return Footprint(n, tables, state, work, search)


def _address_room() -> int | None:
    """Bytes this process may still map under its address-space limit (``ulimit -v``,
    ``prlimit --as``), None without one: past it every allocation fails, whatever memory is
    free, so a budget above it would let work start that ends in a MemoryError."""
    if resource is None:  # not a Unix
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return max(0, soft - int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    return soft


def _meminfo() -> dict[str, int]:
    """/proc/meminfo's figures in bytes (empty where there is none)."""
    found = {}
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                name, _sep, rest = line.partition(":")
                parts = rest.split()
                if parts and parts[0].isdigit():
                    found[name] = int(parts[0]) * 1024
    except (OSError, ValueError):
        pass
    return found


def machine_memory() -> int | None:
    """The most memory this process could ever have: the machine's RAM and swap, or less under
    an address-space limit (``ulimit -v``, ``prlimit --as``); None when neither is known."""
    info = _meminfo()
    most = info["MemTotal"] + info.get("SwapTotal", 0) if "MemTotal" in info else None
    if resource is not None:
        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY and soft > 0:
            most = soft if most is None else min(most, soft)
    return most


def memory_budget() -> int:
    """Bytes a command may take: QARENA_MEMORY_LIMIT if set, else a share of available memory.

    QARENA_MEMORY_LIMIT is a cap, not a promise: a limit above what the machine has (its RAM
    and swap, or an address-space limit) counts as what it has, so work that cannot fit is
    refused in one line instead of failing midway when an allocation is refused."""
    limit = os.environ.get("QARENA_MEMORY_LIMIT")
    if limit:
        if not limit.isascii() or not limit.isdigit() or len(limit) > 20:
            raise TooLargeError(
                _("QARENA_MEMORY_LIMIT={limit!r} is not a number of bytes, like 2000000000").format(
                    limit=limit[:40]
                )
            )
        most = machine_memory()
        return int(limit) if most is None else min(int(limit), most)
    available = _meminfo().get("MemAvailable")
    share = 4 * 1024**3 if available is None else int(available * MEMORY_SHARE)
    room = _address_room()
    # The same share of the room an address-space limit leaves: threads, their arenas and the
    # kernels map more after the check (a network's table command: 280 MB more).
    return share if room is None else min(share, int(room * MEMORY_SHARE))


#: A size in each decimal unit, from bytes up; the catalog has each language's unit («1,2 ГБ»).
_BYTE_UNITS = (
    gettext_noop("{size} B"),
    gettext_noop("{size} kB"),
    gettext_noop("{size} MB"),
    gettext_noop("{size} GB"),
    gettext_noop("{size} TB"),
    gettext_noop("{size} PB"),
)


def format_bytes(n: int) -> str:
    """``1.2 GB`` style, decimal units, in the reader's language; any size, however large."""
    if n >= 10**18:
        if n >= 10**21:
            return _("more than 1,000 EB")
        return _("{size} EB").format(size=number(n / 10**18, ".1f"))
    value = float(n)
    for i, unit in enumerate(_BYTE_UNITS):
        if value < 1000 or i == len(_BYTE_UNITS) - 1:
            return _(unit).format(size=number(value, ".0f" if i == 0 else ".1f"))
        value /= 1000
    raise AssertionError("unreachable")


def format_count(n: int) -> str:
    """``1,234,567``, or a power of ten for numbers too long to read."""
    return (
        number(n, ",") if n < 10**15 else _("about 10^{exponent}").format(exponent=len(str(n)) - 1)
    )


#: Why a game does not fit, by what was asked ("solve", "tables", "learn") and whether the
#: positions are an estimate (made before any search: a bound, often well above the count,
#: e.g. 3.5·10^13 for classic Connect Four, whose positions Tromp counted at 4.5·10^12).
_TOO_LARGE = {
    ("solve", True): gettext_noop(
        "{spec} is too large to solve here: up to {count} positions need {need}, more than the "
        "{budget} this machine can spare"
    ),
    ("solve", False): gettext_noop(
        "{spec} is too large to solve here: {count} positions need {need}, more than the "
        "{budget} this machine can spare"
    ),
    ("tables", True): gettext_noop(
        "{spec} is too large to build tables for here: up to {count} positions need {need}, "
        "more than the {budget} this machine can spare"
    ),
    ("tables", False): gettext_noop(
        "{spec} is too large to build tables for here: {count} positions need {need}, more "
        "than the {budget} this machine can spare"
    ),
    ("learn", True): gettext_noop(
        "{spec} is too large to learn here: up to {count} positions need {need}, more than the "
        "{budget} this machine can spare"
    ),
    ("learn", False): gettext_noop(
        "{spec} is too large to learn here: {count} positions need {need}, more than the "
        "{budget} this machine can spare"
    ),
}


#: Why a policy file's tables do not fit: it was learned somewhere (maybe here, with more
#: memory free), so it is what they need now that is too much, not the game to learn.
_FILE_TOO_LARGE = gettext_noop(
    "{file}: its tables for {spec} ({count} positions) need {need}, more than the {budget} this "
    "machine can spare now"
)


#: What works for a game too large to enumerate that the search solver plays.
SEARCH_INSTEAD = gettext_noop(
    "search solves it one position at a time: use qarena solve, explain, play, watch, "
    "compete or eval (by samples); qarena train --learner ntuple learns it with an n-tuple "
    "network"
)
#: The same, for a Python caller (:func:`qarena.i18n.spoken`).
SEARCH_INSTEAD_PYTHON = gettext_noop(
    "search solves it one position at a time: use qarena.solve, play, compete or judge (by "
    "samples); qarena.train_network learns it with an n-tuple network"
)


def check_memory(
    game: Game,
    what: str,
    learner: Sized | None = None,
    opponents: int = 0,
    positions: int | None = None,
    canonical: bool = True,
    file: str | None = None,
) -> Footprint:
    """Refuse, before anything is allocated, a command whose tables would not fit; ``file``:
    the policy file being read, whose tables they are (the refusal names it)."""
    budget = memory_budget()
    need = footprint(game, what, learner, opponents, positions, canonical)
    # Codes must also fit the kernels' 64-bit integers.
    if file is not None and need.total > budget and game.num_positions < MAX_CODE:
        raise TooLargeError(
            _(_FILE_TOO_LARGE).format(
                file=file,
                spec=game.spec,
                count=format_count(need.positions),
                need=format_bytes(need.total),
                budget=format_bytes(budget),
            )
        )
    if game.num_positions >= MAX_CODE or need.total > budget:
        purpose = what if what in ("solve", "tables") else "learn"
        # A count too long to read is already "about 10^N": no second "about".
        estimate = positions is None and need.positions < 10**15
        text = _(_TOO_LARGE[purpose, estimate]).format(
            spec=game.spec,
            count=format_count(need.positions),
            need=format_bytes(need.total),
            budget=format_bytes(budget),
        )
        if game.searchable:
            text = _("{reason}; {search}").format(
                reason=text, search=spoken(SEARCH_INSTEAD, SEARCH_INSTEAD_PYTHON)
            )
        raise TooLargeError(text)
    return need


def search_limit(game: Game) -> int:
    """The most positions a search of ``game`` may find before it is stopped: what the memory
    budget holds at the cost of a built space."""
    per = SPACE_PER_POSITION + SPACE_PER_ENTRY * game.num_moves + SPACE_BUILD_PER_POSITION
    return max(1, memory_budget() // per)
