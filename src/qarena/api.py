"""qarena from Python: the few calls a notebook needs, each also what the command line does.

>>> import qarena
>>> agent = qarena.train("nim:3,5,7", until_perfect=True)
>>> qarena.judge(agent).optimality.share
1.0

Every call takes a game as its spec (``"nim:3,5,7"``) or as a :class:`~qarena.games.Game`,
and a player as anything :func:`player` reads: a learner, a built-in's name (``"random"``,
``"perfect"``, ``"bouton"``…), a policy file, a function of the position, or a dict of moves.
Bad input raises :class:`~qarena.errors.QarenaError` with one line saying what is wrong.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from qarena.agents.base import Player
from qarena.agents.opponents import move_mask
from qarena.agents.players import PlayerLike, canonical, load_file, no_game
from qarena.agents.players import player as _player
from qarena.agents.strategies import builtin_game, is_builtin
from qarena.budget import MAX_EPISODES, MAX_GAMES, check_count, check_seed
from qarena.errors import QarenaError
from qarena.evaluate import display
from qarena.evaluate.display import Board
from qarena.evaluate.figures import check_beside
from qarena.evaluate.matches import Record, play_series
from qarena.exact import Exact, Oracle, SearchSolution, Solution, oracle
from qarena.exact.space import game_tables
from qarena.experiments.backends import run_plan, set_up_sweep
from qarena.experiments.folder import BEST_REPLY_COLUMNS, SETTING_COLUMNS, RunRow, SweepFolder
from qarena.experiments.grid import NETWORK_AXES, with_preset
from qarena.games import Game, Position, parse_spec, value_word
from qarena.games.base import VALUE_WORDS
from qarena.i18n import _, option, python_caller
from qarena.judging.best_reply import SEATS, BestReply, check_seats
from qarena.judging.best_reply import best_reply as _best_reply
from qarena.judging.evaluation import Evaluation
from qarena.judging.player import judge_player
from qarena.judging.refutation import (
    DEFAULT_POSITIONS,
    DEFAULT_SECONDS,
    check_budget,
    check_seconds,
)
from qarena.judging.sampled import (
    DEFAULT_SAMPLED_GAMES,
    MAX_SAMPLE,
    given_positions,
    play_games,
)
from qarena.learn.base import Learner
from qarena.learn.curve import CurvePoint
from qarena.learn.family import Trainable
from qarena.learn.learners import save_learner
from qarena.learn.ntuple_config import KIND as NTUPLE
from qarena.learn.presets import canonical_of
from qarena.learn.settings import ALL_SETTINGS, KEYWORDS, NAMES, typed
from qarena.match.duel import Duel, Turn
from qarena.optional import need
from qarena.training.run import Progress, check_counts, check_judged_curve, request_run

__all__ = [
    "Board",
    "Competition",
    "Curves",
    "OpeningResult",
    "Playout",
    "Progress",
    "Sweep",
    "board",
    "compete",
    "curves",
    "game",
    "judge",
    "load",
    "play",
    "player",
    "players",
    "save",
    "solution",
    "solve",
    "sweep",
    "train",
    "train_network",
]

GameLike = str | Game

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _python(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """The call's errors name settings as Python does (``seat``, ``curve=True``), not as the
    command line does (``--seat``, ``--curve``): the same texts, worded for their reader
    (:func:`qarena.i18n.option`)."""

    @functools.wraps(function)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with python_caller():
            return function(*args, **kwargs)

    return call


# In a notebook, games, solutions, learners, agents and curves are drawn from now on.
display.register()


@_python
def board(
    spec: GameLike,
    position: Position | str | None = None,
    values: PlayerLike | Solution | SearchSolution | None = None,
) -> Board:
    """A position drawn (in a notebook; ``print`` draws it as ``qarena play`` does): the
    start, a position (a tuple or list of its components, checked as its text would be) or
    its text (``"3 5 5"``, ``"x.o/.x./..o"``). With ``values``, each legal move's value is
    written on it: a solution's (win, draw, loss) or a player's own (a learner's table)."""
    g = game(spec)
    where = g.start() if position is None else g.position_of(position)
    if values is None:
        return Board(g, where)
    if isinstance(values, Solution | SearchSolution):
        solved = {m: float(v) for m, v in values.move_values(where).items()}
        return Board(g, where, solved, lambda v: value_word(int(v)))
    found = _player(values, g)
    own = found.values(where)
    if own is None:
        raise QarenaError(_("{player} has no values to show").format(player=found.name))
    return Board(g, where, own, found.format_value)


@_python
def game(spec: GameLike) -> Game:
    """The game a spec names (``"nim:3,5,7"``, ``"tictactoe"``, ``"connect4:4x5"``)."""
    return spec if isinstance(spec, Game) else parse_spec(spec)


@_python
def solve(spec: GameLike) -> Exact:
    """The exact solution, as ``qarena solve`` gives it: every reachable position's value and
    best moves (cached); for boards too big to enumerate, a
    :class:`~qarena.exact.SearchSolution`, which answers the same questions by search, one
    position at a time. Ask it with ``.value_of(position)`` and ``.optimal_moves(position)``."""
    return oracle(game(spec))


@_python
def solution(spec: GameLike) -> Exact:
    """The same as :func:`solve` (its older name, kept)."""
    return solve(spec)


@_python
def load(path: str | os.PathLike[str], spec: GameLike | None = None) -> Trainable:
    """A learner of any kind saved in its file, a table learner's policy or an n-tuple
    network (checked to be of ``spec``'s game when given)."""
    # The file's own kind decides, as for every player's file; ``network`` is the shipped one
    # (a file so named: ./network).
    return load_file(path, None if spec is None else game(spec))


@_python
def save(learner: Trainable, path: str | os.PathLike[str]) -> Path:
    """Save a learner of any kind to its file (written atomically); returns its path."""
    save_learner(path, learner)
    return Path(path)


def _by_flag_name(
    call: str, more: dict[str, Any], local: dict[str, Any], extra: dict[str, str] | None = None
) -> None:
    """Settings given by their command-line names (``epsilon_schedule=``, ``**{"lambda":
    …}``; the declaration's :data:`~qarena.learn.settings.KEYWORDS`), put into ``local``
    under the declared name, as if given by it. Any other keyword is the TypeError Python
    gives; one setting given by both names with different values is refused."""
    names = {**KEYWORDS, **(extra or {})}
    for key, value in more.items():
        name = names.get(key)
        if name is None or name not in local:
            raise TypeError(f"{call}() got an unexpected keyword argument {key!r}")
        if local[name] is not None and value is not None and local[name] != value:
            raise QarenaError(_("{a} and {b} are one setting; give it once").format(a=name, b=key))
        if value is not None:
            local[name] = value


@_python
def train_network(  # noqa: PLR0913 - qarena.train_network's settings, by keyword
    spec: GameLike,
    games: int | None = None,
    *,
    workers: int | None = None,
    curve: bool = False,
    every: int | None = None,
    resume: Trainable | None = None,
    callback: Callable[[Progress], object] | None = None,
    tuples: int | None = None,
    tuple_length: int | None = None,
    alpha: float | None = None,
    alpha_end: float | None = None,
    epsilon: float | None = None,
    epsilon_end: float | None = None,
    lam: float | None = None,
    opening: int | None = None,
    seed: int | None = None,
    **more: Any,
) -> Trainable:
    """Train an n-tuple network as ``qarena train SPEC --learner ntuple`` does and return it:
    ``games`` of self-play (default: scaled to the board) on ``workers`` threads (default:
    every core), the settings None taking the defaults (with ``resume``, that network's
    own). ``curve`` judges it every ``every`` games along perfect-play games; ``callback``
    is called with a :class:`Progress` after each chunk and stops the run when it returns
    True."""
    g = game(spec)
    if more:
        local = locals()
        _by_flag_name("train_network", more, local)
        lam = local["lam"]
    if curve:
        check_judged_curve(g)  # refused before training: judging may have no bound
    if games is not None:
        check_count("games", games, MAX_EPISODES)
    if every is not None:
        check_count("every", every, MAX_EPISODES)
    if workers is not None:
        check_count("workers", workers, len(os.sched_getaffinity(0)) * 4)
    if resume is not None:
        resume.run_start = resume.episodes  # α and ε go over this run, as from its file
    # qarena.train's run, with the network's words for its games.
    return train(
        g, NTUPLE, games, curve=curve, every=every, resume=resume, callback=callback,
        workers=workers, tuples=tuples, tuple_length=tuple_length, alpha=alpha,
        alpha_end=alpha_end, epsilon=epsilon, epsilon_end=epsilon_end, lam=lam,
        opening=opening, seed=seed,
    )  # fmt: skip


@_python
def player(x: PlayerLike, spec: GameLike | None = None, seed: int | None = None) -> Player:
    """Anything that plays, as a :class:`~qarena.agents.base.Player` (``act`` and
    ``values``): see :func:`qarena.agents.players.player` for what it reads and in what
    order. A built-in's name is always the built-in; a file of that name is ``./random``."""
    return _player(x, None if spec is None else game(spec), seed)


@_python
def train(  # noqa: PLR0913 - qarena.train's settings, by keyword
    spec: GameLike,
    learner: str | None = None,
    episodes: int | None = None,
    *,
    preset: str | None = None,
    opponent: PlayerLike | None = None,
    seat: str | None = None,
    until_perfect: bool = False,
    check_every: int | None = None,
    curve: bool = False,
    every: int | None = None,
    canonical: bool | None = None,
    resume: Trainable | None = None,
    progress: bool = False,
    callback: Callable[[Progress], object] | None = None,
    alpha: float | None = None,
    gamma: float | None = None,
    epsilon: float | None = None,
    epsilon_end: float | None = None,
    schedule: str | None = None,
    rewards: tuple[float, float, float] | None = None,
    initial: float | None = None,
    seed: int | None = None,
    starts: float | None = None,
    start_order: str | None = None,
    alpha_second: float | None = None,
    epsilon_second: float | None = None,
    tuples: int | None = None,
    tuple_length: int | None = None,
    alpha_end: float | None = None,
    lam: float | None = None,
    opening: int | None = None,
    channels: int | None = None,
    blocks: int | None = None,
    simulations: int | None = None,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    minutes: float | None = None,
    **more: Any,
) -> Trainable:
    """Train a learner of any kind as ``qarena train`` does and return it.

    ``learner`` is one of ``q`` (the default), ``afterstate``, ``matchbox``, ``seat-q``,
    ``naive-q``, ``elimination``, ``game-backup``, ``ntuple`` (an n-tuple network: its own
    settings ``tuples``, ``tuple_length``, ``alpha_end``, ``lam``, ``opening``; self-play on
    ``workers`` threads, default every core), ``alphazero`` (a policy-value network learning
    by self-play through its search, from the ``qarena[deep]`` extra: its own settings
    ``channels``, ``blocks``, ``simulations``, with ``alpha``, ``opening``, ``seed``), or any
    kind registered in :data:`qarena.learn.learners.LEARNERS`; the settings after ``callback``
    are the training settings (their one declaration: :mod:`qarena.learn.settings`), None
    taking the learner's default. ``preset`` names a write-up's method (:mod:`qarena.learn.presets`:
    learner, settings, opponent, seat, episodes, and the write-up's own kind of table: every
    position, unless ``canonical=True``); what is given as well overrides it, and
    ``learner.preset`` records the preset, its values and what was overridden. ``canonical``
    (None: qarena's default, one table entry per symmetry class, or the preset's) False
    learns every position. ``backend`` ``"ray"`` plays
    an AlphaZero learner's games on Ray actors (at ``ray_address``, or a local Ray instance).
    ``opponent`` is ``"self"`` or any player (a built-in's name, a policy file, a learner,
    a function). ``until_perfect`` stops as soon as the solver finds the play perfect;
    ``minutes`` ends training after that many minutes of wall time, judged as at its end;
    ``curve`` records a learning curve (``learner.curve``). ``progress`` shows a bar in a
    terminal, and in a notebook a line updated in place (kept when the notebook is saved);
    ``callback`` is called with a :class:`Progress` after each short chunk of episodes, and
    stops training when it returns True. ``resume`` goes on training that learner (the
    settings given replace its own).
    """
    g = game(spec)
    local = locals()
    _by_flag_name("train", more, local)
    given: dict[str, Any] = {s.name: local[s.name] for s in ALL_SETTINGS}
    if given["rewards"] is not None:  # typed before it is compared with a preset's
        given["rewards"] = typed("rewards", given["rewards"])
    check_counts(episodes, check_every, every, workers)
    # The one set-up of a run's request, as qarena train's and the web's.
    request = request_run(
        g,
        learner,
        given,
        preset=preset,
        opponent=opponent,
        seat=seat,
        episodes=episodes,
        canonical=canonical,
        until_perfect=until_perfect,
        check_every=check_every,
        curve=curve,
        every=every,
        workers=workers,
        backend=backend,
        ray_address=ray_address,
        minutes=minutes,
    )
    plan = request.plan(resume=resume)
    agent, total, start = plan.learner, plan.total, plan.learner.episodes
    stop = [False]

    def report(p: Progress) -> None:
        if callback is not None and callback(p) is True:
            stop[0] = True

    def go(on_progress: Callable[[Progress], None]) -> None:
        plan.run(on_progress, lambda: stop[0])

    if not progress:
        go(report)
        return agent
    with display.progress(f"{agent.kind} {g.spec}", total) as bar:

        def show(p: Progress) -> None:
            bar.update(p.episodes)
            report(p)

        go(show)
        bar.update(agent.episodes - start, total=agent.episodes - start)
    return agent


@_python
def judge(  # noqa: PLR0913 - eval's options, as keywords
    who: PlayerLike,
    spec: GameLike | None = None,
    *,
    games: int | None = None,
    seed: int = 0,
    lengths: bool = False,
    sample: int | None = None,
    positions: Sequence[Position | str] | None = None,
    uniform: int | None = None,
    beat_seconds: float = DEFAULT_SECONDS,
) -> Evaluation:
    """How good a player is, as ``qarena eval`` says: its exact optimality (the share of
    decision positions where its move keeps the game's value) and its record against random,
    perfect and the game's rule players in both seats (``games`` in each, 1,000 unless
    told). Any player: a learner, a policy file, a built-in's name (with ``spec``), a
    function or a dict of moves.

    Games too big to enumerate (classic Connect Four), or any game with ``sample`` or
    ``positions``, are judged by samples (``judging/sampled.py``): optimality over ``sample``
    decision positions (2,000 unless told) or over the ``positions`` given (texts, or tuples
    or lists of components; every one is checked before any game is played), each judged
    exactly by the search solver, with a 95% interval in ``Evaluation.sample``; then
    ``games`` is 10 unless told, since perfect play searches each of its moves. With
    ``uniform``, on a game enumerated here, optimality is over that many decision positions
    drawn uniformly from all of them, each judged exactly from the tables: the share every
    position gives, estimated with its interval, in seconds for a network on a big board.

    Where every position is judged (a game enumerated here, no ``sample``, ``positions`` or
    ``uniform``), ``Evaluation.best_reply`` holds the best reply to it from the start in each
    seat (as :func:`best_reply` finds it, to the same moves). On a board solved by search it
    holds the search for a line that beats it in each seat, within ``beat_seconds`` each (60
    unless told; 0 skips it, and it is None): ``proved`` False where the search found none.
    Elsewhere (``sample``, ``positions`` or ``uniform`` on an enumerated board) it is None."""
    check_seed(seed, "seed")
    beat_seconds = check_seconds(beat_seconds, "--beat-seconds", zero=True)
    g = None if spec is None else game(spec)
    if isinstance(who, Learner) and g is not None and who.game.spec != g.spec:
        raise QarenaError(
            _("{player} plays {spec}, not {game}").format(
                player=who.kind, spec=who.game.spec, game=g.spec
            )
        )
    if sample is not None:
        check_count("sample", sample, MAX_SAMPLE)
    if uniform is not None:
        check_count("uniform", uniform, MAX_SAMPLE)
    found = _player(who, g, seed)
    # Every position is read and checked here, before a game is played.
    given = None if positions is None else given_positions(found.game, positions)
    return judge_player(
        found,
        games,
        seed,
        sample=sample,
        positions=given,
        lengths=lengths,
        uniform=uniform,
        reply=True,
        beat_seconds=beat_seconds,
    )


@_python
def best_reply(
    who: PlayerLike,
    spec: GameLike | None = None,
    *,
    seed: int = 0,
    seats: Sequence[str] = SEATS,
    positions: int = DEFAULT_POSITIONS,
    seconds: float = DEFAULT_SECONDS,
) -> BestReply:
    """Can ``who`` be beaten from the start, by anyone, and how? In each seat: the start's
    value for it, what the strongest opponent who knows its moves can force against it, and
    the line that forces it (``BestReply.seats["first"].line_text``), with the share of its
    decision positions an opponent can reach where it keeps the value. Exact, over the game's
    tables, on every board whose tables fit here (a player that may play several moves at a
    position is judged over every one of them). Any player, as :func:`judge` takes it.

    On a board solved by search (classic Connect Four) a search for a line that beats it,
    within ``positions`` asked about and ``seconds`` in each seat: where it finds none,
    ``proved`` is False and ``search`` says what it spent (``judging/refutation.py``).
    ``seats``: the seats to answer for, "first", "second" or both (the default)."""
    check_seed(seed, "seed")
    asked = check_seats(seats)
    check_budget(positions, seconds)  # before the player is made
    g = None if spec is None else game(spec)
    found = _player(who, g, seed)
    return _best_reply(found, asked, positions=positions, seconds=seconds)


@dataclass(frozen=True)
class OpeningResult:
    """The games played from one opening, each way round: ``opening`` as it was given (its
    text, or the game's text form of a position given as components), ``position`` the
    position, ``to_move`` the side to move there (0 the first player, 1 the second, None in an
    impartial game), ``value`` its value for the side to move where that is cheap to know
    (``WIN`` 1, ``DRAW`` 0, ``LOSS`` -1, from :meth:`Oracle.known_value`; else None), and
    A's records (wins, draws, losses) with A to move there (``a_to_move``) and with B to move
    (``b_to_move``)."""

    opening: str
    position: Position
    to_move: int | None
    value: int | None
    a_to_move: Record
    b_to_move: Record

    @property
    def total(self) -> Record:
        return self.a_to_move + self.b_to_move

    def to_json(self, game: Game) -> dict[str, Any]:
        """What ``qarena compete --openings --json`` prints of it: counts, not shares."""
        return {
            "opening": self.opening,
            "position": game.format_position(self.position),
            "to_move": self.to_move,
            "seat": game.seat(self.position),
            "value": None if self.value is None else VALUE_WORDS[self.value],
            "a_to_move": _counts(self.a_to_move),
            "b_to_move": _counts(self.b_to_move),
        }


def _counts(record: Record) -> dict[str, int]:
    return {"win": record.win, "draw": record.draw, "loss": record.loss}


@dataclass(frozen=True)
class Competition:
    """Two players' games against each other, each opening ``games`` of them: the records are
    A's (wins, draws, losses). Played from openings (``compete(..., openings=...)``),
    ``a_first`` and ``b_first`` are A's records over every opening with A and with B to move
    there, and ``openings`` holds each opening's own (empty without openings)."""

    game: str
    a: str
    b: str
    a_first: Record
    b_first: Record
    players: tuple[Player, ...] = field(repr=False, compare=False, default=())
    #: What answered the game: its family, the route taken here and why they differ.
    oracle: Oracle | None = field(repr=False, compare=False, default=None)
    #: Each opening's games, in the order given (empty when the games start at the start).
    openings: tuple[OpeningResult, ...] = field(repr=False, default=())

    @property
    def total(self) -> Record:
        return self.a_first + self.b_first

    def to_json(self) -> dict[str, Any]:
        found = {
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "games": self.a_first.games,
            "a_first": self.a_first.shares(),
            "b_first": self.b_first.shares(),
            **({} if self.oracle is None else {"oracle": self.oracle.record()}),
        }
        if self.openings:
            g = game(self.game)
            found["games_each"] = self.openings[0].a_to_move.games
            found["openings"] = [o.to_json(g) for o in self.openings]
        return found

    def __repr__(self) -> str:
        t = self.total
        return (
            f"Competition({self.game}: {self.a} vs {self.b}, {t.games} games: "
            f"A wins {t.win}, draws {t.draw}, B wins {t.loss})"
        )

    def _repr_html_(self) -> str:
        import html

        # From openings, the orders are who is to move there, and each opening has a row too.
        orders = (_("A to move"), _("B to move")) if self.openings else (_("A first"), _("B first"))
        rows = ((orders[0], self.a_first), (orders[1], self.b_first), (_("both"), self.total))
        cells = "".join(
            f"<tr><td>{html.escape(name)}</td><td>{r.win}</td><td>{r.draw}</td>"
            f"<td>{r.loss}</td></tr>"
            for name, r in rows
        )
        head = "".join(
            f"<th>{html.escape(h)}</th>" for h in (_("order"), _("A wins"), _("draws"), _("B wins"))
        )
        title = html.escape(f"{self.game}: A = {self.a}, B = {self.b}")
        found = f"<p>{title}</p><table><tr>{head}</tr>{cells}</table>"
        if not self.openings:
            return found
        head = "".join(
            f"<th>{html.escape(h)}</th>"
            for h in (_("opening"), _("value"), _("A to move"), _("B to move"))
        )
        cells = "".join(
            f"<tr><td>{html.escape(o.opening)}</td>"
            f"<td>{'—' if o.value is None else html.escape(value_word(o.value))}</td>"
            + "".join(f"<td>{r.win}/{r.draw}/{r.loss}</td>" for r in (o.a_to_move, o.b_to_move))
            + "</tr>"
            for o in self.openings
        )
        return f"{found}<table><tr>{head}</tr>{cells}</table>"


@_python
def compete(
    a: PlayerLike,
    b: PlayerLike,
    spec: GameLike | None = None,
    *,
    games: int | None = None,
    seed: int = 0,
    openings: Sequence[object] | None = None,
) -> Competition:
    """``a`` and ``b`` play ``games`` games with each moving first, as ``qarena compete``:
    each picks uniformly among the moves it would play (a trained agent among its ties).
    Players that share values across symmetries meet the others among all positions. Games
    too big to enumerate (classic Connect Four) are played move by move, 10 each way unless
    told (perfect play searches each of its moves); others 1,000, through the compiled kernels,
    or move by move where they do not fit here (``Competition.oracle`` says why). A player
    that thinks (``mcts:N``, ``alphabeta:D:FILE``) plays move by move on any game, searching
    only the positions its games reach, 10 games each way unless told.

    With ``openings`` (positions as texts, such as Connect Four's move digits ``"1"``, or as
    the game's components), the games start there instead, move by move on any game: from
    each, ``games`` (1 unless told) with A to move and as many with B to move, as engine
    testers play opening suites. Every opening is read and checked, and the games counted
    against the budget, before a game is played; ``Competition.openings`` holds each one's
    records and, where cheap to know, its value (:class:`OpeningResult`)."""
    check_seed(seed)
    g, pa, pb = players(a, b, spec, seed=seed)
    both = (pa, pb)
    answers = Oracle.of(g)
    if openings is not None:
        return _from_openings(g, a, b, pa, pb, answers, openings, 1 if games is None else games)
    # A player that thinks searches for each move it makes: the compiled kernel needs its
    # move in every position of the game (tens of thousands of searches on a small board), so
    # its games are played move by move, as on a board solved by search, asking it only where
    # they go; and fewer of them unless told, as there.
    thinks = any(p.thinks for p in both)
    if answers.searched or thinks:
        count = answers.games if games is None else games
        if games is None and thinks:
            count = min(count, DEFAULT_SAMPLED_GAMES)
        check_count("games", count, MAX_GAMES)
        a_first = play_games(g, pa, pb, count)
        b_first = play_games(g, pb, pa, count).flipped()
        return Competition(g.spec, _name(a, pa), _name(b, pb), a_first, b_first, both, answers)
    games = answers.games if games is None else games
    check_count("games", games, MAX_GAMES)
    tables = game_tables(g, canonical(both))
    ma, mb = (move_mask(tables, p) for p in both)
    a_first = play_series(tables, ma, mb, games, seed, "compete/a-first")
    b_first = play_series(tables, mb, ma, games, seed, "compete/b-first").flipped()
    return Competition(g.spec, _name(a, pa), _name(b, pb), a_first, b_first, both, answers)


def _from_openings(
    g: Game,
    a: PlayerLike,
    b: PlayerLike,
    pa: Player,
    pb: Player,
    answers: Oracle,
    openings: Sequence[object],
    games: int,
) -> Competition:
    """``compete`` from each of ``openings``, ``games`` games each way round, move by move."""
    check_count("games", games, MAX_GAMES)
    positions = given_positions(g, openings, "--openings")
    if games * len(positions) > MAX_GAMES:
        raise QarenaError(
            _(
                "{openings:,} openings of {games:,} games each way are more games than a "
                "match plays ({most:,} each way)"
            ).format(openings=len(positions), games=games, most=MAX_GAMES)
        )
    found = []
    for given, position in zip(openings, positions, strict=True):
        text = given if isinstance(given, str) else g.format_position(position)
        a_moves = play_games(g, pa, pb, games, position)
        b_moves = play_games(g, pb, pa, games, position).flipped()
        value = answers.known_value(position)
        found.append(OpeningResult(text, position, g.to_move(position), value, a_moves, b_moves))
    a_first = sum((o.a_to_move for o in found), Record(0, 0, 0))
    b_first = sum((o.b_to_move for o in found), Record(0, 0, 0))
    return Competition(
        g.spec, _name(a, pa), _name(b, pb), a_first, b_first, (pa, pb), answers, tuple(found)
    )


@_python
def players(
    a: PlayerLike, b: PlayerLike, spec: GameLike | None = None, seed: int | None = None
) -> tuple[Game, Player, Player]:
    """Two players of one game: those that know their game (files, learners) are read first,
    so built-in players need ``spec`` only when neither does. Players that draw at random
    are seeded from ``seed`` (A) and ``seed + 1`` (B)."""
    g = None if spec is None else game(spec)
    given = (a, b)
    found: dict[int, Player] = {}
    # A built-in that plays one game only (the shipped network) knows its game as a file does.
    builtin = [isinstance(x, str) and is_builtin(x) and builtin_game(x) is None for x in given]
    # Files, learners and players know their game; built-ins, functions and dicts need one.
    knows = [
        isinstance(x, Learner | Player | os.PathLike) or (isinstance(x, str) and not b)
        for x, b in zip(given, builtin, strict=True)
    ]
    for i in sorted(range(2), key=lambda i: not knows[i]):
        x = given[i]
        if g is None and all(builtin):
            raise no_game(_name(a, None), _name(b, None))
        seat_seed = None if seed is None else seed + i
        one = _player(x, g, seat_seed)
        if seat_seed is not None:  # a player given as it is draws from the seat's seed too
            one = one.seeded(seat_seed)
        g = one.game
        found[i] = one
    assert g is not None
    return g, found[0], found[1]


def _name(x: PlayerLike, found: Player | None) -> str:
    if isinstance(x, str | os.PathLike):
        return os.fspath(x)
    return found.name if found is not None else type(x).__name__

    return os.fspath(x) if isinstance(x, str | os.PathLike) else found.name


@dataclass
class Playout:
    """One game between two players, move by move, with the solver's verdict on each move."""

    game: Game
    names: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    positions: list[Position] = field(default_factory=list)
    winner: int | None = None  # 0: A, 1: B, None: a draw

    @property
    def mistakes(self) -> list[Turn]:
        """The moves that gave away some of the position's value."""
        return [t for t in self.turns if not t.kept]

    def lines(self) -> list[str]:
        g = self.game
        out = []
        for i, t in enumerate(self.turns, 1):
            mark = "" if t.kept else "  ✗ " + t.verdict
            out.append(f"{i:>3}. {'AB'[t.mover]} {g.format_move(t.move)}{mark}")
        return out

    def __repr__(self) -> str:
        result = "draw" if self.winner is None else f"{'AB'[self.winner]} wins"
        moves = " ".join(self.game.format_move(t.move) for t in self.turns)
        return (
            f"Playout({self.game.spec}: A = {self.names[0]}, B = {self.names[1]}; {moves}; "
            f"{result}; {len(self.mistakes)} mistakes)"
        )

    def _repr_html_(self) -> str:
        import html

        head = "".join(
            f"<th>{html.escape(h)}</th>" for h in ("", _("player"), _("move"), _("solver"))
        )
        rows = f"<tr>{head}</tr>" + "".join(
            f"<tr><td>{i}</td><td>{'AB'[t.mover]}</td>"
            f"<td>{html.escape(self.game.format_move(t.move))}</td>"
            f"<td style='text-align:left'>{html.escape(t.verdict)}</td></tr>"
            for i, t in enumerate(self.turns, 1)
        )
        result = (
            _("Draw.")
            if self.winner is None
            else _("{player} wins.").format(player="AB"[self.winner])
        )
        title = html.escape(f"{self.game.spec}: A = {self.names[0]}, B = {self.names[1]}")
        # The end, the last move marked (the matches it took, the mark it placed).
        before = self.positions[-2] if len(self.positions) > 1 else None
        end = Board(self.game, self.positions[-1], before=before)._repr_html_()
        return f"<p>{title}</p><table>{rows}</table><p>{html.escape(result)}</p>{end}"


@_python
def play(
    a: PlayerLike,
    b: PlayerLike,
    spec: GameLike | None = None,
    *,
    seed: int = 0,
) -> Playout:
    """One game, ``a`` moving first, each move judged by the solver (as ``qarena watch``).
    Players that draw at random are seeded from ``seed`` (A) and ``seed + 1`` (B)."""
    check_seed(seed)
    g, pa, pb = players(a, b, spec, seed)
    duel = Duel(g, [pa, pb])
    while duel.step() is not None:
        pass
    names = (_name(a, pa), _name(b, pb))
    return Playout(g, names, list(duel.turns), list(duel.positions), duel.winner())


Values = float | Sequence[float] | None


@dataclass(frozen=True)
class Curves:
    """Learners' learning curves side by side, by the measure they share: optimality over all
    decision positions (a table learner's counted over every one, a network's over its curve's
    uniform sample of them) after each count of episodes (a network's games of self-play).
    A notebook draws them on one chart; :meth:`to_pandas` gives the points."""

    names: tuple[str, ...]
    learners: tuple[Trainable, ...]

    def _points(self) -> list[list[CurvePoint]]:
        return [list(le.curve.points) if le.curve is not None else [] for le in self.learners]

    def __repr__(self) -> str:
        lines = [
            f"{name}: {len(points)} points to {points[-1].episodes:,}, optimality "
            f"{points[-1].everywhere:.4f}"
            for name, le, points in zip(self.names, self.learners, self._points(), strict=True)
        ]
        return "\n".join(lines)

    def to_pandas(self) -> Any:
        """A row per point: the run's name, its learner kind, its episodes (games), and its
        optimality over all positions; pandas must be installed."""
        pd = need("pandas", "pandas")
        rows = [
            (name, le.kind, p.episodes, p.everywhere)
            for name, le, points in zip(self.names, self.learners, self._points(), strict=True)
            for p in points
        ]
        return pd.DataFrame(rows, columns=["name", "learner", "episodes", "optimality"])

    def _repr_html_(self) -> str:
        return display.curves_html(list(zip(self.names, self._points(), strict=True)))


@_python
def curves(*learners: Trainable, names: Sequence[str] | None = None) -> Curves:
    """The learning curves of ``learners`` (each trained with ``curve=True``), to be drawn
    side by side: table learners and networks alike, by optimality over all decision
    positions. A network's curve shows it where its board is enumerated (its points judge a
    uniform sample of all positions there). ``names`` label them (default: each learner's
    kind, numbered)."""
    if not learners:
        raise QarenaError(_("no runs to plot"))
    labels = (
        tuple(names)
        if names is not None
        else tuple(f"{i + 1}: {le.title}" for i, le in enumerate(learners))
    )
    if len(labels) != len(learners):
        raise QarenaError(
            _("give one name per learner (names: {names}, learners: {learners})").format(
                names=len(labels), learners=len(learners)
            )
        )
    for label, le in zip(labels, learners, strict=True):
        if le.curve is None or not le.curve.points:
            raise QarenaError(
                _("{name} has no learning curve; train it with {curve}").format(
                    name=label, curve=option("--curve")
                )
            )
        check_beside(label, le)
    return Curves(labels, tuple(learners))


def _axis(value: Any) -> tuple[Any, ...] | None:
    """A setting's values: None (not swept), one value, or a list of them."""
    if value is None:
        return None
    if isinstance(value, str | int | float):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class Sweep:
    """A sweep's folder and its rows (one per run, the rows of ``results.csv``, typed:
    ``row.optimality`` is a number, ``row.cells()`` the row as the file holds it)."""

    folder: Path
    rows: list[RunRow]
    interrupted: bool = False

    def columns(self) -> list[str]:
        """The settings that tell runs apart, then the results."""
        varying = [c for c in SETTING_COLUMNS if len({r.column(c) for r in self.rows} - {""}) > 1]
        measured = [c for c in BEST_REPLY_COLUMNS if any(r.column(c) for r in self.rows)]
        return [*(varying or ["learner"]), "episodes", "optimality", "perfect_at", *measured]

    def __repr__(self) -> str:
        return f"Sweep({os.fspath(self.folder)}: {len(self.rows)} runs)"

    def to_pandas(self) -> Any:
        """Every column of every run as a pandas DataFrame (numbers as numbers)."""
        pd = need("pandas", "pandas")
        frame = pd.DataFrame([r.cells() for r in self.rows])
        for column in frame.columns:
            converted = pd.to_numeric(frame[column], errors="coerce")
            if converted.notna().sum() == frame[column].astype(bool).sum():
                frame[column] = converted
        return frame

    def _repr_html_(self) -> str:
        import html

        columns = self.columns()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{html.escape(_cell(r.column(c)))}</td>" for c in columns)
            + "</tr>"
            for r in self.rows
        )
        title = html.escape(repr(self))
        return f"<p>{title}</p><table><tr>{head}</tr>{body}</table>"


