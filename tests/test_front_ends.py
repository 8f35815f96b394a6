"""Front ends do not assemble runs (issue 38): the command line and the web app parse their
input, add what is their own (files, progress, options; stored policies, the job queue, time
limits, memory admission) and render, and leave every decision about a run to one use case
(``training.run.request_run`` and ``RunRequest.plan``, which ``qarena.train`` calls too).
Scanned with ast, as ``test_learner_family.py`` scans for branches on the network."""

from __future__ import annotations

import ast
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "qarena"

#: What sets a run up or decides for a learner kind: a config built or defaulted, a learner
#: made, a preset resolved, a kind's refusals, a curve, a plan or a run put together by hand.
ASSEMBLING = frozenset(
    {
        "build_config",
        "default_config",
        "make_learner",
        "new_learner",
        "new_table",
        "LearnConfig",
        "NetworkConfig",
        "plan_run",
        "train_run",
        "RunPlan",
        "Curve",
        "new_curve",
        "refuse_options",
        "check_versus",
        "check_judged_curve",
        "resolve_preset",
    }
)
#: Modules whose ``resolve`` resolves a preset (``Path.resolve`` is another matter).
PRESET_MODULES = ("qarena.learn.presets",)

#: Front-end files that still call one, each with how many calls: the list may only shrink.
STILL_ASSEMBLING = {
    # The Train form filled from a finished run shows only the settings that differ from the
    # learner's defaults (rendering; fam's area).
    "web/views.py": 2,
    # qarena matrix refuses a seat before it solves the game (its rows: training.matrix_row).
    "cli/evaluating.py": 1,
}


