"""The report's questions that set learners side by side: episodes and seconds each needs to
reach perfect play (:func:`learners_compared`), and a table, an n-tuple network and the
AlphaZero learner on tic-tac-toe, judged over every position (:func:`alphazero_judged`)."""

from __future__ import annotations

import importlib.util
import statistics

from qarena.agents.players import load_file
from qarena.experiments.grid import Grid
from qarena.experiments.report.lab import (
    BASELINES,
    Figure,
    Lab,
    Section,
    TableData,
    decimals,
    mean_of,
    run_path,
)
from qarena.experiments.sweep_figures import render_bars
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.show.figures import PlotRun, render_curves


def learners_compared(lab: Lab) -> Section:
    specs = ["nim:3,5,7", "subtraction:12:3", "tictactoe"]
    learners = ("q", "afterstate", "matchbox", "naive-q", "elimination")
    section = Section(
        "learners",
        _("Learners compared"),
        _(
            "Episodes and seconds each learner needs to reach perfect play with its default "
            "settings, stopping as soon as the solver finds its play perfect. naive-q (one-step "
            "Q-learning without the two-player sign flip) and elimination (the 12-stick "
            "write-up's first version: the matchbox learner without propagating its bans) are "
            "baselines that show what the sign flip and the propagation add."
        ),
    )
    big = [] if lab.quick else ["tictactoe:4x4", "connect4:4x5"]
    table_rows = []
    # Per learner: (runs that reached perfect play, runs), per game.
    reached_of: dict[str, list[tuple[int, int]]] = {}
    episodes_to: dict[str, dict[str, list[float]]] = {}
    for spec in [*specs, *big]:
        game = parse_spec(spec)
        kinds = ("q",) if spec in big else learners
        name = "learners-" + spec.replace(":", "-").replace(",", "-")
        seeds = (0,) if spec in big else lab.seeds(3)
        grid = Grid(tuple(k for k in kinds if k not in BASELINES), {}, seeds=seeds)
        _folder, rows, command = lab.sweep(name, spec, grid, until_perfect=True)
        section.commands.append(command)
        if spec not in big:
            # The baselines' own defaults are short; they get far longer to show they never
            # get there.
            long = Grid(BASELINES, {}, episodes=(lab.baseline_episodes,), seeds=seeds)
            _folder, more, command = lab.sweep(name, spec, long, until_perfect=True)
            rows += more
            section.commands.append(command)
        for kind in kinds:
            mine = [r for r in rows if r.learner == kind]
            reached = [r for r in mine if r.perfect_at is not None]
            at = [r.perfect_at for r in mine if r.perfect_at is not None]
            if reached:
                episodes_to.setdefault(kind, {})[game.spec] = [float(x) for x in at]
            reached_of.setdefault(kind, []).append((len(reached), len(mine)))
            table_rows.append(
                (
                    game.spec,
                    kind,
                    _("{count} of {total}").format(count=len(reached), total=len(mine)),
                    f"{statistics.median(at):,.0f}"
                    if reached
                    else _("not within {episodes:,}").format(
                        episodes=max(r.episodes for r in mine)
                    ),
                    f"{mean_of([r.train_seconds for r in reached]):.3f}" if reached else "-",
                    decimals(mean_of([r.optimality for r in mine])),
                )
            )
    games = [parse_spec(s).spec for s in [*specs, *big]]
    section.figures.append(
        Figure(
            _("Episodes to perfect play per learner and game"),
            render_bars(
                games,
                {k: [v.get(g, []) for g in games] for k, v in episodes_to.items()},
                (_("game"), _("episodes to perfect play (log scale; dots: seeds)")),
                _("Learners compared: episodes to perfect play"),
                "png",
                log=True,
            ),
        )
    )
    section.tables.append(
        TableData(
            (
                _("game"),
                _("learner"),
                _("perfect in"),
                _("episodes to perfect (median)"),
                _("seconds (mean)"),
                _("final optimality"),
            ),
            table_rows,
            _(
                "Seconds of training to the stop, kernel calls only. Optimality is checked every "
                "1% of a run, and at least every 1,000 episodes: a learner perfect sooner shows "
                "1,000. The baselines train for {episodes:,} episodes unless perfect before."
            ).format(episodes=lab.baseline_episodes),
        )
    )
    always = [k for k in learners if all(n == m for n, m in reached_of.get(k, []))]
    never = [k for k in learners if all(n == 0 for n, _m in reached_of.get(k, []))]
    if never:
        finding = _(
            "Perfect play on every game and seed: {always}. Never perfect: {never}. q, "
            "afterstate and matchbox credit a move with what the opponent can make of the "
            "position it leaves, negated; naive-q adds the next position's value without the "
            "sign flip, and elimination bans a losing move without passing the ban back."
        )
    else:
        finding = _(
            "Perfect play on every game and seed: {always}. q, afterstate and matchbox credit "
            "a move with what the opponent can make of the position it leaves, negated; "
            "naive-q adds the next position's value without the sign flip, and elimination "
            "bans a losing move without passing the ban back."
        )
    section.finding = finding.format(always=", ".join(always) or _("none"), never=", ".join(never))
    return section


