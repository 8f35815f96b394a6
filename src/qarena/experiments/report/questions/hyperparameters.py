"""The report's questions of the hyperparameters: does discounting make the agent drag out lost
games (:func:`discounting`, γ), and how the learning rate α and exploration ε matter
(:func:`alpha_epsilon`)."""

from __future__ import annotations

from qarena.exact import game_tables, solve
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
from qarena.experiments.sweep_figures import (
    heatmap_cells,
    optimality_series,
    render_bars,
    render_heatmap,
    render_optimality,
    select,
)
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.judging.evaluation import strategy_mask
from qarena.learn.learners import load_table
from qarena.show.matches import both_seats


def discounting(lab: Lab) -> Section:
    spec = "nim:3,5,7"
    section = Section(
        "discounting",
        _("Discounting: does the agent drag out lost games?"),
        _(
            "An agent trained on 3-5-7 Nim with γ = 0.8, once lost, makes the game last. "
            "For qarena's Q-learner (q): with γ below 1 a loss in more moves is worth more "
            "(−γᵏ is closer to 0), so among losing moves it picks the slowest; with γ = 1 "
            "every loss is worth −1 and it picks among them at random. We measure how many "
            "plies its games against perfect play last: moving second in 3-5-7 misère, every "
            "game is lost. (The write-ups' own learner drags lost games out at γ = 1 too: see "
            "'The write-ups reproduced'.)"
        ),
    )
    grid = Grid(("q",), {"gamma": (0.8, 0.9, 1.0)}, seeds=lab.seeds(5))
    folder, rows, command = lab.sweep("discounting", spec, grid)
    game = parse_spec(spec)
    tables = game_tables(game)
    perfect = strategy_mask(tables, "perfect")
    lost: dict[str, list[float]] = {}
    won: dict[str, list[float]] = {}
    for row in rows:
        learner = load_table(run_path(folder, row))
        seats = both_seats(
            tables, learner.best_moves(), perfect, lab.games, 0, "perfect", lengths=True
        )
        assert seats.lengths is not None
        # Moving second against perfect play every game is lost, moving first (a perfect
        # agent) every game is won: the seats' lengths are those of lost and won games.
        if seats.second.loss == lab.games:
            lost.setdefault(row.settings["gamma"], []).append(seats.lengths.second.mean)
        if seats.first.win == lab.games:
            won.setdefault(row.settings["gamma"], []).append(seats.lengths.first.mean)
    solution = solve(game)
    start = game.start()
    best = solution.depth_of(start)
    gammas = sorted(lost, key=float)
    section.figures.append(
        Figure(
            _("Mean length of lost and won games against perfect play for each γ"),
            render_bars(
                gammas,
                {
                    _("lost games (agent moves second)"): [lost[g] for g in gammas],
                    _("won games (agent moves first)"): [won.get(g, []) for g in gammas],
                },
                (_("γ (discount)"), _("plies per game (mean; dots: seeds)")),
                _("Game length against perfect play, {game}").format(game=game.title),
                "png",
                reference=(
                    _("best play by both: {plies} plies").format(plies=best),
                    float(best),
                ),
            ),
        )
    )
    section.tables.append(
        TableData(
            ("γ", _("lost games: mean plies"), _("won games: mean plies"), _("seeds")),
            [
                (
                    g,
                    decimals(mean_of(lost[g]), 2),
                    decimals(mean_of(won[g]), 2) if won.get(g) else "-",
                    str(len(lost[g])),
                )
                for g in gammas
            ],
            _("{games:,} games in each seat against perfect play.").format(games=lab.games),
        )
    )
    if gammas:
        slow, flat = mean_of(lost[gammas[0]]), mean_of(lost[gammas[-1]])
        if slow > flat:
            finding = _(
                "Lost games last {slow:.1f} plies on average with γ = {low} and {flat:.1f} with "
                "γ = {high}: with discounting the agent drags out the games it has lost. With "
                "best play by both (the loser delaying, the winner hurrying) the game lasts "
                "{best} plies."
            )
        else:
            finding = _(
                "Lost games last {slow:.1f} plies on average with γ = {low} and {flat:.1f} with "
                "γ = {high}: here discounting did not make lost games longer. With best play by "
                "both (the loser delaying, the winner hurrying) the game lasts {best} plies."
            )
        section.finding = finding.format(
            slow=slow, low=gammas[0], flat=flat, high=gammas[-1], best=best
        )
    example = folder.path(rows[0].run) if rows else "RUN.npz"
    section.commands += [command, f"qarena eval {example} --lengths --games {lab.games}"]
    return section


