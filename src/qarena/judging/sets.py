"""Judging sets: positions stored with the value of every move, so that judging a player on
them is a lookup, not a search (seconds, not minutes; no solver is called).

A judging set is a text file, one position a line: the position (for Connect Four its moves
from the empty board as column digits, ``0`` for the empty board; any game's text form), then
``#`` and one character a move (a column): the value for the player to move of playing it,
``+`` win, ``=`` draw, ``-`` loss, ``.`` not legal (a full column)::

    # qarena judging set: connect4:6x7:4
    # title: main line
    4453 # ==+=-=-

Lines starting with ``#`` say what the set is; the first names the game's spec, a ``# title:``
line its title. ``qarena eval --positions`` reads the same file (it skips the values).

Two sets come with qarena for classic Connect Four (``shipped_set``): ``main``, the decision
positions of 500 games of perfect play from the empty board (those ``qarena eval
--along-perfect 500`` judges, in its order), and ``varied``, decision positions of both sides
after random openings of 2–12 plies, then perfect play (``benchmarks/c4_positions.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from qarena import threads
from qarena.agents.base import OwnPlayer
from qarena.errors import QarenaError, echo
from qarena.fileio import open_to_read
from qarena.games.base import Game, Move, Position
from qarena.i18n import _
from qarena.judging.sampled import wilson

#: Most positions a judging set may hold.
MAX_SET_POSITIONS = 200_000
#: Longest line of a judging set, in bytes (a position of the largest board and its values).
MAX_SET_LINE = 4_096
#: Largest judging-set file, in bytes.
MAX_SET_BYTES = 64 * 1_000_000
#: The first line of every judging set, before the game's spec.
MAGIC = "# qarena judging set:"
#: A move's value as a set writes it, by value for the player to move (1 win, 0 draw, -1 loss).
VALUE_CHARS = {1: "+", 0: "=", -1: "-"}
#: The character of a move that is not legal (a full column).
NOT_LEGAL = "."
#: The shipped sets, by game spec and kind.
SHIPPED = {"connect4:6x7:4": {"main": "connect4-6x7.main.txt", "varied": "connect4-6x7.varied.txt"}}
#: The kinds of set ``shipped_set`` knows.
KINDS = ("main", "varied")
#: Sides, values and phases a report is broken down by, in order.
SIDES = ("first", "second")
VALUES = ("win", "draw", "loss")
PHASES = ("opening", "middle", "end")
#: Stones on the board where the middle and the end begin (a phase is counted by stones).
MIDDLE_FROM = 13
END_FROM = 25


@dataclass(frozen=True, eq=False)
class JudgingSet:
    """Positions of one game, each with the value of each legal move for the player to move
    (1 win, 0 draw, -1 loss), a title, the notes of the file's header, and each position as
    the file wrote it (``texts``: for Connect Four its moves)."""

    game: Game
    title: str
    positions: tuple[Position, ...]
    values: tuple[dict[Move, int], ...]
    notes: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.positions)


@dataclass(frozen=True)
class Tally:
    """Positions where the move kept the value, of those judged."""

    kept: int
    total: int

    @property
    def share(self) -> float:
        return self.kept / self.total if self.total else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of the share."""
        return wilson(self.kept, self.total)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "kept": self.kept,
            "total": self.total,
            "share": self.share,
            "low": low,
            "high": high,
        }


#: A kind of position: (side to move, its value for that side, phase).
Kind = tuple[str, str, str]


@dataclass(frozen=True)
class SetReport:
    """How a player did on a judging set: the positions where its move kept the value, in
    all and by kind (side × value × phase, only kinds the set holds)."""

    title: str
    player: str
    total: Tally
    kinds: dict[Kind, Tally] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.title,
            "player": self.player,
            **self.total.to_json(),
            "kinds": [
                {"side": s, "value": v, "phase": p, **t.to_json()}
                for (s, v, p), t in sorted(self.kinds.items(), key=lambda kv: _order(kv[0]))
            ],
        }


def _order(kind: Kind) -> tuple[int, int, int]:
    return SIDES.index(kind[0]), VALUES.index(kind[1]), PHASES.index(kind[2])


def kind_of(game: Game, position: Position, values: dict[Move, int]) -> Kind:
    """A position's kind: who moves (the first or the second player), its value for that
    player (the best of its moves: win, draw or loss), and its phase, by the stones (marks,
    pieces) on the board: 0–12 the opening, 13–24 the middle, 25 and more the end."""
    side = SIDES[1 if game.to_move(position) == 1 else 0]
    value = VALUES[1 - max(values.values())]
    stones = sum(1 for v in position if v)
    phase = PHASES[0 if stones < MIDDLE_FROM else 1 if stones < END_FROM else 2]
    return side, value, phase


def judge_set(player: OwnPlayer, jset: JudgingSet) -> SetReport:
    """The share of the set's positions where ``player.act`` keeps the value (plays a move
    whose value is the best there), with a Wilson 95% interval, in all and by kind (side to
    move × value × phase, :func:`kind_of`). The stored values are the judge: no solver is
    called."""
    if player.game.spec != jset.game.spec:
        raise QarenaError(
            _("the set {title!r} is of {spec}, not of {game}").format(
                title=jset.title, spec=jset.game.spec, game=player.game.spec
            )
        )
    kept: dict[Kind, int] = {}
    seen: dict[Kind, int] = {}
    for position, values in zip(jset.positions, jset.values, strict=True):
        threads.check()
        kind = kind_of(jset.game, position, values)
        move = player.act(position)
        seen[kind] = seen.get(kind, 0) + 1
        kept[kind] = kept.get(kind, 0) + (values.get(move) == max(values.values()))
    kinds = {k: Tally(kept[k], seen[k]) for k in sorted(seen, key=_order)}
    total = Tally(sum(kept.values()), sum(seen.values()))
    return SetReport(jset.title, player.name, total, kinds)


