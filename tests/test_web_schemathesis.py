"""The JSON API fuzzed from its own OpenAPI document with Schemathesis: valid and invalid
requests to every documented operation must never be answered with a server error (5xx), and
every answer must match the document (status code, content type, body schema).

Bounded: at most ``EXAMPLES`` cases per operation (and per generation mode), on-the-spot
training limited to a fraction of a second, tiny games only, in a data folder of its own.
"""

from __future__ import annotations

import functools
import itertools
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from qarena.web import create_app  # noqa: E402

pytestmark = pytest.mark.slow

EXAMPLES = 50
#: Call chains of up to six steps.
STATEFUL_EXAMPLES = 40
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


# Built at import: Schemathesis makes one test per operation from the document when the module
# is collected. Its data folder is removed when the interpreter exits.
_DATA = tempfile.TemporaryDirectory(prefix="qarena-fuzz-")
# Small games and short on-the-spot runs: the fuzzer may ask for any game and train it. One run
# at a time (the machine is shared) and a line long enough that a full line (503) never comes up.
# Schemathesis ends the app's lifespan after each operation, which stops running jobs: briefly.
APP = create_app(
    Path(_DATA.name),
    train_seconds=0.2,
    max_cost=5_000,
    max_training=1,
    max_queued=10_000,
    shutdown_seconds=5,
    # Schemathesis and the test client call it by the name "testserver".
    allowed_hosts=["testserver"],
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def stop_training() -> Iterator[None]:
    yield
    APP.state.web.jobs.shutdown(10)


TURN = itertools.count()


def _real(kind: str) -> str:
    """A fresh game (nim:3,5,7, the person to move), a training run or a stored policy."""
    client = TestClient(APP)
    if kind == "game_id":
        r = client.post("/api/games", json={"game": "nim:3,5,7"})
        return str(r.json()["id"])
    if kind == "job_id":
        r = client.post("/api/train", json={"game": "nim:1,2", "episodes": 100})
        assert r.status_code == 202, r.text
        return str(r.json()["job"])
    r = client.post("/api/games", json={"game": "nim:2,2"})
    return str(r.json()["policy"])


REAL = {kind: functools.partial(_real, kind) for kind in ("game_id", "job_id", "policy_id")}


#: Status codes seen, by operation, for the summary below.
ANSWERS: defaultdict[str, Counter[int]] = defaultdict(Counter)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,  # the same cases every run: a failure here is reproducible
    database=None,
)
def test_api_matches_its_openapi_document(case: Any) -> None:
    # Random ids only ever find nothing: two cases in three get a real game, run or policy.
    parameters = case.path_parameters or {}
    turn = next(TURN)
    if turn % 3 and parameters.keys() & REAL.keys():
        for name in parameters.keys() & REAL.keys():
            parameters[name] = REAL[name]()
        if turn % 3 == 1 and isinstance(case.body, dict) and "move" in case.body:
            case.body["move"] = "1:1"  # legal at the start of nim:3,5,7: a game goes on
    response = case.call_and_validate(checks=CHECKS)
    ANSWERS[f"{case.method} {case.path}"][response.status_code] += 1


class Workflow(schema.as_state_machine()):  # type: ignore[misc]
    """Chains of calls along the document's links: a game started, then its moves, undos and
    policy; a run started, then watched and stopped. Only the checks above: an id from one
    answer may rightly be 404 or 409 by the next call (a game over, a policy deleted)."""

    def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
        ANSWERS[f"{case.method} {case.path}"][response.status_code] += 1
        case.validate_response(response, checks=CHECKS)


def test_api_call_chains_match_the_document() -> None:
    Workflow.run(
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=6,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
    )


def test_the_fuzzing_reached_the_working_paths() -> None:
    """Not only errors: the fuzzer's cases also started games, moves and training runs."""
    if not ANSWERS:
        pytest.skip("the fuzzing test did not run")
    total = sum(sum(c.values()) for c in ANSWERS.values())
    print(f"\n{total} cases; status codes by operation:")
    for operation, codes in sorted(ANSWERS.items()):
        print(f"  {operation}: {dict(sorted(codes.items()))}")
    assert not any(code >= 500 for codes in ANSWERS.values() for code in codes)
    assert ANSWERS["POST /api/games"][200] > 0
    assert ANSWERS["POST /api/train"][202] > 0
    for operation in (
        "POST /api/games/{game_id}/moves",
        "GET /api/train/{job_id}",
        "GET /train/{job_id}/events",
        "DELETE /api/policies/{policy_id}",
    ):
        assert any(200 <= code < 300 for code in ANSWERS[operation]), operation


def test_the_document_names_every_error_body() -> None:
    """Every documented error answer is the one ``{"detail": str}`` body."""
    document = TestClient(APP).get("/openapi.json").json()
    detail = document["components"]["schemas"]["Detail"]
    assert detail["properties"]["detail"]["type"] == "string"
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for code, answer in operation["responses"].items():
                if code.startswith(("4", "5")):
                    ref = answer["content"]["application/json"]["schema"]["$ref"]
                    assert ref == "#/components/schemas/Detail", (method, path, code)
