"""qarena eval and matrix: how good agents are, judged by the solver (at every decision
position, on samples, on a uniform sample or along perfect play) and in matches; matrix trains a
fresh agent against each trainer and judges each. Their results read as ``judged_text`` writes
them; ``qarena compete`` is in ``competing``."""

from __future__ import annotations

import contextlib
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
from qarena.budget import MAX_EPISODES, check_count, check_seed, estimate_positions
from qarena.cli.common import (
    EpisodesOpt,
    LearnerOpt,
    SpecArg,
    announce,
    app,
    err,
    out,
    print_route,
    styled,
    title,
)
from qarena.cli.judged_text import (
    lengths_table,
    optimality_text,
    print_json,
    print_reply,
    wdl,
    wdl_title,
)
from qarena.cli.match_options import GamesOpt, JsonOpt, SeedOpt, check_games
from qarena.cli.position_files import read_positions
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.exact.space import game_tables
from qarena.games import Game, Position, parse_spec
from qarena.i18n import _, ngettext, number
from qarena.judging.along_play import along_perfect_play
from qarena.judging.evaluation import strategy_masks
from qarena.judging.family import family_of
from qarena.judging.refutation import DEFAULT_SECONDS, check_seconds
from qarena.judging.sampled import MAX_SAMPLE, given_positions, wilson
from qarena.judging.uniform import check_uniform
from qarena.learn.family import Trainable
from qarena.learn.learners import table_class
from qarena.learn.presets import record_text
from qarena.show.matches import SeatRecords
from qarena.training.run import check_versus, matrix_row

#: What ``qarena matrix`` trains against, and what it measures against, unless told.
MATRIX_TRAINING = ("self", "random", "perfect")


MATRIX_EVALUATION = ("random", "perfect")


@app.command("eval")
def eval_command(  # noqa: PLR0913 - the command's options
    policy: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="A policy file, or a built-in player (random, perfect, strongest, bouton, "
            "poles, poles-strict, subtraction) with --game; or {spec_players}.",
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
        check_seed(seed)
        _along_perfect(policy, spec, along_perfect, seed, as_json)
        return
    if games is not None:
        check_games(games)
    if sample is not None:
        check_count("--sample", sample, MAX_SAMPLE)
    if uniform is not None:
        check_count("--uniform", uniform, MAX_SAMPLE)
    check_seed(seed)
    lines = None if positions is None else read_positions(positions)
    subject, game, heading = _subject(policy, spec)
    if uniform is not None:  # in the command line's words, before anything is judged
        check_uniform(
            game, sample=sample is not None, positions=positions is not None, lengths=lengths
        )
    given = _parsed(game, lines)
    loaded = subject if not isinstance(subject, str) else None
    if loaded is None or family_of(loaded).table(loaded) is None:
        # A table learner's game is enumerated: no wait to explain.
        announce(game)
        # A network or a search is asked at every position, one by one or in batches; the
        # built-in players' moves come from the tables at once.
        plain = uniform is None and sample is None and positions is None
        if plain and (loaded is not None or make_player(subject, game).thinks):
            _hint_uniform(game)
    answers = Oracle.of(game)
    with _judging(answers):
        result = api.judge(
            cast("PlayerLike", subject), game, games=games, seed=seed, lengths=lengths,
            sample=sample, positions=given, uniform=uniform,
            beat_seconds=beat,
        )  # fmt: skip
    print_route(answers)  # judged: why by search, where this machine cannot enumerate it
    if as_json:
        record = result.to_json()
        if loaded is not None and loaded.preset is not None:
            record["preset"] = loaded.preset
        print_json(record)
        return
    out.print(heading)
    out.print(optimality_text(result))
    print_reply(result)
    played = next(iter(result.matches.values())).first.games if result.matches else 0
    table = Table(title=wdl_title(played), title_justify="left")
    table.add_column(_("opponent"), style="bold")
    table.add_column(_("agent moves first"), justify="right")
    table.add_column(_("agent moves second"), justify="right")
    for name, seats in result.matches.items():
        table.add_row(name, wdl(seats.first), wdl(seats.second))
    out.print(table)
    if lengths:
        out.print(lengths_table(result, played))


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
    learner = family_of(loaded).table(loaded)
    if learner is None:
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


def _judging(answers: Oracle) -> contextlib.AbstractContextManager[object]:
    """A spinner while a board solved by search is judged (perfect play searches each of its
    moves, so this takes a while); nothing for the others, which are quick."""
    if answers.searched:
        return err.status(_("judging by samples: playing the games and searching the positions…"))
    return contextlib.nullcontext()


def _parsed(game: Game, lines: list[str] | None) -> list[Position] | None:
    """The positions of a --positions file, each checked before any work starts."""
    return None if lines is None else given_positions(game, lines, "--positions")


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
    check_games(games)
    check_seed(seed)
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
        print_json(
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
        title=wdl_title(games),
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
            table.add_row(*lead, opp_name, wdl(seats.first), wdl(seats.second))
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
    print_route(answers)
    low, high = wilson(optimality.optimal, optimality.decisions)
    if as_json:
        print_json(
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
