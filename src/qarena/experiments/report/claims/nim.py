"""The Nim write-ups' claims: the course notebook (002) and the course assignment's solution
(004), which share the course's Q-learning, and the term paper on 3-5-7 (000).

The term paper and the solution play as Python's ``max`` picks: the first of the highest values
in the order their code meets the moves, a set of (pile, count) pairs (:func:`writeup_order`);
the notebook picks at random among the highest, as qarena's greedy play does. Their rows train
with that rule in every greedy step (:data:`WRITEUP_TIES`, ``Learner.break_ties_first``) and
judge the trained tables with it (:func:`first_highest`). Every figure is given across the
seeds, each an independent run, with the interval that counts them."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from qarena.agents.greedy import GreedyAgent
from qarena.exact import game_tables, solve
from qarena.exact.space import GameTables
from qarena.experiments.folder import RunRow, SweepFolder
from qarena.experiments.grid import Grid, with_preset
from qarena.experiments.report.claims.common import Claims, quoted
from qarena.experiments.report.lab import Lab, run_path
from qarena.games import Game, parse_spec, value_word
from qarena.games.base import Move
from qarena.games.nim import is_pole_position
from qarena.i18n import _
from qarena.judging.best_reply import best_reply
from qarena.judging.evaluation import strategy_mask
from qarena.judging.sampled import wilson
from qarena.judging.tables import move_values, optimality_of_values
from qarena.learn.learners import load_table
from qarena.learn.tables.base import Learner
from qarena.show.matches import play_series_lengths

#: The 97.5% point of Student's t for 1 to 10 degrees of freedom (beyond: 10's, a little
#: wide): a 95% interval for a mean over a few seeds.
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def writeup_order(position: Sequence[int]) -> list[tuple[int, int]]:
    """The moves (pile, count) of a Nim position in the order the term paper's (000) and the
    course solution's (004) code meets them: gathered into a Python set pile by pile, count
    by count, and read back in the set's own order (CPython's, fixed by the pairs' hashes:
    not sorted; at 3-5-7 it begins (0, 1), (2, 4), (1, 2))."""
    moves: set[tuple[int, int]] = set()
    for pile, objects in enumerate(position):
        for count in range(1, objects + 1):
            moves.add((pile, count))
    return list(moves)


def writeup_moves(game: Game, position: Sequence[int]) -> list[Move]:
    """The legal moves of a Nim position in :func:`writeup_order`, as the game's moves."""
    # The game's own move text (1-based piles): report/ names no game class.
    return [game.parse_move(f"{pile + 1}:{count}") for pile, count in writeup_order(position)]


#: The sweeps' tie rule for the term paper's and the course solution's runs (``Fixed.ties``):
#: each greedy step of training takes the first highest in :func:`writeup_moves`' order.
WRITEUP_TIES = f"{__name__}:writeup_moves"


def first_highest(learner: Learner) -> np.ndarray:
    """``mask[row, move]``: the one move the term paper's and the course solution's greedy
    step plays in each row of a Nim learner's tables: the first of its highest values in
    :func:`writeup_order` (qarena's greedy play picks among the highest at random)."""
    tables, values = learner.tables, learner.values()
    game = tables.game
    mask = np.zeros_like(tables.legal)
    for row in np.flatnonzero(tables.legal.any(axis=1)):
        position = tables.position(int(row))
        _row, frame = tables.frame(position)
        best = -1
        for move in (frame[m] for m in writeup_moves(game, position)):
            if best < 0 or values[row, move] > values[row, best]:
                best = move
        mask[row, best] = True
    return mask


