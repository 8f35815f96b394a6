"""What the write-ups' claims share: the table of claims with its verdicts, a claim quoted in
its write-up's words, and the tests a figure is judged by."""

from __future__ import annotations

from collections.abc import Sequence

from qarena.experiments.folder import RunRow
from qarena.i18n import _


class Claims(list[tuple[str, ...]]):
    """The write-ups' claims as they are checked: (write-up, claim, command, figure, verdict);
    calling it adds one. The verdicts, in the write-up's own terms: it holds, holds in part,
    does not hold (what the write-up says is shown false), or is not reproduced (qarena's
    figure differs, but the write-up leaves its method too open to say it is false)."""

    def __init__(self) -> None:
        super().__init__()
        self.holds, self.fails, self.part = _("holds"), _("does not hold"), _("holds in part")
        self.unreproduced = _("not reproduced")
        #: Where the claim is not specific enough to judge, or the runs cannot tell: the
        #: figure is given, and says why there is no verdict.
        self.unjudged = _("no verdict")

    def __call__(self, source: str, text: str, command: str, figure: str, verdict: str) -> None:
        self.append((source, text, command, figure, verdict))


#: Training games of each 12-stick run (the write-up does not say how many it played) and
#: games in each seat against each player: as many as the write-up played (its shares have
#: three decimals of a percent, 70.078%), so the interval is tighter than the gaps judged.
STICK_EPISODES = 10_000
STICK_GAMES = 100_000
WRITEUP_GAMES = 100_000


def quoted(quote: str, translation: str | None = None) -> str:
    """A write-up's own sentence, in its language, with a short translation."""
    return f"“{quote}”" if translation is None else f"“{quote}” ({translation})"


def within_noise(
    share: float, games: int, reported: float, reported_games: int = WRITEUP_GAMES
) -> bool:
    """Is ``share`` (of ``games``) within three standard errors of the difference from the
    write-up's ``reported`` share (of ``reported_games``)?"""
    noise = share * (1 - share) / games + reported * (1 - reported) / reported_games
    return bool(abs(share - reported) <= 3 * noise**0.5)


def verdict(claim: Claims, readings: Sequence[Sequence[bool]]) -> str:
    """Holds when every reading of the write-up's player gives every figure; in part when some
    figure is met; else not."""
    if all(all(r) for r in readings):
        return claim.holds
    return claim.part if any(any(r) for r in readings) else claim.fails


def beaten_text(rows: Sequence[RunRow]) -> str:
    """How many runs the strongest opponent who knows their moves beats from the start, in
    each seat (the sweep's ``unbeaten_first`` and ``unbeaten_second``): the write-ups ask
    whether their agent can be beaten, which optimality and matches against perfect play do
    not answer."""
    first = sum(r.unbeaten[0] is False for r in rows)
    second = sum(r.unbeaten[1] is False for r in rows)
    return "; " + _(
        "an opponent who knows its moves beats it from the start moving first in {first} of "
        "{seeds} seeds and moving second in {second} of {seeds} (qarena beat RUN)"
    ).format(first=first, second=second, seeds=len(rows))
