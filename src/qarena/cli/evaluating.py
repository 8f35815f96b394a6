"""qarena eval, compete and matrix: how good agents are, judged by the solver and by matches."""

from __future__ import annotations

import codecs
import contextlib
import json
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from qarena import api
from qarena.agents.players import PlayerLike, load_file, no_game
from qarena.agents.players import player as make_player
from qarena.agents.strategies import builtin_game, is_builtin, players_of
from qarena.budget import (
    MAX_EPISODES,
    MAX_GAMES,
    check_count,
    check_seed,
    estimate_positions,
    format_bytes,
)
from qarena.cli.common import (
    EpisodesOpt,
    LearnerOpt,
    PlayerA,
    PlayerB,
    PlayersGameOpt,
    SpecArg,
    announce,
    app,
    err,
    out,
    said,
    styled,
    title,
)
from qarena.errors import QarenaError
from qarena.evaluate.matches import Lengths, Record, SeatRecords
from qarena.exact import Oracle
from qarena.exact.space import game_tables
from qarena.fileio import open_to_read
from qarena.games import LOSS, Game, Position, parse_spec, value_word
from qarena.i18n import _, ngettext, number
from qarena.i18n import seconds as seconds_text
from qarena.judging.along_play import along_perfect_play
from qarena.judging.best_reply import BestReply
from qarena.judging.evaluation import (
    Evaluation,
    strategy_masks,
)
from qarena.judging.refutation import DEFAULT_SECONDS, check_seconds
from qarena.judging.sampled import MAX_SAMPLE, given_positions, wilson
from qarena.judging.uniform import check_uniform
from qarena.learn.base import Learner
from qarena.learn.family import Trainable
from qarena.learn.learners import table_class
from qarena.learn.presets import record_text
from qarena.match.duel import about
from qarena.training.run import check_versus, matrix_row

