"""The report's question of the term paper's pole-position strategy (:func:`pole_positions`):
how often it keeps the value on 3-5-7 Nim and the paper's other boards, played with the
endgame watched and as a strict rule, and where the strict rule gives a win away."""

from __future__ import annotations

import numpy as np

from qarena.agents.strategies import make_agent
from qarena.exact import game_tables, solve
from qarena.experiments.grid import Grid
from qarena.experiments.report.lab import Figure, Lab, Section, TableData, decimals, run_path
from qarena.experiments.sweep_figures import render_bars
from qarena.games import Game, parse_spec, value_word
from qarena.i18n import _
from qarena.judging.evaluation import strategy_mask
from qarena.judging.tables import optimality_of_values
from qarena.learn.learners import load_table
from qarena.show.matches import play_series


def _two_ones(position: tuple[int, ...]) -> bool:
    return sorted(h for h in position if h) == [1, 1]


def pole_positions(lab: Lab) -> Section:
    # The term paper's own boards: its game and the two others it names, on which "the known
    # strategy no longer necessarily works" (all three are small: quick or not).
    specs = ("nim:3,5,7", "nim:1,2,3,4,5", "nim:2,6,7,8")
    section = Section(
        "poles",
        _("The pole-position strategy"),
        _(
            "How good is the human 'pole positions' strategy for 3-5-7 Nim: "
            "leave 1-1-1, 1-2-3, 2-4-6, 1-4-5 or two equal piles, else take one match? The "
            "term paper tells a person to watch the endgame: take a win that is there at once, "
            "and never leave two equal piles of one (1-1-0), a pole position by the rule that "
            "loses in misère play. We measure the strategy so played (poles) and the rule "
            "without that care (poles-strict), on 3-5-7 and on the paper's other boards, "
            "1-2-3-4-5 and 2-6-7-8, where it says the known strategy no longer necessarily "
            "works."
        ),
    )
    table_rows = []
    trap_rows: list[tuple[str, ...]] = []
    for spec in specs:
        game = parse_spec(spec)
        name = "poles-" + spec.replace(":", "-").replace(",", "-")
        folder, rows, command = lab.sweep(name, spec, Grid(("q",), {}))
        section.commands.append(command)
        tables = game_tables(game)
        shares = {}
        for player in ("poles", "poles-strict"):
            mask = strategy_mask(tables, player)
            shares[player] = optimality_of_values(tables, mask.astype(np.float64)).share
        poles = strategy_mask(tables, "poles")
        learner = load_table(run_path(folder, rows[0]))
        best = learner.best_moves()
        if learner.config.canonical != tables.canonical:
            best = learner.tables.lift(best, tables)
        b_first = play_series(tables, poles, best, lab.games, 0, "compete/b-first").flipped()
        mistakes, _traps = _pole_mistakes(game, [], "poles")
        strict, traps = _pole_mistakes(game, trap_rows, "poles-strict")
        table_rows.append(
            (
                game.spec,
                decimals(shares["poles"]),
                str(mistakes),
                decimals(shares["poles-strict"]),
                str(strict),
                str(traps),
                decimals(b_first.shares()["win"]),
            )
        )
        for player in ("poles", "poles-strict"):
            section.commands.append(f"qarena eval {player} --game {game.spec} --games {lab.games}")
        section.commands.append(
            f"qarena compete {folder.path(rows[0].run)} poles --games {lab.games}"
        )
    section.tables.append(
        TableData(
            (
                _("game"),
                _("poles: optimality"),
                _("positions poles misplays"),
                _("poles-strict: optimality"),
                _("positions poles-strict misplays"),
                _("of them into 1-1-0"),
                _("agent wins, poles first"),
            ),
            table_rows,
            _(
                "The agent is qarena train's default Q-learner (perfect play); positions counted "
                "one per symmetry class."
            ),
        )
    )
    section.tables.append(
        TableData(
            (
                _("game"),
                _("position"),
                _("poles-strict plays"),
                _("leaves"),
                _("value then"),
                _("the solver plays"),
            ),
            trap_rows[:12],
            _(
                "Some positions where the strict rule gives up a win by leaving 1-1-0 (the "
                "first few of each game)."
            ),
        )
    )
    section.figures.append(
        Figure(
            _("Optimality of the pole-position strategy on each game"),
            render_bars(
                [r[0] for r in table_rows],
                {
                    _("poles (endgame watched)"): [[float(r[1])] for r in table_rows],
                    _("poles-strict"): [[float(r[3])] for r in table_rows],
                },
                (_("game"), _("optimality (share of decision positions)")),
                _("How often the pole-position strategy keeps the value"),
                "png",
                reference=(_("perfect play"), 1.0),
            ),
        )
    )
    first = table_rows[0]
    section.finding = _(
        "Played as the paper means it, the strategy keeps the value in {share:.1%} of the "
        "decision positions of {game} ({mistakes} misplayed); as a strict rule in "
        "{strict:.1%} ({count} misplayed, {trapped} of them by leaving 1-1-0). Against the "
        "strategy opening, the learned agent wins {answers:.1%} of the games. Played so, "
        "the strategy is perfect on {perfect} of the {games} games measured."
    ).format(
        perfect=sum(r[2] == "0" for r in table_rows),
        games=len(table_rows),
        share=float(first[1]),
        game=first[0],
        mistakes=int(first[2]),
        strict=float(first[3]),
        count=int(first[4]),
        trapped=int(first[5]),
        answers=float(first[6]),
    )
    section.commands.append("qarena explain nim:3,5,7 --position '0 1 2'")
    return section


def _pole_mistakes(game: Game, examples: list[tuple[str, ...]], player: str) -> tuple[int, int]:
    """Positions (one per class) where the pole-position ``player`` loses the value, and how
    many of those leave 1-1-0; appends a few examples of the latter."""
    tables = game_tables(game)
    solution = solve(game)
    agent = make_agent(player, game)
    mistakes = traps = shown = 0
    for row in np.flatnonzero(tables.live):
        position = tables.position(int(row))
        values = solution.move_values(position)
        if len(set(values.values())) < 2:
            continue
        move = agent.act(position)
        if values[move] == max(values.values()):
            continue
        mistakes += 1
        after = game.apply(position, move)
        trap = _two_ones(tuple(after))
        traps += trap
        if shown < 3 and trap:
            shown += 1
            good = solution.optimal_moves(position)[0]
            examples.append(
                (
                    game.spec,
                    game.format_position(position),
                    game.format_move(move),
                    game.format_position(after),
                    _("{value} for {player}").format(value=value_word(values[move]), player=player),
                    game.format_move(good),
                )
            )
    return mistakes, traps


__all__ = ["pole_positions"]
