"""The JSON API's request and response bodies."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator

from qarena.learn.learners import LEARNERS
from qarena.web.jobs import MAX_EPISODES
from qarena.web.store import PolicyRow

#: A number in a JSON body: ``true`` is not 1, nor ``"5"`` 5.
_Number = Annotated[float, Field(strict=True)]

#: A share: 0 to 1.
_SHARE: dict[str, Any] = {"minimum": 0, "maximum": 1}

#: Seeds fit the kernels' 64-bit generator.
MAX_SEED = 2**63 - 1


class NewGame(BaseModel):
    game: str | None = Field(
        default=None, max_length=200, description="Game spec", examples=["nim:3,5,7"]
    )
    first: Literal["human", "ai"] = "human"
    policy: str | None = Field(default=None, max_length=64, description="A policy id")
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        strict=True,
        description="Seed for the AI's choice among ties",
    )


class MoveIn(BaseModel):
    move: str = Field(
        max_length=100,
        description="A move: 3:2 (nim: 2 from pile 3), 2 (subtraction), b2 (tic-tac-toe)",
        examples=["1:1"],
    )


class TrainIn(BaseModel):
    """A training run, with the settings of ``qarena train`` (checked the same way); what is
    left out takes the learner's defaults."""

    game: str = Field(max_length=200, description="Game spec", examples=["nim:2,3"])
    learner: str = Field(
        default="q",
        max_length=32,
        description="The learner: q, afterstate, matchbox, seat-q, naive-q or elimination",
        json_schema_extra={"enum": list(LEARNERS)},
    )
    episodes: int | None = Field(
        default=None,
        ge=1,
        strict=True,
        examples=[2000],
        json_schema_extra={"maximum": MAX_EPISODES},
    )
    # The bounds are stated for clients (and the fuzzer); the learner's own check refuses a
    # value outside them, in the command line's words.
    alpha: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="Learning rate, in (0, 1]",
        json_schema_extra=_SHARE | {"exclusiveMinimum": 0},
    )
    gamma: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="Discount, in [0, 1]",
        json_schema_extra=_SHARE,
    )
    epsilon: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="Exploration rate at the start, in [0, 1]",
        json_schema_extra=_SHARE,
    )
    epsilon_end: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="Exploration rate at the end, in [0, 1]",
        json_schema_extra=_SHARE,
    )
    schedule: str | None = Field(
        default=None,
        max_length=32,
        description="How ε goes from start to end: constant, linear or exp",
        json_schema_extra={"enum": ["constant", "linear", "exp"]},
    )
    rewards: tuple[_Number, _Number, _Number] | None = Field(
        default=None, description="Rewards for a win, a draw and a loss", examples=[[1, 0, -1]]
    )
    initial: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="Initial value of every table entry",
    )
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED, strict=True)
    starts: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="Self-play only: the share of episodes that begin at a position the "
        "learner plays on (exploring starts), in [0, 1]",
        json_schema_extra=_SHARE,
    )
    start_order: str | None = Field(
        default=None,
        max_length=32,
        description="Exploring starts: sweep or uniform",
        json_schema_extra={"enum": ["sweep", "uniform"]},
    )
    alpha_second: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="In self-play, the second player's learning rate, in (0, 1] "
        "(afterstate and seat-q; default: alpha)",
        json_schema_extra=_SHARE | {"exclusiveMinimum": 0},
    )
    epsilon_second: float | None = Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description="In self-play, the second player's exploration rate at the start, in "
        "[0, 1] (afterstate and seat-q; default: epsilon)",
        json_schema_extra=_SHARE,
    )
    canonical: bool = Field(
        default=True,
        strict=True,
        description="Learn one position per symmetry (false: every position)",
    )
    opponent: str = Field(
        default="self",
        max_length=32,
        description="self, random, perfect, a rule-based player of the game "
        "(bouton, poles, poles-strict, subtraction), or the id of a stored policy of the same game",
    )
    seat: str = Field(
        default="both",
        max_length=16,
        description="Against an opponent: the learner plays first, second, or both (alternating)",
        json_schema_extra={"enum": ["first", "second", "both"]},
    )
    until_perfect: bool = Field(
        default=False, strict=True, description="Stop as soon as the solver finds the play perfect"
    )

    @field_validator("rewards")
    @classmethod
    def _finite(cls, value: tuple[float, float, float] | None) -> tuple[float, float, float] | None:
        if value is not None and not all(math.isfinite(v) for v in value):
            raise ValueError("rewards must be three finite numbers")
        return value


class Detail(BaseModel):
    """Every error's body."""

    detail: str = Field(description="What went wrong, in one sentence")


class GameOut(BaseModel):
    id: str
    game: str
    policy: str
    first: Literal["human", "ai"]
    position: str
    to_move: Literal["human", "ai"] | None
    legal_moves: list[str]
    q: dict[str, float] = Field(description="The AI's value of each legal move")
    history: list[str]
    ai_move: str | None
    result: Literal["human", "ai", "draw"] | None


class JobOut(BaseModel):
    job: str
    game: str
    learner: str
    opponent: str
    state: Literal["queued", "running", "done", "failed"]
    episodes: int
    total: int
    fraction: float
    optimality: float | None
    points: int
    policy: str | None
    error: str | None
    spot: bool
    first: Literal["human", "ai"]
    seat: str = Field(description="The learner's seat against its opponent")
    until_perfect: bool = Field(description="Whether the run stops at perfect play")
    stopped: bool
    queue_position: int | None = Field(description="While queued: 1 for the next run to start")
    waiting: str | None = Field(description="While queued, e.g. '2nd in line'")


class JobStarted(JobOut):
    events: str = Field(description="Where to follow the run as server-sent events")


class PolicyOut(PolicyRow):
    download: str


class PolicyDetail(PolicyOut):
    """One stored policy, with what its file says about how it was trained."""

    hyperparameters: dict[str, Any] = Field(description="The learner's settings")
    training: dict[str, Any] | None = Field(
        description="How it was trained here: opponent, seat, until_perfect (none for files "
        "trained on the command line)"
    )
