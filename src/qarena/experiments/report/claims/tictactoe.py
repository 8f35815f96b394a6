"""The tic-tac-toe blog's claims (003), by its own rule and settings."""

from __future__ import annotations

from qarena.evaluate.matches import both_seats
from qarena.experiments.grid import with_preset
from qarena.experiments.report.claims.common import Claims, beaten_text, quoted
from qarena.experiments.report.lab import (
    Lab,
    run_path,
)
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.judging.evaluation import strategy_mask
from qarena.judging.sampled import wilson
from qarena.learn.learners import load_table


def _tictactoe_claims(lab: Lab, claim: Claims) -> None:
    """The tic-tac-toe blog (003), by its own rule and settings: the ``tictactoe-blog`` preset
    (``game-backup``: every position of a game backed up at its end, steps 0.1·α, rewards 1,
    0.5, 0, every value 0.25 at first, no discount, constant ε 0.5 and 0.2)."""
    holds, fails, part = claim.holds, claim.fails, claim.part
    game = parse_spec("tictactoe")
    claims = (
        # Its closing remark, after train(50000).
        (
            50_000,
            quoted(
                "Bei 50000 Trainings-Epochen ist es sehr unwahrscheinlich etwas anders als "
                "unentschieden zu erreichen.",
                _("with 50,000 training games, anything but a draw is very unlikely"),
            ),
        ),
        # Its introduction, on its changes to the update.
        (
            20_000,
            quoted(
                "Nach einigen Änderungen insbesondere beim Update der Q-Tabelle reichen jetzt "
                "schon 20000 Epochen.",
                _("after some changes, above all to the update, 20,000 games are enough now"),
            ),
        ),
    )
    for episodes, text in claims:
        grid = with_preset("tictactoe-blog", game, None, {}, None, None, (episodes,), lab.seeds(5))
        folder, rows, command = lab.sweep(f"writeups-tictactoe-blog-{episodes}", game.spec, grid)
        drawn = games = lost = 0
        clean = 0
        for row in rows:
            learner = load_table(run_path(folder, row))
            best = learner.best_moves()
            perfect = strategy_mask(learner.tables, "perfect")
            seats = both_seats(learner.tables, best, perfect, lab.games, 0, "perfect")
            losses = seats.first.loss + seats.second.loss
            each_other = both_seats(learner.tables, best, best, lab.games, 0, "self").total
            drawn += each_other.draw
            games += each_other.games
            lost += losses
            clean += int(each_other.draw == each_other.games and losses == 0)
        low, _high = wilson(drawn, games)
        pair = run_path(folder, rows[0])
        claim(
            "003 · Tic-Tac-Toe",
            text,
            f"{command}; qarena compete {pair} {pair} --games {lab.games}; "
            f"qarena eval {pair} --games {lab.games}",
            _(
                "by the blog's own rule and settings (preset tictactoe-blog), {episodes:,} "
                "games: the two agents draw {drawn:,} of {games:,} games with each other (95% "
                "interval from {low:.1%}); {lost:,} games lost to perfect play in {played:,}; "
                "{clean} of {seeds} seeds draw every game and never lose"
            ).format(
                episodes=episodes,
                drawn=drawn,
                games=games,
                low=low,
                lost=lost,
                played=2 * lab.games * len(rows),
                clean=clean,
                seeds=len(rows),
            )
            + beaten_text(rows),
            holds if clean == len(rows) else part if clean else fails,
        )
