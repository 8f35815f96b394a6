"""Every refuting line replays through ``qarena play`` to the outcome it claims: a person who
types the opponent's moves of the best reply's line against the policy file, in the seat the
line gives them, gets the game's end the best reply says — a win where the agent is beaten.

``qarena play`` breaks the AI's ties at random, so a line replays move for move only where
the agent has one move at each of its positions along it; the players here are chosen so
(checked, not assumed: the test fails if a retraining brings a tie onto the line). Trained
without symmetric positions (``--no-canonical``): with them, moves that are images of each
other share one value and every opening is a tie. The outcome is the program's own verdict,
"You win!", "Draw." or "The AI wins.", and its score line; the AI's moves are read from what
it says it played."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import qarena
from qarena.cli import run
from qarena.games.words import played
from qarena.judging.best_reply import SeatReply

#: What ``qarena play`` says at the end, by the agent's outcome, and the score it shows.
VERDICTS = {-1: "You win!", 0: "Draw.", 1: "The AI wins."}
SCORES = {
    -1: "Score: you 1 – AI 0 – draws 0",
    0: "Score: you 0 – AI 0 – draws 1",
    1: "Score: you 0 – AI 1 – draws 0",
}


def _trained(tmp_path: Path, spec: str, learner: str, episodes: int, seed: int) -> str:
    path = str(tmp_path / f"{learner}-{episodes}-{seed}.npz")
    argv = ["train", spec, "--learner", learner, "--episodes", str(episodes), "--seed", str(seed),
            "--no-canonical", "-o", path]  # fmt: skip
    assert run(argv) == 0
    return path


def _single_moves(path: str, seat: str, reply: SeatReply) -> list[str]:
    """The agent's moves along the line, each checked to be the one move it may play there."""
    who = qarena.player(path)
    game = who.game
    position = game.start()
    agents_turn = seat == "first"
    own: list[str] = []
    for move in reply.line:
        if agents_turn:
            choices = who.choices(position)
            assert choices == [move], (
                f"{path} {seat}: the agent may play {choices} at {game.format_position(position)}"
                f", not only the line's {game.format_move(move)}: pick another player"
            )
            own.append(played(game, move))
        position = game.apply(position, move)
        agents_turn = not agents_turn
    assert game.is_terminal(position)
    return own


def _play(path: str, seat: str, moves: list[str]) -> str:
    """``qarena play FILE`` with the person in the other seat, typing ``moves``, then "n" at
    "Play again?"; its standard output."""
    env = {**os.environ, "TERM": "dumb"}
    env.pop("NO_COLOR", None)
    first = "ai" if seat == "first" else "human"
    done = subprocess.run(
        [sys.executable, "-m", "qarena", "play", path, "--first", first, "--seed", "0",
         "--no-show-q"],
        input="\n".join([*moves, "n"]) + "\n", capture_output=True, text=True, env=env,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("spec", "learner", "episodes", "seed", "claims"),
    [
        # Beaten in both seats: the person wins moving second and moving first.
        ("tictactoe", "afterstate", 20_000, 0, {"first": -1, "second": -1}),
        # Holds the draw moving first, beaten moving second.
        ("tictactoe", "game-backup", 20_000, 0, {"first": 0, "second": -1}),
        # Misère Nim 3-5-7, won for the first player: the agent's won start lost moving first;
        # moving second its start is lost, and the line plays that out.
        ("nim:3,5,7", "game-backup", 300, 0, {"first": -1, "second": -1}),
    ],
)
def test_each_line_replays_through_play_to_the_outcome_it_claims(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    learner: str,
    episodes: int,
    seed: int,
    claims: dict[str, int],
) -> None:
    path = _trained(tmp_path, spec, learner, episodes, seed)
    capsys.readouterr()
    found = qarena.best_reply(path)
    assert {seat: r.secured for seat, r in found.seats.items()} == claims
    for seat, reply in found.seats.items():
        own = _single_moves(path, seat, reply)
        # The person plays the other side of the line: its odd plies where the agent opens.
        theirs = reply.line_text[1::2] if seat == "first" else reply.line_text[0::2]
        shown = _play(path, seat, list(theirs))
        # The AI played the line's moves, in order, and no move of the person's was refused.
        at = 0
        for words in own:
            at = shown.index(f"The AI {words}.", at) + 1
        assert shown.count("Your move: ") == len(theirs), shown
        assert VERDICTS[reply.secured] in shown and SCORES[reply.secured] in shown, shown
