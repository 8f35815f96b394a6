"""Players that think (``mcts:1000``, ``alphabeta:4:network``) as the web's opponent, on a real
server (127.0.0.1): a whole game through the API and through the pages, each game with a
search of its own, a spec the web would answer too slowly refused in one line, and the menu
offering each preset only on the games it plays (issue 39)."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest

from qarena.games import parse_spec
from qarena.web.thinking import LIVE, NODE_BYTES, Live, held_bytes
from tests.test_web_search import Server, launch, stop

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    got = launch(tmp_path_factory.mktemp("thinking"), move_seconds=30)
    try:
        yield got
    finally:
        stop(got)


def form(server: Server, path: str, fields: dict[str, str]) -> tuple[int, dict[str, str], Any]:
    return server.call(
        "POST",
        path,
        urllib.parse.urlencode(fields).encode(),
        **{"Content-Type": "application/x-www-form-urlencoded"},
    )


def play_out(server: Server, opponent: str, seed: int, moves: list[str] | None = None) -> list[str]:
    """A whole game of tic-tac-toe through the API against ``opponent``, the AI opening, the
    person playing ``moves`` (else the first legal move each time): every AI move checked
    legal where it was made. Returns the game's moves."""
    game = parse_spec("tictactoe")
    status, _h, state = server.call(
        "POST", "/api/games", {"game": "tictactoe", "opponent": opponent, "first": "ai",
                               "seed": seed},
    )  # fmt: skip
    assert status == 200, state
    assert state["opponent"] == opponent
    position = game.start()
    assert state["ai_move"] in [game.format_move(m) for m in game.legal_moves(position)]
    position = game.apply(position, game.parse_move(state["ai_move"]))
    i = 0
    while state["result"] is None:
        mine = moves[i] if moves is not None else state["legal_moves"][0]
        i += 1
        position = game.apply(position, game.parse_move(mine))
        status, _h, state = server.call("POST", f"/api/games/{state['id']}/moves", {"move": mine})
        assert status == 200, state
        if state["ai_move"] is not None and state["history"][-1] != mine:
            legal = [game.format_move(m) for m in game.legal_moves(position)]
            assert state["ai_move"] in legal, (state["ai_move"], legal)
            position = game.apply(position, game.parse_move(state["ai_move"]))
        assert state["position"] == game.format_position(position)
    history: list[str] = state["history"]
    return history


def test_a_whole_game_against_mcts_through_the_api(server: Server) -> None:
    history = play_out(server, "mcts:1000", seed=3)
    assert 5 <= len(history) <= 9


def test_each_game_thinks_with_a_search_of_its_own(server: Server) -> None:
    """Two games of the same seed, their moves interleaved, play exactly as one game alone:
    a shared search (one tree, one generator) would draw differently for the second."""
    alone = play_out(server, "mcts:10", seed=11)
    mine = alone[1::2]  # the person's moves of that game, replayed in both
    game = parse_spec("tictactoe")
    ids, states = [], []
    for _ in range(2):
        status, _h, state = server.call(
            "POST", "/api/games", {"game": "tictactoe", "opponent": "mcts:10", "first": "ai",
                                   "seed": 11},
        )  # fmt: skip
        assert status == 200, state
        ids.append(state["id"])
        states.append(state)
    for move in mine:
        for k in range(2):
            status, _h, states[k] = server.call(
                "POST", f"/api/games/{ids[k]}/moves", {"move": move}
            )
            assert status == 200, states[k]
    assert states[0]["history"] == states[1]["history"] == alone
    assert game.format_move(game.parse_move(alone[0])) == alone[0]


def test_a_spec_too_slow_for_the_web_is_refused_in_one_line(server: Server) -> None:
    for spec, most in (
        ("mcts:500000", "100,000 simulations a move"),
        ("mcts:30s", "5 s a move"),
        ("alphabeta:9:network", "depth 6"),
        ("mcts:5000:network", "2,000 simulations a move with a file"),
    ):
        status, _h, body = server.call(
            "POST", "/api/games", {"game": "tictactoe", "opponent": spec}
        )
        assert status == 422, body
        detail = body["detail"]
        assert "\n" not in detail and "Traceback" not in detail
        assert detail.startswith(f"{spec} thinks too long for the web app"), detail
        assert most in detail, detail
        assert f"qarena play tictactoe:3x3:3 --opponent {spec}" in detail
    # The home form says the same, in the form, with a 4xx.
    status, _h, page = form(
        server, "/play", {"kind": "tictactoe", "rows": "3", "cols": "3", "k": "3",
                          "opponent": "mcts:30s", "first": "human"},
    )  # fmt: skip
    assert status == 422
    error = re.search(r'<p id="error"[^>]*>([^<]*)</p>', page)
    assert error is not None and "mcts:30s thinks too long for the web app" in error.group(1)
    assert "Traceback" not in page


