"""`qarena explain`: the theory's account of a position against the solver's, the principal
variation against the solver's depths, and the command line (JSON, --policy, bad input)."""

from __future__ import annotations

import itertools
import json
from functools import reduce
from operator import xor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qarena.cli.app import run
from qarena.exact import game_tables, solve
from qarena.games import DRAW, LOSS, WIN, Game, Nim, Position, Subtraction, parse_spec
from qarena.learn.learners import load_learner
from qarena.show.explain import (
    NimExplanation,
    explain,
    explain_nim,
    explain_search,
    explain_subtraction,
)
from tests.conftest import at


def _positions(game: Game) -> list[Position]:
    """Every position the solver reached from the start."""
    t = game_tables(game, False)
    return [t.position(row) for row in range(t.rows)]


# --- nim and subtraction: theory against the solver ----------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "nim:3,5,7",
        "nim:3,5,7:normal",
        "nim:1,1,4",
        "nim:2,2",
        "nim:4,4,4,4:normal",
        "nim:1",
        "nim:2,6,7,8",
        "nim:1,1,1,1,2",
    ],
)
def test_nim_explanation_agrees_with_the_solver(spec: str) -> None:
    game = parse_spec(spec)
    assert isinstance(game, Nim)
    solution = solve(game)
    positions = _positions(game)
    # Every pile size up to the start's is reachable in nim.
    assert len(positions) == game.num_positions
    for pos in positions:
        e = explain_nim(game, pos)
        assert e.value == solution.value_of(pos), pos
        optimal = set(solution.optimal_moves(pos))
        assert set(e.optimal_moves) == optimal, pos
        assert set(e.winning_moves) == (optimal if e.value == WIN else set()), pos


@pytest.mark.parametrize("misere", [True, False])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 7])
def test_subtraction_explanation_agrees_with_the_solver(k: int, misere: bool) -> None:
    game = Subtraction.make(30, k, misere)
    solution = solve(game)
    for n in range(31):
        e = explain_subtraction(game, (n,))
        assert e.value == solution.value_of((n,)), n
        optimal = set(solution.optimal_moves((n,)))
        assert set(e.optimal_moves) == optimal, n
        assert set(e.winning_moves) == (optimal if e.value == WIN else set()), n
        assert e.remainder == n % (k + 1)


def test_binary_rows_and_nim_sum() -> None:
    e = explain_nim(Nim(piles=(3, 5, 7)), (3, 5, 7))
    assert e.nim_sum == 3 ^ 5 ^ 7 == 1
    assert e.binary == ("011", "101", "111")
    assert e.nim_sum_binary == "001"
    # Each column of the nim-sum is the parity of that column in the piles.
    for bit, digit in enumerate(e.nim_sum_binary):
        assert int(digit) == sum(int(row[bit]) for row in e.binary) % 2
    assert [int(b, 2) for b in e.binary] == [3, 5, 7]
    wide = explain_nim(Nim(piles=(1, 12)), (1, 12))
    assert wide.binary == ("0001", "1100") and wide.nim_sum == 1 ^ 12 == 13


def test_known_nim_positions() -> None:
    game = Nim(piles=(3, 5, 7))
    # One big pile in misère play: cut the 4 to one, leaving three single objects.
    e = explain_nim(game, (1, 1, 4))
    assert (e.rule, e.value, e.winning_moves) == ("misere-exception", WIN, (game.move_for(2, 3),))
    # Same piles in normal play: Bouton's rule, empty the big pile.
    normal = Nim(piles=(3, 5, 7), misere=False)
    e = explain_nim(normal, (1, 1, 4))
    assert (e.rule, e.value, e.winning_moves) == ("bouton", WIN, (normal.move_for(2, 4),))
    # Two big piles with nim-sum 0: lost in both rules.
    assert explain_nim(game, (1, 4, 5)).value == LOSS
    assert explain_nim(game, (1, 4, 5)).rule == "bouton"
    # Finished: the opponent took the last object.
    assert explain_nim(game, (0, 0, 0)).value == WIN
    assert explain_nim(normal, (0, 0, 0)).value == LOSS
    assert explain_nim(game, (1, 1, 1)).value == LOSS


