"""The strongest player (issue 36): perfect play that, among the moves keeping the value, wins
in the fewest moves and, lost, holds out the longest (GBG's "distant losses"). Checked against
distances worked out here by plain recursion over the rules, against the Connect Four
solver's move scores, and on what a person sees in the terminal and the browser."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from rich.console import Console

import qarena
from qarena.agents import StrongestAgent, move_mask, player
from qarena.agents.opponents import OPPONENTS
from qarena.agents.strategies import PerfectAgent, is_builtin, judges_of, named_players
from qarena.cli import play as cli_play
from qarena.exact import game_tables
from qarena.games import DRAW, LOSS, WIN, Game, parse_spec
from qarena.match.session import Reply
from qarena.web.app import create_app

Pos = tuple[int, ...]


def distances(game: Game) -> dict[Pos, dict[int, tuple[int, int]]]:
    """Every reachable position's moves as (value for the mover, plies to the end with the
    move counted), by plain recursion over the rules: the winner hurries, the loser holds
    out; a draw's length is left at 0 (any drawing move is as strong)."""
    ends: dict[Pos, tuple[int, int]] = {}
    moves: dict[Pos, dict[int, tuple[int, int]]] = {}

    def end(p: Pos) -> tuple[int, int]:
        if p in ends:
            return ends[p]
        if game.is_terminal(p):
            ends[p] = (game.result(p), 0)
            return ends[p]
        here = {}
        for m in game.legal_moves(p):
            v, d = end(game.apply(p, m))
            here[m] = (-v, 1 + d)
        moves[p] = here
        best = max(v for v, _ in here.values())
        plies = [d for v, d in here.values() if v == best]
        ends[p] = (best, min(plies) if best == WIN else max(plies) if best == LOSS else 0)
        return ends[p]

    end(game.start())
    return moves


def expected(here: dict[int, tuple[int, int]]) -> set[int]:
    best = max(v for v, _ in here.values())
    if best == DRAW:
        return {m for m, (v, _) in here.items() if v == DRAW}
    kept = {m: d for m, (v, d) in here.items() if v == best}
    far = min(kept.values()) if best == WIN else max(kept.values())
    return {m for m, d in kept.items() if d == far}


@pytest.mark.parametrize("spec", ["nim:3,4,5", "nim:2,3,4:normal", "subtraction:12:3", "tictactoe"])
def test_the_strongest_moves_are_those_of_the_fastest_win_and_the_slowest_loss(
    spec: str,
) -> None:
    game = parse_spec(spec)
    strongest = player("strongest", game, seed=0)
    assert isinstance(strongest, StrongestAgent)
    perfect = player("perfect", game, seed=0)
    shorter = 0
    for p, here in distances(game).items():
        want = expected(here)
        assert set(strongest.choices(p)) == want, (game.format_position(p), here)
        assert strongest.act(p) in want
        # The solver's own distances agree with the recursion's for won and lost moves.
        for m, outcome in strongest.solution.move_outcomes(p).items():
            if outcome.value != DRAW:
                assert (outcome.value, outcome.plies) == here[m]
        shorter += len(want) < len(perfect.choices(p))
    # The strongest is pickier than perfect play somewhere (the subtraction game's winning
    # move is always the only one).
    assert (shorter > 0) == (not spec.startswith("subtraction"))


@pytest.mark.parametrize("spec", ["nim:3,4,5", "tictactoe", "connect4:4x4:3"])
def test_the_strongest_as_a_move_mask_picks_what_it_plays(spec: str) -> None:
    game = parse_spec(spec)
    tables = game_tables(game, True)
    strongest = StrongestAgent(game, 0)
    mask = move_mask(tables, strongest)
    perfect = move_mask(tables, PerfectAgent(game, 0))
    assert (mask <= perfect).all() and (mask < perfect).any()
    for row in np.flatnonzero(tables.live)[:3000]:
        position = tables.position(int(row))
        assert set(np.flatnonzero(mask[row])) == set(strongest.choices(position))


def test_after_d_on_classic_connect_four_it_holds_out_longest() -> None:
    # The game: after 1.d perfect play answered g, "loss in 17"; d loses in 20 (of
    # the winner's moves: the person's).
    game = parse_spec("connect4")
    strongest = qarena.player("strongest", game, seed=0)
    assert isinstance(strongest, StrongestAgent)
    after_d = game.apply(game.start(), game.parse_move("d"))
    outcomes = strongest.solution.move_outcomes(after_d)
    assert {game.format_move(m): o.plies for m, o in outcomes.items()}["g"] == 34
    assert [game.format_move(m) for m in strongest.choices(after_d)] == ["d"]
    assert outcomes[game.parse_move("d")].words("ai") == "loss in 20 of your moves"
    assert all(strongest.act(after_d) == game.parse_move("d") for _ in range(5))


