"""The best reply everywhere a judgement goes: ``qarena eval`` (its ``--json`` and its lines per
seat, in English, German and Russian), ``qarena.judge``'s ``Evaluation``, and ``qarena beat
--watch``, which replays each seat's line on the board as ``qarena watch`` shows a game.

Facts from outside the code: perfect play cannot be beaten from the start in either seat and a
random player can (tic-tac-toe is a draw, so an opponent who knows it may play anything wins);
on misère Nim 3-5-7 (won for the first player) the term paper's pole strategy followed to the
letter is beaten moving first; a replay ends in the outcome the line claims, by the game's own
rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import qarena
from qarena.cli import run
from qarena.judging.player import judge_player


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code, out, err = _run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _ends(spec: str, line: list[str], agent_first: bool) -> str:
    """How the line ends for the agent by the game's rules alone: win, draw or loss."""
    game = qarena.game(spec)
    position = game.start()
    for text in line:
        move = game.parse_move(text)
        assert move in game.legal_moves(position)
        position = game.apply(position, move)
    assert game.is_terminal(position)
    # The result is for the player to move at the end: the agent when the line is even.
    agents_turn = (len(line) % 2 == 0) == agent_first
    end = game.result(position) * (1 if agents_turn else -1)
    return {1: "win", 0: "draw", -1: "loss"}[end]


def test_eval_json_says_perfect_play_is_unbeaten_and_random_play_beaten(
    capsys: pytest.CaptureFixture[str],
) -> None:
    perfect = _json(capsys, "eval", "perfect", "--game", "tictactoe", "--games", "2")
    assert set(perfect["best_reply"]) == {"first", "second"}
    for seat, reply in perfect["best_reply"].items():
        assert reply["value"] == reply["secured"] == "draw" and reply["beaten"] is False
        assert reply["proved"] is True
        assert reply["reachable_kept"] == reply["reachable_decisions"] > 0
        assert _ends("tictactoe", reply["line"], seat == "first") == "draw"
    randomly = _json(capsys, "eval", "random", "--game", "tictactoe", "--games", "2")
    for seat, reply in randomly["best_reply"].items():
        assert reply["value"] == "draw" and reply["secured"] == "loss" and reply["beaten"]
        assert _ends("tictactoe", reply["line"], seat == "first") == "loss"


def test_eval_json_of_a_trained_table_is_the_best_reply_to_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The issue's Q-table (2,000 episodes, seed 7): over 90% optimality, beaten in both
    seats; eval's best reply is ``qarena beat``'s."""
    policy = str(tmp_path / "q.npz")
    assert run(["train", "tictactoe", "--episodes", "2000", "--seed", "7", "-o", policy]) == 0
    capsys.readouterr()
    judged = _json(capsys, "eval", policy, "--games", "2")
    assert judged["optimality"] > 0.9
    beaten = _json(capsys, "beat", policy)
    assert judged["best_reply"] == beaten["best_reply"]
    assert all(reply["beaten"] for reply in judged["best_reply"].values())


def test_eval_json_leaves_it_out_where_not_every_position_is_judged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """By a sample, given positions or a uniform draw, as the ``lengths`` key is left out
    where the games' lengths are not counted."""
    given = tmp_path / "positions.txt"
    given.write_text("x../.../...\n")
    for extra in (["--uniform", "50"], ["--sample", "50"], ["--positions", str(given)]):
        judged = _json(capsys, "eval", "random", "--game", "tictactoe", "--games", "1", *extra)
        assert "best_reply" not in judged and "optimality" in judged


def test_eval_shows_each_seat_beaten_or_not_with_the_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "eval", "poles-strict", "--game", "nim:3,5,7", "-n", "2")
    assert code == 0, err
    line = qarena.best_reply("poles-strict", "nim:3,5,7").seats["first"].line_text
    assert f"moving first: beaten from the start, win → loss by {' '.join(line)}\n" in out
    assert "moving second: unbeaten from the start, loss → loss\n" in out
    code, out, err = _run(capsys, "eval", "perfect", "--game", "tictactoe", "-n", "2")
    assert "moving first: unbeaten from the start, draw → draw\n" in out
    assert "moving second: unbeaten from the start, draw → draw\n" in out


