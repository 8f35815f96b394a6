"""The report's experiments: each section states a question of the write-ups and answers it
with fixed sweeps (their folders under the report's runs folder, so a second report reuses
them), a figure, numbers and the ``qarena`` commands that reproduce them."""

from __future__ import annotations

import statistics

import numpy as np

from qarena.agents.strategies import judges_of, make_agent
from qarena.evaluate.matches import both_seats, evaluation_opponents, play_series
from qarena.exact import game_tables, solve
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
from qarena.experiments.sweep_figures import (
    Panel,
    heatmap_cells,
    optimality_series,
    render_bars,
    render_heatmap,
    render_matrices,
    render_optimality,
    select,
)
from qarena.games import Game, parse_spec, value_word
from qarena.i18n import _
from qarena.judging.evaluation import record_against, strategy_mask, strategy_masks
from qarena.judging.tables import optimality_of_values
from qarena.learn.learners import load_table

# --- sections -------------------------------------------------------------------------------


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
    import importlib.util

    from qarena.agents.players import load_file
    from qarena.evaluate.figures import PlotRun, render_curves

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