def read_set(path: Path) -> JudgingSet:
    """The judging set in ``path`` (the module's text), every line checked: one that cannot
    be read is refused in one line naming the file and the line. Sizes are checked before
    the work: the file's bytes, each line's, the count of positions."""
    from qarena.games import parse_spec

    try:
        with open_to_read(path) as f:  # a named pipe would wait for a writer for ever
            data = f.read(MAX_SET_BYTES + 1)
    except OSError as e:
        raise QarenaError(
            _("cannot read the judging set {file}: {reason}").format(
                file=path, reason=e.strerror or e
            )
        ) from e
    if len(data) > MAX_SET_BYTES:
        raise QarenaError(
            _("{file} is larger than any judging set ({most:,} bytes)").format(
                file=path, most=MAX_SET_BYTES
            )
        )
    try:
        lines = data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as e:
        raise QarenaError(
            _("cannot read the judging set {file}: {reason}").format(file=path, reason=e)
        ) from e

    def refuse(number: int, reason: str) -> QarenaError:
        return QarenaError(
            _("{file}, line {line}: {reason}").format(file=path, line=number, reason=reason)
        )

    for number, line in enumerate(lines, 1):
        if len(line) > MAX_SET_LINE:
            raise refuse(number, _("longer than any line of a judging set"))
    count = sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))
    if count > MAX_SET_POSITIONS:
        raise QarenaError(
            _("{file} has more than {most:,} positions").format(file=path, most=MAX_SET_POSITIONS)
        )
    if not lines or not lines[0].startswith(MAGIC):
        raise refuse(
            1, _("a judging set starts with {magic!r} and the game's spec").format(magic=MAGIC)
        )
    try:
        game = parse_spec(lines[0][len(MAGIC) :].strip())
    except QarenaError as e:
        raise refuse(1, str(e)) from None
    title, notes = path.name, []
    positions: list[Position] = []
    values: list[dict[Move, int]] = []
    texts: list[str] = []
    for number, line in enumerate(lines[1:], 2):
        text = line.strip()
        if not text:
            continue
        if text.startswith("#"):
            note = text[1:].strip()
            if note.startswith("title:"):
                title = note[len("title:") :].strip()
            else:
                notes.append(note)
            continue
        position, moves = _line(game, text, refuse, number)
        positions.append(position)
        values.append(moves)
        texts.append(text.partition("#")[0].strip())
    if not positions:
        raise QarenaError(_("{file} holds no positions").format(file=path))
    return JudgingSet(game, title, tuple(positions), tuple(values), tuple(notes), tuple(texts))


def _line(
    game: Game, text: str, refuse: Callable[[int, str], QarenaError], number: int
) -> tuple[Position, dict[Move, int]]:
    """One position line: the position and its move values, checked against its legal moves."""
    where, hash_, marks = text.partition("#")
    marks = marks.strip()
    if not hash_ or not where.strip():
        raise refuse(
            number, _("expected a position, then # and one value a move, like '4453 # ==+=-=-'")
        )
    try:
        position = game.position_of(where.strip())
    except QarenaError as e:
        raise refuse(number, str(e)) from None
    if game.is_terminal(position):
        raise refuse(
            number,
            _("{position} is finished; there is no move to judge").format(
                position=echo(where.strip())
            ),
        )
    if len(marks) != game.num_moves:
        raise refuse(
            number,
            _("{count} values, but the game has {moves} moves (one of + = - . each)").format(
                count=len(marks), moves=game.num_moves
            ),
        )
    legal = set(game.legal_moves(position))
    moves: dict[Move, int] = {}
    for move, mark in enumerate(marks):
        if mark == NOT_LEGAL:
            if move in legal:
                raise refuse(
                    number,
                    _("move {move} is legal, but its value is '.'").format(
                        move=game.format_move(move)
                    ),
                )
            continue
        if mark not in "+=-":
            raise refuse(
                number,
                _(
                    "{mark!r} is not a value; expected + (win), = (draw), - (loss) or . (full)"
                ).format(mark=mark),
            )
        if move not in legal:
            raise refuse(
                number,
                _("move {move} is not legal, but it has a value").format(
                    move=game.format_move(move)
                ),
            )
        moves[move] = {"+": 1, "=": 0, "-": -1}[mark]
    return position, moves


def shipped_set(game: Game, which: str) -> JudgingSet | None:
    """The judging set ``which`` ("main" or "varied") shipped for ``game``, or None when
    none is (only classic Connect Four has them)."""
    if which not in KINDS:
        raise QarenaError(
            _("{which!r} is not a shipped judging set; expected one of {kinds}").format(
                which=echo(str(which)), kinds=", ".join(KINDS)
            )
        )
    name = SHIPPED.get(game.spec, {}).get(which)
    return None if name is None else _shipped(name)


@functools.cache
def _shipped(name: str) -> JudgingSet | None:
    # Read once a process: the file does not change while it runs.
    path = resources.files("qarena") / "data" / name
    if not path.is_file():
        return None
    with resources.as_file(path) as real:
        return read_set(real)


def values_text(game: Game, values: dict[Move, int]) -> str:
    """A position's move values as a set writes them: one character a move."""
    return "".join(
        VALUE_CHARS[values[m]] if m in values else NOT_LEGAL for m in range(game.num_moves)
    )


__all__ = [
    "JudgingSet",
    "SetReport",
    "Tally",
    "judge_set",
    "kind_of",
    "read_set",
    "shipped_set",
    "values_text",
]