def test_a_file_the_server_does_not_hold_is_refused(server: Server) -> None:
    """The web reads no path a visitor types: a leaf evaluator is a shipped player or a stored
    policy's id; and the network only on the board it plays."""
    status, _h, body = server.call(
        "POST", "/api/games", {"game": "tictactoe", "opponent": "mcts:100:/etc/passwd"}
    )
    assert status == 422 and "not '/etc/passwd'" in body["detail"], body
    status, _h, body = server.call(
        "POST", "/api/games", {"game": "tictactoe", "opponent": "alphabeta:2:network"}
    )
    assert status == 422 and "network plays connect4:6x7:4 only" in body["detail"], body


def test_the_menu_offers_thinking_players_where_they_play(server: Server) -> None:
    status, _h, home = server.call("GET", "/")
    assert status == 200
    opponent = re.search(r'<select name="opponent">(.*?)</select>', home, re.S)
    assert opponent is not None
    offered = re.findall(r'<option value="([^"]+)"', opponent.group(1))
    # MCTS plays every game; alpha-beta over the network only classic Connect Four, which the
    # menu offers as a game of its own (its opponent select hidden).
    assert offered == ["trained", "strongest", "perfect", "mcts:1000", "mcts:1s"]
    kinds = re.search(r'<select name="kind">(.*?)</select>', home, re.S)
    assert kinds is not None and 'value="classic-thinking"' in kinds.group(1)


def test_a_game_through_the_pages_against_a_preset(server: Server) -> None:
    """The home form's preset starts a game whose page names its player; a move is answered
    by the search, and the AI's values show where it moved, not at the person's turn."""
    status, headers, _page = form(
        server, "/play", {"kind": "tictactoe", "rows": "3", "cols": "3", "k": "3",
                          "opponent": "mcts:1000", "first": "human"},
    )  # fmt: skip
    assert status == 303, _page
    where = headers["location"]
    status, _h, page = server.call("GET", where)
    assert status == 200
    note = re.search(r'<p id="opponent-note"[^>]*>([^<]*)</p>', page)
    assert note is not None and "MCTS, 1,000 simulations a move" in note.group(1)
    assert "(mcts:1000)" in note.group(1)
    status, _h, page = form(server, f"{where}/move", {"move": "b2"})
    assert status == 303
    status, _h, page = server.call("GET", where)
    assert 'id="ai-move"' in page
    history = re.findall(r'<li class="(you|ai)">', page)
    assert history == ["you", "ai"]


def test_classic_connect_four_against_alpha_beta_over_the_network(server: Server) -> None:
    status, headers, body = form(server, "/play", {"kind": "classic-thinking", "first": "ai"})
    assert status == 303, body
    status, _h, page = server.call("GET", headers["location"])
    assert status == 200
    note = re.search(r'<p id="opponent-note"[^>]*>([^<]*)</p>', page)
    assert note is not None
    assert "alpha-beta to depth 4 over the network shipped with qarena" in note.group(1)
    assert re.findall(r'<li class="(you|ai)">', page) == ["ai"]


def test_live_search_players_stay_within_their_bounds() -> None:
    """The web's search players: at most ``most`` of them and ``most_bytes`` of arrays, the
    least recently used pushed out first (its game makes a new one)."""
    from qarena.agents.players import player

    game = parse_spec("tictactoe")
    live = Live(most=3)
    made = [player("mcts:100", game, k) for k in range(5)]
    for k, p in enumerate(made):
        assert live.get(k, lambda p=p: p) is p
    assert len(live) == 3
    assert live.get(0, lambda: made[0]) is made[0]  # pushed out: made again
    one = held_bytes(made[0])
    assert one > 0
    small = Live(most=LIVE, most_bytes=2 * one)
    for k, p in enumerate(made):
        small.update(k, p)
    assert len(small) == 2 and small.bytes <= 2 * one
    # A tree of Python objects (MCTS with a file scoring its leaves) is counted by its nodes.
    led = player("mcts:200:perfect", game, 0)
    assert held_bytes(led) == NODE_BYTES  # the root alone, before any search
    led.act(game.start())
    assert held_bytes(led) > 100 * NODE_BYTES