#: The learners the AlphaZero section sets side by side on tic-tac-toe, each with its games of
#: self-play (None: its default; the quick report's count second).
SIDE_BY_SIDE = (("q", None, None), ("ntuple", None, 10_000), ("alphazero", 2_000, 256))


def alphazero_judged(lab: Lab) -> Section:
    """A table, an n-tuple network and the AlphaZero learner on tic-tac-toe, their curves on
    one chart by optimality over all positions (a network's over its uniform sample) and
    each judged over every decision position at the end."""
    spec = "tictactoe"
    section = Section(
        "alphazero",
        _("AlphaZero, judged"),
        _(
            "How far from perfect play is a policy-value network trained through its own "
            "search, beside a Q-table and an n-tuple network on the same board? Each learns by "
            "self-play with its default settings, for the games the table gives; each curve "
            "point of a network judges 20,000 decision positions drawn uniformly from all of "
            "them, each exactly, and every run ends judged over every decision position."
        ),
    )
    if importlib.util.find_spec("torch") is None:
        section.finding = _(
            "Not run: the AlphaZero learner needs PyTorch (pip install 'qarena[deep]')."
        )
        return section
    runs, rows = [], []
    for kind, full, quick in SIDE_BY_SIDE:
        games = quick if lab.quick else full
        grid = Grid((kind,), {}, episodes=(games,), seeds=(0,))
        folder, found, command = lab.sweep(f"alphazero-{kind}", spec, grid, curve=True)
        section.commands.append(command)
        for row in found:
            learner = load_file(run_path(folder, row))
            runs.append(PlotRun(kind, learner))
            rows.append(
                (
                    learner.title,
                    f"{row.episodes:,}",
                    f"{row.train_seconds:.1f}",
                    decimals(row.optimality, 4),
                )
            )
    section.figures.append(
        Figure(
            _("Optimality of a Q-table, an n-tuple network and AlphaZero on tic-tac-toe"),
            render_curves(runs, "png"),
        )
    )
    section.tables.append(
        TableData(
            (_("learner"), _("games of self-play"), _("seconds"), _("final optimality")),
            rows,
            _(
                "Final optimality over every decision position of tic-tac-toe, as qarena eval "
                "judges it; seconds of training, the curve's judging not counted."
            ),
        )
    )
    section.finding = _(
        "The table is perfect within seconds; the networks generalise from far fewer "
        "parameters and stop short of it in this time. The guide's page 'AlphaZero, judged' "
        "(docs/guide/alphazero.md) measures the AlphaZero learner's default runs on Connect Four "
        "4×5 and 5×5 and tic-tac-toe 4×4."
    )
    return section


__all__ = ["SIDE_BY_SIDE", "alphazero_judged", "learners_compared"]