def mean_interval(
    values: Sequence[float], low: float = 0.0, high: float = 1.0
) -> tuple[float, float, float]:
    """The mean of one figure over independent runs and its 95% interval (Student's t over
    the runs, kept within ``low``..``high``, the figure's own range; one run: no interval)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = T975[min(len(values), len(T975) + 1) - 2] * statistics.stdev(values)
    half /= math.sqrt(len(values))
    return mean, max(low, mean - half), min(high, mean + half)


def mean_text(values: Sequence[float], digits: int = 3, low: float = 0.0, high: float = 1.0) -> str:
    """``0.991 (95% interval 0.950–1.000 over 2 seeds; 0.985–0.997)``: the mean, its
    interval over the seeds and their spread."""
    mean, a, b = mean_interval(values, low, high)
    if len(values) < 2:
        return f"{mean:.{digits}f}"
    return _("{mean} (95% interval {low}–{high} over {seeds} seeds; each {least}–{most})").format(
        mean=f"{mean:.{digits}f}",
        low=f"{a:.{digits}f}",
        high=f"{b:.{digits}f}",
        seeds=len(values),
        least=f"{min(values):.{digits}f}",
        most=f"{max(values):.{digits}f}",
    )


def count_text(count: int, seeds: int) -> str:
    """``1 of 5 seeds (95% interval 4–62%)``: how many runs of ``seeds`` show something,
    with the Wilson interval of that share: the runs are the samples."""
    low, high = wilson(count, seeds)
    return _("{count} of {seeds} seeds (95% interval {low:.0%}–{high:.0%})").format(
        count=count, seeds=seeds, low=low, high=high
    )


def _by_count(verdicts: Sequence[bool], claim: Claims) -> str:
    """Holds in every run, in some (in part) or in none."""
    if all(verdicts):
        return claim.holds
    return claim.part if any(verdicts) else claim.fails


#: Objects left, for the term paper's early and late game on 3-5-7 (15 objects): its thirds.
EARLY, LATE = range(11, 16), range(1, 6)


@dataclass(frozen=True)
class Judged:
    """One trained run of the term paper's or the solution's learner, played with the
    write-up's own rule (:func:`first_highest`) and judged by the solver."""

    optimality: float
    beaten: tuple[bool, bool]  # the best reply beats it from the start: moving first, second
    opening: tuple[int, int]  # its first move from the start: (pile, count), 0-based pile
    late: float  # optimality where 1-5 objects are left
    early: float  # ... where 11-15 are
    lost_single: float  # the share of positions lost for it where it takes one object
    any_single: float  # ... that a move picked at random among the legal ones takes
    plies: float  # its games moving second against perfect play: their mean length
    plies_random: float  # ... as qarena plays the same table (ties at random)


def _left_optimality(tables: GameTables, mask: np.ndarray, left: range) -> float:
    """Optimality over the decision positions with ``left`` objects on the board."""
    rows = np.flatnonzero(tables.live)
    rows = np.array([r for r in rows if sum(tables.position(int(r))) in left], dtype=np.int64)
    mv = move_values(tables, rows)
    best, worst = np.nanmax(mv, axis=1), np.nanmin(mv, axis=1)
    decide = best != worst
    kept = np.all(~mask[rows] | (mv == best[:, None]), axis=1)
    return float(kept[decide].mean()) if decide.any() else 1.0


def judged(folder: SweepFolder, row: RunRow, games: int) -> Judged:
    """A run of the term paper's or the course's learner judged with the write-up's rule."""
    learner = load_table(run_path(folder, row))
    tables = learner.tables
    game = tables.game
    mask = first_highest(learner)
    reply = best_reply(GreedyAgent(learner), moves=mask)
    start = tables.start
    opening = game.format_move(int(np.flatnonzero(mask[start])[0]))
    pile, count = (int(x) for x in opening.split(":"))
    lost = np.flatnonzero(tables.live & (tables.value < 0))
    ones = np.array([game.parse_move(f"{i + 1}:1") for i in range(len(game.start()))])
    single = mask[lost][:, ones].any(axis=1)
    legal = tables.legal[lost]
    perfect = strategy_mask(tables, "perfect")
    lengths = [
        play_series_lengths(tables, perfect, m, games, 0, "perfect/second")[1].mean
        for m in (mask, learner.best_moves())
    ]
    return Judged(
        optimality_of_values(tables, mask.astype(np.float64)).share,
        (reply.seats["first"].beaten, reply.seats["second"].beaten),
        (pile - 1, count),
        _left_optimality(tables, mask, LATE),
        _left_optimality(tables, mask, EARLY),
        float(single.mean()),
        float((legal[:, ones].sum(axis=1) / legal.sum(axis=1)).mean()),
        lengths[0],
        lengths[1],
    )