# --- boards: the principal variation ---------------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["tictactoe", "tictactoe:2x2", "tictactoe:1x5:2", "tictactoe:3x4:3"]
)
def test_principal_variation_follows_the_solver(spec: str) -> None:
    game = parse_spec(spec)
    solution = solve(game)
    positions = _positions(game)
    if len(positions) > 3000:
        rng = np.random.default_rng(0)
        positions = [positions[i] for i in rng.choice(len(positions), 600, replace=False)]
    for pos in positions:
        e = explain(game, pos, solution)
        assert e.rule == "search"
        value = solution.value_of(pos)
        assert e.value == value
        p = pos
        for move in e.principal_variation:
            assert move in solution.optimal_moves(p), (pos, p)
            p = game.apply(p, move)
        assert game.is_terminal(p) and p == e.final
        # The result at the end, seen from the player who was to move at the start.
        plies = len(e.principal_variation)
        assert (game.result(p) if plies % 2 == 0 else -game.result(p)) == value, pos
        if value != DRAW:
            assert plies == solution.depth_of(pos) == e.depth, pos
        assert set(e.optimal_moves) == set(solution.optimal_moves(pos))


def test_search_explanation_of_a_finished_board() -> None:
    game = parse_spec("tictactoe")
    e = explain_search(solve(game), game.parse_position("xxx/oo./..."))
    assert (e.value, e.principal_variation, e.optimal_moves, e.over) == (LOSS, (), (), True)


# --- the command line ------------------------------------------------------------------------


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    assert run(argv) == 0
    record = json.loads(capsys.readouterr().out)
    assert isinstance(record, dict)
    return record


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert run(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert "Traceback" not in captured.err + captured.out
    return lines[0]


def test_json_for_nim(capsys: pytest.CaptureFixture[str]) -> None:
    record = _json(capsys, ["explain", "nim", "--position", "1 4 5", "--json"])
    game = parse_spec("nim")
    pos = (1, 4, 5)
    assert record["game"] == "nim:3,5,7"
    assert record["position"] == "1 4 5"
    assert record["value"] == "loss"
    assert record["rule"] == "bouton"
    assert record["policy"] is None
    assert record["to_move"] is None
    assert record["optimal_moves"] == [game.format_move(m) for m in solve(game).optimal_moves(pos)]
    details = record["details"]
    assert isinstance(details, dict)
    assert details["piles"] == [1, 4, 5]
    assert details["binary"] == ["001", "100", "101"]
    assert details["nim_sum"] == reduce(xor, pos) == 0
    assert details["misere"] is True


def test_json_for_subtraction_and_boards(capsys: pytest.CaptureFixture[str]) -> None:
    record = _json(capsys, ["explain", "subtraction:10:3:normal", "--json"])
    assert (record["value"], record["rule"], record["optimal_moves"]) == (
        "win",
        "subtraction",
        ["2"],
    )
    details = record["details"]
    assert isinstance(details, dict)
    assert (details["heap"], details["k"], details["remainder"]) == (10, 3, 10 % 4)

    record = _json(capsys, ["explain", "tictactoe", "-p", "xo./.../...", "--json"])
    game = parse_spec("tictactoe")
    pos = game.parse_position("xo./.../...")
    assert (record["value"], record["rule"], record["to_move"]) == ("win", "search", "x")
    details = record["details"]
    assert isinstance(details, dict)
    line = details["principal_variation"]
    assert isinstance(line, list) and len(line) == solve(game).depth_of(pos)
    for text in line:
        pos = game.apply(pos, game.parse_move(text))
    assert game.format_position(pos) == details["final_position"]
    assert details["winner"] == "x"


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["explain", "nim"]) == 0
    text = capsys.readouterr().out
    assert "nim-sum" in text and "011" in text and "win for the player to move" in text
    for move in ("1:1", "2:1", "3:1"):
        assert move in text
    assert run(["explain", "nim", "--position", "1 1 4"]) == 0
    text = capsys.readouterr().out
    assert "misère exception" in text and "3:3" in text
    assert run(["explain", "tictactoe", "--position", "x../.o./..."]) == 0
    text = capsys.readouterr().out
    assert "draw" in text and "   a b c" in text
    assert run(["explain", "tictactoe", "--position", "xox/xoo/oxx"]) == 0
    assert "The board is full: draw." in capsys.readouterr().out
    assert run(["explain", "nim", "--position", "0 0 0"]) == 0
    assert "has won" in capsys.readouterr().out


