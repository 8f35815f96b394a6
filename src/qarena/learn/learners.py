"""The learners by name."""

from __future__ import annotations

from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.learn.afterstate import AfterstateLearner
from qarena.learn.base import LearnConfig, Learner
from qarena.learn.matchbox import MatchboxLearner
from qarena.learn.qlearning import QLearner

LEARNERS: dict[str, type[Learner]] = {
    cls.kind: cls for cls in (QLearner, AfterstateLearner, MatchboxLearner)
}


def learner_class(kind: str) -> type[Learner]:
    try:
        return LEARNERS[kind]
    except KeyError:
        raise QarenaError(
            f"unknown learner {kind!r}; expected one of {', '.join(LEARNERS)}"
        ) from None


def make_learner(kind: str, game: Game, config: LearnConfig | None = None) -> Learner:
    return learner_class(kind)(game, config)
