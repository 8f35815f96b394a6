"""The game page beyond its moves, through FastAPI's TestClient: what the values mean and which
move the AI would choose, the last move marked on the board, the drawing's keyboard controls,
the end of a game and the running score. ``test_web_browser.py`` drives the same in Chromium.
The agents train once for the module (its own data folder)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from qarena.games import parse_spec
from qarena.show.svg import keypad_digit, position_svg
from qarena.web import create_app
from tests.test_web_api import table_rows

HX = {"HX-Request": "true"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path_factory.mktemp("web"))) as c:
        yield c


def new_game(client: TestClient, spec: str, first: str = "human", **extra: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": spec, "first": first, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def drawing(html: str) -> str:
    """The page's ``<svg id="position">``."""
    found = re.search(r'<svg id="position".*?</svg>', html, re.S)
    assert found, "no drawing"
    return found.group(0)


def groups(svg: str) -> list[dict[str, str]]:
    """The attributes of every ``<g>`` of a drawing, in order."""
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', g)) for g in re.findall(r"<g\b[^>]*>", svg)]


def marked(html: str) -> list[str]:
    """The moves of the person's value table that carry the AI's mark "←"."""
    table = table_rows(html, "values")
    assert table is not None
    return [cells[0] for _, cells in table.rows[1:] if "←" in "".join(cells[1:])]


def test_the_ais_choice_is_marked_only_when_it_picks_out_moves(client: TestClient) -> None:
    # Misère nim 1-2: taking both of pile 2 is the one winning move.
    page = client.get(f"/games/{new_game(client, 'nim:1,2')['id']}").text
    assert marked(page) == ["2:2"]
    assert "← marks the move the AI would play in your place." in page
    # Nim 3-3 is lost for the mover; the two symmetric ways to lose slowest tie for the best.
    page = client.get(f"/games/{new_game(client, 'nim:3,3')['id']}").text
    assert marked(page) == ["1:1", "2:1"]
    assert "← marks the 2 moves the AI rates best: in your place it would play any of" in page
    # The empty tic-tac-toe board: every move draws, so a mark would pick out nothing.
    page = client.get(f"/games/{new_game(client, 'tictactoe')['id']}").text
    assert marked(page) == []
    assert "The AI rates all 9 moves the same: in your place it would play any of" in page


