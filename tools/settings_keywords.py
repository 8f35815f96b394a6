"""Write the training settings as typed keywords (src/qarena/learn/setting_keywords.py) from
their one declaration (learn/settings.py): a ``TypedDict`` per set of settings, a field per
setting, typed as the declaration types it and documented by its help, for
``qarena.train(..., **settings)`` and ``qarena.train_network``.

python tools/settings_keywords.py          # rewrite src/qarena/learn/setting_keywords.py
python tools/settings_keywords.py --check  # exit 1 if the module is not what it would write
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path

from qarena.learn.settings import ALL_SETTINGS, NETWORK_NAMES, TrainingSetting, setting

MODULE = Path(__file__).resolve().parents[1] / "src" / "qarena" / "learn" / "setting_keywords.py"

HEAD = '''"""The training settings as typed keywords, derived from their one declaration
(:mod:`qarena.learn.settings`): ``qarena.train(spec, ..., alpha=0.5)`` takes
:class:`LearnerSettings`'s fields, ``qarena.train_network`` :class:`NetworkSettings`'s. A
setting given None (or not given) takes the learner's default.

Written by tools/settings_keywords.py; tests/test_api_settings.py fails when it differs from
what the tool writes. Do not edit it by hand: edit the declaration and run the tool.
"""

from __future__ import annotations

from typing import Literal, TypedDict
'''


def _annotation(s: TrainingSetting) -> str:
    """The field's type: the declaration's kind, or None (the learner's default)."""
    if s.kind == "choice":
        return "Literal[" + ", ".join(f'"{v}"' for v in s.values) + "] | None"
    if s.kind == "rewards":
        return "tuple[float, float, float] | None"
    return f"{s.kind} | None"


def _docstring(s: TrainingSetting) -> list[str]:
    """The field's docstring: its help, its option's flag and its bounds where the help does
    not give them."""
    text = s.help.rstrip()
    if s.bounds and s.bounds not in text:
        # A bound is not broken across lines: its spaces are kept until the lines are made.
        text += " Bounds: ``" + s.bounds.replace(" ", "\0") + "``."
    text += f" The command line's ``{s.option}``."
    wrapped = textwrap.wrap(text, 92, break_on_hyphens=False, break_long_words=False)
    lines = [x.replace("\0", " ") for x in wrapped]
    if len(lines) == 1:
        return [f'    """{lines[0]}"""']
    return ['    """' + lines[0], *(f"    {x}" for x in lines[1:]), '    """']


def _class(name: str, doc: str, settings: Iterable[TrainingSetting]) -> list[str]:
    out = ["", "", f"class {name}(TypedDict, total=False):", f'    """{doc}"""']
    for s in settings:
        out += ["", f"    {s.name}: {_annotation(s)}", *_docstring(s)]
    return out


def source() -> str:
    """The module as the declaration makes it."""
    lines = [HEAD.rstrip("\n")]
    lines += _class(
        "LearnerSettings",
        "Every learner kind's training settings, in the declaration's order.",
        ALL_SETTINGS,
    )
    lines += _class(
        "NetworkSettings",
        "The settings an n-tuple network reads.",
        (setting(n) for n in NETWORK_NAMES),
    )
    lines += ["", "", '__all__ = ["LearnerSettings", "NetworkSettings"]']
    return "\n".join(lines) + "\n"


def main() -> int:
    new = source()
    old = MODULE.read_text(encoding="utf-8") if MODULE.exists() else ""
    if "--check" in sys.argv[1:]:
        return 0 if new == old else 1
    MODULE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