GamesOpt = Annotated[
    int, typer.Option("--games", "-n", help="Games in each seat against each opponent.")
]
SeedOpt = Annotated[int, typer.Option(help="Seed for the opponents' and ties' random choices.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]

#: Longest line a --positions file may have, in bytes: a position of the largest board
#: (12x12, 155 characters), with room for spaces.
MAX_LINE_BYTES = 4_096
#: Largest --positions file: room for MAX_SAMPLE positions of the largest board, with room.
MAX_POSITIONS_BYTES = 256 * 1_000_000
#: Bytes a --positions file is read in at a time.
READ_CHUNK = 1 << 16
#: Most rows the length histogram of ``qarena eval --lengths`` shows: longer spans of game
#: lengths are grouped into ranges of equal width.
LENGTH_ROWS = 24

#: What ``qarena matrix`` trains against, and what it measures against, unless told.
MATRIX_TRAINING = ("self", "random", "perfect")
MATRIX_EVALUATION = ("random", "perfect")


def _check_games(games: int) -> None:
    check_count("--games", games, MAX_GAMES)


def _check_seed(seed: int) -> None:
    check_seed(seed)


def _wdl_title(games: int) -> str:
    """The title of a win/draw/loss table (English says "games" even for one)."""
    return ngettext(
        "win/draw/loss over {games:,} games in each seat",
        "win/draw/loss over {games:,} games in each seat",
        games,
    ).format(games=games)


def _wdl(record: Record) -> str:
    s = record.shares()
    return "/".join(number(s[k], ".3f") for k in ("win", "draw", "loss"))


def _print(record: dict[str, Any]) -> None:
    out.print(json.dumps(record), soft_wrap=True)


def _length_bins(lo: int, hi: int) -> list[tuple[int, int]]:
    """``lo..hi`` as at most LENGTH_ROWS ranges of equal width (the last may be shorter)."""
    width = -(-(hi - lo + 1) // LENGTH_ROWS)
    return [(a, min(a + width - 1, hi)) for a in range(lo, hi + 1, width)]


def _lengths_table(result: Evaluation, games: int) -> Table:
    """Games of each length against each opponent, both seats together, with the mean length
    in each seat and the shortest and longest game below."""
    seats = {name: r.lengths for name, r in result.matches.items() if r.lengths is not None}
    totals = {name: s.total for name, s in seats.items()}
    lo = min(t.shortest for t in totals.values())
    hi = max(t.longest for t in totals.values())
    table = Table(
        title=_("games by length in plies, both seats"),
        title_justify="left",
    )
    table.add_column(_("plies"), style="bold")
    for name in seats:
        table.add_column(name, justify="right")

    def count(lengths: Lengths, a: int, b: int) -> str:
        n = sum(lengths.counts[a : b + 1])
        return number(n, ",") if n else "·"

    for a, b in _length_bins(lo, hi):
        table.add_row(str(a) if a == b else f"{a}–{b}", *(count(t, a, b) for t in totals.values()))
    table.add_section()
    table.add_row(_("mean"), *(number(t.mean, ".2f") for t in totals.values()))
    table.add_row("  " + _("agent first"), *(number(s.first.mean, ".2f") for s in seats.values()))
    table.add_row("  " + _("agent second"), *(number(s.second.mean, ".2f") for s in seats.values()))
    table.add_row(_("shortest"), *(str(t.shortest) for t in totals.values()))
    table.add_row(_("longest"), *(str(t.longest) for t in totals.values()))
    return table


def _print_reply(result: Evaluation) -> None:
    """The best reply's lines per seat, or the one line saying why there was no search."""
    if result.best_reply is not None:
        for line in reply_lines(result.best_reply):
            out.print(line, markup=False)
    if result.best_reply_note is not None:
        out.print(result.best_reply_note, markup=False)
    if result.classes_note is not None:
        out.print(result.classes_note, markup=False)


@app.command("eval")
def eval_command(  # noqa: PLR0913 - the command's options
    policy: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="A policy file, or a built-in player (random, perfect, strongest, bouton, "
            "poles, poles-strict, subtraction) with --game.",
        ),
    ],
    spec: Annotated[
        str | None, typer.Option("--game", help="The game, for a built-in player.")
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help="Games in each seat against each opponent (1,000; 10 when judging by samples).",
        ),
    ] = None,
    seed: SeedOpt = 0,
    lengths: Annotated[
        bool,
        typer.Option(
            "--lengths", help="Also count how many plies the games lasted, against each opponent."
        ),
    ] = False,
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            help="Judge the moves on this many sampled decision positions, not on every one "
            "(2,000 by default for games too big to enumerate).",
        ),
    ] = None,
    positions: Annotated[
        Path | None,
        typer.Option(
            "--positions",
            help="Judge the moves on the positions in this file, one a line (the text form, "
            "or Connect Four's moves, like ddec or 4453); '#' starts a comment, so a judging "
            "set's lines (4453 # ==+=-=-) are read too.",
        ),
    ] = None,
    uniform: Annotated[
        int | None,
        typer.Option(
            "--uniform",
            help="Judge the moves on N decision positions drawn uniformly from all of them, "
            "each judged exactly from the game's tables: the share every position gives, "
            "estimated with its 95% interval, in seconds for a network on a big board (a game "
            "enumerated here).",
        ),
    ] = None,
    along_perfect: Annotated[
        int | None,
        typer.Option(
            "--along-perfect",
            help="Judge it where perfect play goes instead: its move at every decision position "
            "of N games of perfect play (each side picking at random among the moves that keep "
            "the value), and its record in N games moving first against perfect play.",
        ),
    ] = None,
    beat_seconds: Annotated[
        float | None,
        typer.Option(
            "--beat-seconds",
            metavar="S",
            help="Seconds the search for a line that beats it may take in each seat, on boards "
            "solved by search (60; 0 skips it).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """How good a trained agent is: exact optimality over every decision position, and its
    greedy play against random, perfect and the game's rule-based opponents in both seats.
    A built-in player (with --game) is judged the same way.

    Under the optimality, whether an opponent who knows its moves can beat it from the start
    in each seat, and by which line (as qarena beat says): exactly where every position is
    judged; on boards solved by search, a search for such a line within --beat-seconds in each
    seat, which says so where it found none ("proved": false with --json), never
    "unbeaten" unproved.

    --lengths adds how long those games were (the games themselves are the same): a table of
    games by length in plies, and with --json "lengths": {opponent: {"first": {plies: games},
    "second": {...}}}, where "first" holds the games the agent moved first.

    Games too big to enumerate (classic Connect Four) are judged by samples: each sampled
    decision position (from the player's games against random and perfect play, and from
    random openings) is judged exactly by search, and optimality comes with its 95% interval;
    --json then lists every position with the move chosen there and its verdict.
    """
    beat = check_seconds(
        DEFAULT_SECONDS if beat_seconds is None else beat_seconds, "--beat-seconds", zero=True
    )
    if along_perfect is not None:
        _check_along_perfect(
            games is not None,
            lengths,
            sample is not None,
            positions is not None,
            beat_seconds is not None,
        )
        if uniform is not None:
            raise QarenaError(
                _("--along-perfect judges along its own games; {flag} does not go with it")
                .format(flag="--uniform")
            )  # fmt: skip
        check_count("--along-perfect", along_perfect, MAX_SAMPLE)
        _check_seed(seed)
        _along_perfect(policy, spec, along_perfect, seed, as_json)
        return
    if games is not None:
        _check_games(games)
    if sample is not None:
        check_count("--sample", sample, MAX_SAMPLE)
    if uniform is not None:
        check_count("--uniform", uniform, MAX_SAMPLE)
    _check_seed(seed)
    lines = None if positions is None else _read_positions(positions)
    subject, game, heading = _subject(policy, spec)
    if uniform is not None:  # in the command line's words, before anything is judged
        check_uniform(
            game, sample=sample is not None, positions=positions is not None, lengths=lengths
        )
    given = _parsed(game, lines)
    if not isinstance(subject, Learner):  # a learner's game is enumerated: no wait to explain
        announce(game)
        # A network or a search is asked at every position, one by one or in batches; the
        # built-in players' moves come from the tables at once.
        plain = uniform is None and sample is None and positions is None
        if plain and (isinstance(subject, Trainable) or make_player(subject, game).thinks):
            _hint_uniform(game)
    answers = Oracle.of(game)
    with _judging(answers):
        result = api.judge(
            cast("PlayerLike", subject), game, games=games, seed=seed, lengths=lengths,
            sample=sample, positions=given, uniform=uniform,
            beat_seconds=beat,
        )  # fmt: skip
    said(answers)  # judged: why by search, where this machine cannot enumerate it
    if as_json:
        record = result.to_json()
        if isinstance(subject, Learner) and subject.preset is not None:
            record["preset"] = subject.preset
        _print(record)
        return
    out.print(heading)
    out.print(_optimality_text(result))
    _print_reply(result)
    played = next(iter(result.matches.values())).first.games if result.matches else 0
    table = Table(title=_wdl_title(played), title_justify="left")
    table.add_column(_("opponent"), style="bold")
    table.add_column(_("agent moves first"), justify="right")
    table.add_column(_("agent moves second"), justify="right")
    for name, seats in result.matches.items():
        table.add_row(name, _wdl(seats.first), _wdl(seats.second))
    out.print(table)
    if lengths:
        out.print(_lengths_table(result, played))


def reply_lines(found: BestReply) -> list[str]:
    """A line per seat: whether an opponent who knows its moves can beat it from the start,
    the start's value → what it gets against the best reply, and the line that beats it
    (short enough for 80 columns on tic-tac-toe and Nim). On a board solved by search, what
    the search found (or that it found no line within its budget, which proves nothing) and
    a line below with what it spent."""
    seats = {"first": _("moving first"), "second": _("moving second")}
    lines: list[str] = []
    for name, reply in found.seats.items():
        spent = reply.search
        if not reply.proved:
            assert spent is not None  # only a search stops short of a proof
            text = _(
                "{seat}: no line that beats it found within {positions} positions and "
                "{seconds}, which proves nothing either way"
            )
        elif reply.beaten and spent is not None and reply.secured > LOSS:
            # The search stops at the first mistake it proves: the opponent may force more.
            text = _("{seat}: beaten from the start, {value} → {secured} or worse by {line}")
        elif reply.beaten:
            text = _("{seat}: beaten from the start, {value} → {secured} by {line}")
        else:
            text = _("{seat}: unbeaten from the start, {value} → {secured}")
        lines.append(
            text.format(
                seat=seats[name],
                value=value_word(reply.value),
                secured=value_word(reply.secured),
                line=" ".join(reply.line_text),
                positions=number(spent.max_positions, ",") if spent else "",
                seconds=seconds_text(spent.max_seconds, ",g") if spent else "",
            )
        )
        if spent is not None:
            lines.append(
                _("  (searched {positions} positions in {seconds})").format(
                    positions=number(spent.positions, ","),
                    seconds=seconds_text(spent.seconds, ".1f"),
                )
            )
    return lines


def _check_along_perfect(
    games: bool, lengths: bool, sample: bool, positions: bool, beat: bool = False
) -> None:
    """--along-perfect plays its own games: refuse the options that set others."""
    given = (("--games", games), ("--lengths", lengths), ("--sample", sample),
             ("--positions", positions), ("--beat-seconds", beat))  # fmt: skip
    for flag, used in given:
        if used:
            raise QarenaError(
                _("--along-perfect judges along its own games; {flag} does not go with it")
                .format(flag=flag)
            )  # fmt: skip


def _subject(policy: str, spec: str | None) -> tuple[str | Trainable, Game, Text]:
    """What ``eval`` judges (a built-in's name, a network or a learner), its game, and the
    heading its report goes under."""
    shipped = builtin_game(policy)
    if shipped is not None and spec is None:  # the shipped network plays its own board
        spec = shipped.spec
    if is_builtin(policy):
        if spec is None:
            raise no_game(policy)
        game = parse_spec(spec)
        heading = styled(
            _("[bold]The {player} player[/] on {game}  [dim]{spec}[/]"),
            player=policy,
            game=game.title,
            spec=game.spec,
        )
        return policy, game, heading
    loaded = load_file(policy, parse_spec(spec) if spec is not None else None)
    if not isinstance(loaded, Learner):
        net = loaded
        heading = styled(
            ngettext(
                "[bold]{learner}[/] on {game}  [dim]{spec}, {count:,} game[/]",
                "[bold]{learner}[/] on {game}  [dim]{spec}, {count:,} games[/]",
                net.episodes,
            ),
            learner=net.title,
            game=net.game.title,
            spec=net.game.spec,
            count=net.episodes,
        )
        return net, net.game, heading
    learner = loaded
    game = learner.game
    heading = styled(
        ngettext(
            "[bold]{learner}[/] on {game}  [dim]{spec}, {count:,} episodes[/]",
            "[bold]{learner}[/] on {game}  [dim]{spec}, {count:,} episodes[/]",
            learner.episodes,
        ),
        learner=title(learner),
        game=game.title,
        spec=game.spec,
        count=learner.episodes,
    )
    if learner.preset is not None:  # the write-up's method it was trained by, and what differs
        heading.append_text(
            styled("\n[dim]{label}: {text}[/]", label=_("preset"), text=record_text(learner.preset))
        )
    return learner, game, heading


#: Positions past which judging a player that is not a table at every one is long enough
#: (a network evaluated at each, a search run at each) to say how to estimate it instead.
LONG_POSITIONS = 20_000_000


def _hint_uniform(game: Game) -> None:
    """On a big enumerated board, say before a long wait that --uniform estimates it."""
    if Oracle.of(game).searched:
        return
    positions = estimate_positions(game)
    if positions > LONG_POSITIONS:
        err.print(
            _(
                "Judging the player at every decision position of {spec} (about {count:,} "
                "positions) asks it at each and may take long; --uniform 100000 estimates the "
                "share in about a minute."
            ).format(spec=game.spec, count=positions),
            markup=False,
            soft_wrap=True,
        )


def _optimality_text(result: Evaluation) -> str:
    """The optimality line: exact, or by samples with its 95% interval."""
    o = result.optimality
    if result.sample is None:
        return _(
            "optimality {share:.4f}: keeps the value in {optimal:,} of {decisions:,} "
            "decision positions"
        ).format(share=o.share, optimal=o.optimal, decisions=o.decisions)
    low, high = result.sample.interval
    if result.sample.source == "uniform":
        return _(
            "optimality {share:.4f} over {decisions:,} decision positions drawn uniformly from "
            "all of them (95% interval {low:.4f} to {high:.4f})"
        ).format(share=o.share, decisions=o.decisions, low=low, high=high)
    listed = result.sample.source != "sampled"
    # "± m" only where the interval is about even on both sides of the share; near 0 or
    # 1 (Wilson's interval is lopsided there) the interval alone says it.
    even = abs((high - o.share) - (o.share - low)) <= 0.1 * (high - low)
    if even:
        text = (
            _(
                "optimality {share:.3f} ± {margin:.3f} over the {decisions:,} given "
                "positions (95% interval {low:.3f} to {high:.3f})"
            )
            if listed
            else _(
                "optimality {share:.3f} ± {margin:.3f} over {decisions:,} sampled decision "
                "positions (95% interval {low:.3f} to {high:.3f})"
            )
        )
    else:
        text = (
            _(
                "optimality {share:.3f} over the {decisions:,} given positions (95% "
                "interval {low:.3f} to {high:.3f})"
            )
            if listed
            else _(
                "optimality {share:.3f} over {decisions:,} sampled decision positions (95% "
                "interval {low:.3f} to {high:.3f})"
            )
        )
    return text.format(
        share=o.share, margin=result.sample.margin, decisions=o.decisions, low=low, high=high
    )


def _judging(answers: Oracle) -> contextlib.AbstractContextManager[object]:
    """A spinner while a board solved by search is judged (perfect play searches each of its
    moves, so this takes a while); nothing for the others, which are quick."""
    if answers.searched:
        return err.status(_("judging by samples: playing the games and searching the positions…"))
    return contextlib.nullcontext()


def _parsed(game: Game, lines: list[str] | None) -> list[Position] | None:
    """The positions of a --positions file, each checked before any work starts."""
    return None if lines is None else given_positions(game, lines, "--positions")


def _read_positions(path: Path) -> list[str]:
    """The lines of a --positions file (blank ones and ``#`` comments skipped), read within
    the budget of a sample: a piece at a time, so that a line longer than any position
    (a file of one 2 GB line, /dev/zero) is refused once it is that long, not read whole;
    a UTF-8 byte-order mark, as some editors write, is skipped."""
    lines: list[str] = []
    held = b""  # the start of a line whose end has not been read yet
    read = 0
    try:
        # Not a named pipe: it would wait for a writer for ever.
        with open_to_read(path) as f:
            while chunk := f.read(READ_CHUNK):
                if read == 0 and chunk.startswith(codecs.BOM_UTF8):
                    chunk = chunk[len(codecs.BOM_UTF8) :]
                read += len(chunk)
                if read > MAX_POSITIONS_BYTES:
                    raise QarenaError(
                        _("{file} is larger than any list of positions ({most})").format(
                            file=path, most=format_bytes(MAX_POSITIONS_BYTES)
                        )
                    )
                *whole, held = (held + chunk).split(b"\n")
                for raw in whole:
                    _keep(path, raw, lines)
                if len(held) > MAX_LINE_BYTES:
                    _keep(path, held, lines)  # refuses it: longer than any position
            _keep(path, held, lines)
    except OSError as e:
        raise QarenaError(
            _("cannot read positions from {file}: {reason}").format(
                file=path, reason=e.strerror or e
            )
        ) from e
    if not lines:
        raise QarenaError(_("{file} holds no positions").format(file=path))
    return lines


def _keep(path: Path, raw: bytes, lines: list[str]) -> None:
    """One line of a --positions file, added to ``lines`` unless blank or a comment; a
    trailing ``# comment`` is dropped."""
    if len(raw) > MAX_LINE_BYTES:
        raise QarenaError(_("{file} has a line longer than any position").format(file=path))
    try:
        line = raw.decode("utf-8").strip()
    except UnicodeDecodeError as e:
        raise QarenaError(
            _("cannot read positions from {file}: {reason}").format(file=path, reason=e)
        ) from e
    # A trailing " # comment" (a judging set's move values) is not part of the position: no
    # game's text form has a '#'.
    line = line.split("#", 1)[0].strip()
    if line:
        lines.append(line)
        if len(lines) > MAX_SAMPLE:
            raise QarenaError(
                _("{file} has more than {most:,} positions").format(file=path, most=MAX_SAMPLE)
            )


@app.command("compete")
def compete_command(
    first: PlayerA,
    second: PlayerB,
    spec: PlayersGameOpt = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help="Games each player opens (1,000; 10 on boards solved by search or with a "
            "player that thinks); with --openings, games from each opening with each side to "
            "move (1).",
        ),
    ] = None,
    seed: SeedOpt = 0,
    openings: Annotated[
        Path | None,
        typer.Option(
            "--openings",
            help="A file of opening positions, one a line (the game's text form, or Connect "
            "Four's move digits; blank lines and # comments skipped): each is played from both "
            "sides, A to move there and B to move there.",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Two players of the same game play each other, each moving first in turn: trained agents
    (policy files) or built-in players. With --openings, from each opening of a file instead,
    as engine testers play opening suites."""
    if games is not None:
        _check_games(games)
    _check_seed(seed)
    if spec is None and all(is_builtin(x) and builtin_game(x) is None for x in (first, second)):
        raise no_game(first, second)
    # The reader drops a trailing "# comment" as it does for --positions.
    lines = None if openings is None else _read_positions(openings)
    # A spinner on a terminal: games played move by move (a player that thinks, a board
    # solved by search) take a while, and a silent minute looks like a hang.
    with err.status(_("playing the games…")):
        result = api.compete(first, second, spec, games=games, seed=seed, openings=lines)
    if result.oracle is not None:
        said(result.oracle)
    games = result.a_first.games
    game = api.game(result.game)
    players = result.players
    a_first, b_first = result.a_first, result.b_first
    if as_json:
        record: dict[str, Any] = {
            "game": game.spec,
            "a": first,
            "b": second,
            "games": games,
            "a_first": a_first.shares(),
            "b_first": b_first.shares(),
            "oracle": None if result.oracle is None else result.oracle.record(),
        }
        if result.openings:
            found = result.to_json()
            record.update(games_each=found["games_each"], openings=found["openings"])
        _print(record)
        return

    def who(i: int) -> str:
        return about(players[i])

    if result.openings:
        _print_openings(result, game, f"A: {first} ({who(0)})", f"B: {second} ({who(1)})")
        return
    table = Table()
    table.add_column(_("order"), style="bold")
    table.add_column(_("A wins"), justify="right")
    table.add_column(_("draws"), justify="right")
    table.add_column(_("B wins"), justify="right")
    orders = ((_("A first"), a_first), (_("B first"), b_first), (_("both"), a_first + b_first))
    for name, r in orders:
        table.add_row(name, *(number(n, ",") for n in (r.win, r.draw, r.loss)))
    out.print(
        styled(
            ngettext(
                "[bold]{game}[/]  [dim]{spec}, {games:,} game in each order[/]",
                "[bold]{game}[/]  [dim]{spec}, {games:,} games in each order[/]",
                games,
            ),
            game=game.title,
            spec=game.spec,
            games=games,
        )
    )
    out.print(f"A: {first} ({who(0)})")
    out.print(f"B: {second} ({who(1)})")
    out.print(table)


#: Most openings ``qarena compete --openings`` shows a row for; more show only the totals.
MAX_OPENING_ROWS = 30


def _cells(record: Record) -> str:
    """A's record in one cell: A wins/draws/B wins."""
    return "/".join(number(n, ",") for n in (record.win, record.draw, record.loss))


def _print_openings(result: api.Competition, game: Game, a: str, b: str) -> None:
    """The table of a match from openings: a row for each (when there are few enough to read),
    then the totals, each as A's record with A and with B to move at the openings."""
    each = result.openings[0].a_to_move.games
    count = len(result.openings)
    out.print(
        styled(
            "[bold]{game}[/]  [dim]{spec}, {openings}, {games}[/]",
            game=game.title,
            spec=game.spec,
            openings=ngettext("{count:,} opening", "{count:,} openings", count).format(count=count),
            games=ngettext(
                "{games:,} game each way",
                "{games:,} games each way",
                each,
            ).format(games=each),
        )
    )
    out.print(a)
    out.print(b)
    table = Table()
    if count <= MAX_OPENING_ROWS:
        table.add_column(_("opening"), style="bold")
        table.add_column(_("to move"))
        table.add_column(_("value"))
        table.add_column(_("A to move"), justify="right")
        table.add_column(_("B to move"), justify="right")
        for o in result.openings:
            table.add_row(
                o.opening,
                game.seat(o.position) or "",
                "—" if o.value is None else value_word(o.value),
                _cells(o.a_to_move),
                _cells(o.b_to_move),
            )
        table.add_section()
        table.add_row(_("all"), "", "", _cells(result.a_first), _cells(result.b_first))
        out.print(table)
        out.print(
            _(
                "Each cell: A wins/draws/B wins. Value: the opening's for the side to move "
                "with perfect play (— where only a search would tell)."
            ),
            style="dim",
        )
        return
    table.add_column(_("side to move"), style="bold")
    table.add_column(_("A wins"), justify="right")
    table.add_column(_("draws"), justify="right")
    table.add_column(_("B wins"), justify="right")
    totals = (
        (_("A to move"), result.a_first),
        (_("B to move"), result.b_first),
        (_("both"), result.total),
    )
    for name, r in totals:
        table.add_row(name, *(number(n, ",") for n in (r.win, r.draw, r.loss)))
    out.print(table)


def _names(option_name: str, text: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """A comma-separated list of players, each one of ``allowed``, none twice."""
    names = tuple(name.strip() for name in text.split(","))
    for name in names:
        if name not in allowed:
            raise QarenaError(
                _("{option}: unknown player {name!r}; expected one of {names}").format(
                    option=option_name, name=name, names=", ".join(allowed)
                )
            )
    if len(set(names)) < len(names):
        raise QarenaError(
            _("{option} names a player twice: {names}").format(option=option_name, names=text)
        )
    return names


@app.command("matrix")
def matrix_command(  # noqa: PLR0913 - the command's options
    spec: SpecArg,
    learner_kind: LearnerOpt = "q",
    episodes: EpisodesOpt = None,
    games: GamesOpt = 1000,
    seed: SeedOpt = 0,
    trainers: Annotated[
        str,
        typer.Option(
            help="Whom a fresh agent learns from, one row each, separated by commas: self or "
            "any built-in player of the game (random, perfect, strongest, its rule players).",
        ),
    ] = ",".join(MATRIX_TRAINING),
    judges: Annotated[
        str,
        typer.Option(
            help="Whom each agent is measured against, separated by commas: any built-in "
            "player of the game.",
        ),
    ] = ",".join(MATRIX_EVALUATION),
    seat: Annotated[
        str,
        typer.Option(
            help="The agent's seat while it learns from a player: first, second, or both "
            "(alternating); self-play takes both.",
        ),
    ] = "both",
    as_json: JsonOpt = False,
) -> None:
    """Train one agent against each trainer (by default itself, random and perfect play) and
    measure each against each judge (random and perfect play): what an agent learns depends on
    whom it learns from."""
    game = parse_spec(spec)
    cls = table_class(learner_kind)
    if episodes is not None:
        check_count("--episodes", episodes, MAX_EPISODES)
    _check_games(games)
    _check_seed(seed)
    training = _names("--trainers", trainers, ("self", *players_of(game)))
    evaluation = _names("--judges", judges, players_of(game))
    check_versus(False, seat, {})
    announce(game)
    masks = strategy_masks(game_tables(game), evaluation)
    rows: dict[str, tuple[int, float, dict[str, SeatRecords]]] = {}
    for trained_against in training:

        def status(n: int, trained_against: str = trained_against) -> Any:
            return err.status(
                ngettext(
                    "training against {opponent}: {count:,} episodes…",
                    "training against {opponent}: {count:,} episodes…",
                    n,
                ).format(opponent=trained_against, count=n)
            )

        row = matrix_row(
            game,
            cls.kind,
            trained_against,
            masks,
            episodes=episodes,
            games=games,
            seed=seed,
            seat=seat,
            status=status,
        )
        rows[trained_against] = (row.episodes, row.optimality, row.records)
    if as_json:
        _print(
            {
                "game": game.spec,
                "learner": cls.kind,
                "games": games,
                "seat": seat,
                "rows": {
                    name: {
                        "episodes": n,
                        "optimality": share,
                        "matches": {k: v.shares() for k, v in records.items()},
                        "counts": {
                            k: {
                                s: {"win": r.win, "draw": r.draw, "loss": r.loss}
                                for s, r in (("first", v.first), ("second", v.second))
                            }
                            for k, v in records.items()
                        },
                    }
                    for name, (n, share, records) in rows.items()
                },
            }
        )
        return
    counts = sorted({n for n, _share, _records in rows.values()})
    out.print(
        styled(
            ngettext(
                "[bold]{learner}[/] on {game}  [dim]{spec}, {counts} episodes each[/]",
                "[bold]{learner}[/] on {game}  [dim]{spec}, {counts} episodes each[/]",
                counts[-1],
            ),
            learner=title(cls),
            game=game.title,
            spec=game.spec,
            counts=" / ".join(number(n, ",") for n in counts),
        )
    )
    if seat != "both":
        out.print(_("against a player, the agent learns in the {seat} seat").format(seat=seat))
    table = Table(
        title=_wdl_title(games),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column(_("trained vs"), style="bold", no_wrap=True)
    table.add_column(_("optimality"), justify="right", no_wrap=True)
    table.add_column(_("plays"), no_wrap=True)
    table.add_column(_("agent first"), justify="right", no_wrap=True)
    table.add_column(_("agent second"), justify="right", no_wrap=True)
    for name, (_n, share, records) in rows.items():
        for i, opp_name in enumerate(evaluation):
            seats = records[opp_name]
            lead = [name, number(share, ".4f")] if i == 0 else ["", ""]
            table.add_row(*lead, opp_name, _wdl(seats.first), _wdl(seats.second))
        table.add_section()
    out.print(table)


def _along_perfect(policy: str, spec: str | None, games: int, seed: int, as_json: bool) -> None:
    """qarena eval --along-perfect N: the player's moves along N games of perfect play, and
    its record in N games moving first against perfect play, every move judged exactly."""
    if is_builtin(policy) and spec is None and builtin_game(policy) is None:
        raise no_game(policy)
    game = parse_spec(spec) if spec is not None else None
    who = make_player(policy, game, seed=seed)
    game = who.game
    announce(game)
    answers = Oracle.of(game)
    with _judging(answers):
        optimality, record = along_perfect_play(who, answers.exact(), games, seed)
    said(answers)
    low, high = wilson(optimality.optimal, optimality.decisions)
    if as_json:
        _print(
            {
                "game": game.spec,
                "player": who.name,
                "games": games,
                "seed": seed,
                "decisions": optimality.decisions,
                "optimal": optimality.optimal,
                "optimality": optimality.share,
                "interval": [low, high],
                "first_against_perfect": {
                    "win": record.win, "draw": record.draw, "loss": record.loss
                },
                "oracle": answers.record(),
            }
        )  # fmt: skip
        return
    out.print(
        styled(
            _("[bold]{player}[/] on {game}  [dim]{spec}[/]"),
            player=who.name,
            game=game.title,
            spec=game.spec,
        )
    )
    out.print(
        ngettext(
            "optimality {share:.4f} along {games:,} game of perfect play: keeps the value in "
            "{optimal:,} of its {decisions:,} decision positions (95% interval {low:.3f} to "
            "{high:.3f})",
            "optimality {share:.4f} along {games:,} games of perfect play: keeps the value in "
            "{optimal:,} of their {decisions:,} decision positions (95% interval {low:.3f} to "
            "{high:.3f})",
            games,
        ).format(
            share=optimality.share,
            games=games,
            optimal=optimality.optimal,
            decisions=optimality.decisions,
            low=low,
            high=high,
        )
    )
    out.print(
        _(
            "moving first against perfect play: {win:,} won, {draw:,} drawn, {loss:,} lost "
            "({share:.1%} won)"
        ).format(win=record.win, draw=record.draw, loss=record.loss, share=record.win / games)
    )
