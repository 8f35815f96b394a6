"""A person against a player that thinks for a second a move, in headless Chromium: the page
shows the AI thinking for as long as its search runs, then its move (issue 39; the page while
the AI thinks: issues 36/37). Fixtures in ``conftest.py``."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

pytestmark = pytest.mark.browser

try:
    from playwright.sync_api import expect
except ImportError:  # the fixtures skip (or fail under CI) with the reason
    expect = None


def test_the_page_shows_the_ai_thinking_through_a_one_second_search(page: Any) -> None:
    page.goto("/")
    form = page.locator("#new-game")
    form.locator("select[name='kind']").select_option("tictactoe")
    form.locator("select[name='opponent']").select_option("mcts:1s")
    form.locator("#play").click()
    page.wait_for_url(re.compile(r"/games/[^/?#]+"), timeout=60_000)
    expect(page.locator("#opponent-note")).to_contain_text("(mcts:1s)")
    thinking = page.locator("#thinking")
    started = time.monotonic()
    page.locator("#position [data-move='b2']").click()
    expect(thinking).to_be_visible()
    expect(thinking).to_have_text("The AI's turn: it is thinking…")
    expect(page.locator("#undo")).to_be_disabled()
    expect(page.locator("#ai-move")).to_be_visible(timeout=30_000)
    # The search took its second, and the page said so until the answer came.
    assert time.monotonic() - started >= 1.0
    expect(thinking).to_be_hidden()
    expect(page.locator("#history li")).to_have_count(2)
    # Its values show where it moved, none in the person's table (it thinks on its turns).
    expect(page.locator("#ai-values tr.played")).to_have_count(1)
    expect(page.locator("#best-note")).to_have_count(0)