def _course_claims(lab: Lab, claim: Claims) -> None:
    """The course's Q-learning (004, 002)."""
    # 004 and 002: the course's Q-learning on 1-3-5-7 (α 0.5, ε 0.1 in both codes), for the
    # 10,000 self-play games of the notebook (002); the solution (004) gives no count. α 1
    # and the "agreed upon" 0.1 beside it for the notebook's α (002 line 347).
    course = parse_spec("nim:1,3,5,7")
    alphas = (0.5, 1.0, 0.1)
    _folder, rows, command = lab.sweep(
        "writeups-course",
        course.spec,
        with_preset(
            "course-notebook", course, None, {"alpha": alphas}, None, None, None, lab.seeds(5)
        ),
        canonical=False,
    )
    by_alpha = {a: [r for r in rows if float(r.settings["alpha"]) == a] for a in alphas}
    own = by_alpha[0.5]
    # The solution (004) takes the first highest value, in its exploit step and in play: its
    # own runs train with that rule (the notebook's above break ties at random).
    s_folder, s_rows, s_command = lab.sweep(
        "writeups-solution",
        course.spec,
        with_preset("cs50-nim", course, None, {}, None, None, (10_000,), lab.seeds(5)),
        canonical=False,
        ties=WRITEUP_TIES,
    )
    solution = [judged(s_folder, r, lab.games) for r in s_rows]
    claim(
        "004 · Фон",
        quoted(
            "Постоянно играя сам с собой и учась на опыте, в конечном итоге наш ИИ узнает, "
            "какие действия следует предпринять, а каких избегать.",
            _(
                "playing itself and learning from experience, our AI in the end learns which "
                "actions to take and which to avoid"
            ),
        ),
        f"{s_command}; qarena beat RUN",
        _(
            "after 10,000 self-play games with its α 0.5 and ε 0.1 (it gives no number of "
            "games; 10,000 is the notebook's), trained and played taking the first of its "
            "highest values in its code's order of moves, in every greedy step as the "
            "solution's code does (the sweep's folder records the rule; no command-line "
            "option sets it): optimality {optimality}; perfect in {perfect}; the best reply "
            "beats it from the start moving second in {beaten}. It names no number of games "
            "nor a measure of what it learns: no verdict"
        ).format(
            optimality=mean_text([j.optimality for j in solution]),
            perfect=count_text(sum(j.optimality == 1.0 for j in solution), len(solution)),
            beaten=count_text(sum(j.beaten[1] for j in solution), len(solution)),
        ),
        claim.unjudged,
    )
    start_value = solve(course).value_of(course.start())
    # The notebook (002) picks at random among its highest values, as qarena plays: the
    # sweep's own best reply (a tie it may pick counts).
    human_first = sum(r.unbeaten[1] is False for r in own)
    claim(
        "002 · Training and Playing",
        quoted(
            "After training the AI for 10000 games, the human should never be able to win "
            "against the AI."
        ),
        f"{command}; qarena explain {course.spec}; qarena beat RUN",
        _(
            "the start is a {value} for the player to move, and the notebook lets the human "
            "move first or second (line 293): moving second, a human who plays best wins "
            "against every seed; moving first, the best reply wins against the AI in "
            "{beaten}; optimality {optimality} after 10,000 games"
        ).format(
            value=value_word(start_value),
            beaten=count_text(human_first, len(own)),
            optimality=mean_text([r.optimality for r in own]),
        ),
        # A human moving second wins with best play wherever the start is lost for the mover.
        claim.fails if start_value < 0 or human_first else claim.holds,
    )
    figures = {a: (mean_interval([r.optimality for r in by_alpha[a]]), by_alpha[a]) for a in alphas}
    parts = [
        _("α {alpha}: optimality {optimality}, beaten moving second in {beaten}").format(
            alpha=a,
            optimality=mean_text([r.optimality for r in runs]),
            beaten=count_text(sum(r.unbeaten[1] is False for r in runs), len(runs)),
        )
        for a, (_figure, runs) in figures.items()
    ]
    one = figures[1.0][0]
    # α 1 is the best choice where its interval over the seeds lies above every other α's;
    # false where another α's lies above its own; else the seeds cannot tell.
    others = [f[0] for a, f in figures.items() if a != 1.0]
    worse = any(other[1] > one[2] for other in others)
    best = all(one[1] > other[2] for other in others)
    claim(
        "002 · Influence of Hyperparameters",
        quoted(
            "Although the optimal alpha for a purely deterministic game such as Nim would be "
            "1, the agreed upon conventions for alpha is 0.1."
        ),
        command,
        _(
            "the notebook's method, 10,000 games, with α 1 beside its 0.5 and the 0.1 it "
            "calls the convention: {parts}"
        ).format(parts="; ".join(parts))
        + ("" if worse or best else "; " + _("the intervals overlap: the seeds cannot tell")),
        claim.fails if worse else claim.holds if best else claim.unjudged,
    )