def alpha_epsilon(lab: Lab) -> Section:
    spec = "nim:1,3,5,7"
    episodes = 3_000 if lab.quick else 30_000
    section = Section(
        "alpha-epsilon",
        _("α and ε"),
        _(
            "How do the learning rate α and the exploration rate ε matter? On Nim 1-3-5-7, "
            "qarena's Q-learner (q) plays ε-greedily from the start of the game (no exploring "
            "starts) with a constant ε, {episodes:,} episodes per run, including pure "
            "exploitation (ε = 0) and pure exploration (ε = 1). ε is the share of moves "
            "played at random while learning, as in the course notebook's code (002: a random "
            "move with weight ε, the best one with 1 − ε); its text calls ε 'the degree which "
            "the algorithm considers future states', a look-ahead, which ε is not: how far "
            "values reach ahead is the discount γ's part and the episodes'."
        ).format(episodes=episodes),
    )
    grid = Grid(
        ("q",),
        {
            "alpha": (0.1, 0.5, 1.0),
            "epsilon": (0.0, 0.1, 0.5, 1.0),
            "schedule": ("constant",),
            "starts": (0.0,),
        },
        episodes=(episodes,),
        seeds=lab.seeds(5),
    )
    folder, rows, command = lab.sweep("alpha-epsilon", spec, grid, curve=True)
    game = parse_spec(spec)
    xs, ys, cells, seeds = heatmap_cells(rows, "alpha", "epsilon")
    section.figures.append(
        Figure(
            _("Final optimality over α and ε"),
            render_heatmap(
                xs,
                ys,
                cells,
                ("alpha", "epsilon"),
                _("Final optimality on {game}  {spec}, mean of {count} seed(s)").format(
                    game=game.title, spec=game.spec, count=seeds
                ),
                "png",
            ),
            f"qarena plot {lab.out('alpha-epsilon')} --x alpha --y epsilon",
        )
    )
    middle = select(rows, {"alpha": "0.5"})
    series = optimality_series(folder, middle)
    section.figures.append(
        Figure(
            _("Optimality against episodes for each ε at α = 0.5"),
            render_optimality(
                series,
                _("Optimality on {game}  {spec}, alpha=0.5").format(
                    game=game.title, spec=game.spec
                ),
                "png",
            ),
            f"qarena plot {lab.out('alpha-epsilon')} --where alpha=0.5",
        )
    )
    table_rows = []
    for y, row_cells in zip(ys, cells, strict=True):
        for x, v in zip(xs, row_cells, strict=True):
            values = [
                r.optimality for r in rows if (r.settings["alpha"], r.settings["epsilon"]) == (x, y)
            ]
            table_rows.append(
                (
                    x,
                    y,
                    decimals(v or 0.0),
                    decimals(min(values)),
                    decimals(max(values)),
                    str(len(values)),
                )
            )
    section.tables.append(
        TableData(
            ("α", "ε", _("optimality"), _("lowest seed"), _("highest seed"), _("seeds")),
            table_rows,
        )
    )
    by_eps = {
        y: mean_of([v for v in row if v is not None]) for y, row in zip(ys, cells, strict=True)
    }
    top = max(table_rows, key=lambda r: float(r[2]))
    exploit, explore = by_eps.get("0.0", 0.0), by_eps.get("1.0", 0.0)
    if explore < exploit:
        finding = _(
            "Averaged over α, pure exploitation (ε = 0) ends at {exploit:.3f} and pure "
            "exploration (ε = 1) at {explore:.3f}; the best cell is α = {alpha}, ε = {epsilon} "
            "at {best}. Playing at random, the agent seldom reaches the positions good play "
            "leads to, so their values stay rough within the run; greedy play from values "
            "that all start at 0 breaks its many ties at random, which explores on its own at "
            "first."
        )
    else:
        finding = _(
            "Averaged over α, pure exploitation (ε = 0) ends at {exploit:.3f} and pure "
            "exploration (ε = 1) at {explore:.3f}; the best cell is α = {alpha}, ε = {epsilon} "
            "at {best}. Exploring everything costs nothing here: Q-learning learns the greedy "
            "policy's values whatever it plays; greedy play from values that all start at 0 "
            "breaks its many ties at random, which explores on its own at first."
        )
    section.finding = finding.format(
        exploit=exploit, explore=explore, alpha=top[0], epsilon=top[1], best=top[2]
    )
    section.commands += [command, *(f.command for f in section.figures if f.command)]
    return section


__all__ = ["alpha_epsilon", "discounting"]