@pytest.fixture(scope="module")
def policies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("policies")
    files = {"perfect": folder / "perfect.npz", "raw": folder / "raw.npz"}
    assert run(["train", "nim:1,2,3", "--out", str(files["perfect"]), "--until-perfect"]) == 0
    assert run(["train", "nim:1,2,3", "--out", str(files["raw"]), "--episodes", "1"]) == 0
    return files


def test_policy_trained_to_perfection_keeps_the_value(
    policies: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    for position in ("1 2 3", "0 2 3", "1 2 2", "1 2 0"):
        argv = ["explain", "nim:1,2,3", "-p", position, "--policy", str(policies["perfect"])]
        record = _json(capsys, [*argv, "--json"])
        policy = record["policy"]
        assert isinstance(policy, dict)
        assert policy["keeps_value"] is True, position
        assert policy["learner"] == "q"


def test_under_trained_policy_is_judged_by_the_solver(
    policies: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    game = parse_spec("nim:1,2,3")
    solution = solve(game)
    learner = load_learner(policies["raw"], game)
    best = learner.best_moves()
    verdicts = []
    for pos in _positions(game):
        if game.is_terminal(pos):
            continue
        text = game.format_position(pos)
        argv = ["explain", "nim:1,2,3", "-p", text, "--policy", str(policies["raw"]), "--json"]
        policy = _json(capsys, argv)["policy"]
        assert isinstance(policy, dict)
        greedy = [m for m, v in at(learner.tables, best, pos).items() if v]
        optimal = set(solution.optimal_moves(pos))
        assert policy["moves"] == [game.format_move(m) for m in greedy]
        assert policy["keeps_value"] == all(m in optimal for m in greedy), text
        verdicts.append(policy["keeps_value"])
    # One episode teaches almost nothing: some won positions are given away.
    assert False in verdicts and True in verdicts
    assert run(["explain", "nim:1,2,3", "-p", "1 2 0", "--policy", str(policies["raw"])]) == 0
    assert "gives the win away" in capsys.readouterr().out


def test_errors_are_one_line(policies: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert "not pile sizes" in _error(capsys, ["explain", "nim", "--position", "1 2 x"])
    assert "at most 3" in _error(capsys, ["explain", "nim", "--position", "4 5 7"])
    assert "does not fit" in _error(capsys, ["explain", "tictactoe", "-p", "xo/.."])
    message = _error(capsys, ["explain", "nim", "--policy", str(policies["raw"])])
    assert "nim:1,2,3, not nim:3,5,7" in message
    argv = ["explain", "nim:1,2,3", "-p", "0 0 0", "--policy", str(policies["raw"])]
    assert "the game is over" in _error(capsys, argv)
    assert "unknown game" in _error(capsys, ["explain", "chess"])


def test_the_explanation_uses_no_solver_for_heaps() -> None:
    # Bouton's rule needs no table: a nim game far too large to solve is still explained.
    game = parse_spec("nim:1000,2000,3000,4000")
    e = explain(game, game.start())
    assert isinstance(e, NimExplanation)
    assert e.nim_sum == 1000 ^ 2000 ^ 3000 ^ 4000
    assert e.value == (WIN if e.nim_sum else LOSS)


# --- explain --losing: the losing positions against the theories, computed here ------------


def _box(piles: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every position of a heap game with these starting piles: nim reaches them all."""
    return list(itertools.product(*(range(p + 1) for p in piles)))


def _bouton_loses(piles: tuple[int, ...], misere: bool) -> bool:
    """Bouton (1901) for the player to move: nim-sum 0 loses in normal play; in misère play
    the same, except that when no pile has two or more objects an odd number of ones loses."""
    if misere and all(p <= 1 for p in piles):
        return sum(piles) % 2 == 1
    return reduce(xor, piles, 0) == 0


def _losing(capsys: pytest.CaptureFixture[str], spec: str, *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    return _json(capsys, ["explain", spec, "--losing", "--json", "--limit", "100000", *extra])


def _texts(record: dict[str, Any]) -> list[str]:
    return [p["position"] for p in record["listed"]]


@pytest.mark.parametrize(
    "spec",
    [
        "nim:3,5,7",
        "nim:3,5,7:normal",
        "nim:1,1,4",
        "nim:1,1,4:normal",
        "nim:2,2",
        "nim:2,6,7,8",
        "nim:2,6,7,8:normal",
        "nim:1,1,1,1,2",
        "nim:1",
        "nim:1:normal",
    ],
)
def test_losing_nim_positions_are_boutons(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    misere = not spec.endswith(":normal")
    piles = tuple(int(p) for p in spec.split(":")[1].split(","))
    box = _box(piles)
    lost = [p for p in box if _bouton_loses(p, misere)]
    text = {p: " ".join(map(str, p)) for p in box}

    every = _losing(capsys, spec, "--no-canonical")
    assert (every["canonical"], every["positions"], every["more"]) == (False, len(box), 0)
    assert every["losing"] == every["losing_classes"] == len(lost)
    assert _texts(every) == [text[p] for p in sorted(lost)]  # sorted as tuples
    assert all(p["class_size"] == 1 for p in every["listed"])
    # Finished games are listed only where the player to move has lost: the empty position
    # in normal play (the opponent took the last object), never in misère play.
    zero = tuple(0 for _ in piles)
    over = [p for p in every["listed"] if p["over"]]
    assert [p["position"] for p in over] == ([] if misere else [text[zero]])
    assert every["finished"] == (0 if misere else 1)
    assert all(p["plies"] == 0 for p in over)
    assert all(p["plies"] > 0 for p in every["listed"] if not p["over"])

    # One per class: the piles sorted (caps ascend here, so a sorted position is reachable).
    classes = _losing(capsys, spec)
    canonical = sorted({tuple(sorted(p)) for p in lost})
    assert classes["canonical"] is True and classes["losing"] == len(lost)
    assert _texts(classes) == [" ".join(map(str, p)) for p in canonical]
    assert classes["losing_classes"] == len(canonical)
    # A class stands for every order of its piles.
    sizes = {" ".join(map(str, c)): 0 for c in canonical}
    for p in lost:
        sizes[" ".join(map(str, sorted(p)))] += 1
    assert {p["position"]: p["class_size"] for p in classes["listed"]} == sizes


def test_misere_3_5_7_pole_positions(capsys: pytest.CaptureFixture[str]) -> None:
    listed = _texts(_losing(capsys, "nim"))
    for pole in ("1 1 1", "0 2 2", "1 2 3", "1 4 5", "2 4 6", "2 5 7", "3 4 7", "3 5 6"):
        assert pole in listed
    for won in ("0 0 0", "0 1 1", "3 5 7", "1 1 4"):
        assert won not in listed


@pytest.mark.parametrize("misere", [True, False])
@pytest.mark.parametrize(("heap", "k"), [(12, 3), (13, 1), (20, 2), (17, 5)])
def test_losing_subtraction_positions_follow_the_period(
    heap: int, k: int, misere: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # Take 1..k: the period is k+1; normal play loses on multiples of it (0 included, where
    # the opponent took the last), misère play one above them (the last stick is forced).
    spec = f"subtraction:{heap}:{k}" + ("" if misere else ":normal")
    lost = [n for n in range(heap + 1) if n % (k + 1) == (1 if misere else 0)]
    record = _losing(capsys, spec)
    assert _texts(record) == [str(n) for n in lost]
    assert (record["losing"], record["positions"]) == (len(lost), heap + 1)
    assert record["finished"] == (0 if misere else 1)
    # Best play: the winner restores the period each turn, so a loss at n lasts that many
    # rounds of two plies (misère: the forced last stick is one ply more, not two).
    plies = [p["plies"] for p in record["listed"]]
    assert plies == [2 * (n // (k + 1)) + (1 if misere else 0) for n in lost]


def _negamax_losses(game: Game) -> set[Position]:
    """Every position reachable from the start that is lost for the player to move, by a plain
    memoised negamax over the game's rules (no solver)."""
    values: dict[Position, int] = {}

    def value(pos: Position) -> int:
        if pos not in values:
            moves = game.legal_moves(pos)
            if not moves:
                values[pos] = game.result(pos)
            else:
                values[pos] = max(-value(game.apply(pos, m)) for m in moves)
        return values[pos]

    value(game.start())
    return {p for p, v in values.items() if v == LOSS}


@pytest.mark.parametrize("spec", ["tictactoe", "tictactoe:2x2", "connect4:3x4:3"])
def test_losing_board_positions_agree_with_negamax(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    game = parse_spec(spec)
    lost = _negamax_losses(game)
    every = _losing(capsys, spec, "--no-canonical")
    assert set(_texts(every)) == {game.format_position(p) for p in lost}
    assert every["losing"] == len(lost)
    finished = [p for p in lost if game.is_terminal(p)]
    assert every["finished"] == len(finished) > 0
    for item in every["listed"]:
        pos = game.parse_position(item["position"])
        assert item["over"] == game.is_terminal(pos)
        assert item["to_move"] == "xo"[game.to_move(pos) or 0]
    # One per class: as many positions in all, each class once.
    classes = _losing(capsys, spec)
    assert classes["losing"] == len(lost) and classes["finished"] == len(finished)
    assert sum(p["class_size"] for p in classes["listed"]) == len(lost)
    assert {game.format_position(game.canonical(p)) for p in lost} == set(_texts(classes))


def test_tictactoe_losing_counts(capsys: pytest.CaptureFixture[str]) -> None:
    # 5,478 positions are reachable in tic-tac-toe, 765 up to the board's 8 symmetries.
    record = _losing(capsys, "tictactoe")
    assert (record["positions"], record["classes"]) == (5478, 765)


def test_losing_limit(capsys: pytest.CaptureFixture[str]) -> None:
    whole = _losing(capsys, "tictactoe")
    capsys.readouterr()
    first = _json(capsys, ["explain", "tictactoe", "--losing", "--json", "--limit", "7"])
    assert first["listed"] == whole["listed"][:7]
    assert first["more"] == whole["losing_classes"] - 7
    none = _json(capsys, ["explain", "tictactoe", "--losing", "--json", "--limit", "0"])
    assert none["listed"] == [] and none["losing"] == whole["losing"]
    # The default lists 200 classes.
    default = _json(capsys, ["explain", "tictactoe", "--losing", "--json"])
    assert default["listed"] == whole["listed"][:200]


def test_losing_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    box = _box((3, 5, 7))
    lost = [p for p in box if _bouton_loses(p, True)]
    classes = {tuple(sorted(p)) for p in lost}
    capsys.readouterr()
    assert run(["explain", "nim", "--losing"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    count = f"{len(lost)} of {len(box)} positions are losses for the player to move"
    assert f"{count}, {len(classes)} of " in text
    assert "1 2 3" in text and "class size" in text
    assert "No finished game is lost" in text
    assert run(["explain", "nim:3,5,7:normal", "--losing", "--limit", "3"]) == 0
    text = capsys.readouterr().out
    assert "0 0 0" in text and "game over" in text
    assert f"and {len(classes) - 3} more classes" in text
    assert "1 of them is a finished game" in text
    assert run(["explain", "tictactoe:2x2", "--losing", "--no-canonical"]) == 0
    text = capsys.readouterr().out
    assert "to move" in text and "class size" not in text and "symmetry" not in text


def test_losing_refuses_what_does_not_fit(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert "--position" in _error(capsys, ["explain", "nim", "--losing", "-p", "1 2 3"])
    assert "--policy" in _error(capsys, ["explain", "nim", "--losing", "--policy", "x.npz"])
    assert "--limit goes with --losing" in _error(capsys, ["explain", "nim", "--limit", "3"])
    assert "--no-canonical goes with" in _error(capsys, ["explain", "nim", "--no-canonical"])
    assert "at most 100,000" in _error(capsys, ["explain", "nim", "--losing", "--limit", "100001"])
    assert "at least 0" in _error(capsys, ["explain", "nim", "--losing", "--limit", "-1"])
    assert "unknown game" in _error(capsys, ["explain", "chess", "--losing"])
    assert "too large" in _error(capsys, ["explain", "connect4", "--losing"])
