"""The JSON API's request and response bodies."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from qarena.learn.learners import LEARNERS
from qarena.learn.presets import BY_NAME as PRESETS_BY_NAME
from qarena.learn.settings import ALL_SETTINGS, TrainingSetting, registered_settings
from qarena.web.jobs import MAX_EPISODES, JobState
from qarena.web.store import PolicyRow

#: A number in a JSON body: ``true`` is not 1, nor ``"5"`` 5.
_Number = Annotated[float, Field(strict=True)]

#: Seeds fit the kernels' 64-bit generator.
MAX_SEED = 2**63 - 1


class NewGame(BaseModel):
    game: str | None = Field(
        default=None, max_length=200, description="Game spec", examples=["nim:3,5,7"]
    )
    first: Literal["human", "ai"] = "human"
    policy: str | None = Field(default=None, max_length=64, description="A policy id")
    opponent: (
        Literal["trained", "strongest", "perfect", "network"]
        | Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*:", max_length=100)]
        | None
    ) = Field(
        default=None,
        description="Whom to play: a trained agent (the policy given, the game's best stored "
        "one or one trained on the spot), perfect play at its strongest (the solver: the "
        "fastest win, the longest resistance), perfect play (the solver: any move that keeps "
        "the value, at random), the n-tuple network that comes with qarena (classic "
        "Connect Four), or a player that thinks, by its spec (mcts:1000, mcts:1s, "
        "alphabeta:4:network; a FILE is network or a stored policy's id), within the "
        "server's time a move. Default: perfect play at its strongest on boards solved by "
        "search, else a trained agent.",
        examples=["strongest", "mcts:1000"],
    )
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


class _TrainBase(BaseModel):
    """A training run, with the settings of ``qarena train`` (checked the same way); what is
    left out takes the learner's defaults."""

    game: str = Field(max_length=200, description="Game spec", examples=["nim:2,3"])
    learner: str = Field(
        default="q",
        max_length=32,
        description="The learner: q, afterstate, matchbox, seat-q, naive-q, elimination, "
        "game-backup, "
        "ntuple (an n-tuple network) or alphazero (a policy-value network learning through its "
        "search); the last two learn by self-play: no opponent, seat, until_perfect or "
        "canonical false",
        json_schema_extra={"enum": [*LEARNERS]},
    )
    episodes: int | None = Field(
        default=None,
        ge=1,
        strict=True,
        examples=[2000],
        json_schema_extra={"maximum": MAX_EPISODES},
    )
    canonical: bool = Field(
        default=True,
        strict=True,
        description="Learn one position per symmetry (false: every position); with a preset, "
        "not given: the write-up's own table (every position)",
    )
    opponent: str = Field(
        default="self",
        max_length=32,
        description="self, random, perfect, strongest, a rule-based player of the game "
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
    preset: str | None = Field(
        default=None,
        max_length=32,
        description="A write-up's method (qarena train --preset): its learner, settings, "
        "opponent, seat, episodes and kind of table (canonical) fill every field not given",
        json_schema_extra={"enum": list(PRESETS_BY_NAME)},
    )

    # A learner kind registered after import sends its own settings by their declared names:
    # kept (the learner's declaration checks them, as the command line's); anything else
    # unknown is ignored, as before.
    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def _own_settings(self) -> Self:
        extra = self.__pydantic_extra__
        if extra is not None:
            own = {s.name for s in registered_settings()}
            for name in [k for k in extra if k not in own]:
                del extra[name]
            for name in own:
                extra.setdefault(name, None)
        return self

    @field_validator("rewards", check_fields=False)
    @classmethod
    def _finite(cls, value: tuple[float, float, float] | None) -> tuple[float, float, float] | None:
        if value is not None and not all(math.isfinite(v) for v in value):
            raise ValueError("rewards must be three finite numbers")
        return value


def _setting_field(setting: TrainingSetting) -> tuple[Any, Any]:
    """A training setting as a field of the request: its type, bounds and description from
    the one declaration. The bounds are stated for clients (and the fuzzer); the learner's own
    check refuses a value outside them, in the command line's words."""
    text = setting.help
    if setting.kind == "rewards":
        triple = tuple[_Number, _Number, _Number] | None
        return triple, Field(default=None, description=text, examples=[[1, 0, -1]])
    if setting.kind == "choice":
        extra: dict[str, Any] = {"enum": list(setting.values)}
        return str | None, Field(
            default=None, max_length=32, description=text, json_schema_extra=extra
        )
    if setting.kind == "int":
        low = int(setting.low or 0)
        high = MAX_SEED if setting.high is None else int(setting.high)
        return int | None, Field(default=None, ge=low, le=high, strict=True, description=text)
    bounds: dict[str, Any] = {}
    if setting.low is not None:
        bounds["exclusiveMinimum" if setting.low_open else "minimum"] = setting.low
    if setting.high is not None:
        bounds["maximum"] = setting.high
    return float | None, Field(
        default=None,
        strict=True,
        allow_inf_nan=False,
        description=text,
        json_schema_extra=bounds or None,
    )


if TYPE_CHECKING:
    TrainIn = _TrainBase
else:
    TrainIn = create_model(
        "TrainIn",
        __base__=_TrainBase,
        __doc__=_TrainBase.__doc__,
        **{s.name: _setting_field(s) for s in ALL_SETTINGS},
    )


class Detail(BaseModel):
    """Every error's body."""

    detail: str = Field(description="What went wrong, in one sentence")


class OutcomeOut(BaseModel):
    value: Literal["win", "draw", "loss"] = Field(description="For the player making the move")
    plies: int = Field(description="Plies to the end with best play, the move the first")


class OracleOut(BaseModel):
    family: Literal["enumerated", "searched"] = Field(
        description="The game's own family: enumerated (every position solved) or searched "
        "(too big to enumerate: solved by search, one position at a time)"
    )
    route: Literal["enumerated", "searched"] = Field(
        description="How this server answers it: the family's, or searched where enumerating "
        "does not fit its memory"
    )
    need_bytes: int | None = Field(
        default=None, description="Where the route differs: the bytes enumerating needs"
    )
    budget_bytes: int | None = Field(
        default=None, description="Where the route differs: the memory this server can spare"
    )


class GameOut(BaseModel):
    id: str
    game: str
    opponent: str = Field(
        description="trained, strongest, perfect, network, or a thinking player's spec (mcts:1000)"
    )
    policy: str | None = Field(
        description="The policy playing (None: perfect play or the n-tuple network)"
    )
    first: Literal["human", "ai"]
    position: str
    to_move: Literal["human", "ai"] | None
    legal_moves: list[str]
    q: dict[str, float] = Field(description="The AI's value of each legal move")
    outcomes: dict[str, OutcomeOut] | None = Field(
        default=None,
        description="Against perfect play, while the game goes on: each legal move's exact "
        "outcome for the player to move",
    )
    history: list[str]
    ai_move: str | None
    result: Literal["human", "ai", "draw"] | None
    oracle: OracleOut = Field(description="How the game is answered exactly here")


class JobOut(BaseModel):
    job: str
    game: str
    learner: str
    opponent: str
    state: JobState
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
    note: str | None = Field(
        default=None,
        description="Why an n-tuple network's run records no learning curve (judging one "
        "along perfect-play games has no bound on its board), else None",
    )


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
    preset: dict[str, Any] | None = Field(
        default=None,
        description="The write-up's preset it was trained from: name, settings (every value "
        "the preset gave; absent in files from before they were kept), and overridden (the "
        "names given over it); none without one",
    )
