"""The JSON API's request and response bodies."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from qarena.web.store import PolicyRow

#: Seeds fit the kernels' 64-bit generator.
MAX_SEED = 2**63 - 1


class NewGame(BaseModel):
    game: str | None = Field(
        default=None, max_length=200, description="Game spec", examples=["nim:3,5,7"]
    )
    first: Literal["human", "ai"] = "human"
    policy: str | None = Field(default=None, max_length=64, description="A policy id")
    seed: int | None = Field(
        default=None, ge=0, le=MAX_SEED, description="Seed for the AI's choice among ties"
    )


class MoveIn(BaseModel):
    move: str = Field(
        max_length=100,
        description="A move: 3:2 (nim: 2 from pile 3), 2 (subtraction), b2 (tic-tac-toe)",
        examples=["1:1"],
    )


class TrainIn(BaseModel):
    game: str = Field(max_length=200, description="Game spec", examples=["nim:2,3"])
    learner: str = Field(default="q", max_length=32, description="q, afterstate or matchbox")
    episodes: int | None = Field(default=None, ge=1, examples=[2000])
    alpha: float | None = Field(default=None, allow_inf_nan=False)
    gamma: float | None = Field(default=None, allow_inf_nan=False)
    epsilon: float | None = Field(default=None, allow_inf_nan=False)
    epsilon_end: float | None = Field(default=None, allow_inf_nan=False)
    schedule: str | None = Field(default=None, max_length=32)
    opponent: str = Field(
        default="self",
        max_length=32,
        description="self, random, perfect, or a rule-based player of the game "
        "(bouton, poles, subtraction)",
    )
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)


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
    stopped: bool
    queue_position: int | None = Field(description="While queued: 1 for the next run to start")
    waiting: str | None = Field(description="While queued, e.g. '2nd in line'")


class JobStarted(JobOut):
    events: str = Field(description="Where to follow the run as server-sent events")


class PolicyOut(PolicyRow):
    download: str
