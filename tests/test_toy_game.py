"""A new game needs no edits outside its own module: a toy game defined and registered here
runs through solve, train, eval, table, explain and a terminal game via the public CLI."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from qarena.cli import play
from qarena.cli.app import run
from qarena.errors import MoveError, PositionError
from qarena.exact import solve
from qarena.games import LOSS, WIN, Game, GameArrays, Move, Position, parse_spec, value_name
from qarena.games.base import mixed_radix_arrays
from qarena.games.registry import register, unregister
from tests.conformance import check_game

TAKES = (1, 3)


@dataclass(frozen=True)
class Toy(Game):
    """Two heaps; a move takes 1 or 3 from one heap; whoever takes the last object wins."""

    heaps: tuple[int, int] = (5, 6)

    impartial = True

    @property
    def spec(self) -> str:
        return f"toy:{self.heaps[0]},{self.heaps[1]}"

    @property
    def title(self) -> str:
        return f"Toy {self.heaps[0]}-{self.heaps[1]}"

    @property
    def radix(self) -> tuple[int, ...]:
        return tuple(h + 1 for h in self.heaps)

    @property
    def num_moves(self) -> int:
        return len(self.heaps) * len(TAKES)

    @property
    def max_plies(self) -> int:
        return sum(self.heaps)

    def start(self) -> Position:
        return self.heaps

    def to_move(self, position: Position) -> int | None:
        return None

    def legal_moves(self, position: Position) -> list[Move]:
        self._check_position(position)
        return [m for m in range(self.num_moves) if position[m // 2] >= TAKES[m % 2]]

    def _apply_unchecked(self, position: Position, move: Move) -> Position:
        heap, take = self._move_component(move)
        out = list(position)
        out[heap] -= take
        return tuple(out)

    def is_terminal(self, position: Position) -> bool:
        self._check_position(position)
        return not any(position)

    def result(self, position: Position) -> int:
        return LOSS  # the opponent took the last object

    def format_position(self, position: Position) -> str:
        return " ".join(str(h) for h in position)

    def parse_position(self, text: str) -> Position:
        parts = text.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise PositionError(f"position {text!r} is not two heap sizes")
        position = (int(parts[0]), int(parts[1]))
        self._check_position(position)
        return position

    def format_move(self, move: Move) -> str:
        heap, take = self._move_component(move)
        return f"{heap + 1}:{take}"

    def parse_move(self, text: str) -> Move:
        m = re.fullmatch(r"\s*([12]):([13])\s*", text)
        if not m:
            raise MoveError(f"move {text!r} is not HEAP:TAKE, like '1:3'")
        return self._make_move(int(m.group(1)) - 1, int(m.group(2)))

    def _canonical_perm(self, position: Position) -> tuple[int, ...]:
        return (0, 1)

    def _move_component(self, move: Move) -> tuple[int, int]:
        if not 0 <= move < self.num_moves:
            raise MoveError(f"move id {move} is outside 0..{self.num_moves - 1}")
        return move // 2, TAKES[move % 2]

    def _make_move(self, component: int, detail: int) -> Move:
        return component * 2 + TAKES.index(detail)

    def arrays(self) -> GameArrays:
        radix, weight = mixed_radix_arrays(self.radix)
        return GameArrays(
            board=False,
            misere=False,
            num_positions=self.num_positions,
            num_moves=self.num_moves,
            start=self.encode(self.start()),
            radix=radix,
            weight=weight,
            move_comp=np.array([m // 2 for m in range(self.num_moves)], dtype=np.int64),
            move_take=np.array([TAKES[m % 2] for m in range(self.num_moves)], dtype=np.int64),
            lines=np.zeros((0, 1), dtype=np.int64),
        )


def _parse(text: str, rest: list[str]) -> Game:
    if not rest:
        return Toy()
    a, b = (int(p) for p in rest[0].split(","))
    return Toy((a, b))


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    register("toy", _parse, form="toy[:A,B] like 'toy:5,6'")
    yield
    unregister("toy")


@lru_cache
def _brute(position: Position) -> int:
    """Negamax by plain recursion, independent of the solver."""
    game = Toy()
    if game.is_terminal(position):
        return game.result(position)
    return max(-_brute(game.apply(position, m)) for m in game.legal_moves(position))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = run(list(args))
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_spec_names_the_toy() -> None:
    assert parse_spec("toy") == Toy()
    assert parse_spec("toy:2,3").spec == "toy:2,3"


def test_unregistered_toy_is_unknown() -> None:
    unregister("toy")
    with pytest.raises(Exception, match="unknown game 'toy'"):
        parse_spec("toy")


@pytest.mark.parametrize("spec", ["toy", "toy:3,9", "toy:0,4"])
def test_the_toy_passes_every_games_conformance_checks(spec: str) -> None:
    check_game(parse_spec(spec))


@dataclass(frozen=True)
class _Forgetful(Toy):
    """A toy whose text form forgets the second heap."""

    def format_position(self, position: Position) -> str:
        return f"{position[0]} 0"


@dataclass(frozen=True)
class _Lax(Toy):
    """A toy that lets a move be made after the game has ended."""

    def is_terminal(self, position: Position) -> bool:
        return sum(position) == 0

    def legal_moves(self, position: Position) -> list[Move]:
        return [] if sum(position) == 0 else super().legal_moves(position)

    def apply(self, position: Position, move: Move) -> Position:
        return position if sum(position) == 0 else super().apply(position, move)


@pytest.mark.parametrize("broken", [_Forgetful(), _Lax()])
def test_the_conformance_checks_catch_a_broken_game(broken: Toy) -> None:
    with pytest.raises(AssertionError):
        check_game(broken)


def test_solver_agrees_with_brute_force() -> None:
    game = Toy()
    solution = solve(game)
    # Take-1-or-3 heaps have Grundy value heap % 2: the mover wins when the parities differ.
    assert solution.start_value == _brute(game.start()) == WIN
    for a in range(6):
        for b in range(7):
            assert solution.value_of((a, b)) == _brute((a, b))
            assert _brute((a, b)) == (WIN if (a + b) % 2 else LOSS) or a == b == 0


def test_the_whole_cli_on_the_toy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    solved = json.loads(_run(capsys, "solve", "toy", "--json"))
    assert solved["value"] == value_name(_brute(Toy().start()))

    policy = tmp_path / "p.npz"
    _run(capsys, "train", "toy", "-o", str(policy), "--until-perfect")
    evaluated = _run(capsys, "eval", str(policy), "--json")
    assert json.loads(evaluated)["optimality"] == 1.0
    assert "5 6" in _run(capsys, "table", str(policy))

    explained = json.loads(_run(capsys, "explain", "toy", "--json"))
    assert explained["rule"] == "search"
    assert explained["value"] == "win"
    assert "No closed-form rule" in _run(capsys, "explain", "toy", "-p", "2 1")

    # A scripted game in the terminal: nonsense, then any legal move, then no rematch.
    answers = iter(["nonsense", *["1:1", "2:1"] * 20])

    def ask(prompt: str) -> str:
        return "n" if "again" in prompt else next(answers)

    monkeypatch.setattr(play, "_ask", ask)
    text = _run(capsys, "play", str(policy), "--first", "human", "--seed", "1")
    assert "is not HEAP:TAKE" in text
    # Every take (1 or 3) flips the parity of the total, so from a won start every move keeps
    # the win: the human, moving first, wins whatever they play.
    assert "You win!" in text


def test_the_browser_plays_the_toy_from_its_spec(tmp_path: Path) -> None:
    """The web app too: the home form's "any game" field and the API take the registered toy;
    its drawing is the text form (a picture is the one per-game part of the browser)."""
    from fastapi.testclient import TestClient

    from qarena.web import create_app

    with TestClient(create_app(tmp_path, train_seconds=5.0)) as client:
        home = client.get("/")
        assert "toy[:…]" in home.text
        page = client.post("/play", data={"kind": "spec", "spec": "toy:2,2"})
        assert page.status_code == 200 and "toy:2,2" in page.text
        assert 'id="error"' not in page.text
        state = client.post("/api/games", json={"game": "toy:2,2"}).json()
        assert state["game"] == "toy:2,2" and state["to_move"] == "human"
        move = state["legal_moves"][0]
        after = client.post(f"/api/games/{state['id']}/moves", json={"move": move})
        assert after.status_code == 200, after.text
        assert after.json()["history"][0] == move


def test_a_game_with_a_menu_is_offered_on_the_home_page(tmp_path: Path) -> None:
    """A game that registers a menu is in the home form's list with its own fields, and its
    fields make its spec, checked as the other games' are: nothing in the web names it."""
    from fastapi.testclient import TestClient

    from qarena.games.registry import Field, Menu
    from qarena.web import create_app

    menu = Menu(
        title="Toy heaps",
        fields=(
            Field("toy_a", "First heap", "5", what="the first heap"),
            Field("toy_b", "Second heap", "6", most=9, what="the second heap"),
        ),
        spec=lambda v: f"toy:{v['toy_a']},{v['toy_b']}",
    )
    register("toy", _parse, form="toy[:A,B] like 'toy:5,6'", menu=menu)
    with TestClient(create_app(tmp_path, train_seconds=5.0)) as client:
        home = client.get("/").text
        assert '<option value="toy" >Toy heaps</option>' in home
        assert '<fieldset class="for-toy">' in home and 'name="toy_b"' in home
        assert 'name="toy_b" type="number" min="1" max="9" value="6"' in home
        # Choosing the toy hides the other games' fields, not its own.
        hides = re.search(r'option\[value="toy"\]:checked\) :is\(([^)]*)\)', home)
        assert hides is not None and ".for-nim" in hides[1] and ".for-toy" not in hides[1]
        page = client.post("/play", data={"kind": "toy", "toy_a": "2", "toy_b": "3"})
        assert page.status_code == 200 and "toy:2,3" in page.text
        assert 'id="error"' not in page.text
        bad = client.post("/play", data={"kind": "toy", "toy_a": "two", "toy_b": "3"})
        assert bad.status_code == 422
        assert "The first heap must be a whole number" in bad.text
        assert 'name="toy_a" type="number" min="1" value="two"' in bad.text  # kept to fix
    with pytest.raises(ValueError, match="menu field 'piles'"):
        register("toy", _parse, menu=Menu("Toy", (Field("piles", "Piles", "1"),), str))
