"""The write-ups' claims checked one by one: each claim quoted, the command that tests it, the
figure it gives here and a verdict. One module per write-up (the Nim write-ups share one:
``nim.py``); ``common.py`` holds the table of claims and the tests figures are judged by."""

from __future__ import annotations

from qarena.experiments.report.claims.common import STICK_GAMES, Claims
from qarena.experiments.report.claims.nim import _course_claims, _paper_claims, _pole_claims
from qarena.experiments.report.claims.sticks import STICK_SEEDS, _sticks_claims
from qarena.experiments.report.claims.tictactoe import _tictactoe_claims
from qarena.experiments.report.lab import Lab, Section, TableData
from qarena.i18n import _


def writeups(lab: Lab) -> Section:
    """Each write-up's headline figures and claims, measured with its own learner."""
    section = Section(
        "writeups",
        _("The write-ups reproduced"),
        _(
            "qarena grew from five write-ups: a term paper on 3-5-7 Nim (000), the 12-stick "
            "game (001), a course notebook on 1-3-5-7 Nim (002), Sutton & Barto's tic-tac-toe "
            "learner (003) and a solution of the course's Nim assignment (004). Does each "
            "figure and claim hold when its own learner, with its own settings, runs in qarena "
            "and the solver judges it?"
        ),
    )
    claims = Claims()
    for part_of in (_course_claims, _paper_claims, _pole_claims, _sticks_claims,
                    _tictactoe_claims):  # fmt: skip
        part_of(lab, claims)
    holds, fails, part = claims.holds, claims.fails, claims.part
    for claimed in claims:
        for command in claimed[2].split("; "):
            if command not in section.commands:
                section.commands.append(command)
    section.tables.append(
        TableData(
            (_("write-up"), _("claim"), _("qarena command"), _("qarena's figure"), _("verdict")),
            claims,
            _(
                "Games against players: {games:,} in each seat; the 12-stick rows: {sticks:,} "
                "with the agent moving first, as the write-up's, in each of {seeds} seeds. A "
                "quoted claim is the write-up's own sentence. Verdicts: the write-up's figure "
                "within the range one more of qarena's runs falls in (95%, from independent "
                "seeds), or the claim as the solver and the best reply judge it."
            ).format(games=lab.games, sticks=STICK_GAMES, seeds=STICK_SEEDS),
            words=True,
            code_column=2,
        )
    )
    verdicts = [c[4] for c in claims]
    section.finding = _(
        "Of {total} claims, {held} hold, {partly} hold in part, {failed} do not and {open} are "
        "not reproduced."
    ).format(
        total=len(claims),
        held=verdicts.count(holds),
        partly=verdicts.count(part),
        failed=verdicts.count(fails),
        open=verdicts.count(claims.unreproduced),
    )
    if claims.unjudged in verdicts:
        section.finding += " " + _(
            "{count} are too vague to judge, or the runs cannot tell: their figures are given "
            "without a verdict."
        ).format(count=verdicts.count(claims.unjudged))
    if claims[1][4] == fails:
        section.finding += " " + _(
            "The course notebook's promise that a human can never win fails on 1-3-5-7: the "
            "start is lost for the player to move, so a human moving second wins with best "
            "play."
        )
    return section


__all__ = ["writeups"]
