"""The training settings have one declaration (qarena.learn.settings): the command line's
options, the JSON API's model, the Train page's form, the Python API's keyword arguments and
the training guide's table (docs/guide/training.md) are derived from it, and its bounds are the
ones LearnConfig checks."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
import typer.main

from qarena import api
from qarena.cli import app
from qarena.errors import QarenaError
from qarena.learn.settings import NAMES, SETTINGS, TrainingSetting
from qarena.learn.tables.base import LearnConfig
from qarena.web.forms import TrainForm
from qarena.web.models import TrainIn

ROOT = Path(__file__).resolve().parents[1]


def _options(command: str) -> dict[str, tuple[str, str | None]]:
    """The command's options by parameter name: (flag, help)."""
    click_command = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    return {
        p.name: (max(p.opts, key=len), getattr(p, "help", None))
        for p in click_command.params
        if p.opts and p.opts[0].startswith("-")
    }


def test_the_declaration_is_learn_config() -> None:
    assert set(NAMES) == {f.name for f in fields(LearnConfig)} - {"canonical"}


@pytest.mark.parametrize("command", ["train", "sweep"])
def test_the_commands_options_are_the_declaration(command: str) -> None:
    options = _options(command)
    for s in SETTINGS:
        if command == "sweep" and s.name == "seed":
            assert "seed" not in options and "seeds" in options  # a sweep's seeds are a list
            continue
        assert options[s.name] == (s.option, s.help)


def test_the_api_model_and_the_form_are_the_declaration() -> None:
    model = TrainIn.model_fields
    for s in SETTINGS:
        assert model[s.name].description == s.help
        assert model[s.name].default is None
    assert set(NAMES) <= set(TrainForm.model_fields)
    schema = TrainIn.model_json_schema()["properties"]
    for s in SETTINGS:
        if s.choices:
            assert schema[s.name]["enum"] == list(s.values)


def test_the_train_page_has_a_field_for_every_setting(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from qarena.web.app import create_app

    with TestClient(create_app(tmp_path)) as client:
        page = client.get("/train").text
    named = set(re.findall(r'name="([a-z_]+)"', page))
    assert set(NAMES) <= named


def test_the_python_api_takes_every_setting() -> None:
    params = inspect.signature(api.train).parameters
    for name in NAMES:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[name].default is None
    swept = inspect.signature(api.sweep).parameters
    for name in NAMES:
        if name == "seed":  # a sweep's seeds are a list, as its command's --seeds
            assert "seed" not in swept and "seeds" in swept
            continue
        assert swept[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert swept[name].default is None


def test_the_training_guide_s_table_is_the_declaration() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "settings_table.py"), "--check"], check=False
    )
    assert result.returncode == 0, "run: python tools/settings_table.py"


BOUNDED = [s for s in SETTINGS if s.low is not None and s.high is not None]


@pytest.mark.parametrize("s", BOUNDED, ids=[s.name for s in BOUNDED])
def test_the_bounds_are_those_learn_config_checks(s: TrainingSetting) -> None:
    assert s.low is not None and s.high is not None
    low, high, name = s.low, s.high, s.name
    if s.kind == "int":
        low, high = int(low), int(high)
    step = 1 if s.kind == "int" else 1e-9
    LearnConfig(**{name: high})
    with pytest.raises(QarenaError):
        LearnConfig(**{name: high + step})
    if s.low_open:
        with pytest.raises(QarenaError):
            LearnConfig(**{name: low})
    else:
        LearnConfig(**{name: low})
    with pytest.raises(QarenaError):
        LearnConfig(**{name: low - step})


def test_the_network_settings_are_network_config_and_train_s_options() -> None:
    from qarena.learn.ntuple.config import NetworkConfig
    from qarena.learn.settings import NETWORK_NAMES, NETWORK_SETTINGS

    assert set(NETWORK_NAMES) == {f.name for f in fields(NetworkConfig)}
    options = _options("train")
    lists = _options("sweep")
    for s in NETWORK_SETTINGS:
        assert options[s.name] == lists[s.name] == (s.option, s.help)
        if s.low is not None and s.high is not None:
            high = int(s.high) if s.kind == "int" else s.high
            NetworkConfig(**{s.name: high})
            with pytest.raises(QarenaError):
                NetworkConfig(**{s.name: high + (1 if s.kind == "int" else 1e-9)})