def test_the_legend_says_what_the_learners_values_mean(client: TestClient) -> None:
    page = client.get(f"/games/{new_game(client, 'nim:1,2')['id']}").text
    legend = re.search(r'<p id="value-legend"[^>]*>([^<]*)</p>', page)
    assert legend is not None
    assert "+1 a sure win, 0 a draw, −1 a sure loss" in legend.group(1)
    assert "γ = 0.9 per move" in legend.group(1) and "0.81" in legend.group(1)
    # A matchbox agent's values are moves allowed or removed, not numbers.
    job = client.post(
        "/api/train", json={"game": "nim:2,3", "learner": "matchbox", "episodes": 3000}
    ).json()["job"]
    deadline = time.monotonic() + 60
    while (snap := client.get(f"/api/train/{job}").json())["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, "training did not end"
        time.sleep(0.05)
    page = client.get(f"/policies/{snap['policy']}/play").text
    legend = re.search(r'<p id="value-legend"[^>]*>([^<]*)</p>', page)
    assert legend is not None and "matchbox" in legend.group(1)
    assert "γ" not in legend.group(1)


def test_the_ais_last_move_is_marked_on_the_board(client: TestClient) -> None:
    gid = new_game(client, "tictactoe")["id"]
    page = client.post(f"/games/{gid}/move", data={"move": "b2"}, headers=HX).text
    ai_move = client.get(f"/api/games/{gid}").json()["ai_move"]
    last = [g["data-move"] for g in groups(drawing(page)) if "last-move" in g.get("class", "")]
    assert last == [ai_move]
    assert 'class="ring"' in drawing(page)
    # Piles: the matches the AI took are drawn as ghosts where they lay.
    gid = new_game(client, "nim:1,2")["id"]
    page = client.post(f"/games/{gid}/move", data={"move": "2:1"}, headers=HX).text
    ghosts = [g for g in groups(drawing(page)) if "ghost" in g.get("class", "")]
    assert len(ghosts) == 1 and ghosts[0]["data-taken"] == "1"
    # Undone, there is no last move of the AI's to mark.
    page = client.post(f"/games/{gid}/undo", headers=HX).text
    assert "last-move" not in drawing(page)


def test_the_moves_of_the_drawing_are_keyboard_controls(client: TestClient) -> None:
    gid = new_game(client, "tictactoe")["id"]
    page = client.get(f"/games/{gid}").text
    assert 'role="group"' in drawing(page)
    cells = {g["data-move"]: g for g in groups(drawing(page)) if "data-move" in g}
    assert len(cells) == 9
    for move, g in cells.items():
        assert (g["tabindex"], g["role"], g["aria-label"]) == ("0", "button", f"play {move}")
    # Numeric-keypad digits: 7 8 9 the top row.
    assert {m: g["data-key"] for m, g in cells.items() if m in ("a1", "b2", "c3")} == {
        "a1": "7",
        "b2": "5",
        "c3": "3",
    }
    assert "press its digit key" in page and "numeric keypad" in page
    page = client.post(f"/games/{gid}/move", data={"move": "5"}, headers=HX).text
    cells = {g["data-move"]: g for g in groups(drawing(page)) if "data-move" in g}
    # A taken cell is no control, but keeps its key: pressing it says the cell is taken.
    assert "tabindex" not in cells["b2"] and cells["b2"]["data-key"] == "5"
    assert sum("tabindex" in g for g in cells.values()) == 7
    # Matches say what they take.
    page = client.get(f"/games/{new_game(client, 'nim:1,2')['id']}").text
    labels = [g["aria-label"] for g in groups(drawing(page)) if "tabindex" in g]
    assert labels == ["take 1 from pile 1", "take 2 from pile 2", "take 1 from pile 2"]


def test_a_still_picture_has_no_controls() -> None:
    game = parse_spec("nim:3,5,7")
    svg = position_svg(game, game.start(), None)
    assert "tabindex" not in svg and 'role="img"' in svg
    game = parse_spec("tictactoe")
    over = game.parse_position("xxx/oo./...")
    svg = position_svg(game, over, {"hx-post": "/games/x/move"})
    assert "tabindex" not in svg and 'role="img"' in svg


def test_connect_four_has_one_control_per_column_where_its_piece_lands() -> None:
    game = parse_spec("connect4:4x5:3")
    position = game.apply(game.start(), game.parse_move("b"))
    found = groups(position_svg(game, position, {"hx-post": "/games/x/move"}))
    cells = [g for g in found if "data-move" in g]
    controls = [
        (i, g["data-move"], g["aria-label"]) for i, g in enumerate(cells) if "tabindex" in g
    ]
    # Cells column by column, so that Tab goes from column to column; each column's 4 cells
    # top to bottom: column b's piece sits in its last cell (7), the next lands above it (6).
    assert controls == [
        (3, "a", "drop a piece in column a"),
        (6, "b", "drop a piece in column b"),
        (11, "c", "drop a piece in column c"),
        (15, "d", "drop a piece in column d"),
        (19, "e", "drop a piece in column e"),
    ]
    assert all("data-key" not in g for g in cells)  # moves are columns, not keypad cells


def test_subtraction_matches_beyond_the_largest_take_are_no_moves() -> None:
    game = parse_spec("subtraction:5:3")
    found = groups(position_svg(game, game.start(), {"hx-post": "/games/x/move"}))
    matches = [g for g in found if g.get("class", "").startswith("match")]
    assert [g.get("data-move") for g in matches] == [None, None, "3", "2", "1"]
    for g in matches[:2]:
        assert g["class"] == "match far" and "tabindex" not in g and "hx-post" not in g
    assert all(g["class"] == "match takeable live" and g["tabindex"] == "0" for g in matches[2:])


def test_keypad_digits_name_the_cells_of_a_3x3_board() -> None:
    game = parse_spec("tictactoe")
    for cell in range(9):
        assert game.parse_move(keypad_digit(cell)) == cell


def test_a_finished_game_offers_play_again_and_switch_sides(client: TestClient) -> None:
    gid = new_game(client, "nim:1,2")["id"]
    page = client.get(f"/games/{gid}").text
    assert 'id="undo"' in page and 'class="type-move"' in page and "switch-sides" not in page
    page = client.post(f"/games/{gid}/move", data={"move": "2:2"}, headers=HX).text
    assert "You win" in page
    assert 'id="undo"' not in page and 'class="type-move"' not in page
    again = re.search(r'<a id="new-game-link"[^>]*>([^<]*)</a>', page)
    switch = re.search(r'<a id="switch-sides"[^>]*href="([^"]*)"[^>]*>([^<]*)</a>', page)
    assert again is not None and again.group(1) == "Play again"
    assert switch is not None and switch.group(1) == f"/games/{gid}/new?first=ai"
    assert "the AI starts" in switch.group(2)
    r = client.get(switch.group(1), follow_redirects=False)
    assert r.status_code == 303
    switched = client.get(f"/api{r.headers['location']}").json()
    assert switched["first"] == "ai" and len(switched["history"]) == 1
    r = client.get(f"/games/{gid}/new?first=nobody", follow_redirects=False)
    assert r.status_code == 422


def score(html: str) -> tuple[int, int, int]:
    """The page's running score: (you, the AI, draws)."""
    found = re.search(r'<p id="score".*?</p>', html, re.S)
    assert found, "no score"
    text = re.sub(r"<[^>]+>", "", found.group(0))
    counts = re.search(r"you (\d+) · AI (\d+) · draws (\d+)", text)
    assert counts, text
    you, ai, draws = (int(n) for n in counts.groups())
    return you, ai, draws


def test_the_score_is_kept_per_browser_and_counts_each_game_once(client: TestClient) -> None:
    client.cookies.clear()
    gid = new_game(client, "nim:1,2")["id"]
    r = client.get(f"/games/{gid}")
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("qarena_browser=") and "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    assert score(r.text) == (0, 0, 0)
    r = client.post(f"/games/{gid}/move", data={"move": "2:2"}, headers=HX)
    assert "set-cookie" not in r.headers  # the browser already has its id
    assert score(r.text) == (1, 0, 0)
    # Shown again, in this tab or another, the game still counts once.
    assert score(client.get(f"/games/{gid}").text) == (1, 0, 0)
    # Another browser sees its own score, and looking at this game does not change either.
    with TestClient(client.app) as other:
        assert score(other.get(f"/games/{gid}").text) == (0, 0, 0)
    # A new game from "Play again" goes on counting; a lost one counts for the AI.
    r = client.get(f"/games/{gid}/new")
    assert score(r.text) == (1, 0, 0)
    again = str(r.url).rsplit("/", 1)[1]
    page = client.post(f"/games/{again}/move", data={"move": "1:1"}, headers=HX).text
    if "result" not in page:  # piles 0,2: the AI takes 2:1 and leaves you the last match
        page = client.post(f"/games/{again}/move", data={"move": "2:1"}, headers=HX).text
    assert score(page) == (1, 1, 0)
    # Other games have scores of their own.
    assert score(client.get(f"/games/{new_game(client, 'nim:2,2')['id']}").text) == (0, 0, 0)
    # A game taken back counts only once it ends again.
    client.post(f"/api/games/{gid}/undo")
    assert score(client.get(f"/games/{gid}").text) == (0, 1, 0)


def test_a_watched_move_is_marked(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path)) as c:
        form = {"a": "perfect", "b": "random", "game": "tictactoe", "delay": "1.0"}
        watch = c.post("/watch", data=form, follow_redirects=False).headers["location"]
        page = c.post(f"{watch}/step", data={"at": "0"}, headers=HX).text
    last = [g for g in groups(drawing(page)) if "last-move" in g.get("class", "")]
    assert len(last) == 1 and "tabindex" not in last[0]