def _cell(text: str) -> str:
    """A results.csv cell as a table shows it: long fractions (shares) to four places."""
    whole, dot, fraction = text.partition(".")
    if not dot or len(fraction) <= 4 or not (whole.lstrip("-") + fraction).isdigit():
        return text
    return f"{float(text):.4f}"


@_python
def sweep(  # noqa: PLR0913 - qarena.sweep's axes, by keyword
    spec: GameLike,
    out: str | os.PathLike[str],
    learner: str | Sequence[str] | None = None,
    *,
    preset: str | None = None,
    opponent: str | Sequence[str] | None = None,
    seat: str | Sequence[str] | None = None,
    episodes: int | Sequence[int] | None = None,
    seeds: int | Sequence[int] = 0,
    canonical: bool | None = None,
    curve: bool = False,
    every: int | None = None,
    until_perfect: bool = False,
    games: int | None = None,
    workers: int | None = None,
    backend: str = "local",
    progress: bool = False,
    alpha: Values = None,
    gamma: Values = None,
    epsilon: Values = None,
    epsilon_end: Values = None,
    schedule: str | Sequence[str] | None = None,
    rewards: tuple[float, float, float] | Sequence[tuple[float, float, float]] | None = None,
    initial: Values = None,
    starts: Values = None,
    start_order: str | Sequence[str] | None = None,
    alpha_second: Values = None,
    epsilon_second: Values = None,
    tuples: Values = None,
    tuple_length: Values = None,
    alpha_end: Values = None,
    lam: Values = None,
    opening: Values = None,
    channels: Values = None,
    blocks: Values = None,
    simulations: Values = None,
    **more: Any,
) -> Sweep:
    """Train a run for every combination of the values given (a value or a list of values per
    setting), as ``qarena sweep`` does, into the folder ``out`` (made if new, resumed if not:
    finished runs are kept). Opponents are names or policy files; ``learner`` may name
    ``"ntuple"``, an n-tuple network, whose own settings are ``tuples``, ``tuple_length``,
    ``alpha_end``, ``lam`` and ``opening``, or ``"alphazero"``, whose own are ``channels``,
    ``blocks`` and ``simulations``. ``games`` in each seat against random and perfect
    play: the game's oracle's (1,000, or 10 on a searched board; never the free memory). ``preset``
    names a write-up's method (:mod:`qarena.learn.presets`) whose values fill the axes not
    given, and whose kind of table the runs share unless ``canonical`` is given; each row
    records it and what the run overrode. Returns the rows."""
    g = game(spec)
    if games is None:
        games = Oracle.of(g).games
    check_count("games", games, 1_000_000)
    local = locals()
    # train's `seed` is the sweep's `seeds` axis: one value or a list, either name.
    local["seeds"] = None if seeds == 0 else seeds
    _by_flag_name("sweep", more, local, {"seed": "seeds"})
    seeds = 0 if local["seeds"] is None else local["seeds"]
    values: dict[str, tuple[Any, ...]] = {}
    for name in (*NAMES, *NETWORK_AXES):
        if name == "seed":
            continue
        given = local[name]
        if name == "rewards" and given is not None and not isinstance(given[0], Sequence):
            given = [given]
        axis = _axis(given)
        if axis is not None:
            values[name] = tuple(tuple(map(float, v)) for v in axis) if name == "rewards" else axis
    # Each axis not given is the preset's one value (qarena's default without a preset).
    grid = with_preset(
        preset,
        g,
        _axis(learner),
        values,
        _axis(opponent),
        _axis(seat),
        _axis(episodes),
        _axis(seeds) or (0,),
    )
    runs = set_up_sweep(
        g, grid, games=games, canonical=canonical_of(preset, canonical), curve=curve, every=every,
        until_perfect=until_perfect,
    )  # fmt: skip
    settings = runs.settings
    folder = SweepFolder(Path(out))
    with folder.locked():
        plan = runs.plan(folder, workers=workers, backend=backend)
        if not progress:
            interrupted = run_plan(plan)
        else:
            done = [plan.skipped]

            def advance(_run: object) -> None:
                done[0] += 1
                bar.update(done[0])

            with display.progress(g.spec, len(settings), "runs", plan.skipped) as bar:
                interrupted = run_plan(plan, advance)
    return Sweep(Path(out), plan.rows(), interrupted)
