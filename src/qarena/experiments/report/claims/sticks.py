"""The 12-stick write-up's claims (001): its rule and both versions of its learner."""

from __future__ import annotations

from qarena.evaluate.matches import Record
from qarena.exact import game_tables, solve
from qarena.experiments.report.claims.common import (
    STICK_EPISODES,
    STICK_GAMES,
    WRITEUP_GAMES,
    Claims,
    quoted,
    verdict,
    within_noise,
)
from qarena.experiments.report.lab import (
    Lab,
)
from qarena.games import parse_spec
from qarena.i18n import _
from qarena.judging.evaluation import strategy_masks
from qarena.judging.sampled import Z95, wilson
from qarena.training.run import matrix_row


def _sticks_claims(lab: Lab, claim: Claims) -> None:
    """The 12-stick game (001)."""
    holds, fails = claim.holds, claim.fails
    # 001: the 12-stick game, its rule, and both versions of its learner.
    game = parse_spec("subtraction:12:3")
    solution = solve(game)
    agree = all(
        (solution.value_of((n,)) < 0) == (n % 4 == 1) for n in range(1, game.start()[0] + 1)
    )
    claim(
        "001 · Optimale Strategie",
        quoted(
            "Hat ein Spieler n Hölzchen, dann gibt es für seiner Gegner eine Gewinnstrategie "
            "genau dann, wenn n mod 4 = 1.",
            _("a player with n sticks loses against best play exactly when n mod 4 = 1"),
        ),
        f"qarena explain {game.spec} --position 9",
        _("the solver agrees for every heap from 1 to 12") if agree else _("the solver disagrees"),
        holds if agree else fails,
    )
    # The write-up's AI always moves first, learns from random play or from its optimal player
    # and is measured against both: seed 001's table, one `qarena matrix` per version. Where
    # every move loses, its optimal player does "anything" ("ist es egal, was man macht"):
    # qarena's modulus rule takes one stick there, and perfect play a random move (on this game
    # perfect play is the modulus rule wherever a move wins), so both readings are measured.
    players = ("random", "subtraction", "perfect")
    masks = strategy_masks(game_tables(game), players)
    first: dict[tuple[str, str], dict[str, Record]] = {}
    commands = {}
    for kind in ("elimination", "matchbox"):
        for trainer in players:
            row = matrix_row(
                game,
                kind,
                trainer,
                masks,
                episodes=STICK_EPISODES,
                games=STICK_GAMES,
                seed=0,
                seat="first",
            )
            first[kind, trainer] = {name: r.first for name, r in row.records.items()}
        commands[kind] = (
            f"qarena matrix {game.spec} -l {kind} --trainers {','.join(players)} --judges "
            f"{','.join(players)} --seat first --episodes {STICK_EPISODES} --games {STICK_GAMES}"
        )
    wins = {key: {n: r.win / r.games for n, r in rs.items()} for key, rs in first.items()}

    def measured(kind: str, trainer: str, judge: str) -> str:
        record = first[kind, trainer][judge]
        low, high = wilson(record.win, record.games)
        return _("{share:.2%} (95% interval {low:.2%}–{high:.2%})").format(
            share=record.win / record.games, low=low, high=high
        )

    def agrees(kind: str, trainer: str, judge: str, reported: float) -> bool:
        return within_noise(wins[kind, trainer][judge], STICK_GAMES, reported)

    reported = {"random": 0.70078, "subtraction": 0.70192, "perfect": 0.70192}
    # Each reading of the optimal player: does it give both of the write-up's figures?
    readings = [
        [agrees("elimination", t, "random", reported[t]) for t in ("random", optimal)]
        for optimal in ("subtraction", "perfect")
    ]
    claim(
        "001 · Erste Version",
        quoted(
            "KI: erste Version trainiert mit random_move und evaluiert mit random_move – Die KI "
            "hat 70.078% der Spiele gewonnen. … trainiert mit optimal_move und evaluiert mit "
            "random_move – Die KI hat 70.192% der Spiele gewonnen.",
            _(
                "the first version, trained against random play, wins 70.078% against random "
                "play; trained against the optimal player, 70.192%"
            ),
        ),
        commands["elimination"],
        _(
            "trained against random play: {random}; against the modulus rule taking one stick "
            "where every move loses: {rule}; against it moving at random there (perfect): "
            "{perfect}; the write-up's own figures ±{noise:.2%} (95%, its 100,000 games, "
            "judged within three standard errors of the difference)"
        ).format(
            random=measured("elimination", "random", "random"),
            rule=measured("elimination", "subtraction", "random"),
            perfect=measured("elimination", "perfect", "random"),
            noise=Z95 * (0.7 * 0.3 / WRITEUP_GAMES) ** 0.5,
        ),
        verdict(claim, readings),
    )
    readings = [
        [
            agrees("elimination", "random", optimal, 0.04884),
            agrees("elimination", optimal, optimal, 0.04985),
        ]
        for optimal in ("subtraction", "perfect")
    ]
    claim(
        "001 · Erste Version",
        quoted(
            "KI: erste Version trainiert mit random_move und evaluiert mit optimal_move – Die "
            "KI hat 4.884% der Spiele gewonnen. … trainiert mit optimal_move und evaluiert mit "
            "optimal_move – Die KI hat 4.985% der Spiele gewonnen.",
            _(
                "the first version wins 4.884% against the optimal player (trained against random "
                "play) and 4.985% (trained against the optimal player)"
            ),
        ),
        commands["elimination"],
        _(
            "trained against random play, against the modulus rule taking one stick: "
            "{rule_random}, moving at random where every move loses: {perfect_random}; trained "
            "and measured against the rule taking one stick: {rule_rule}; moving at random: "
            "{perfect_perfect}"
        ).format(
            rule_random=measured("elimination", "random", "subtraction"),
            perfect_random=measured("elimination", "random", "perfect"),
            rule_rule=measured("elimination", "subtraction", "subtraction"),
            perfect_perfect=measured("elimination", "perfect", "perfect"),
        ),
        verdict(claim, readings),
    )
    better = [wins["matchbox", t][j] for t in players for j in players]
    claim(
        "001 · bessere KI",
        quoted(
            "Diese KI schafft es alle Spiele zu gewinnen",
            _("the better version wins every game, in all four combinations"),
        ),
        commands["matchbox"],
        _("wins {low:.2%} to {high:.2%} of {games:,} games in each").format(
            low=min(better), high=max(better), games=STICK_GAMES
        ),
        holds if min(better) == 1.0 else fails,
    )
