"""The report's question of how many games of self-play tic-tac-toe needs (:func:`tictactoe`):
the afterstate learner after more and more episodes, against random and perfect play."""

from __future__ import annotations

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
from qarena.experiments.sweep_figures import optimality_series, render_optimality
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.judging.evaluation import record_against, strategy_masks
from qarena.learn.learners import load_table
from qarena.show.matches import play_series


def tictactoe(lab: Lab) -> Section:
    spec = "tictactoe"
    counts = (2_000, 20_000, 100_000) if lab.quick else (2_000, 20_000, 100_000, 1_000_000)
    section = Section(
        "tictactoe",
        _("How many games tic-tac-toe needs"),
        _(
            "How many games of self-play from the empty board does Sutton and Barto's "
            "afterstate learner need? It trains for {counts} episodes, and plays random play "
            "from each seat: the first player's advantage shows in the difference."
        ).format(counts=", ".join(f"{c:,}" for c in counts)),
    )
    grid = Grid(("afterstate",), {"starts": (0.0,)}, episodes=counts, seeds=lab.seeds(3))
    folder, rows, command = lab.sweep("tictactoe", spec, grid)
    game = parse_spec(spec)
    tables = game_tables(game)
    masks = strategy_masks(tables, ("random", "perfect"))
    per: dict[int, dict[str, list[float]]] = {}
    for row in rows:
        learner = load_table(run_path(folder, row))
        records = record_against(learner, masks, lab.games, 0)
        r, p = records["random"], records["perfect"]
        d = per.setdefault(row.episodes, {})
        d.setdefault("optimality", []).append(row.optimality)
        d.setdefault("first", []).append(r.first.shares()["win"])
        d.setdefault("second", []).append(r.second.shares()["win"])
        d.setdefault("first_loss", []).append(r.first.shares()["loss"])
        d.setdefault("second_loss", []).append(r.second.shares()["loss"])
        d.setdefault("not_lost", []).append(1 - p.total.shares()["loss"])
    series = optimality_series(folder, rows)
    section.figures.append(
        Figure(
            _("Optimality of the afterstate learner against episodes"),
            render_optimality(
                series,
                _("Optimality on {game}  {spec}").format(game=game.title, spec=game.spec),
                "png",
            ),
            f"qarena plot {lab.out('tictactoe')}",
        )
    )
    random_mask = masks["random"]
    baseline = play_series(tables, random_mask, random_mask, 10 * lab.games, 0, "compete/a-first")
    b = baseline.shares()
    section.tables.append(
        TableData(
            (
                _("episodes"),
                _("optimality"),
                _("wins vs random, first"),
                _("wins vs random, second"),
                _("losses vs random, first / second"),
                _("not lost vs perfect"),
            ),
            [
                (
                    f"{n:,}",
                    decimals(mean_of(d["optimality"])),
                    decimals(mean_of(d["first"])),
                    decimals(mean_of(d["second"])),
                    f"{mean_of(d['first_loss']):.3f} / {mean_of(d['second_loss']):.3f}",
                    decimals(mean_of(d["not_lost"])),
                )
                for n, d in sorted(per.items())
            ],
            _(
                "Means over seeds; {games:,} games in each seat. Random against random: the "
                "first player wins {win:.3f}, draws {draw:.3f}, loses {loss:.3f} "
                "({baseline:,} games)."
            ).format(
                games=lab.games,
                win=b["win"],
                draw=b["draw"],
                loss=b["loss"],
                baseline=10 * lab.games,
            ),
        )
    )
    last = per[max(per)] if per else {}
    if last:
        section.finding = _(
            "After {episodes:,} episodes the agent keeps the value in {optimality:.1%} of "
            "decision positions. Against random play it wins {first:.1%} of its games moving "
            "first and {second:.1%} moving second; random play against itself shows the same "
            "first-player advantage ({win:.1%} against {loss:.1%})."
        ).format(
            episodes=max(per),
            optimality=mean_of(last["optimality"]),
            first=mean_of(last["first"]),
            second=mean_of(last["second"]),
            win=b["win"],
            loss=b["loss"],
        )
    example = folder.path(rows[-1].run) if rows else "RUN.npz"
    section.commands += [
        command,
        f"qarena plot {lab.out('tictactoe')}",
        f"qarena eval {example} --games {lab.games}",
        f"qarena compete random random --game tictactoe --games {10 * lab.games}",
    ]
    return section


__all__ = ["tictactoe"]
