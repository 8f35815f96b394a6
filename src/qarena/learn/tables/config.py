"""A table learner's hyperparameters (:class:`LearnConfig`) and the words they are given in: the
exploration schedules, the orders of exploring starts and the seats by name, the settings'
names as groups, and rewards as people write and read them (``1,0,-1``; ``+1``, ``−1``).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from qarena.errors import QarenaError
from qarena.i18n import _
from qarena.kernels.constants import (
    SCHEDULE_CONSTANT,
    SCHEDULE_EXP,
    SCHEDULE_LINEAR,
    SEAT_BOTH,
    SEAT_FIRST,
    SEAT_SECOND,
    START_SWEEP,
    START_UNIFORM,
)

SCHEDULES = {"constant": SCHEDULE_CONSTANT, "linear": SCHEDULE_LINEAR, "exp": SCHEDULE_EXP}
START_ORDERS = {"uniform": START_UNIFORM, "sweep": START_SWEEP}
SEATS = {"first": SEAT_FIRST, "second": SEAT_SECOND, "both": SEAT_BOTH}


@dataclass(frozen=True)
class LearnConfig:
    """Hyperparameters. ``epsilon`` decays to ``epsilon_end`` over the run unless constant.

    Each learner reads the fields it needs (``Learner.hyperparameters``); the matchbox learner
    needs none but ``canonical`` and ``seed``.
    """

    alpha: float = 1.0
    gamma: float = 0.9
    epsilon: float = 1.0
    epsilon_end: float = 0.1
    schedule: str = "linear"
    rewards: tuple[float, float, float] = (1.0, 0.0, -1.0)
    initial: float = 0.0
    canonical: bool = True
    seed: int = 0
    starts: float = 1.0
    start_order: str = "sweep"
    #: The second player's learning rate and exploration at the start, for the learners with
    #: a view per seat (None: the first player's): two agents learning against each other.
    alpha_second: float | None = None
    epsilon_second: float | None = None

    def __post_init__(self) -> None:
        from qarena.learn.settings import check_config  # the declaration imports this module

        # The bounds are the declaration's (learn/settings.py), checked there for every kind.
        check_config(self, ALL_HYPERPARAMETERS)
        if self.schedule not in SCHEDULES:
            raise QarenaError(
                _("unknown epsilon schedule {schedule!r}; expected {names}").format(
                    schedule=self.schedule, names=", ".join(SCHEDULES)
                )
            )
        if self.schedule == "exp" and 0 in (self.epsilon, self.epsilon_end):
            raise QarenaError(
                _("an exponential epsilon schedule needs epsilon and its end above 0")
            )
        if self.schedule == "exp" and self.epsilon_second == 0:
            raise QarenaError(_("an exponential epsilon schedule needs epsilon-second above 0"))
        if len(self.rewards) != 3 or not all(np.isfinite(self.rewards)):
            raise QarenaError(
                _("rewards are three numbers WIN,DRAW,LOSS, not {value}").format(value=self.rewards)
            )
        if not np.isfinite(self.initial):
            raise QarenaError(
                _("the initial value must be a finite number, not {value}").format(
                    value=self.initial
                )
            )
        if self.start_order not in START_ORDERS:
            raise QarenaError(
                _("unknown start order {order!r}; expected {names}").format(
                    order=self.start_order, names=", ".join(START_ORDERS)
                )
            )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rewards"] = list(self.rewards)
        return d


#: A number as people type one, in ASCII digits: ``1``, ``-0.5``, ``.5``, ``1e3``.
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def read_rewards(text: str) -> tuple[float, float, float] | None:
    """Rewards written WIN,DRAW,LOSS (``1,0,-1``): three finite numbers, or None when
    ``text`` is not that (each caller refuses it in its own words)."""
    parts = text.split(",")
    if len(parts) != 3 or len(text) > 120 or not all(NUMBER.fullmatch(p.strip()) for p in parts):
        return None
    win, draw, loss = (float(p) for p in parts)
    if not all(math.isfinite(v) for v in (win, draw, loss)):
        return None
    return win, draw, loss


def reward_text(x: float) -> str:
    """A reward for people: ``+1``, ``0``, ``−1`` (a true minus sign)."""
    return "0" if x == 0 else f"{x:+g}".replace("-", "−")


#: Every LearnConfig field, in order.
ALL_HYPERPARAMETERS = tuple(f.name for f in fields(LearnConfig))


#: The settings of the second player, for the learners with a view per seat.
SEAT_SETTINGS = ("alpha_second", "epsilon_second")


#: Every setting but those: the learners whose one table serves both seats alike.
SHARED_HYPERPARAMETERS = tuple(n for n in ALL_HYPERPARAMETERS if n not in SEAT_SETTINGS)


__all__ = [
    "ALL_HYPERPARAMETERS",
    "NUMBER",
    "SCHEDULES",
    "SEATS",
    "SEAT_SETTINGS",
    "SHARED_HYPERPARAMETERS",
    "START_ORDERS",
    "LearnConfig",
    "read_rewards",
    "reward_text",
]