def test_a_duel_of_thinking_players_is_watched(server: Server) -> None:
    """The Watch page offers the presets; two seats of the same spec each search their own."""
    status, _h, page = server.call("GET", "/watch")
    assert status == 200 and '<option value="mcts:1000"' in page
    status, headers, body = form(
        server, "/watch", {"a": "mcts:1000", "b": "mcts:1000", "game": "tictactoe",
                           "delay": "1.0"},
    )  # fmt: skip
    assert status == 303, body
    where = headers["location"]
    for ply in range(3):
        status, _h, page = form(server, f"{where}/step", {"at": str(ply)})
        assert status == 303, page
    status, _h, page = server.call("GET", where)
    assert status == 200
    moves = re.findall(r'<li class="mover-([01]) [^"]*">[^:<]*: ([a-c][1-3])', page)
    assert [m for m, _move in moves] == ["0", "1", "0"], moves
    assert len({move for _m, move in moves}) == 3
    status, _h, page = form(
        server, "/watch", {"a": "mcts:30s", "b": "random", "game": "tictactoe", "delay": "1.0"}
    )
    assert status == 422 and "mcts:30s thinks too long for the web app" in page


def test_a_stored_policy_scores_the_leaves_by_its_id(server: Server) -> None:
    """A FILE the server holds: a stored policy by its id (here one trained on the spot)."""
    status, _h, state = server.call("POST", "/api/games", {"game": "nim:2,2"})
    assert status == 200, state
    policy = state["policy"]
    assert policy is not None and re.fullmatch(r"[0-9a-f]{12}", policy)
    spec = f"mcts:200:{policy}"
    status, _h, state = server.call(
        "POST", "/api/games", {"game": "nim:2,2", "opponent": spec, "first": "ai"}
    )
    assert status == 200, state
    assert state["opponent"] == spec and state["policy"] is None
    assert len(state["history"]) == 1
    # The same policy on another game is refused in one line.
    status, _h, body = server.call(
        "POST", "/api/games", {"game": "nim:3,3", "opponent": spec, "first": "ai"}
    )
    assert status == 422, body
    assert body["detail"] == (
        f"the evaluator of {spec!r}: policy {policy} plays nim:2,2, not nim:3,3"
    ), body


def test_a_move_past_the_servers_limit_is_503_and_the_game_put_back(
    tmp_path: Any,
) -> None:
    """On a server allowing 1 s a move, a player given 3 s is stopped at the limit: 503 with
    Retry-After, said as the thinking player's, the game as it was before the move."""
    small = launch(tmp_path, move_seconds=1)
    try:
        status, _h, state = small.call(
            "POST", "/api/games", {"game": "tictactoe", "opponent": "mcts:3s"}
        )
        assert status == 200, state
        status, headers, body = small.call("POST", f"/api/games/{state['id']}/moves",
                                           {"move": "b2"})  # fmt: skip
        assert status == 503, body
        assert "retry-after" in headers
        assert body["detail"].startswith("the AI (mcts:3s) took longer than the server allows"), (
            body
        )
        status, _h, again = small.call("GET", f"/api/games/{state['id']}")
        assert status == 200 and again["history"] == [] and again["to_move"] == "human"
        # The same through the pages: the refusal shown in the game, the move taken back.
        status, headers, page = form(
            small, "/play", {"kind": "tictactoe", "rows": "3", "cols": "3", "k": "3",
                             "opponent": "mcts:3s", "first": "human"},
        )  # fmt: skip
        assert status == 303, page
        where = headers["location"]
        status, headers, page = form(small, f"{where}/move", {"move": "b2"})
        assert status == 503 and "retry-after" in headers
        error = re.search(r'<p id="error"[^>]*>([^<]*)</p>', page)
        assert error is not None and "The AI (mcts:3s) took longer" in error.group(1)
        assert re.findall(r'<li class="(you|ai)">', page) == []
    finally:
        stop(small)
