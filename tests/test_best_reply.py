"""The best reply to a player (``judging.best_reply``), checked against facts from outside the
code: perfect play cannot be beaten in either seat, a random player can; on Nim 3-5-7 the term
paper's pole strategy as a person plays it (``poles``) holds its won start moving first while
``poles-strict`` walks into the misère endgame the paper warns of and is beaten; and on
tic-tac-toe an independent minimax over the player's own moves, written here over the game's
rules alone (no tables, no solver), finds the same outcome in both seats. Every line replays
through the rules to the outcome it claims, the player's moves among its own."""

from __future__ import annotations

import functools

import pytest

import qarena
from qarena.agents.base import Player
from qarena.games.base import Game, Position
from qarena.judging.best_reply import OUTCOMES, SeatReply, best_reply


def _may_play(player: Player, position: Position) -> list[int]:
    """The moves a player may play: all its ties where it tells them, else its one move."""
    choices = getattr(player, "choices", None)
    return list(choices(position)) if callable(choices) else [player.act(position)]


def _replays(player: Player, reply: SeatReply) -> list[Position]:
    """The line is a legal game, from the start to its end, ending in ``secured`` for the
    player, whose every move in it is one it may play; returns the positions after each of
    the player's moves."""
    game = player.game
    position = game.start()
    agents_turn = reply.seat == "first"
    after_own: list[Position] = []
    for text in reply.line_text:
        move = game.parse_move(text)
        assert move in game.legal_moves(position)
        if agents_turn:
            assert move in _may_play(player, position)
        position = game.apply(position, move)
        if agents_turn:
            after_own.append(position)
        agents_turn = not agents_turn
    assert game.is_terminal(position)
    # The result is for the player to move at the end: the agent's when it is its turn.
    end = game.result(position)
    assert (end if agents_turn else -end) == reply.secured
    return after_own


@pytest.mark.parametrize("spec", ["tictactoe", "nim:3,5,7", "connect4:4x4"])
def test_perfect_play_cannot_be_beaten_and_random_play_can(spec: str) -> None:
    perfect = qarena.player("perfect", spec)
    found = best_reply(perfect)
    assert found.unbeaten
    for reply in found.seats.values():
        assert reply.secured == reply.value and reply.kept == reply.decisions > 0
        _replays(perfect, reply)
    randomly = qarena.player("random", spec)
    found = best_reply(randomly)
    for reply in found.seats.values():
        # A random player may play any move: beaten wherever its start is not lost, and
        # lost from every start, at the end of a line it may play.
        assert reply.secured == -1
        assert reply.beaten == (reply.value > -1)
        _replays(randomly, reply)


def test_the_pole_strategy_as_a_person_plays_it_holds_and_the_strict_one_is_beaten() -> None:
    """Nim 3-5-7 is won for the first player. ``poles`` (the term paper's strategy with the
    misère ending a person plays) keeps the win against every reply; ``poles-strict`` (the
    rule followed to the letter into the endgame) can be led to lose it."""
    poles = best_reply(qarena.player("poles", "nim:3,5,7"))
    strict = best_reply(qarena.player("poles-strict", "nim:3,5,7"))
    assert poles.seats["first"].value == 1 and not poles.seats["first"].beaten
    assert strict.seats["first"].beaten and strict.seats["first"].secured == -1
    _replays(qarena.player("poles-strict", "nim:3,5,7"), strict.seats["first"])
    # Moving second the start is lost: never "beaten".
    assert not strict.seats["second"].beaten and strict.seats["second"].value == -1


def _minimax(game: Game, player: Player, agent_first: bool) -> int:
    """The outcome for ``player`` against the strongest opponent, by plain recursion over
    positions (memoised), the player's worst of the moves it may play: no tables, no solver."""

    @functools.cache
    def value(position: Position, agents_turn: bool) -> int:
        if game.is_terminal(position):
            end = game.result(position)
            return end if agents_turn else -end
        moves = _may_play(player, position) if agents_turn else game.legal_moves(position)
        return min(value(game.apply(position, m), not agents_turn) for m in moves)

    return value(game.start(), agent_first)


@pytest.mark.parametrize("seed", [7, 11])
def test_a_trained_table_against_an_independent_minimax_over_its_moves(seed: int) -> None:
    """The issue's case: a Q-table after 2,000 episodes keeps the value in over 90% of
    tic-tac-toe's decision positions, yet the strongest opponent beats it from the start."""
    agent = qarena.train("tictactoe", episodes=2000, seed=seed)
    who = qarena.player(agent)
    found = best_reply(who)
    for seat, reply in found.seats.items():
        assert reply.secured == _minimax(who.game, who, seat == "first")
        assert reply.value == 0  # tic-tac-toe is a draw
        _replays(who, reply)
        assert 0 < reply.kept <= reply.decisions
    if seed == 7:
        assert qarena.judge(agent, games=2).optimality.share > 0.9
        assert found.seats["first"].beaten and found.seats["second"].beaten


def test_the_json_says_each_seat_in_words() -> None:
    found = best_reply(qarena.player("random", "tictactoe")).to_json()
    assert set(found) == {"first", "second"}
    first = found["first"]
    assert first["value"] == "draw" and first["secured"] == "loss" and first["beaten"] is True
    assert first["proved"] is True and first["line"]
    assert {first["value"], first["secured"]} <= set(OUTCOMES.values())


def test_the_pure_python_path_finds_the_same_reply() -> None:
    """With compiling off (NUMBA_DISABLE_JIT=1) the kernels run as plain Python: the same
    outcomes, lines and counts."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, qarena; a = qarena.train('tictactoe', episodes=500, seed=3); "
        "print(json.dumps(qarena.best_reply(a).to_json()))"
    )
    found = []
    for disable in ("0", "1"):
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "NUMBA_DISABLE_JIT": disable},
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        found.append(json.loads(done.stdout))
    assert found[0] == found[1]


def test_the_command_line_says_it_per_seat_and_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from qarena.cli import run

    assert run(["beat", "poles-strict", "--game", "nim:3,5,7", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["game"] == "nim:3,5,7"
    first = found["best_reply"]["first"]
    assert first["value"] == "win" and first["secured"] == "loss" and first["beaten"]
    assert run(["beat", "perfect", "--game", "tictactoe", "--seat", "second"]) == 0
    shown = capsys.readouterr().out
    assert "Moving second, it holds" in shown and "Moving first" not in shown
    for argv in (
        ["beat", "random", "--game", "tictactoe", "--seat", "middle"],
        ["beat", "random"],
    ):
        assert run(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error:") and "\n" not in err and "Traceback" not in err
