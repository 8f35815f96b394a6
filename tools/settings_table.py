"""Write the training guide's tables (docs/guide/training.md) of the training settings and of
the presets from their one declarations (learn/settings.py, learn/presets.py).

python tools/settings_table.py          # rewrite the tables in docs/guide/training.md
python tools/settings_table.py --check  # exit 1 if the tables are not what it would write
"""

from __future__ import annotations

import sys
from pathlib import Path

from qarena.learn.alphazero.learner import AlphaZeroConfig
from qarena.learn.learners import TABLE_LEARNERS
from qarena.learn.ntuple.config import BIG_BOARD, BIG_OPENING, BIG_TUPLES, NetworkConfig
from qarena.learn.presets import markdown_table as presets_table
from qarena.learn.settings import (
    ALPHAZERO_NAMES,
    BUILT_IN_KIND_SETTINGS,
    NETWORK_NAMES,
    SETTINGS,
)

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "training.md"
BEGIN = "<!-- settings table: written by tools/settings_table.py -->\n"
END = "<!-- end of settings table -->\n"


PRESETS_BEGIN = "<!-- presets table: written by tools/settings_table.py -->\n"
PRESETS_END = "<!-- end of presets table -->\n"


def _shown(value: object) -> str:
    if value is None:
        return "the first player's"
    if isinstance(value, list | tuple):
        return ",".join(_shown(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def defaults_text(name: str) -> str:
    """Each learner's default of setting ``name``, as the training guide's table writes it: the
    most common default, then the learners that differ, then those without the setting."""
    uses = {
        k: cls.default_config().to_dict()[name]
        for k, cls in TABLE_LEARNERS.items()
        if name in cls.hyperparameters
    }
    lacking = [k for k in TABLE_LEARNERS if k not in uses]
    shown = [_shown(v) for v in uses.values()]
    common = max(shown, key=shown.count)
    others = [f"{k} {s}" for k, s in zip(uses, shown, strict=True) if s != common]
    text = common + (f" ({'; '.join(others)})" if others else "")
    if lacking:
        text += f"; not used by {', '.join(lacking)}"
    return text


def network_defaults_text(name: str) -> str:
    """An n-tuple network's default of setting ``name``, for the training guide's table."""
    text = _shown(NetworkConfig().to_dict()[name])
    big = {"tuples": BIG_TUPLES, "opening": BIG_OPENING}
    if name in big:
        text += f" ({big[name]} on boards of {BIG_BOARD} cells or more: classic Connect Four)"
    return text


def alphazero_defaults_text(name: str) -> str:
    """The AlphaZero learner's default of setting ``name``, for the training guide's table."""
    if name == "opening":
        return "the board's cells (at most 100)"
    return _shown(AlphaZeroConfig().to_dict()[name])


def markdown_table() -> str:
    """The training guide's table of the training settings (``docs/guide/training.md``),
    derived from :data:`SETTINGS` and the learners' defaults (``tools/settings_table.py``
    writes it; a test holds the page to it)."""
    lines = [
        "| option | range | default | what it sets |",
        "|---|---|---|---|",
    ]
    for s in SETTINGS:
        if s.choices:
            span = " \\| ".join(f"`{v}`" for v in s.values)
        elif s.kind == "rewards":
            span = "three numbers W,D,L"
        else:
            span = s.bounds or "any number"
        help_text = s.help.replace("|", "\\|")
        default = defaults_text(s.name)
        if s.name in NETWORK_NAMES:
            default += f"; ntuple {network_defaults_text(s.name)}"
        if s.name in ALPHAZERO_NAMES:
            default += f"; alphazero {alphazero_defaults_text(s.name)}"
        lines.append(f"| `{s.option}` | {span} | {default} | {help_text} |")
    for s in BUILT_IN_KIND_SETTINGS:
        help_text = s.help.replace("|", "\\|")
        kinds = []
        if s.name in NETWORK_NAMES:
            kinds.append(f"ntuple {network_defaults_text(s.name)}")
        if s.name in ALPHAZERO_NAMES:
            kinds.append(f"alphazero {alphazero_defaults_text(s.name)}")
        default = "; ".join(kinds) + "; not used by the table learners"
        lines.append(f"| `{s.option}` | {s.bounds} | {default} | {help_text} |")
    return "\n".join(lines) + "\n"


def _between(text: str, begin: str, end: str, table: str) -> str:
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + table + end + tail


def rewritten(text: str) -> str:
    text = _between(text, BEGIN, END, markdown_table())
    return _between(text, PRESETS_BEGIN, PRESETS_END, presets_table())


def main() -> int:
    text = PAGE.read_text(encoding="utf-8")
    new = rewritten(text)
    if "--check" in sys.argv[1:]:
        return 0 if new == text else 1
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
