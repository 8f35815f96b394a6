"""The web app as a person uses it: real clicks in headless Chromium against the real server.

Fixtures (``page``, ``new_page``, ``live_server``) are in ``conftest.py``. The DOM the tests
rely on: home ``/`` has form ``#new-game`` (``kind``, ``piles``, ``heap``, ``take``, ``rows``,
``cols``, ``k``, ``rule``, ``first``; button ``#play``) and ends on ``/games/{id}``; a game page
has the SVG ``#position`` whose clickable matches and cells carry ``data-move`` (the move a click
makes), the value panel ``#values`` (a row with ``data-move`` per legal move), ``#toggle-values``,
``#toggle-hint`` (verdicts have class ``verdict``), ``#history``, ``#undo``, ``#new-game-link``,
``#ai-move`` and, with the values shown, ``#ai-values`` (the AI's values where it moved, the
move it played on the row of class ``played``), ``#result`` once over and ``#error`` after a
rejected action.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect
except ImportError:  # the fixtures skip (or fail under CI) with the reason
    PlaywrightTimeout = TimeoutError
    expect = None

#: Starting a game may train an agent on the spot first.
START_TIMEOUT_MS = 60_000

#: Fields of the new-game form each kind uses.
KIND_FIELDS = {
    "nim": ("piles", "rule"),
    "subtraction": ("heap", "take", "rule"),
    "tictactoe": ("rows", "cols", "k"),
}


def start_game(page: Any, kind: str, first: str = "human", **fields: str) -> None:
    """Fill in and submit the home page's form; wait for the game page."""
    page.goto("/")
    form = page.locator("#new-game")
    form.locator("select[name='kind']").select_option(kind)
    for name, value in fields.items():
        assert name in KIND_FIELDS[kind], f"{name} is not a field of {kind}"
        field = form.locator(f"[name='{name}']")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    form.locator("select[name='first']").select_option(first)
    form.locator("#play").click()
    try:
        page.wait_for_url(re.compile(r"/games/[^/?#]+"), timeout=START_TIMEOUT_MS)
        arrived = True
    except PlaywrightTimeout:
        arrived = False
    if not arrived:
        status = page.locator("#status, #error, main").first.inner_text(timeout=1_000)
        pytest.fail(
            f"starting a {kind} game did not reach /games/{{id}} within "
            f"{START_TIMEOUT_MS // 1000} s; stuck at {page.url}: {' '.join(status.split())[:300]}"
        )
    expect(page.locator("#position")).to_be_visible()


def click_move(page: Any, move: str) -> None:
    page.locator(f"#position [data-move='{move}']").click()


def legal_moves(page: Any) -> list[str]:
    """The moves the value panel lists (one row per legal move), in its order."""
    return [row.get_attribute("data-move") for row in page.locator("#values [data-move]").all()]


def wait_for_legal_count(page: Any, count: int) -> None:
    """Wait until the game is over or the value panel lists ``count`` moves."""
    page.wait_for_function(
        """n => document.querySelector('#result') !== null
                || document.querySelectorAll('#values [data-move]').length === n""",
        arg=count,
    )


def show_values(page: Any) -> None:
    values = page.locator("#values")
    if not values.is_visible():
        page.locator("#toggle-values").click()
    expect(values).to_be_visible()


def test_home_page_offers_every_game(page: Any) -> None:
    page.goto("/")
    form = page.locator("#new-game")
    expect(form).to_be_visible()
    kinds = form.locator("select[name='kind'] option")
    values = {kinds.nth(i).get_attribute("value") for i in range(kinds.count())}
    assert {"nim", "subtraction", "tictactoe"} <= values
    for name in ("piles", "heap", "take", "rows", "cols", "k"):
        expect(form.locator(f"input[name='{name}']")).to_have_count(1)
    for name, options in (("rule", {"misere", "normal"}), ("first", {"human", "ai"})):
        found = form.locator(f"select[name='{name}'] option")
        assert options <= {found.nth(i).get_attribute("value") for i in range(found.count())}
    expect(form.locator("#play")).to_be_visible()