def test_ties_of_perfect_play_at_different_distances_are_not_called_the_same(
    client: TestClient,
) -> None:
    # Misère nim 3-3 against perfect play: every move loses, some sooner ("loss in 1 of your
    # moves", "loss in 2 ..."): the same outcome, not the same value.
    gid = new_game(client, "nim:3,3", opponent="perfect")["id"]
    page = client.get(f"/games/{gid}").text
    texts = {cells[1] for _, cells in table_rows(page, "values").rows[1:]}  # type: ignore[union-attr]
    assert len(texts) > 1 and all(t.startswith("loss") for t in texts), texts
    assert "Every move has the same outcome, in different numbers of moves" in page
    assert "rates all" not in page
    # Nim 3-4 after 2:1 (3-3): every reply of perfect play loses, in 1 or 2 of your moves.
    gid = new_game(client, "nim:3,4", opponent="perfect")["id"]
    page = client.post(f"/games/{gid}/move", data={"move": "2:1"}, headers=HX).text
    note = re.search(r'<p id="ai-tied"[^>]*>([^<]*)</p>', page)
    assert note is not None
    assert "have the same outcome for it, in different numbers of moves" in note.group(1)
    assert "shared its best value" not in page
    # A learned agent's tie of equal values keeps its words.
    page = client.get(f"/games/{new_game(client, 'tictactoe')['id']}").text
    assert "The AI rates all 9 moves the same" in page