def _paper_claims(lab: Lab, claim: Claims) -> None:
    """The term paper's settings (000), played with its own rule (:func:`first_highest`)."""
    # 000: the term paper's settings, with and without exploration, and both discounts.
    # The preset advanced-nim (α 0.1, γ 0.8, ε 0.1 throughout, ±100, 100,000 games), with γ 1
    # and pure exploration beside its own values.
    # (Its schedule is constant: ε stays where it starts, whatever its end.)
    paper = {"gamma": (0.8, 1.0), "epsilon": (0.1, 1.0)}
    game = parse_spec("nim:3,5,7")
    folder, rows, command = lab.sweep(
        "writeups-paper-first",
        game.spec,
        with_preset("advanced-nim", game, None, paper, None, None, None, lab.seeds(5)),
        canonical=False,
        ties=WRITEUP_TIES,
    )

    def runs(gamma: str, epsilon: str) -> list[Judged]:
        return [
            judged(folder, r, lab.games)
            for r in rows
            if r.settings["gamma"] == gamma and r.settings["epsilon"] == epsilon
        ]

    greedy, flat, explore = runs("0.8", "0.1"), runs("1.0", "0.1"), runs("0.8", "1.0")
    seeds = len(greedy)
    rule = _(
        "trained and played taking the first of its highest values in its code's order of moves"
    )
    trained = _(
        "Training takes it in every greedy step, as the paper's code does; the sweep's folder "
        "records the rule (no command-line option sets it)"
    )
    perfect = sum(j.optimality == 1.0 for j in greedy)
    claim(
        "000 · Bewertung",
        quoted(
            "Mit der Einführung der Epsilon-Exploration wurde die AI regelrecht zum "
            "Nim-Endgegner. Gnadenlos zwingt sie ihre Kontrahenten in ungewinnbare "
            "Spielsituationen. Dabei verfolgt sie exakt die bekannte Gewinnstrategie mit den "
            "Pole Positions.",
            _(
                "with ε = 0.1 (100,000 games, α 0.1, γ 0.8, rewards ±100) the AI forces its "
                "opponents into lost positions, following the winning strategy exactly"
            ),
        ),
        f"{command}; qarena beat RUN",
        _(
            "{rule}: optimality {optimality}, every position kept in {perfect}; the best "
            "reply beats it from the start moving first (a won start) in {beaten}. {trained}"
        ).format(
            rule=rule,
            optimality=mean_text([j.optimality for j in greedy]),
            perfect=count_text(perfect, seeds),
            beaten=count_text(sum(j.beaten[0] for j in greedy), seeds),
            trained=trained,
        ),
        _by_count([j.optimality == 1.0 for j in greedy], claim),
    )
    opening = [j.opening for j in greedy]
    singles = sum(count == 1 for _pile, count in opening)
    claim(
        "000 · Bewertung",
        quoted(
            "Wenn die AI zuerst zieht, nimmt sie immer nur ein Objekt, was dem Gegenspieler "
            "die Pole Positions verwehrt.",
            _("moving first, it always takes a single object"),
        ),
        f"{command}; qarena table RUN",
        _("{rule}, its first move takes one object in {count}: {moves}").format(
            rule=rule,
            count=count_text(singles, seeds),
            moves=", ".join(f"{pile + 1}:{count}" for pile, count in opening),
        ),
        _by_count([count == 1 for _pile, count in opening], claim),
    )
    claim(
        "000 · Bewertung",
        quoted(
            "Zunächst wurde die AI mit purer Exploration trainiert … Sie war in etwa so gut, wie "
            "es ein Mensch ohne Gewinnstrategie auch wäre.",
            _("trained with pure exploration, it plays about as well as a person without a plan"),
        ),
        command,
        _("{rule}: optimality {optimality}; a person without a plan is not measured").format(
            rule=rule, optimality=mean_text([j.optimality for j in explore])
        ),
        claim.unjudged,
    )
    claim(
        "000 · Bewertung",
        quoted(
            "Zum Ende des Spiels waren die Entscheidungen der AI hochwertig und zielsicher, zu "
            "Beginn eher weniger.",
            _("trained with pure exploration, it decides well at the end and less so early"),
        ),
        command,
        _(
            "{rule}: optimality where 1–5 objects are left {late}, where 11–15 are {early}; "
            "better late than early in {count}"
        ).format(
            rule=rule,
            late=mean_text([j.late for j in explore]),
            early=mean_text([j.early for j in explore]),
            count=count_text(sum(j.late > j.early for j in explore), len(explore)),
        ),
        _by_count([j.late > j.early for j in explore], claim),
    )
    q_folder, q_rows, q_command = lab.sweep(
        "writeups-q", "nim:3,5,7", Grid(("q",), {"gamma": (1.0,)}, seeds=lab.seeds(5))
    )
    tables = game_tables(game)
    perfect_mask = strategy_mask(tables, "perfect")
    q_plies = []
    for row in q_rows:
        learner = load_table(run_path(q_folder, row))
        best = learner.best_moves()
        if learner.config.canonical != tables.canonical:
            best = learner.tables.lift(best, tables)
        q_plies.append(
            play_series_lengths(tables, perfect_mask, best, lab.games, 0, "perfect/second")[1].mean
        )
    random_loser = play_series_lengths(
        tables, perfect_mask, perfect_mask, lab.games, 0, "perfect/second"
    )[1].mean
    plies = game.max_plies
    # The paper: moving second (a lost start) it makes small moves, one object each, that
    # draw the game out, either by the order of its equally valued actions (it takes the
    # first) or by the opponent's random exploration in training. Judged: is the game drawn
    # out beyond a loser picking at random among its moves, in every seed?
    drawn = [j.plies > random_loser for j in greedy]
    claim(
        "000 · Bewertung",
        quoted(
            "Falls der Mensch zuerst zieht … macht die AI extra kleine Züge, in denen sie nur "
            "ein Objekt nimmt, was das Spiel maximal lang macht. … Das passiert entweder "
            "unabsichtlich und entsteht durch die Sortierung der möglichen Aktionen im "
            "Programmcode … oder durch zufällige Exploration des Gegenspielers beim Training",
            _(
                "moving second, it takes one object at a time, drawing the lost game out, by "
                "the order of the actions in the code or by the opponent's random "
                "exploration in training"
            ),
        ),
        f"{command}; {q_command}; qarena eval RUN --lengths --games {lab.games}",
        _(
            "{rule}, moving second against perfect play: its lost games last {slow} plies at "
            "γ 0.8 (at most {most}; a loser picking at random among its moves: {random:.1f}), "
            "{flat} at γ 1; it takes one object in {single} of the positions lost for it "
            "(a random pick: {any}); longer than the random loser's in {count}. Its reasons: "
            "the same tables played with ties at random differ by {ties} plies at γ 0.8; qarena's "
            "q learner at γ 1, whose backup ignores the opponent's exploring replies: {q}"
        ).format(
            rule=rule,
            slow=mean_text([j.plies for j in greedy], 1, 0, plies),
            most=plies,
            random=random_loser,
            flat=mean_text([j.plies for j in flat], 1, 0, plies),
            single=mean_text([j.lost_single for j in greedy]),
            any=f"{statistics.fmean(j.any_single for j in greedy):.3f}",
            count=count_text(sum(drawn), seeds),
            ties=mean_text([j.plies_random - j.plies for j in greedy], 1, -plies, plies),
            q=mean_text(q_plies, 1, 0, plies),
        ),
        _by_count(drawn, claim),
    )
    _board_claims(lab, claim)