def test_nim_matches_are_moves_from_the_left(page: Any) -> None:
    start_game(page, "nim", piles="3,5", rule="normal")
    matches = page.locator("#position [data-move^='2:']")
    expect(matches).to_have_count(5)
    boxes = [(m.bounding_box()["x"], m.get_attribute("data-move")) for m in matches.all()]
    # In a pile of 5, the 1st match from the left takes all 5, the 2nd takes 4, ...
    assert [move for _, move in sorted(boxes)] == ["2:5", "2:4", "2:3", "2:2", "2:1"]
    expect(page.locator("#position [data-move^='1:']")).to_have_count(3)


def test_nim_click_shows_ai_reply_values_and_history(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere")
    show_values(page)
    assert sorted(legal_moves(page)) == ["1:1", "2:1", "2:2"]
    expect(page.locator("#result")).to_have_count(0)
    expect(page.locator("#ai-move")).to_have_count(0)
    click_move(page, "2:1")
    # Piles 1,1: the AI takes one of them, leaving the last match to you.
    expect(page.locator("#ai-move")).to_contain_text(re.compile(r"[12]:1"))
    expect(page.locator("#history")).to_contain_text("2:1")
    show_values(page)
    assert len(legal_moves(page)) == 1
    click_move(page, legal_moves(page)[0])
    expect(page.locator("#result")).to_contain_text("The AI wins")


def test_nim_win_finishes_the_game(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere")
    click_move(page, "2:2")  # leaves 1,0: the AI must take the last match
    expect(page.locator("#ai-move")).to_contain_text("1:1")
    expect(page.locator("#result")).to_contain_text("You win")
    expect(page.locator("#history")).to_contain_text("2:2")


def test_undo_takes_back_your_move_and_the_reply(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere")
    click_move(page, "2:1")
    expect(page.locator("#ai-move")).to_be_visible()
    expect(page.locator("#position [data-move]")).to_have_count(1)
    page.locator("#undo").click()
    expect(page.locator("#position [data-move]")).to_have_count(3)
    expect(page.locator("#result")).to_have_count(0)


def test_ai_can_move_first(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere", first="ai")
    expect(page.locator("#ai-move")).to_be_visible()
    expect(page.locator("#position [data-move]")).not_to_have_count(3)


def test_value_toggle_hides_and_shows_the_values(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere")
    show_values(page)
    values = page.locator("#values")
    shown = " ".join((values.text_content() or "").split())
    page.locator("#toggle-values").click()
    expect(values).not_to_have_text(shown)
    page.locator("#toggle-values").click()
    expect(values).to_have_text(shown)


def test_ai_values_toggle_shows_the_values_where_the_ai_moved(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere")
    ai_values = page.locator("#ai-values")
    toggle = page.locator("#toggle-values")
    if toggle.is_checked():
        toggle.click()
    expect(toggle).not_to_be_checked()
    click_move(page, "2:1")
    # Piles 1,1: the AI takes one of them; with its values off, no table says what it saw.
    expect(page.locator("#ai-move")).to_contain_text(re.compile(r"[12]:1"))
    expect(ai_values).to_have_count(0)
    toggle.click()
    expect(ai_values).to_be_visible()
    expect(ai_values.locator("caption")).to_have_text("The AI's values where it moved")
    expect(ai_values.locator("tbody tr")).to_have_count(2)  # its moves from 1,1
    played = ai_values.locator("tr.played")
    expect(played).to_have_count(1)
    played_move = played.locator("td").first.inner_text()
    expect(page.locator("#ai-move")).to_contain_text(played_move)
    # Both moves leave the last match to you: equal values, and the page says it chose at random.
    expect(page.locator("#ai-values + .note")).to_contain_text("at random")
    toggle.click()
    expect(ai_values).to_have_count(0)


def test_hint_toggle_shows_verdicts(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere")
    expect(page.locator(".verdict:visible")).to_have_count(0)
    page.locator("#toggle-hint").click()
    verdicts = page.locator(".verdict:visible")
    expect(verdicts.first).to_be_visible()
    expect(verdicts.first).to_contain_text(re.compile(r"win|loss|lose|draw", re.IGNORECASE))
    # 2:2 is the one winning move from 1,2 in misère nim.
    assert any("win" in t.lower() for t in verdicts.all_inner_texts())


def test_tictactoe_cell_clicks_until_the_end(page: Any) -> None:
    start_game(page, "tictactoe", rows="3", cols="3", k="3")
    expect(page.locator("#position [data-move]")).to_have_count(9)
    show_values(page)
    for _ in range(5):
        if page.locator("#result").count():
            break
        moves = legal_moves(page)
        assert moves, "no legal move listed and no result"
        click_move(page, moves[0])
        wait_for_legal_count(page, len(moves) - 2)
    result = page.locator("#result")
    expect(result).to_contain_text(re.compile(r"Draw|The AI wins"))
    # The agent is trained to perfect play: a person cannot beat it.
    expect(result).not_to_contain_text("You win")


def test_clicking_a_taken_cell_shows_an_error(page: Any) -> None:
    start_game(page, "tictactoe", rows="3", cols="3", k="3")
    expect(page.locator("#error")).to_have_count(0)
    click_move(page, "b2")
    expect(page.locator("#ai-move")).to_be_visible()
    wait_for_legal_count(page, 7)
    click_move(page, "b2")
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#result")).to_have_count(0)
    show_values(page)
    assert len(legal_moves(page)) == 7, "a rejected click must not change the game"


def test_subtraction_game_plays(page: Any) -> None:
    start_game(page, "subtraction", heap="5", take="3", rule="normal")
    show_values(page)
    moves = legal_moves(page)
    assert len(moves) == 3
    click_move(page, moves[0])
    expect(page.locator("#ai-move").or_(page.locator("#result")).first).to_be_visible()


def test_new_game_link_starts_afresh(page: Any) -> None:
    start_game(page, "nim", piles="1,2", rule="misere")
    first_url = page.url
    click_move(page, "2:1")
    expect(page.locator("#ai-move")).to_be_visible()
    page.locator("#new-game-link").click()
    page.wait_for_url(lambda url: url != first_url)
    expect(page.locator("#position [data-move]")).to_have_count(3)
    expect(page.locator("#ai-move")).to_have_count(0)
    expect(page.locator("#history")).not_to_contain_text("2:1")


def test_two_browsers_keep_separate_games(new_page: Any) -> None:
    alice, bob = new_page(), new_page()
    start_game(alice, "nim", piles="1,2", rule="misere")
    start_game(bob, "nim", piles="1,2", rule="misere")
    assert alice.url != bob.url
    click_move(alice, "2:1")
    expect(alice.locator("#ai-move")).to_be_visible()
    expect(alice.locator("#position [data-move]")).to_have_count(1)
    bob.reload()
    expect(bob.locator("#position [data-move]")).to_have_count(3)
    expect(bob.locator("#ai-move")).to_have_count(0)
    click_move(bob, "2:2")
    expect(bob.locator("#result")).to_contain_text("You win")
    alice.reload()
    expect(alice.locator("#position [data-move]")).to_have_count(1)
    expect(alice.locator("#result")).to_have_count(0)


def test_policies_page_lists_and_deletes_after_confirming(page: Any) -> None:
    start_game(page, "nim", piles="1,3", rule="normal")  # trains and stores an nim:1,3 agent
    page.goto("/policies")
    row = page.locator("#policies tr[data-policy]", has_text="nim:1,3:normal")
    expect(row).to_have_count(1)
    # Declining the confirmation keeps the policy; accepting removes its row.
    page.once("dialog", lambda dialog: dialog.dismiss())
    row.locator(".delete").click()
    page.wait_for_timeout(300)
    expect(row).to_have_count(1)
    page.once("dialog", lambda dialog: dialog.accept())
    row.locator(".delete").click()
    expect(row).to_have_count(0)
    page.reload()
    expect(page.locator("#policies tr[data-policy]", has_text="nim:1,3:normal")).to_have_count(0)


def test_an_unknown_url_shows_the_sites_not_found_page(page: Any) -> None:
    response = page.goto("/no/such/page")
    assert response is not None and response.status == 404
    expect(page.locator("#error")).to_contain_text("/no/such/page")
    expect(page.locator("header nav a", has_text="Play")).to_be_visible()


def test_a_form_on_another_site_cannot_start_training(page: Any, live_server: str) -> None:
    # A page of no origin of ours (as any other site would be) posting to the app.
    page.set_content(
        f'<form method="post" action="{live_server}/train">'
        '<input name="game" value="nim:1,2"><button id="go">go</button></form>'
    )
    with page.expect_navigation() as navigation:
        page.locator("#go").click()
    response = navigation.value
    assert response is not None and response.status == 403
    expect(page.locator("#error")).to_contain_text("another site")


def test_a_waiting_run_shows_its_place_in_line_then_trains(page: Any, live_server: str) -> None:
    import json
    import urllib.request

    def api(method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            live_server + path, data, {"Content-Type": "application/json"}, method=method
        )
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())

    # Two long runs take both training slots; the third waits.
    slow = {"game": "nim:2,6,7,8", "episodes": 10_000_000}
    long_runs = [api("POST", "/api/train", slow)["job"] for _ in range(2)]
    try:
        waiting = api("POST", "/api/train", {"game": "nim:1,2", "episodes": 2000})
        assert waiting["state"] == "queued", waiting
        page.goto(f"/train/{waiting['job']}")
        expect(page.locator("#status")).to_contain_text("Waiting: 1st in line")
        expect(page.locator("#stop-training")).to_contain_text("out of line")
    finally:
        for job in long_runs:
            api("DELETE", f"/api/train/{job}")
    # Its turn comes: it trains, and the page shows the result when it is done.
    expect(page.locator("#play-trained")).to_be_visible(timeout=30_000)
    expect(page.locator("#status")).to_contain_text("Done: 2,000 episodes")


def test_watching_two_agents_steps_plays_and_pauses(new_page: Any) -> None:
    page = new_page()
    page.goto("/watch")
    form = page.locator("#new-watch")
    form.locator("select[name='a']").select_option("perfect")
    form.locator("select[name='b']").select_option("random")
    form.locator("[name='game']").fill("tictactoe")
    form.locator("select[name='delay']").select_option("0.25")
    form.locator("button[type='submit']").click()
    page.wait_for_url(re.compile(r"/watch/[0-9a-f]+"))
    history = page.locator("#history li")
    expect(history).to_have_count(0)
    page.locator("#step").click()
    expect(history).to_have_count(1)
    expect(page.locator("#last-move")).to_contain_text("A (x) played")
    # A second tab on the same duel, stepping from what it saw: one move each, never two.
    other = new_page()
    other.goto(page.url)
    other.locator("#step").click()
    expect(other.locator("#history li")).to_have_count(2)
    page.locator("#step").click()  # this tab still shows ply 1: its step is stale
    expect(history).to_have_count(2)
    page.locator("#play").click()
    expect(page.locator("#pause")).to_be_visible()
    # Played on its own until the end: perfect play never loses to random play.
    expect(page.locator("#result")).to_be_visible(timeout=15_000)
    expect(page.locator("#result")).not_to_contain_text("B wins")
    page.locator("#pause").click()
    expect(page.locator("#play")).to_be_visible()
    count = history.count()
    page.wait_for_timeout(1_000)
    expect(history).to_have_count(count)


@pytest.mark.parametrize(
    ("path", "title"), [("/docs", ".swagger-ui .info .title"), ("/redoc", ".api-info h1")]
)
def test_api_docs_work_offline(page: Any, live_server: str, path: str, title: str) -> None:
    # Offline: any request that leaves this server fails, as on a machine without a network.
    outside: list[str] = []

    def only_here(route: Any) -> None:
        url = route.request.url
        if url.startswith(live_server):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.route("**/*", only_here)
    page.goto(path)
    expect(page.locator(title)).to_contain_text("qarena", timeout=15_000)
    assert outside == []
