"""A training run, as its callers import it: the names of ``training/``'s modules in one place
(``request.py``: a front end's request checked; ``plan.py``: a run set up; ``loop.py``: the one
loop, in chunks; ``matrix.py``: ``qarena matrix``'s rows), and how a learner is judged
(``judging.family``). Shared by the command line, the Python API, the web app and sweeps."""

from __future__ import annotations

from qarena.judging.family import (
    JUDGED_SEARCH_POSITIONS,
    check_judged_curve,
    judging_bytes,
    judging_refused,
)
from qarena.learn.ntuple.network import CHUNK as NETWORK_CHUNK
from qarena.learn.ntuple.network import JUDGED_GAMES
from qarena.learn.tables.base import default_episodes
from qarena.training.loop import CHUNK_SECONDS, Progress, RunResult, train_run
from qarena.training.matrix import MatrixRow, matrix_row
from qarena.training.plan import (
    RunPlan,
    check_versus,
    new_curve,
    new_learner,
    new_table,
    plan_run,
)
from qarena.training.request import (
    BACKENDS,
    MAX_MINUTES,
    RunRequest,
    check_backend,
    check_counts,
    check_minutes,
    request_run,
)

__all__ = [
    "BACKENDS",
    "CHUNK_SECONDS",
    "JUDGED_GAMES",
    "JUDGED_SEARCH_POSITIONS",
    "MAX_MINUTES",
    "NETWORK_CHUNK",
    "MatrixRow",
    "Progress",
    "RunPlan",
    "RunRequest",
    "RunResult",
    "check_backend",
    "check_counts",
    "check_judged_curve",
    "check_minutes",
    "check_versus",
    "default_episodes",
    "judging_bytes",
    "judging_refused",
    "matrix_row",
    "new_curve",
    "new_learner",
    "new_table",
    "plan_run",
    "request_run",
    "train_run",
]