def _board_claims(lab: Lab, claim: Claims) -> None:
    """The term paper on other boards (000): its learner on 1-2-3-4-5 and 2-6-7-8."""
    parts, commands, verdicts = [], [], []
    for spec in ("nim:1,2,3,4,5", "nim:2,6,7,8"):
        game = parse_spec(spec)
        name = "writeups-paper-first-" + spec.replace(":", "-").replace(",", "-")
        folder, rows, command = lab.sweep(
            name,
            spec,
            with_preset("advanced-nim", game, None, {}, None, None, None, lab.seeds(5)),
            canonical=False,
            ties=WRITEUP_TIES,
        )
        commands.append(command)
        found = [judged(folder, r, lab.games) for r in rows]
        won_first = solve(game).value_of(game.start()) > 0
        seat = 0 if won_first else 1
        unbeaten = [not j.beaten[seat] for j in found]
        verdicts.extend(unbeaten)
        parts.append(
            _(
                "{game}: optimality {optimality}, perfect in {perfect}; the best reply "
                "beats it from the start in the seat where its start is won ({seat}) in "
                "{beaten}"
            ).format(
                game=spec,
                optimality=mean_text([j.optimality for j in found]),
                perfect=count_text(sum(j.optimality == 1.0 for j in found), len(found)),
                seat=_("moving first") if won_first else _("moving second"),
                beaten=count_text(len(found) - sum(unbeaten), len(found)),
            )
        )
    claim(
        "000 · Bewertung",
        quoted(
            "Beim Spiel mit anderen Spielfeldkonfigurationen (zum Beispiel [1 2 3 4 5] oder "
            "[2 6 7 8]) … Sie ist in der Lage für jede erdenkliche Spielfeld-Variante eine "
            "Strategie zu entwickeln und hängt den Menschen siegessicher ab.",
            _("on any board, as 1-2-3-4-5 or 2-6-7-8, it finds a strategy and beats people"),
        ),
        "; ".join([*commands, "qarena beat RUN"]),
        _(
            "its settings, trained and played taking the first of its highest values in its "
            "code's order of moves: {parts}"
        ).format(parts="; ".join(parts)),
        _by_count(verdicts, claim),
    )


