"""Words for the pages about training: what each setting is called, its values in plain form,
and when something happened. The tables here hold message ids (``gettext_noop``), translated
where they are shown: the language is each request's own."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from html import escape
from typing import Any

from markupsafe import Markup

from qarena.games import value_name
from qarena.i18n import _, gettext_noop, ngettext, number
from qarena.learn.learners import LEARNERS
from qarena.learn.presets import record_text
from qarena.learn.settings import ALL_SETTINGS
from qarena.learn.tables.base import reward_text
from qarena.web.store import is_policy_id


class _Labels(Mapping[str, str]):
    """The training settings' labels, read from their one declaration each time they are read
    (a learner kind registered since, ``learners.register``, has its own settings' declared
    labels here), then the symmetry setting's."""

    def _now(self) -> dict[str, str]:
        return {
            **{setting.name: setting.label for setting in ALL_SETTINGS},
            "canonical": gettext_noop("positions learned"),
        }

    def __getitem__(self, name: str) -> str:
        return self._now()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())


#: Each training setting's label, on the Train form and in a policy's settings table.
LABELS: Mapping[str, str] = _Labels()
SCHEDULES = {
    "linear": gettext_noop("linear"),
    "exp": gettext_noop("exponential"),
    "constant": gettext_noop("constant"),
}
START_ORDERS = {
    "sweep": gettext_noop("sweep (every position and move in turn, those nearest the end first)"),
    "uniform": gettext_noop("uniform (positions drawn at random)"),
}
CANONICAL = {True: gettext_noop("one per symmetry"), False: gettext_noop("every position")}
SEATS = {
    "both": gettext_noop("both seats, in turn"),
    "first": gettext_noop("first"),
    "second": gettext_noop("second"),
}
#: The solver's value of a position in a sentence ("… from here, a win for the player to
#: move"), by its name.
A_VALUE = {
    "win": gettext_noop("a win"),
    "draw": gettext_noop("a draw"),
    "loss": gettext_noop("a loss"),
}
#: Months as dates name them, "21 Nov 2026".
MONTHS = (
    gettext_noop("Jan"),
    gettext_noop("Feb"),
    gettext_noop("Mar"),
    gettext_noop("Apr"),
    gettext_noop("May"),
    gettext_noop("Jun"),
    gettext_noop("Jul"),
    gettext_noop("Aug"),
    gettext_noop("Sep"),
    gettext_noop("Oct"),
    gettext_noop("Nov"),
    gettext_noop("Dec"),
)


def labels() -> dict[str, str]:
    """:data:`LABELS` in the current language."""
    return {k: _(v) for k, v in LABELS.items()}


def verdict_span(value: int) -> Markup:
    """The solver's value of a position for a sentence, marked up: ``<span class="verdict">a
    win</span>``."""
    return Markup('<span class="verdict">{}</span>').format(_(A_VALUE[value_name(value)]))


def capitalized(text: str) -> str:
    """``text`` with its first letter a capital: "afterstate TD(0)" → "Afterstate TD(0)"."""
    return text[:1].upper() + text[1:]


def learner_title(kind: str) -> str:
    """A learner by its title, as pages name it: "Q-learning", "Matchbox", "N-tuple network"."""
    cls = LEARNERS.get(kind)
    return kind if cls is None else capitalized(cls.title)


#: Opponents by name, in words.
OPPONENT_WORDS = {
    "self": gettext_noop("itself (self-play)"),
    "random": gettext_noop("random play"),
    "perfect": gettext_noop("perfect play (the solver's)"),
    "strongest": gettext_noop("perfect play at its strongest (the solver's)"),
}


def opponent_text(name: str) -> str:
    """Whom a run trained against, in words."""
    if name in OPPONENT_WORDS:
        return _(OPPONENT_WORDS[name])
    if is_policy_id(name):
        return _("stored policy {id}").format(id=name)
    return _("the {name} player").format(name=name)


def _number(x: Any) -> str:
    return number(x, "g") if isinstance(x, float) else str(x)