def test_a_move_on_its_way_shows_the_ai_thinking(client: TestClient) -> None:
    """The page's side of the wait (``static/qarena.js`` does the rest): every move (a cell, the
    typed move) names ``#thinking`` as its indicator and disables the panel's buttons, and
    ``#thinking`` carries what it says while the AI thinks and when no answer comes."""
    gid = new_game(client, "tictactoe")["id"]
    page = client.get(f"/games/{gid}").text
    thinking = re.search(r'<p id="thinking"[^>]*>', page)
    assert thinking is not None and 'role="status"' in thinking.group(0)
    assert "The AI&#39;s turn: it is thinking…" in thinking.group(0)
    assert "The server did not answer" in thinking.group(0)
    cells = [g for g in groups(drawing(page)) if "data-move" in g]
    assert len(cells) == 9
    for g in cells:
        assert g["hx-indicator"] == "#thinking" and g["hx-disabled-elt"] == "#game-panel button"
    form = re.search(r'<form class="type-move"[^>]*>', page)
    assert form is not None and 'hx-indicator="#thinking"' in form.group(0)
    # The board side is as wide as the drawing; the side panel has the rest.
    assert 'style="--board-width: 220px"' in page
    # Over, there is nothing to wait for.
    for move in ("a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"):
        if client.get(f"/api/games/{gid}").json()["result"] is not None:
            break
        client.post(f"/games/{gid}/move", data={"move": move}, headers=HX)
    page = client.get(f"/games/{gid}").text
    assert 'id="result"' in page and 'id="thinking"' not in page


# --- against a player that searches (issue 54) ---------------------------------------------


@pytest.fixture
def own(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app of its own: searches run on the app's pool, which a test that
    enters the module's app again (``with TestClient(own.app)``) shuts down when it leaves."""
    with TestClient(create_app(tmp_path)) as c:
        yield c


def legend_of(html: str) -> str:
    found = re.search(r'<p id="value-legend"[^>]*>([^<]*)</p>', html)
    assert found is not None, "no legend"
    return unescape(found.group(1))


def test_against_a_player_that_searches_your_options_say_why_they_have_no_values(
    own: TestClient,
) -> None:
    """Against MCTS the person's options were a column of moves and nothing beside them said
    why: a line there says it searches on its own turns only and how to see the solver's
    verdicts; with the hint, each option has the solver's verdict, as against any agent. Its
    values' legend reads as a sentence."""
    from qarena.exact import solve
    from qarena.games import DRAW, LOSS, WIN

    gid = new_game(own, "tictactoe", opponent="mcts:200", seed=0)["id"]
    page = own.post(f"/games/{gid}/move", data={"move": "a1"}, headers=HX).text
    note = re.search(r'<p id="options-note"[^>]*>([^<]*)</p>', page)
    assert note is not None, "no line saying why the options have no values"
    assert "no values for your moves" in note.group(1) and "“Hint (solver)”" in note.group(1)
    table = table_rows(page, "values")
    assert table is not None and all(len(cells) == 1 for _, cells in table.rows[1:])
    legend = legend_of(page)
    assert legend.startswith("Its values: each move's mean result") and legend.endswith(".")
    # The hint: the solver's verdict on each of the person's moves, and no need for the line.
    page = own.post(f"/games/{gid}/toggle/hint", headers=HX).text
    assert 'id="options-note"' not in page
    state = own.get(f"/api/games/{gid}").json()
    game = parse_spec("tictactoe")
    position = game.parse_position(state["position"])
    names = {WIN: "win", DRAW: "draw", LOSS: "loss"}
    expected = {game.format_move(m): names[v] for m, v in solve(game).move_values(position).items()}
    shown = dict(re.findall(r'<tr data-move="(\w+)"[^>]*>\s*<td>\w+</td>\s*'
                            r'<td class="verdict verdict-(\w+)">', page))  # fmt: skip
    assert shown == expected
    # Values hidden: nothing to explain.
    page = own.post(f"/games/{gid}/toggle/values", headers=HX).text
    assert 'id="options-note"' not in page


def test_alpha_beta_over_the_network_is_worded_in_each_language(own: TestClient) -> None:
    """Its legend reads as a sentence, and the shipped network is named in the reader's words,
    not as the raw name ``network`` inside a German or Russian sentence ("über network")."""
    gid = new_game(own, "connect4", first="ai", opponent="alphabeta:2:network", seed=0)["id"]
    page = own.get(f"/games/{gid}").text
    assert legend_of(page).startswith("Searched values: from -1 to 1")
    note = re.search(r'<p id="opponent-note"[^>]*>([^<]*)</p>', page)
    assert note is not None
    assert "alpha-beta to depth 2 over the network shipped with qarena" in note.group(1)
    other = TestClient(own.app)  # ?lang= keeps its language in a cookie: not this client's
    for lang, words, raw in (
        ("de", "über dem mit qarena ausgelieferten Netz", "über network"),
        ("ru", "поверх сети из комплекта qarena", "поверх network"),
    ):
        page = other.get(f"/games/{gid}?lang={lang}").text
        note = re.search(r'<p id="opponent-note"[^>]*>([^<]*)</p>', page)
        assert note is not None and words in note.group(1) and raw not in note.group(1)
        legend = legend_of(page)
        assert legend[0].isupper() and legend.endswith("."), legend