def test_on_connect_four_its_move_has_the_best_score() -> None:
    # 1.d d: the first player wins; its fastest win is the move of the highest Pons score.
    game = parse_spec("connect4")
    strongest = StrongestAgent(game, 0)
    for moves in ("dd", "dc", "dcd"):
        position = game.parse_position(moves)
        scores = strongest.solution.move_scores(position)  # type: ignore[attr-defined]
        chosen = strongest.act(position)
        assert scores[chosen] == max(scores.values()), (moves, scores)
        assert set(strongest.choices(position)) == {
            m for m, s in scores.items() if s == max(scores.values())
        }


def test_strongest_is_a_builtin_everywhere_and_judged_perfect() -> None:
    game = parse_spec("tictactoe")
    assert is_builtin("strongest") and "strongest" in OPPONENTS
    assert "strongest" in named_players(game)
    # The published records are against random, perfect and the rule players only.
    assert judges_of(parse_spec("nim:3,5,7")) == (
        "random",
        "perfect",
        "bouton",
        "poles",
        "poles-strict",
    )
    judged = qarena.judge("strongest", "nim:3,4,5", games=20)
    assert judged.optimality.share == 1.0


def test_the_terminal_says_ties_at_different_distances_are_not_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Misère nim 3-3, the AI to move: every move loses, some sooner than others.
    game = parse_spec("nim:3,4")
    shown = io.StringIO()
    monkeypatch.setattr(cli_play, "out", Console(file=shown, width=120, color_system=None))
    position = game.apply(game.start(), game.parse_move("2:1"))
    for agent, words in [
        (PerfectAgent(game, 0), "have the same outcome for it, in different numbers of moves"),
        (StrongestAgent(game, 0), "shared its best value"),
    ]:
        session = cli_play._Session(
            game, agent, "human", True, False, True, np.random.default_rng(0), None
        )
        best = agent.best_at(position)
        texts = {agent.value_text(position, m, "ai") for m in best}
        session._show_reply(Reply(best[0], agent.move_values(position), position, best))
        text = shown.getvalue()
        shown.seek(0)
        shown.truncate()
        if len(best) > 1:
            assert words in text, text
        assert (len(texts) > 1) == ("different numbers of moves" in text)
    # Perfect play's ties here differ in distance; the strongest's never do.
    assert (
        len(
            {
                PerfectAgent(game, 0).value_text(position, m, "ai")
                for m in PerfectAgent(game, 0).best_at(position)
            }
        )
        > 1
    )


def _new(client: TestClient, spec: str, **extra: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": spec, "first": "human", "seed": 0, **extra})
    assert r.status_code == 200, r.text
    state: dict[str, Any] = r.json()
    return state


def test_the_browser_offers_the_strongest_and_names_it(tmp_path: Any) -> None:
    with TestClient(create_app(tmp_path)) as client:
        home = client.get("/").text
        assert 'value="strongest"' in home and 'value="perfect"' in home
        state = _new(client, "nim:3,4", opponent="strongest")
        assert state["opponent"] == "strongest"
        page = client.get(f"/games/{state['id']}").text
        assert "perfect play at its strongest" in page
        assert _new(client, "nim:3,4", opponent="perfect")["opponent"] == "perfect"
        # Nim 3-4 after 2:1 (3-3): the strongest holds out, in the reply that loses last.
        game = parse_spec("nim:3,4")
        after = game.apply(game.start(), game.parse_move("2:1"))
        want = {game.format_move(m) for m in StrongestAgent(game, 0).choices(after)}
        r = client.post(f"/api/games/{state['id']}/moves", json={"move": "2:1"})
        assert r.status_code == 200, r.text
        assert r.json()["ai_move"] in want
        # The watch page and the training form take it too.
        form = {"a": "strongest", "b": "random", "game": "tictactoe", "delay": "1.0"}
        r = client.post("/watch", data=form, follow_redirects=False)
        assert r.status_code == 303, r.text
        assert 'value="strongest"' in client.get("/train/opponents?game=nim:3,4").text


@pytest.mark.parametrize(
    ("opponent", "says"),
    [
        ("strongest", "Playing against perfect play at its strongest"),
        ("perfect", "Playing against perfect play, by the solver."),
    ],
)
def test_the_terminal_plays_either_perfect_play_without_training(opponent: str, says: str) -> None:
    # A spec with --opponent strongest or perfect needs no agent: nothing trains first.
    done = subprocess.run(
        [sys.executable, "-m", "qarena", "play", "nim:3,4", "--opponent", opponent],
        input="q\n",
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert says in " ".join(done.stderr.split()) and "Training" not in done.stderr