def setting_text(name: str, value: Any) -> str:
    """One setting's value for people."""
    if name == "schedule":
        return _(SCHEDULES[value]) if value in SCHEDULES else str(value)
    if name == "start_order":
        return _(START_ORDERS[value]) if value in START_ORDERS else str(value)
    if name == "canonical":
        return _(CANONICAL[bool(value)])
    if name == "rewards" and isinstance(value, list | tuple) and len(value) == 3:
        return " / ".join(reward_text(float(v)) for v in value)
    if name == "starts" and isinstance(value, int | float):
        if value == 0:
            return _("none")
        return _("{percent}% of self-play episodes").format(percent=number(100 * value, "g"))
    return _number(value)


def setting_rows(
    hyper: Mapping[str, Any],
    training: Mapping[str, Any] | None = None,
    preset: Mapping[str, Any] | None = None,
    *,
    own_order: bool = False,
) -> list[tuple[str, str]]:
    """(label, value) rows: how a run trained (whom against, in which seat, until perfect
    play), when the policy's file says so, then its hyperparameters in the form's order (with
    ``own_order``: in the order ``hyper`` gives them, a learner's own, the symmetry setting
    last as on the form)."""
    rows: list[tuple[str, str]] = []
    if training:
        opponent = str(training.get("opponent", "self"))
        rows.append((_("opponent"), opponent_text(opponent)))
        if opponent != "self":
            seat = SEATS.get(str(training.get("seat")), SEATS["both"])
            rows.append((_("seat"), _(seat)))
        rows.append(
            (_("stop at perfect play"), _("yes") if training.get("until_perfect") else _("no"))
        )
    if preset is not None:  # the write-up's method it started from, and what was given over it
        rows.append((_("preset"), record_text(preset)))
    # Without exploring starts, their order says nothing.
    skip = {"start_order"} if hyper.get("starts") == 0 else set()
    known = dict(LABELS)
    order = [*(k for k in hyper if k != "canonical"), "canonical"] if own_order else known
    rows += [
        (_(known[k]), setting_text(k, hyper[k]))
        for k in order
        if k in known and hyper.get(k) is not None and k not in skip
    ]
    return rows


