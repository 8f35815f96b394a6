"""The tic-tac-toe blog's claims (003), by its own rule, settings and table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qarena.exact import game_tables
from qarena.experiments.grid import with_preset
from qarena.experiments.report.claims.common import Claims, quoted
from qarena.experiments.report.lab import Lab, run_path
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.judging.evaluation import strategy_mask
from qarena.judging.sampled import wilson
from qarena.learn.learners import load_table
from qarena.learn.presets import canonical_of
from qarena.show.matches import both_seats, play_series

PRESET = "tictactoe-blog"
#: The two readings of the blog's step (its update, line 235, moves 0.1·α of the way): its
#: train() passes step_size=0.99 and 0.8 (lines 360–361) to a constructor that takes alpha=
#: (line 199), which raises as printed. The call names a step for each agent and the class has
#: one parameter for it, so the code implies α 0.99 and 0.8 (the preset's steps 0.099 and 0.08);
#: the other reading drops the keyword, leaving the class's default α 0.1 (step 0.01).
READINGS: tuple[tuple[str, float, float], ...] = (("0.99/0.8", 0.099, 0.08), ("0.1", 0.01, 0.01))
#: The blog's 4×4 figure (line 13) and what a board of 16 cells could hold at most.
BLOG_STATES_4X4 = 16_000_000
BOARDS_4X4 = 3**16


@dataclass(frozen=True)
class Seeds:
    """One sweep of the blog's two agents, counted by seed: the pair's own games (two greedy
    agents replay one game, up to ties, so a seed is one sample), games lost to perfect play
    in each agent's own seat, and the best reply from the start."""

    seeds: int
    draws: int  # seeds whose two agents draw every game with each other
    first_wins: int  # seeds whose first agent wins every game with the second
    lose_second: int  # seeds whose second agent loses some game to perfect play
    lost_share: tuple[float, float]  # the least and most of its games it loses, over those
    beaten: int  # seeds where the best reply beats an agent from the start in its own seat
    clean: int  # seeds where the pair draws and neither agent can be beaten from the start
    command: str
    pair: str  # one run's file, for the commands


def _seeds(lab: Lab, episodes: int, alpha: float, alpha_second: float) -> Seeds:
    game = parse_spec("tictactoe")
    values = {"alpha": (alpha,), "alpha_second": (alpha_second,)}
    grid = with_preset(PRESET, game, None, values, None, None, (episodes,), lab.seeds(8))
    folder, rows, command = lab.sweep(
        f"writeups-tictactoe-blog-{episodes}-step-{alpha:g}",
        game.spec,
        grid,
        # The blog's own table: one entry per position (a sweep's default merges mirror images).
        canonical=canonical_of(PRESET, None),
    )
    tables = game_tables(game, canonical=False)
    perfect = strategy_mask(tables, "perfect")
    draws = first_wins = clean = 0
    losers: list[float] = []
    beaten = 0
    for row in rows:
        learner = load_table(run_path(folder, row))
        best = learner.best_moves()
        pair = play_series(learner.tables, best, best, lab.games, 0, "self")
        against = both_seats(learner.tables, best, perfect, lab.games, 0, "perfect")
        draws += pair.draw == pair.games
        first_wins += pair.win == pair.games
        if against.second.loss:
            losers.append(against.second.loss / against.second.games)
        # The blog's first agent always moves first and its second always second.
        lost_start = row.unbeaten[0] is False or row.unbeaten[1] is False
        beaten += lost_start
        clean += pair.draw == pair.games and not lost_start
    return Seeds(
        len(rows),
        draws,
        first_wins,
        len(losers),
        (min(losers), max(losers)) if losers else (0.0, 0.0),
        beaten,
        clean,
        command,
        run_path(folder, rows[0]),
    )


def _seeds_text(s: Seeds) -> str:
    low, high = wilson(s.clean, s.seeds)
    text = _(
        "the pair draws with each other in {draws} of {seeds} seeds (the first agent wins "
        "every game in {first}); the second agent loses to perfect play in {lose} of {seeds} "
        "({low_lost:.0%}–{high_lost:.0%} of its games there); an opponent who knows its moves "
        "beats one of them from the start in {beaten} of {seeds}; {clean} of {seeds} seeds "
        "draw and are unbeaten (95% interval over seeds {low:.0%}–{high:.0%})"
    )
    return text.format(
        draws=s.draws,
        seeds=s.seeds,
        first=s.first_wins,
        lose=s.lose_second,
        low_lost=s.lost_share[0],
        high_lost=s.lost_share[1],
        beaten=s.beaten,
        clean=s.clean,
        low=low,
        high=high,
    )


def _reading_verdict(claim: Claims, s: Seeds) -> str:
    if s.clean == s.seeds:
        return claim.holds
    return claim.part if s.clean else claim.fails