@pytest.mark.parametrize(
    ("lang", "unbeaten", "beaten"),
    [
        ("de", "vom Start aus unschlagbar", "vom Start aus schlagbar"),
        ("ru", "с начала партии его не обыграть", "с начала партии его можно обыграть"),
    ],
)
def test_eval_says_it_in_german_and_russian(
    capsys: pytest.CaptureFixture[str], lang: str, unbeaten: str, beaten: str
) -> None:
    code, out, err = _run(
        capsys, "--lang", lang, "eval", "poles-strict", "--game", "nim:3,5,7", "-n", "2"
    )
    assert code == 0, err
    text = " ".join(out.split())
    assert unbeaten in text and beaten in text
    assert "from the start" not in text and "beaten" not in text


def test_judge_carries_the_best_reply_to_the_moves_it_judged() -> None:
    agent = qarena.train("tictactoe", episodes=2000, seed=7)
    judged = qarena.judge(agent, games=2)
    assert judged.best_reply is not None
    assert judged.best_reply.to_json() == qarena.best_reply(agent).to_json()
    assert judged.to_json()["best_reply"] == judged.best_reply.to_json()
    assert "unbeaten from the start: first no, second no" in repr(judged)
    assert "unbeaten from the start: moving first no, moving second no" in judged._repr_html_()
    perfect = qarena.judge("perfect", "tictactoe", games=2)
    assert "unbeaten from the start: first yes, second yes" in repr(perfect)
    # Judged by a sample, it is not there.
    assert qarena.judge("perfect", "tictactoe", games=2, uniform=20).best_reply is None


def test_a_player_judged_is_asked_once_for_both_measures() -> None:
    """A function player is asked at each position once: the best reply is to the moves
    optimality judged, not to a second asking."""
    asked: list[object] = []

    def first_move(position: object, moves: list[int]) -> int:
        asked.append(position)
        return moves[0]

    game = qarena.game("tictactoe")
    who = qarena.player(first_move, game)
    judge_player(who, 2)
    alone = len(asked)
    asked.clear()
    judged = judge_player(who, 2, reply=True)
    assert len(asked) == alone > 0
    assert judged.best_reply is not None
    assert judged.best_reply.to_json() == qarena.best_reply(first_move, game).to_json()


_PLAYS = re.compile(r"^([AB])(?: \(\w\))? plays (\S+): ", re.M)


@pytest.mark.parametrize(
    ("who", "spec", "seat", "end"),
    [
        ("random", "tictactoe", "first", "B wins."),
        ("perfect", "tictactoe", "second", "Draw."),
        ("poles-strict", "nim:3,5,7", "first", "B wins."),
        ("poles", "nim:3,5,7", "second", "B wins."),
    ],
)
def test_beat_watch_replays_the_line_to_the_outcome_it_claims(
    capsys: pytest.CaptureFixture[str], who: str, spec: str, seat: str, end: str
) -> None:
    found = _json(capsys, "beat", who, "--game", spec, "--seat", seat)["best_reply"][seat]
    code, out, err = _run(capsys, "beat", who, "--game", spec, "--seat", seat, "--watch")
    assert code == 0, err
    shown = _PLAYS.findall(out)
    assert [move for _mover, move in shown] == found["line"]
    # A is the player, B the best reply, in turn from the seat the player takes.
    movers = ["A", "B"] if seat == "first" else ["B", "A"]
    assert [mover for mover, _move in shown] == [movers[i % 2] for i in range(len(shown))]
    assert out.rstrip().endswith(end)
    # The line ends, by the rules, in what the best reply secures.
    assert _ends(spec, found["line"], seat == "first") == found["secured"]
    assert {"win": "A wins.", "draw": "Draw.", "loss": "B wins."}[found["secured"]] == end


def test_beat_watch_shows_a_trained_agents_own_values(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = str(tmp_path / "q.npz")
    assert run(["train", "tictactoe", "--episodes", "2000", "--seed", "7", "-o", policy]) == 0
    capsys.readouterr()
    code, out, err = _run(capsys, "beat", policy, "--seat", "second", "--watch")
    assert code == 0, err
    assert "A's value" in out and "B wins." in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--watch", "--json"], "give one of them"),
        (["--delay", "0"], "--delay is the pause"),
        (["--watch", "--delay", "-1"], "--delay must be from 0"),
    ],
)
def test_beat_watch_refuses_what_does_not_go_with_it(
    capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    code, out, err = _run(capsys, "beat", "random", "--game", "tictactoe", *args)
    assert code == 2 and says in err and out == ""
    assert len(err.strip().splitlines()) == 1
