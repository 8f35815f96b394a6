"""The report's question of whom to learn from (:func:`whom_to_learn_from`): each learner
trained against itself, random play, perfect play and the game's rule players, and measured
against each of them."""

from __future__ import annotations

from qarena.agents.strategies import judges_of
from qarena.exact import game_tables
from qarena.experiments.grid import Grid
from qarena.experiments.report.lab import (
    Figure,
    Lab,
    Section,
    TableData,
    decimals,
    mean_of,
    run_path,
)
from qarena.experiments.sweep_figures import Panel, render_matrices
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.judging.evaluation import record_against, strategy_masks
from qarena.learn.learners import load_table
from qarena.show.matches import evaluation_opponents


def whom_to_learn_from(lab: Lab) -> Section:
    section = Section(
        "whom",
        _("Whom to learn from"),
        _(
            "Does an agent learn as well from a random or a perfect opponent as from itself? "
            "Each learner trains against itself, random play, "
            "perfect play and the game's rule players, and is then measured against each of "
            "them; the cell is its win share over both seats."
        ),
    )
    cases = [("nim:3,5,7", "whom-nim"), ("subtraction:12:3", "whom-subtraction")]
    learners = ("q", "afterstate", "matchbox")
    rows_out: list[tuple[str, ...]] = []
    for spec, name in cases:
        game = parse_spec(spec)
        trainers = ("self", *judges_of(game))
        grid = Grid(learners, {}, opponents=trainers, seeds=lab.seeds(3))
        folder, rows, command = lab.sweep(name, spec, grid)
        section.commands.append(command)
        judges = evaluation_opponents(game)
        masks = strategy_masks(game_tables(game), judges)
        cells: dict[tuple[str, str, str], list[float]] = {}
        optimality: dict[tuple[str, str], list[float]] = {}
        for row in rows:
            learner = load_table(run_path(folder, row))
            records = record_against(learner, masks, lab.games, 0)
            key = (row.learner, row.opponent)
            optimality.setdefault(key, []).append(row.optimality)
            for judge, seats in records.items():
                share = seats.total.shares()["win"]
                cells.setdefault((*key, judge), []).append(share)
        panels = []
        for learner_kind in learners:
            grid_values = [
                [mean_of(cells.get((learner_kind, t, j), [])) for j in judges] for t in trainers
            ]
            panels.append(Panel(learner_kind, list(judges), list(trainers), grid_values))
            for t in trainers:
                rows_out.append(
                    (
                        game.spec,
                        learner_kind,
                        t,
                        decimals(mean_of(optimality.get((learner_kind, t), []))),
                        *(
                            decimals(mean_of(cells.get((learner_kind, t, j), [])))
                            for j in ("random", "perfect")
                        ),
                    )
                )
        section.figures.append(
            Figure(
                _("Win share of each learner on {spec} by training and evaluation opponent").format(
                    spec=game.spec
                ),
                render_matrices(
                    panels,
                    (_("evaluated against"), _("trained against")),
                    _("win share (both seats, mean over seeds)"),
                    _("Whom to learn from: {game}").format(game=game.title),
                    "png",
                ),
            )
        )
        example = folder.path(rows[0].run) if rows else "RUN.npz"
        section.commands.append(f"qarena eval {example} --games {lab.games}")
    section.tables.append(
        TableData(
            (
                _("game"),
                _("learner"),
                _("trained against"),
                _("optimality"),
                _("wins vs random"),
                _("vs perfect"),
            ),
            rows_out,
            _("Optimality: the share of decision positions where greedy play keeps the value."),
        )
    )
    best = max(rows_out, key=lambda r: float(r[3]))
    worst = min(rows_out, key=lambda r: float(r[3]))
    selfish = [float(r[3]) for r in rows_out if r[2] == "self"]
    fixed_weak = [float(r[3]) for r in rows_out if r[2] not in ("self", "perfect")]
    section.finding = _(
        "Trained by self-play the learners average optimality {selfish:.3f}; trained against "
        "random play or a rule player, {weak:.3f}: a fixed opponent leads the learner only into "
        "the positions it plays into. The best run here: {best_learner} trained against "
        "{best_opponent} on {best_game}, optimality {best}; the worst: {worst_learner} trained "
        "against {worst_opponent} on {worst_game}, optimality {worst}."
    ).format(
        selfish=mean_of(selfish),
        weak=mean_of(fixed_weak),
        best_learner=best[1],
        best_opponent=best[2],
        best_game=best[0],
        best=best[3],
        worst_learner=worst[1],
        worst_opponent=worst[2],
        worst_game=worst[0],
        worst=worst[3],
    )
    return section


__all__ = ["whom_to_learn_from"]