def _ago(seconds: float) -> str | None:
    """ "3 minutes ago" for up to a week, else None."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        n = int(seconds // size)
        if n >= 1:
            if unit == "day" and n >= 7:
                return None
            if unit == "day" and n == 1:
                return _("yesterday")
            if unit == "day":
                return ngettext("{count} day ago", "{count} days ago", n).format(count=n)
            if unit == "hour":
                return ngettext("{count} hour ago", "{count} hours ago", n).format(count=n)
            return ngettext("{count} minute ago", "{count} minutes ago", n).format(count=n)
    return _("just now")


def _date(t: datetime) -> str:
    """ "21 Nov 2026"."""
    return _("{day} {month} {year}").format(day=t.day, month=_(MONTHS[t.month - 1]), year=f"{t:%Y}")


def when(iso: str, now: datetime | None = None) -> Markup:
    """A stored time for people: "2 minutes ago" within a week, "21 Nov 2026" before, in a
    ``<time>`` whose ``datetime`` keeps the ISO form and whose title gives the full time."""
    try:
        t = datetime.fromisoformat(iso)
    except ValueError:
        return Markup("<time>{}</time>").format(iso)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    t = t.astimezone(UTC)
    seconds = ((now or datetime.now(UTC)) - t).total_seconds()
    full = _("{date}, {time} UTC").format(date=_date(t), time=f"{t:%H:%M}")
    # A time ahead of ours (a clock put right since) reads as the date.
    text = (_ago(seconds) if seconds >= -60 else None) or _date(t)
    return Markup(
        f'<time datetime="{escape(t.isoformat())}" title="{escape(full)}">{escape(text)}</time>'
    )


# --- texts whose words depend on a count (the templates call these: plurals live in Python,
# where the catalog finds ngettext's two forms) ---------------------------------------------


def _percent(share: float, digits: int) -> str:
    return number(100 * share, f".{digits}f")


def learner_episodes(learner: str, episodes: int) -> str:
    """ "Q-learning, 30,000 episodes"."""
    return ngettext(
        "{learner}, {count:,} episode", "{learner}, {count:,} episodes", episodes
    ).format(learner=learner, count=episodes)


def policy_option(learner: str, episodes: int, optimality: float, policy: str) -> str:
    """A stored policy as an opponent to choose: "Q-learning, 2,000 episodes, 97% (…)"."""
    return ngettext(
        "{learner}, {count:,} episode, {percent}% ({id})",
        "{learner}, {count:,} episodes, {percent}% ({id})",
        episodes,
    ).format(learner=learner, count=episodes, percent=_percent(optimality, 0), id=policy)


def policy_label(learner: str, game: str, episodes: int, policy: str) -> str:
    """ "Q-learning on nim:3,5,7, 2,000 episodes (1a2b3c4d5e6f)"."""
    return ngettext(
        "{learner} on {game}, {count:,} episode ({id})",
        "{learner} on {game}, {count:,} episodes ({id})",
        episodes,
    ).format(learner=learner, game=game, count=episodes, id=policy)


def unjudged_finished_text(learner: str, stopped: bool, count: int) -> str:
    """How a run of a learner not judged over every position ended (no optimality of its own
    here), in its unit: an n-tuple network's games of self-play, another kind's episodes."""
    cls = LEARNERS.get(learner)
    games = cls is None or cls.unit == "games"
    if stopped:
        if games:
            text = ngettext(
                "Stopped: {count:,} game of self-play learned and kept.",
                "Stopped: {count:,} games of self-play learned and kept.",
                count,
            )
        else:
            text = ngettext(
                "Stopped: {count:,} episode learned and kept.",
                "Stopped: {count:,} episodes learned and kept.",
                count,
            )
    elif games:
        text = ngettext(
            "Done: {count:,} game of self-play. qarena eval FILE judges the network.",
            "Done: {count:,} games of self-play. qarena eval FILE judges the network.",
            count,
        )
    else:
        text = ngettext(
            "Done: {count:,} episode. qarena eval FILE judges it.",
            "Done: {count:,} episodes. qarena eval FILE judges it.",
            count,
        )
    return text.format(count=count)


def trained_text(episodes: int, optimality: float) -> str:
    """ "2,000 episodes; it plays the best move in 97.5% of positions."."""
    return ngettext(
        "{count:,} episode; it plays the best move in {percent}% of positions.",
        "{count:,} episodes; it plays the best move in {percent}% of positions.",
        episodes,
    ).format(count=episodes, percent=_percent(optimality, 1))


def finished_text(stopped: bool, episodes: int, optimality: float) -> str:
    """How a training run ended: "Done: 2,000 episodes; it plays the best move in …"."""
    if stopped:
        text = ngettext(
            "Stopped: {count:,} episode; it plays the best move in {percent}% of positions.",
            "Stopped: {count:,} episodes; it plays the best move in {percent}% of positions.",
            episodes,
        )
    else:
        text = ngettext(
            "Done: {count:,} episode; it plays the best move in {percent}% of positions.",
            "Done: {count:,} episodes; it plays the best move in {percent}% of positions.",
            episodes,
        )
    return text.format(count=episodes, percent=_percent(optimality, 1))


def added_text(learner: str, game: str, episodes: int, optimality: float | None) -> str:
    """What the Policies page says of a policy just uploaded (an n-tuple network has no
    optimality judged here)."""
    if optimality is None:
        return ngettext(
            "Added: an n-tuple network for {game}, {count:,} game of self-play.",
            "Added: an n-tuple network for {game}, {count:,} games of self-play.",
            episodes,
        ).format(game=game, count=episodes)
    return ngettext(
        "Added: a {learner} policy for {game}, {count:,} episode, best move in {percent}% of "
        "positions.",
        "Added: a {learner} policy for {game}, {count:,} episodes, best move in {percent}% of "
        "positions.",
        episodes,
    ).format(learner=learner, game=game, count=episodes, percent=_percent(optimality, 1))


def no_curve_text(policies: list[str]) -> Markup:
    """The Compare page's note on the chosen policies that have no learning curve."""
    text = ngettext(
        "No learning curve in {policies}: it was trained without one ({command} records one "
        "with {flag}).",
        "No learning curve in {policies}: they were trained without one ({command} records "
        "one with {flag}).",
        len(policies),
    )
    return Markup(escape(text)).format(
        policies=", ".join(policies),
        command=Markup("<code>qarena train</code>"),
        flag=Markup("<code>--curve</code>"),
    )
