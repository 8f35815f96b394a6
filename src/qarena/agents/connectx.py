"""A Kaggle ConnectX agent as a player: ``connectx:FILE`` wherever a player goes.

The file is loaded as ``kaggle_environments`` loads a submission (``agent.get_last_callable``):
its text compiled and run with the file's folder importable, and its last callable is the
agent. Running it runs the file's own code, as Kaggle does: the help says so and the web app
never makes one (its :class:`~qarena.agents.spec_players.SpecKind` is declared ``runs_code``).

Each move asks the agent as Kaggle asks it, ``agent(observation, configuration)`` (only the
first when it takes one argument), both dicts whose keys read as attributes too (Kaggle's
``utils.Struct``): the observation's ``board`` is qarena's Connect Four position as it is
(cells row-major from the top-left, 0 empty, 1 the first player's, 2 the second's), ``mark``
the mover (1 moves first), ``step`` the pieces played, ``remainingOverageTime``; the
configuration is ConnectX's (``connectx.json``): ``rows``, ``columns``, ``inarow`` of the game
played, ``actTimeout`` 2, ``timeout`` 2, ``agentTimeout`` 60, ``episodeSteps`` 1000,
``runTimeout`` 1200, and ``__raw_path__``, the file, as Kaggle adds it.

Its answer is checked as Kaggle's referee checks it, each refusal one line naming the position:
an integer (numpy's too), a column of the board, not full; an exception raised; more time than
the move's. The clock is Kaggle's: a move may take ``actTimeout`` (2 s) and what it takes beyond
comes out of an overage of ``agentTimeout`` (60 s) a game; an agent past both is refused (it is
stopped waiting for at that moment, its thread left to end with the process). A game, as the
agent sees it, begins at any position with no more pieces than the one asked before: moves of
one game are asked in order, so a game played here has Kaggle's clock exactly; positions judged
one by one each start a game of their own unless they follow on. Loading is not timed (Kaggle
loads at the first move). What the agent prints is not shown, as Kaggle keeps it in its logs.
Given a seed, the generators Kaggle's agents draw from (Python's ``random``, numpy's global
one) are seeded from it and the position before each ask, so that a judging run repeats.
With no game named, it plays ConnectX's default board, classic Connect Four.
"""

from __future__ import annotations

import contextlib
import io
import numbers
import os
import random
import stat
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qarena.agents.spec_players import SpecKind, register
from qarena.budget import MAX_AGENT_FILE_BYTES
from qarena.errors import QarenaError, echo, echo_value
from qarena.games.base import BoardGrid, Game, Move, Position
from qarena.games.picking import ChoosingPlayer
from qarena.i18n import _, gettext_noop

#: ConnectX's clock and length (kaggle_environments' ``connectx.json`` and its core's
#: defaults): seconds a move, seconds of overage a game, steps and seconds an episode.
ACT_TIMEOUT = 2
AGENT_TIMEOUT = 60
EPISODE_STEPS = 1000
RUN_TIMEOUT = 1200

#: What the agent is asked with.
Agent = Callable[..., object]


class Struct(dict[str, Any]):
    """Kaggle's observation and configuration (``kaggle_environments.utils.Struct``): a dict
    whose keys read as attributes too, ``obs.board`` as ``obs["board"]``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def board_of(game: Game) -> BoardGrid:
    """The Connect Four board a ConnectX agent plays; any other game is refused in one line."""
    grid = game.grid
    if grid is None or not grid.gravity:
        raise QarenaError(
            _("a Kaggle ConnectX agent plays Connect Four (connect4:RxC:K), not {spec}").format(
                spec=game.spec
            )
        )
    return grid


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The agent's printing kept from the command's output (a report, its JSON)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def _error(e: BaseException) -> str:
    text = str(e)
    return echo(f"{type(e).__name__}: {text}" if text else type(e).__name__)


def _read(name: str, path: str) -> str:
    """The file's text, its size checked before it is read."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        raise QarenaError(_("{name}: there is no such file").format(name=name)) from None
    except OSError as e:
        raise QarenaError(
            _("{name}: cannot read the file: {why}").format(name=name, why=e.strerror)
        ) from None
    if not stat.S_ISREG(found.st_mode):
        raise QarenaError(_("{name}: that is not a file").format(name=name))
    if found.st_size > MAX_AGENT_FILE_BYTES:
        raise QarenaError(
            _("{name}: the file is {size:,} bytes, more than the {most:,} an agent file may be")
            .format(name=name, size=found.st_size, most=MAX_AGENT_FILE_BYTES)
        )  # fmt: skip
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_AGENT_FILE_BYTES + 1)
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise QarenaError(
            _("{name}: the file is not Python: it is not UTF-8 text").format(name=name)
        ) from None
    except OSError as e:
        raise QarenaError(
            _("{name}: cannot read the file: {why}").format(name=name, why=e.strerror)
        ) from None


