"""Training an agent on the spot for a person who is waiting to play it: a time limit on a
run, and the learner and settings ``qarena play`` and the web app train with."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from qarena.games import Game
from qarena.judging.family import exact_share, family_of
from qarena.learn.family import Trainable
from qarena.learn.tables.base import Learner, Opponent
from qarena.training.run import Progress, RunPlan, RunResult, default_episodes, new_table

#: Training on the spot stops after this long, perfect or not: the person is waiting.
TRAIN_SECONDS = 10.0
#: The learner trained on the spot, with its default settings.
SPOT_LEARNER = "q"


@dataclass(frozen=True)
class Training:
    learner: Learner
    result: RunResult
    seconds: float  # wall-clock time of the training, setting up excluded

    @property
    def perfect(self) -> bool:
        """Whether the agent plays perfectly at the end of the run (the solver's judgement)."""
        return self.result.exact.share == 1.0


def run_timed(
    plan: RunPlan,
    *,
    seconds: float | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[RunResult, float]:
    """The ``plan``'s run (any learner kind), stopped after ``seconds`` (None: no limit) as
    well as by ``should_stop``, and its wall-clock seconds. The kernels compile (or load) and
    a table learner's game is solved first: the limit is for training."""
    learner: Trainable = plan.learner
    learner.warm_up()
    exact_share(learner)  # a game judged over every position is solved before the limit starts
    t0 = time.monotonic()

    def stop() -> bool:
        late = seconds is not None and time.monotonic() - t0 > seconds
        return late or (should_stop is not None and should_stop())

    result = plan.run(on_progress, stop)
    return result, time.monotonic() - t0


def train_timed(
    plan: RunPlan,
    *,
    seconds: float | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Training:
    """:func:`run_timed` for a table learner, as its :class:`Training`."""
    learner = family_of(plan.learner).table(plan.learner)
    assert learner is not None, "a game trained on the spot is judged over its tables"
    result, took = run_timed(
        plan, seconds=seconds, on_progress=on_progress, should_stop=should_stop
    )
    return Training(learner, result, took)


def train_on_the_spot(
    game: Game,
    *,
    seconds: float | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Training:
    """A fresh ``SPOT_LEARNER`` trained by self-play as ``qarena train SPEC`` trains it: the
    learner's default settings (exploring starts included) and its default episode count, the
    play judged once, at the end; for at most ``seconds`` (default: ``TRAIN_SECONDS``, read
    when called).

    It does not judge the play as it goes to stop at perfect play: on mid-size games judging
    costs far more than training (connect4:4x5: 0.34 s a judgement, every 1% of a run whose
    training takes 2 s in all), and the time limit ran out with the agent half-trained."""
    learner = new_table(game, SPOT_LEARNER, {})
    plan = RunPlan(learner, Opponent("self"), "both", default_episodes(learner))
    return train_timed(
        plan,
        seconds=TRAIN_SECONDS if seconds is None else seconds,
        on_progress=on_progress,
        should_stop=should_stop,
    )
