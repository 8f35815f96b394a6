"""Write the training guide's tables (docs/guide/training.md) of the training settings and of
the presets from their one declarations (learn/settings.py, learn/presets.py).

python tools/settings_table.py          # rewrite the tables in docs/guide/training.md
python tools/settings_table.py --check  # exit 1 if the tables are not what it would write
"""

from __future__ import annotations

import sys
from pathlib import Path

from qarena.learn.presets import markdown_table as presets_table
from qarena.learn.settings import markdown_table

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "training.md"
BEGIN = "<!-- settings table: written by tools/settings_table.py -->\n"
END = "<!-- end of settings table -->\n"


PRESETS_BEGIN = "<!-- presets table: written by tools/settings_table.py -->\n"
PRESETS_END = "<!-- end of presets table -->\n"


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