def load_agent(path: str, name: str | None = None) -> Agent:
    """The agent of the file ``path``, as Kaggle finds it: the file compiled and run (its
    folder importable meanwhile), its last callable. A file missing, too big (over
    :data:`~qarena.budget.MAX_AGENT_FILE_BYTES`), not Python, raising as it loads or defining
    nothing callable is refused in one line naming it (``name``: the player's spec)."""
    shown = echo(name or f"connectx:{path}")
    source = _read(shown, path)
    try:
        code = compile(source, path, "exec")
    except SyntaxError as e:
        raise QarenaError(
            _("{name}: the file is not Python: {why} (line {line})").format(
                name=shown, why=echo(str(e.msg)), line=e.lineno
            )
        ) from None
    except ValueError as e:  # a NUL byte in the text
        raise QarenaError(
            _("{name}: the file is not Python: {why}").format(name=shown, why=echo(str(e)))
        ) from None
    env: dict[str, Any] = {}
    # As Kaggle does: the file's folder importable while it loads, so that it imports files
    # beside it.
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.append(folder)
    try:
        with _quiet():
            exec(code, env)  # running the file is what the person asked for
    except (Exception, SystemExit) as e:
        raise QarenaError(
            _("{name}: the file raised {error} as it loaded").format(name=shown, error=_error(e))
        ) from None
    finally:
        for i in range(len(sys.path) - 1, -1, -1):
            if sys.path[i] == folder:
                del sys.path[i]
                break
    found = [v for v in env.values() if callable(v)]
    if not found:
        raise QarenaError(
            _(
                "{name}: the file defines nothing callable; Kaggle plays a file's last function"
            ).format(name=shown)
        )
    agent: Agent = found[-1]
    return agent


def _number(x: float) -> float | int:
    """A number as Kaggle's JSON gives it: 60, not 60.0."""
    return int(x) if float(x).is_integer() else x


