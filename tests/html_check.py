"""A check of the HTML qarena hands a notebook, by Python's own parser (``html.parser``):
every element closed in the order it was opened, and a table's cells where HTML puts them.

A browser silently repairs a ``<th>`` outside a ``<tr>`` (HTML5 builds the missing row), so
the markup looks fine and is still invalid; this check reads the markup as written."""

from __future__ import annotations

from html.parser import HTMLParser

#: Elements that have no end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
#: Where each table element may stand: the element it must be a child of.
PARENTS = {
    "tr": {"table", "thead", "tbody", "tfoot"},
    "th": {"tr"},
    "td": {"tr"},
    "thead": {"table"},
    "tbody": {"table"},
    "tfoot": {"table"},
    "caption": {"table"},
}
#: What may stand directly in a table (text aside, which must be blank).
TABLE_CHILDREN = {"tr", "thead", "tbody", "tfoot", "caption", "colgroup", "style"}


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []

    def _place(self, tag: str) -> None:
        parent = self.stack[-1] if self.stack else None
        allowed = PARENTS.get(tag)
        if allowed is not None and parent not in allowed:
            self.errors.append(f"<{tag}> inside <{parent}>, not in {sorted(allowed)}")
        if parent in ("table", "thead", "tbody", "tfoot") and tag not in TABLE_CHILDREN:
            self.errors.append(f"<{tag}> directly inside <{parent}>")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._place(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._place(tag)  # <rect … /> in SVG: opened and closed at once

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] in ("table", "tr", "thead", "tbody") and data.strip():
            self.errors.append(f"text {data.strip()[:20]!r} directly inside <{self.stack[-1]}>")


def html_errors(markup: str) -> list[str]:
    """What is wrong with ``markup``'s structure (nothing: an empty list)."""
    checker = _Checker()
    checker.feed(markup)
    checker.close()
    if checker.stack:
        checker.errors.append(f"left open: {checker.stack}")
    return checker.errors