def _pole_claims(lab: Lab, claim: Claims) -> None:
    """The term paper's pole positions (000)."""
    holds, fails = claim.holds, claim.fails
    # 000: the pole positions, as a person plays them and as a strict rule.
    game = parse_spec("nim:3,5,7")
    tables = game_tables(game)
    watched, strict = (
        optimality_of_values(tables, strategy_mask(tables, p).astype(np.float64)).share
        for p in ("poles", "poles-strict")
    )
    claim(
        "000 · Gewinnstrategie nach Scam Nation",
        quoted(
            "Sobald nur noch wenige Streichhölzer liegen, gilt es, besonders aufmerksam zu sein "
            '… (Beispiel: 1 1 0 als "2 gleiche Stapel" zu erzeugen, führt im Gegenzug zu 1 0 0 '
            "und damit zur eigenen Niederlage).",
            _("the pole-position strategy wins 3-5-7 if the endgame is watched (1-1-0 is a trap)"),
        ),
        f"qarena eval poles --game {game.spec}; qarena eval poles-strict --game {game.spec}",
        _("optimality {watched:.3f} watching the endgame, {strict:.3f} as a strict rule").format(
            watched=watched, strict=strict
        ),
        holds if watched == 1.0 > strict else fails,
    )
    solution = solve(game)
    start = game.start()
    singles = [m for m in game.legal_moves(start) if sum(game.apply(start, m)) == sum(start) - 1]
    reachable = sum(
        is_pole_position(game.apply(after, reply))
        for after in (game.apply(start, m) for m in singles)
        for reply in game.legal_moves(after)
    )
    winning = [game.format_move(m) for m in singles if solution.move_values(start)[m] == 1]
    claim(
        "000 · Gewinnstrategie nach Scam Nation",
        quoted(
            "Als Konter zu dieser Strategie kann der Gegenspieler im ersten Zug nur ein einziges "
            "Streichholz von einem beliebigen Stapel entnehmen, wodurch im zweiten Zug keine "
            "Pole Position erzeugt werden kann.",
            _("taking a single match first leaves the opponent no pole position to reach"),
        ),
        f"qarena explain {game.spec}",
        _(
            "{count} replies reach a pole position; of the single-match openings the solver "
            "finds {moves} winning"
        ).format(count=reachable, moves=", ".join(winning) or "-"),
        holds if reachable == 0 else fails,
    )
