"""Write README's table of the training settings from their one declaration.

python tools/settings_table.py          # rewrite the table in README.md
python tools/settings_table.py --check  # exit 1 if README's table is not what it would write
"""

from __future__ import annotations

import sys
from pathlib import Path

from qarena.learn.settings import markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- settings table: written by tools/settings_table.py -->\n"
END = "<!-- end of settings table -->\n"


def rewritten(text: str) -> str:
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + markdown_table() + END + tail


def main() -> int:
    text = README.read_text(encoding="utf-8")
    new = rewritten(text)
    if "--check" in sys.argv[1:]:
        return 0 if new == text else 1
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