@dataclass
class ConnectXPlayer(ChoosingPlayer):
    """A Kaggle ConnectX agent (the last callable of ``path``, or ``agent`` when given) as a
    player of a Connect Four board, asked and checked as Kaggle asks and checks it (the
    module's docstring: its observation, configuration and clock)."""

    game: Game
    path: str
    name: str = ""
    agent: Agent | None = None
    act_timeout: float = ACT_TIMEOUT
    overage: float = AGENT_TIMEOUT
    #: With a seed, the generators a Kaggle agent draws from (Python's ``random`` and numpy's
    #: global one) are seeded from it and the position before each ask, so that the same seed
    #: judges it alike; without, they go on as they are.
    seed: int | None = None
    grid: BoardGrid = field(init=False, repr=False)
    remaining: float = field(init=False)
    _pieces: int = field(init=False, default=-1, repr=False)
    _last: tuple[Position, Move] | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        self.name = self.name or f"connectx:{self.path}"
        self.grid = board_of(self.game)  # before any of the file's code runs
        if self.agent is None:
            self.agent = load_agent(self.path, self.name)
        self.remaining = self.overage

    def describe(self) -> str | None:
        return _(
            "a Kaggle ConnectX agent, the last callable of {path}, asked as Kaggle asks it: "
            "{seconds:g} s a move and {overage:g} s of overage a game"
        ).format(path=echo(self.path), seconds=self.act_timeout, overage=self.overage)

    def _asked(self, position: Position) -> tuple[Struct, Struct]:
        grid = self.grid
        pieces = sum(1 for cell in position if cell)
        if pieces <= self._pieces:  # a new game, as the agent sees it: its overage anew
            self.remaining = self.overage
        self._pieces = pieces
        mover = self.game.to_move(position)
        assert mover is not None  # a board game has a mover while it goes on
        observation = Struct(
            remainingOverageTime=_number(self.remaining),
            step=pieces,
            board=[int(cell) for cell in position],
            mark=mover + 1,
        )
        configuration = Struct(
            rows=grid.rows,
            columns=grid.cols,
            inarow=grid.k,
            episodeSteps=EPISODE_STEPS,
            actTimeout=_number(self.act_timeout),
            runTimeout=RUN_TIMEOUT,
            agentTimeout=_number(self.overage),
            timeout=_number(self.act_timeout),
            __raw_path__=self.path,
        )
        return observation, configuration

    def _call(self, position: Position, args: tuple[Struct, ...]) -> object:
        """The agent's answer, on a thread of its own so that an agent past its time is
        refused then, not whenever it returns."""
        agent = self.agent
        assert agent is not None
        answer: list[tuple[bool, object]] = []

        def run() -> None:
            try:
                answer.append((True, agent(*args)))
            except BaseException as e:  # any failure of the agent's is said
                answer.append((False, e))

        limit = self.act_timeout + self.remaining
        if self.seed is not None:
            # Kaggle's agents draw from the modules' shared generators (negamax breaks ties
            # with random.choice): seeded from the seed and the position, an agent asked again
            # at a position answers alike, whatever was asked before.
            key = f"{self.seed}:{position}"
            random.seed(key)
            np.random.seed(zlib.crc32(key.encode()))  # noqa: NPY002 - the agent's own generator
        worker = threading.Thread(target=run, name="connectx agent", daemon=True)
        with _quiet():
            start = time.perf_counter()
            worker.start()
            worker.join(limit)
            took = time.perf_counter() - start
        if not answer or took > limit:
            raise QarenaError(
                _(
                    "{player} took more than {seconds:.1f} s in {position}: the {limit:g} s a "
                    "move and the {overage:.1f} s of overage it had left"
                ).format(
                    player=self.name,
                    seconds=limit,
                    position=self.game.format_position(position),
                    limit=self.act_timeout,
                    overage=self.remaining,
                )
            )
        self.remaining -= max(0.0, took - self.act_timeout)
        ok, value = answer[0]
        if not ok:
            assert isinstance(value, BaseException)
            raise QarenaError(
                _("{player} raised {error} in {position}").format(
                    player=self.name,
                    error=_error(value),
                    position=self.game.format_position(position),
                )
            )
        return value

    def act(self, position: Position) -> Move:
        legal = self.game.legal_moves(position)
        if not legal:
            raise QarenaError(
                _("{position} is finished; there is no move to make").format(
                    position=self.game.format_position(position)
                )
            )
        observation, configuration = self._asked(position)
        args: tuple[Struct, ...] = (observation, configuration)
        code = getattr(self.agent, "__code__", None)
        if code is not None and hasattr(code, "co_argcount"):
            args = args[: code.co_argcount]  # as Kaggle passes them
        answer = self._call(position, args)
        column = self._column(position, answer)
        self._last = (position, column)
        return column

    def _column(self, position: Position, answer: object) -> Move:
        """The agent's answer as a column, checked: a whole number, on the board, not full."""
        columns = self.grid.cols
        shown = self.game.format_position(position)
        if not isinstance(answer, numbers.Integral) or isinstance(answer, bool | np.bool_):
            raise QarenaError(
                _(
                    "{player} answered {value} in {position}; a ConnectX agent answers a "
                    "column, a whole number from 0 to {last}"
                ).format(
                    player=self.name, value=echo_value(answer), position=shown, last=columns - 1
                )
            )
        column = int(answer)
        if not 0 <= column < columns:
            raise QarenaError(
                _(
                    "{player} chose column {column} in {position}, off the board: its columns "
                    "are 0 to {last}"
                ).format(player=self.name, column=column, position=shown, last=columns - 1)
            )
        if column not in self.game.legal_moves(position):
            raise QarenaError(
                _("{player} chose column {column} in {position}, which is full").format(
                    player=self.name, column=column, position=shown
                )
            )
        return column

    def choices(self, position: Position) -> list[Move]:
        """The move it picks: its answer here, asked once (the move it just played, when it
        was asked at this position last)."""
        if self._last is not None and self._last[0] == position:
            return [self._last[1]]
        return [self.act(position)]


def make_connectx(name: str, path: str, game: Game, seed: int | None) -> ConnectXPlayer:
    """The ConnectX agent of ``path`` playing ``game`` (:data:`CONNECTX`'s maker): with a
    ``seed``, the generators it draws from are seeded before each move."""
    return ConnectXPlayer(game, path, name=name, seed=seed)


#: A Kaggle ConnectX agent as a kind of player named by a spec, declared once:
#: ``connectx:FILE``, whose making runs the file's code.
CONNECTX = register(
    SpecKind(
        name="connectx",
        form="connectx:FILE",
        about=gettext_noop(
            "connectx:FILE, a Kaggle ConnectX agent (its file's last callable, asked as "
            "Kaggle asks it; running it runs the file's code, so name only files you trust)"
        ),
        make=make_connectx,
        runs_code=True,
        # ConnectX's default configuration: 6 rows, 7 columns, 4 in a row.
        game="connect4:6x7:4",
        plays=lambda game: game.grid is not None and game.grid.gravity,
    )
)


__all__ = [
    "ACT_TIMEOUT",
    "AGENT_TIMEOUT",
    "CONNECTX",
    "ConnectXPlayer",
    "Struct",
    "board_of",
    "load_agent",
    "make_connectx",
]
