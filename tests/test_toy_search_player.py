"""A kind of search player declared in one module, this one, and registered once: ``flat:N``,
flat Monte Carlo (each legal move scored by N evaluations of the position it leaves, random
rollouts unless a FILE scores them), played through the command line, the Python API, the
environment and the web's game page with no other file changed (issue 57)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import qarena
from qarena.agents import thinking
from qarena.agents.base import Player
from qarena.agents.evaluators import Rollouts, evaluator_for
from qarena.agents.thinking import Budget, SearchKind, WebLimits, register
from qarena.cli import run
from qarena.errors import QarenaError
from qarena.games import Game, Move, Position, parse_spec
from qarena.games.picking import ChoosingPlayer, Evaluator, highest


@dataclass
class FlatPlayer(ChoosingPlayer):
    """Each legal move's value: the mean of ``budget.count`` evaluations of the position it
    leaves (a finished game: its result); it plays the first of the highest."""

    game: Game
    budget: Budget
    evaluator: Player | Evaluator | None = None
    seed: int | None = None
    name: str = "flat"
    thinks = True
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def seeded(self, seed: int | None, name: str | None = None) -> FlatPlayer:
        return FlatPlayer(self.game, self.budget, self.evaluator, seed, name or self.name)

    def values(self, position: Position) -> dict[Move, float]:
        game = self.game
        scores = (
            Rollouts(game, self.rng) if self.evaluator is None else evaluator_for(self.evaluator)
        )
        n = self.budget.count or 8
        out: dict[Move, float] = {}
        for move in game.legal_moves(position):
            after = game.apply(position, move)
            moves = game.legal_moves(after)
            if not moves:
                out[move] = -float(game.result(after))
                continue
            out[move] = -sum(scores.evaluate(after, moves)[0] for _ in range(n)) / n
        return out

    def choices(self, position: Position) -> list[Move]:
        return highest(self.game, position, self.values(position))[:1]

    def act(self, position: Position) -> Move:
        return self.choices(position)[0]


def make_flat(game: Game, budget: Budget, evaluator: Player | None, seed: int | None) -> Player:
    return FlatPlayer(game, budget, evaluator, seed)


FLAT = SearchKind(
    name="flat",
    form="flat:N",
    expected="a count of evaluations like flat:20",
    make=make_flat,
    web=WebLimits(most=50, words="{count:,} evaluations a move"),
    plays=FlatPlayer,
    afresh=True,
)


@pytest.fixture
def flat() -> Iterator[SearchKind]:
    """The kind registered for one test, and taken out after it (other tests list the kinds)."""
    register(FLAT)
    try:
        yield FLAT
    finally:
        thinking.THINKERS.pop(FLAT.name, None)
        thinking.KINDS.remove(FLAT.name)


def test_its_spec_is_read_made_and_listed(flat: SearchKind) -> None:
    game = parse_spec("tictactoe")
    found = qarena.player("flat:6", game, seed=1)
    assert isinstance(found, FlatPlayer) and found.name == "flat:6"
    assert thinking.kind_of(found) is flat
    assert "flat:N" in thinking.forms()
    # A finishing move is taken at once: x has a1 and b1.
    position = game.start()
    for m in ["a1", "a2", "b1", "b2"]:
        position = game.apply(position, game.parse_move(m))
    assert game.format_move(found.act(position)) == "c1"
    with pytest.raises(QarenaError, match="expected a count of evaluations like flat:20"):
        qarena.player("flat:x", game)
    # A FILE scores the positions instead of rollouts, as any kind's.
    led = qarena.player("flat:2:perfect", game, seed=1)
    assert isinstance(led, FlatPlayer) and led.evaluator is not None


def test_the_command_line_and_the_api_play_it(
    flat: SearchKind, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["compete", "flat:4", "random", "--game", "tictactoe", "--games", "2"]) == 0
    assert run(["eval", "flat:4", "--game", "tictactoe", "--sample", "20"]) == 0
    said = capsys.readouterr()
    assert "flat:4" in said.out
    match = qarena.compete("flat:4", "random", "tictactoe", games=2)
    assert match.total.win + match.total.draw + match.total.loss == 4
    judged = qarena.judge("flat:4", "tictactoe", sample=20, seed=0, games=1)
    assert 0 < judged.optimality.share <= 1


def test_the_environment_searches_it_afresh_each_move(flat: SearchKind) -> None:
    from qarena.env.players import opponent_chooser

    game = parse_spec("tictactoe")
    name, choose = opponent_chooser(game, "flat:3")
    assert name == "flat:3"
    moves = [choose(game.start(), np.random.default_rng(5)) for _ in range(3)]
    assert len(set(moves)) == 1  # the same generator, the same move


def test_the_web_s_game_page_plays_it_and_bounds_it_by_its_declaration(
    flat: SearchKind, tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient

    from qarena.web import create_app

    fields = {"kind": "tictactoe", "rows": "3", "cols": "3", "k": "3", "first": "human"}
    with TestClient(create_app(tmp_path)) as client:
        # Over its own web limit: refused in one line, in its declaration's words.
        r = client.post("/play", data={**fields, "opponent": "flat:500"}, follow_redirects=False)
        assert r.status_code == 422, r.text
        error = re.search(r'<p id="error"[^>]*>([^<]*)</p>', r.text)
        assert error is not None and "flat:500 thinks too long for the web app" in error.group(1)
        assert "at most 50 evaluations a move here" in error.group(1)
        # Within it: the game page, the AI answering the person's move.
        r = client.post("/play", data={**fields, "opponent": "flat:8"}, follow_redirects=False)
        assert r.status_code == 303, r.text
        where = r.headers["location"]
        r = client.post(f"{where}/move", data={"move": "b2"}, follow_redirects=False)
        assert r.status_code == 303, r.text
        page = client.get(where).text
        note = re.search(r'<p id="opponent-note"[^>]*>([^<]*)</p>', page)
        assert note is not None and "flat:8" in note.group(1)
        assert re.findall(r'<li class="(you|ai)">', page) == ["you", "ai"]


def test_the_web_s_api_plays_it_and_refuses_an_unknown_kind(
    flat: SearchKind, tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient

    from qarena.web import create_app

    with TestClient(create_app(tmp_path)) as client:
        body = {"game": "tictactoe", "opponent": "flat:8", "first": "ai", "seed": 1}
        r = client.post("/api/games", json=body)
        assert r.status_code == 200, r.text
        assert len(r.json()["history"]) == 1  # the AI moved first
        r = client.post("/api/games", json={**body, "opponent": "flat:500"})
        assert r.status_code == 422 and "flat:500 thinks too long" in r.text
        r = client.post("/api/games", json={**body, "opponent": "nosuch:8"})
        assert 400 <= r.status_code < 500 and "nosuch:8" in r.text
