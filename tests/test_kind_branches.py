"""The door for agent kinds (issue 57): outside ``learn/`` and ``agents/`` no code asks what
kind an agent is — an ``isinstance`` on any player or learner class (every one found by
importing agents/ and learn/, so a new kind's classes are covered without being listed), a
learner's class-level trait, a kind compared by its registered name. The lines that still do
are listed here and may only shrink; and no source file grows past 600 lines. Counted by
``benchmarks/structure.py``, which BENCHMARKS.md quotes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent

#: The kind branches left, as (file, line's code): each is a player's ``thinks`` read to
#: choose how a game is played (move by move, a search's own copy). Remove a line when its
#: branch goes; never add one.
ALLOWED = {
    ("api/competing.py", "thinks = any(p.thinks for p in both)"),
    (
        "cli/evaluating.py",
        "if plain and (loaded is not None or make_player(subject, game).thinks):",
    ),
    ("web/play.py", "return self.agent.thinks"),
    (
        "web/routes/pages/watching.py",
        "if Oracle.of(watch.game).searched or any(p.thinks for p in watch.players):",
    ),
}


def _structure() -> ModuleType:
    spec = importlib.util.spec_from_file_location("structure", ROOT / "benchmarks" / "structure.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_counter_sees_every_kind_of_branch() -> None:
    structure = _structure()
    classes = structure.kind_classes()
    # Every learner kind's class and every search player's class, found, not listed.
    assert {
        "QLearner",
        "NTupleNetwork",
        "AlphaZeroLearner",
        "MCTSPlayer",
        "AlphaBeta",
        "ConnectXPlayer",
    } <= classes
    assert structure.ISINSTANCE.search("isinstance(x, Learner | Foo)")
    assert structure.JUDGING.search("if learner.judging_family == 'exact':")
    assert structure.TRAIT.search("if cls.self_play_only:")
    assert not structure.TRAIT.search("return self.thinks")  # a player reading its own trait
    assert structure.KIND_NAME.search('if kind == "alphabeta":')
    assert structure.KIND_NAME.search('if kind == "connectx":')  # a spec kind's name too


def test_no_new_kind_branch_outside_learn_and_agents() -> None:
    found = {(path, line) for path, _number, line in _structure().kind_branches()}
    assert found <= ALLOWED, f"ask the kind's protocol, not its kind: {sorted(found - ALLOWED)}"


def test_no_source_file_passes_600_lines() -> None:
    assert _structure().long_files() == []


def test_train_takes_its_settings_as_keywords() -> None:
    assert _structure().train_parameters() <= 12
