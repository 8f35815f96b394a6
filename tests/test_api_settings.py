"""qarena.train's settings are typed keywords derived from their one declaration
(qarena.learn.settings): a TypedDict written from it by tools/settings_keywords.py, taken as
``**settings``; the call's own parameters are few, and help() and inspect still name every
setting with its type and help."""

from __future__ import annotations

import ast
import inspect
import pydoc
import subprocess
import sys
from pathlib import Path
from typing import Literal, get_args, get_type_hints

import pytest

import qarena
from qarena.errors import QarenaError
from qarena.learn.setting_keywords import LearnerSettings, NetworkSettings
from qarena.learn.settings import ALL_SETTINGS, NETWORK_NAMES, setting

ROOT = Path(__file__).resolve().parents[1]
KINDS = {"float": float, "int": int, "rewards": tuple[float, float, float]}


def test_the_typed_keywords_are_what_the_tool_writes_from_the_declaration() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "settings_keywords.py"), "--check"], check=False
    )
    assert result.returncode == 0, "run: python tools/settings_keywords.py"


@pytest.mark.parametrize(
    ("typed", "names"),
    [(LearnerSettings, [s.name for s in ALL_SETTINGS]), (NetworkSettings, list(NETWORK_NAMES))],
)
def test_each_field_is_its_declared_setting_typed_as_declared(
    typed: type, names: list[str]
) -> None:
    hints = get_type_hints(typed)
    assert list(hints) == names
    assert typed.__optional_keys__ == frozenset(names)  # type: ignore[attr-defined]
    for name, hint in hints.items():
        s = setting(name)
        kept, none = get_args(hint)
        assert none is type(None)
        if s.kind == "choice":
            assert kept == Literal[*s.values]  # type: ignore[valid-type]
        else:
            assert kept == KINDS[s.kind]


def _explicit(function: str) -> list[str]:
    """The parameters a call of the API takes by name in its source (``**`` not counted)."""
    tree = ast.parse((ROOT / "src" / "qarena" / "api" / "training.py").read_text("utf-8"))
    found = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    a = found.args
    assert a.kwarg is not None and a.kwarg.arg == "settings"
    return [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]


def test_train_takes_few_parameters_of_its_own_and_the_settings_as_one_typed_dict() -> None:
    own = _explicit("train")
    assert len(own) <= 12
    assert not {s.name for s in ALL_SETTINGS} & set(own)
    assert len(_explicit("train_network")) <= 12


def test_help_names_every_setting_with_its_type_default_and_help() -> None:
    shown = inspect.signature(qarena.train).parameters
    for s in ALL_SETTINGS:
        assert shown[s.name].kind is inspect.Parameter.KEYWORD_ONLY
        assert shown[s.name].default is None
        assert shown[s.name].annotation == get_type_hints(LearnerSettings)[s.name]
    assert shown["backend"].default == "local" and shown["progress"].default is False
    text = pydoc.render_doc(qarena.train, renderer=pydoc.plaintext)
    for s in ALL_SETTINGS:
        assert f"``{s.name}``: {s.help.split()[0]}" in text
    network = inspect.signature(qarena.train_network).parameters
    assert [n for n in network if n in NETWORK_NAMES] == list(NETWORK_NAMES)
    assert "gamma" not in network


def test_an_unknown_keyword_is_one_line_before_anything_is_made() -> None:
    with pytest.raises(TypeError, match=r"^train\(\) got an unexpected keyword argument 'gama'$"):
        qarena.train("no-such-game", gama=0.5)  # the keyword is refused before the spec is read
    with pytest.raises(TypeError, match=r"^train_network\(\) got an unexpected keyword"):
        qarena.train_network("tictactoe", gamma=0.5)  # not a network's setting
    with pytest.raises(QarenaError, match="one setting; give it once"):
        qarena.train_network("tictactoe", 10, lam=0.5, **{"lambda": 0.7})


def test_the_run_s_settings_come_as_keywords_too() -> None:
    agent = qarena.train("nim:2,3", "q", 200, seed=3, check_every=50, canonical=False)
    assert agent.episodes == 200
    assert agent.config.seed == 3
    assert agent.config.canonical is False