def _tictactoe_claims(lab: Lab, claim: Claims) -> None:
    """The tic-tac-toe blog (003), by its own rule and settings: the ``tictactoe-blog`` preset
    (``game-backup``: every position of a game backed up at its end, rewards 1, 0.5, 0, every
    value 0.25 at first, no discount, constant ε 0.5 and 0.2) with its own table, one entry per
    position, under both readings of its step."""
    holds, fails, part = claim.holds, claim.fails, claim.part
    claims = (
        # Its closing remark, after train(50000) (section "Main", line 428).
        (
            "003 · Main",
            50_000,
            quoted(
                "Bei 50000 Trainings-Epochen ist es sehr unwahrscheinlich etwas anders als "
                "unentschieden zu erreichen.",
                _("with 50,000 training games, anything but a draw is very unlikely"),
            ),
        ),
        # Its introduction, on its changes to the update (line 7).
        (
            "003 · Q-Learning Teil 2",
            20_000,
            quoted(
                "Nach einigen Änderungen insbesondere beim Update der Q-Tabelle reichen jetzt "
                "schon 20000 Epochen.",
                _("after some changes, above all to the update, 20,000 games are enough now"),
            ),
        ),
    )
    for where, episodes, text in claims:
        measured = [(name, _seeds(lab, episodes, a, b)) for name, a, b in READINGS]
        verdicts = [_reading_verdict(claim, s) for _name, s in measured]
        both = (
            holds
            if all(v == holds for v in verdicts)
            else fails
            if all(v == fails for v in verdicts)
            else part
        )
        parts = [
            _("α {alpha} (step {step:g}): {seeds}").format(alpha=name, step=a, seeds=_seeds_text(s))
            for (name, s), (_n, a, _b) in zip(measured, READINGS, strict=True)
        ]
        pair = measured[0][1].pair
        claim(
            where,
            text,
            "; ".join(
                [s.command for _name, s in measured]
                + [
                    f"qarena compete {pair} {pair} --games {lab.games}",
                    f"qarena eval {pair} --games {lab.games}",
                    f"qarena beat {pair}",
                ]
            ),
            _(
                "by the blog's own rule, settings and table (preset tictactoe-blog, one entry "
                "per position), {episodes:,} games, under both readings of its step (train() "
                "passes step_size=, lines 360–361, which the constructor, line 199, does not "
                "take: the code implies α 0.99 and 0.8, the values it passes; without them α "
                "is the class's 0.1): {readings}"
            ).format(episodes=episodes, readings="; ".join(parts)),
            both,
        )
    _original_claim(claim)
    _four_by_four_claim(claim)


def _original_claim(claim: Claims) -> None:
    """Line 7: the original needs about 100,000 games. The blog does not show the original's
    update, only its own, so qarena has nothing of the original's to run."""
    claim(
        "003 · Q-Learning Teil 2",
        quoted(
            "Wahrscheinlich sind deshalb im Original ca. 100000 Epochen notwendig um zu einem "
            "halbwegs guten Resultat zu gelangen.",
            _(
                "probably this is why the original needs about 100,000 games for a halfway good "
                "result"
            ),
        ),
        "qarena presets tictactoe-blog",
        _(
            "not measured: the blog shows only its own update (line 235), not the original's "
            "it changed, and gives no measure of a halfway good result"
        ),
        claim.unreproduced,
    )


def _four_by_four_claim(claim: Claims) -> None:
    """Line 13: 4×4 has over 16 million states to value. Its code values every position its
    recursion reaches (lines 124–151: alternating moves from the empty board, none after a
    win), one entry each: the reachable positions, counted here exactly."""
    game = parse_spec("tictactoe:4x4:4")
    tables = game_tables(game)
    # The merged table's classes, each with the number of positions it stands for.
    positions = int(np.asarray(tables.orbit).sum())
    classes = len(tables.codes)
    claim(
        "003 · Imports und Konstanten",
        quoted(
            "… weil allein schon bei 4×4 über 16 Millionen Zustände zu bewerten sind.",
            _("because 4×4 alone has over 16 million states to value"),
        ),
        f"qarena solve {game.spec}",
        _(
            "4×4 (four in a row) has {positions:,} positions reachable from the empty board, "
            "as the blog's recursion collects them (lines 124–151; {classes:,} up to mirror "
            "images and rotations); all 3^16 = {boards:,} fillings of 16 cells with X, O or "
            "nothing are more, but most cannot arise in a game; no count of 4×4 is 16 million"
        ).format(positions=positions, classes=classes, boards=BOARDS_4X4),
        claim.holds if positions > BLOG_STATES_4X4 else claim.fails,
    )