def _assembling(path: Path) -> int:
    """Calls in ``path`` that assemble a run: a name of :data:`ASSEMBLING` called (as a
    function or a method), or a preset module's ``resolve`` called by whatever name it was
    imported under."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    preset_names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in PRESET_MODULES
        for alias in node.names
        if alias.name == "resolve"
    }
    preset_modules = set()
    for node in ast.walk(tree):
        for alias in node.names if isinstance(node, ast.Import | ast.ImportFrom) else ():
            module = getattr(node, "module", None)
            full = alias.name if module is None else f"{module}.{alias.name}"
            if full in PRESET_MODULES:  # ``import qarena.learn.presets [as p]``, ``from … import``
                preset_modules.add(alias.asname or alias.name.rsplit(".", 1)[-1])
    count = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            count += func.id in ASSEMBLING or func.id in preset_names
        elif isinstance(func, ast.Attribute):
            on_presets = isinstance(func.value, ast.Name) and func.value.id in preset_modules
            count += func.attr in ASSEMBLING or (func.attr == "resolve" and on_presets)
    return count


def test_front_ends_do_not_assemble_runs_but_what_is_listed() -> None:
    found = {}
    for folder in ("cli", "web"):
        for path in sorted((SRC / folder).rglob("*.py")):
            count = _assembling(path)
            if count:
                found[path.relative_to(SRC).as_posix()] = count
    assert found == STILL_ASSEMBLING, "a front end assembles a run (or fewer do: shrink the list)"


def test_the_run_scanner_sees_a_run_assembled() -> None:
    """The scan fails on a front end that sets a run up itself (as the layer test does on a
    wrong import), and passes what only looks alike."""
    planted = {
        "from qarena.learn.presets import resolve\nresolve(p, s, {}, {})\n": 1,
        "from qarena.learn import presets as p\np.resolve(name, s, {}, {})\n": 1,
        "def f(cls, given):\n    return cls.build_config(given, cls.default_config())\n": 2,
        "def f(l, n):\n    return RunPlan(l, None, 'both', n).run()\n": 1,
        "def f(job):\n    return make_learner(job.learner, job.game, job.config)\n": 1,
        "from pathlib import Path\ndef f(p):\n    return Path(p).resolve()\n": 0,
        "def f(request):\n    return request.plan().run()\n": 0,
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.py"
        for text, calls in planted.items():
            path.write_text(text)
            assert _assembling(path) == calls, text


def test_a_request_is_one_set_up_for_every_front_end() -> None:
    """``request_run`` makes every choice of the learner kind and the preset, the same for
    the command line, Python and the web: the preset fills what was not given, and what the
    kind has no use for is refused in one line, before anything is built."""
    import pytest

    from qarena.errors import QarenaError
    from qarena.games import parse_spec
    from qarena.training.run import request_run

    nim = parse_spec("nim:1,2,3,4,5")
    request = request_run(nim, None, {"gamma": None}, preset="advanced-nim", episodes=100)
    assert (request.kind, request.opponent, request.seat, request.episodes) == (
        "seat-q", "self", "both", 100,
    )  # fmt: skip
    assert request.preset is not None and request.preset["overridden"] == ["episodes"]
    assert request.preset["settings"]["canonical"] is False and not request.canonical
    assert request.tables and request.curve_refused() is None
    plan = request.plan()
    assert plan.learner.kind == "seat-q" and plan.learner.preset == request.preset
    assert plan.total == 100 and plan.opponent.self_play
    refused = {
        "--tuples applies to --learner ntuple only": dict(kind="q", given={"tuples": 3}),
        "--workers applies to --learner ntuple or alphazero only": dict(
            kind="q", given={}, workers=2
        ),
        "--opponent does not apply to the ntuple learner": dict(
            kind="ntuple", given={}, opponent="random"
        ),
        "--seat applies only against an --opponent": dict(kind="q", given={}, seat="first"),
    }
    tictactoe = parse_spec("tictactoe")
    for text, asked in refused.items():
        kind, given = asked.pop("kind"), asked.pop("given")
        with pytest.raises(QarenaError, match=text):
            request_run(tictactoe, kind, given, **asked)  # type: ignore[arg-type]


def test_python_refuses_what_the_command_line_refuses() -> None:
    """One set-up: ``qarena.train`` refuses what ``qarena train`` refuses, in its reader's
    words (``workers``, not ``--workers``)."""
    import pytest

    import qarena
    from qarena.errors import QarenaError

    with pytest.raises(QarenaError, match=r"^workers applies to --learner ntuple or alphazero"):
        qarena.train("nim:1,2", episodes=10, workers=2)
    agent = qarena.train("nim:1,2", episodes=100)
    with pytest.raises(QarenaError, match="learned canonical positions"):
        qarena.train("nim:1,2", episodes=10, resume=agent, canonical=False)
    assert agent.episodes == 100


def test_the_web_trains_the_run_the_command_line_trains(tmp_path: Path) -> None:
    """The web's job is the command line's run: the same learner with the same settings for
    the same episodes (a table learner's chunks follow the clock, so the values themselves
    may differ run to run), its live view's curve recorded, its optimality the file's."""
    import time

    from fastapi.testclient import TestClient

    from qarena.cli.app import run
    from qarena.judging.tables import learner_optimality
    from qarena.learn.learners import load_learner
    from qarena.web.app import create_app

    body = {"game": "nim:1,2,3", "learner": "afterstate", "episodes": 700, "seed": 4}
    with TestClient(create_app(tmp_path / "web")) as client:
        r = client.post("/api/train", json=body)
        assert r.status_code == 202, r.text
        t0 = time.monotonic()
        while (snap := client.get(f"/api/train/{r.json()['job']}").json())["state"] in (
            "queued",
            "running",
        ):
            assert time.monotonic() - t0 < 60
            time.sleep(0.05)
        assert snap["state"] == "done" and snap["episodes"] == 700 and snap["points"] > 0, snap
        web = load_learner(client.app.state.web.store.path(snap["policy"]))  # type: ignore[attr-defined]
    made = tmp_path / "cli.npz"
    argv = ["train", "nim:1,2,3", "--learner", "afterstate", "--episodes", "700", "--seed", "4"]
    assert run([*argv, "--out", str(made)]) == 0
    cli = load_learner(made)
    assert web.kind == cli.kind == "afterstate" and web.episodes == cli.episodes == 700
    assert web.config == cli.config and web.config.seed == 4
    assert snap["optimality"] == learner_optimality(web).share  # type: ignore[arg-type]
    assert web.curve is not None and cli.curve is None
    assert len(web.curve.points) == snap["points"] and web.curve.games == 100
