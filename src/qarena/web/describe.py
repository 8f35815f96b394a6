"""Words for the pages about training: what each setting is called, its values in plain form,
and when something happened."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from html import escape
from typing import Any

from markupsafe import Markup

from qarena.learn.base import reward_text
from qarena.learn.learners import LEARNERS

#: Each training setting's label, on the Train form and in a policy's settings table.
LABELS = {
    "alpha": "α learning rate",
    "gamma": "γ discount",
    "epsilon": "ε exploration at the start",
    "epsilon_end": "ε exploration at the end",
    "schedule": "ε schedule",
    "rewards": "rewards for win / draw / loss",
    "initial": "initial value",
    "canonical": "positions learned",
    "seed": "seed",
    "starts": "exploring starts: share",
    "start_order": "exploring starts: order",
}
SCHEDULES = {"linear": "linear", "exp": "exponential", "constant": "constant"}
START_ORDERS = {
    "sweep": "sweep (every position and move in turn, those nearest the end first)",
    "uniform": "uniform (positions drawn at random)",
}
CANONICAL = {True: "one per symmetry", False: "every position"}
SEATS = {"both": "both seats, in turn", "first": "first", "second": "second"}


def capitalized(text: str) -> str:
    """``text`` with its first letter a capital: "afterstate TD(0)" → "Afterstate TD(0)"."""
    return text[:1].upper() + text[1:]


def learner_title(kind: str) -> str:
    """A learner by its title, as pages name it: "Q-learning", "Matchbox"."""
    cls = LEARNERS.get(kind)
    return kind if cls is None else capitalized(cls.title)


def opponent_text(name: str) -> str:
    """Whom a run trained against, in words."""
    words = {
        "self": "itself (self-play)",
        "random": "random play",
        "perfect": "perfect play (the solver's)",
    }
    if name in words:
        return words[name]
    if len(name) == 12 and all(c in "0123456789abcdef" for c in name):
        return f"stored policy {name}"
    return f"the {name} player"


def _number(x: Any) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def setting_text(name: str, value: Any) -> str:
    """One setting's value for people."""
    if name == "schedule":
        return SCHEDULES.get(value, str(value))
    if name == "start_order":
        return START_ORDERS.get(value, str(value))
    if name == "canonical":
        return CANONICAL.get(bool(value), str(value))
    if name == "rewards" and isinstance(value, list | tuple) and len(value) == 3:
        return " / ".join(reward_text(float(v)) for v in value)
    if name == "starts" and isinstance(value, int | float):
        return "none" if value == 0 else f"{100 * value:g}% of self-play episodes"
    return _number(value)


def setting_rows(
    hyper: Mapping[str, Any], training: Mapping[str, Any] | None = None
) -> list[tuple[str, str]]:
    """(label, value) rows: how a run trained (whom against, in which seat, until perfect
    play), when the policy's file says so, then its hyperparameters in the form's order."""
    rows: list[tuple[str, str]] = []
    if training:
        opponent = str(training.get("opponent", "self"))
        rows.append(("opponent", opponent_text(opponent)))
        if opponent != "self":
            rows.append(("seat", SEATS.get(str(training.get("seat")), "both seats, in turn")))
        rows.append(("stop at perfect play", "yes" if training.get("until_perfect") else "no"))
    # Without exploring starts, their order says nothing.
    skip = {"start_order"} if hyper.get("starts") == 0 else set()
    rows += [(LABELS[k], setting_text(k, hyper[k])) for k in LABELS if k in hyper and k not in skip]
    return rows


def _ago(seconds: float) -> str | None:
    """ "3 minutes ago" for up to a week, else None."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        n = int(seconds // size)
        if n >= 1:
            if unit == "day" and n >= 7:
                return None
            if unit == "day" and n == 1:
                return "yesterday"
            return f"{n} {unit}{'s' if n > 1 else ''} ago"
    return "just now"


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
    full = f"{t.day} {t:%b %Y, %H:%M} UTC"
    # A time ahead of ours (a clock put right since) reads as the date.
    text = (_ago(seconds) if seconds >= -60 else None) or f"{t.day} {t:%b %Y}"
    return Markup(
        f'<time datetime="{escape(t.isoformat())}" title="{escape(full)}">{escape(text)}</time>'
    )
