"""qarena play: a person against a trained agent, in the terminal."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich import box
from rich.table import Table

from qarena.agents.greedy import GreedyAgent
from qarena.budget import check_seed
from qarena.cli.common import announce, app, err, out, told_stop
from qarena.cli.render import draw, mark_to_move
from qarena.errors import QarenaError, SpecError
from qarena.fileio import is_dir, is_file
from qarena.games import (
    WIN,
    Game,
    Move,
    Position,
    TicTacToe,
    parse_spec,
    value_name,
)
from qarena.games.words import ending, illegal, move_help, played, rules, sentence
from qarena.learn.base import Learner
from qarena.learn.learners import learner_class, load_learner
from qarena.learn.run import default_episodes, train_run
from qarena.solve import Solution, solve

FIRST = ("human", "ai", "random")

#: Training on the spot stops after this long, perfect or not: the person is waiting.
TRAIN_SECONDS = 10.0

COMMANDS = "Commands: u undoes your last move and the AI's reply, ? shows this help, q quits."


class _Quit(Exception):
    """The person asked to stop (q, end of input)."""


@dataclass
class _Score:
    you: int = 0
    ai: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.you + self.ai + self.draws

    def __str__(self) -> str:
        return f"you {self.you} – AI {self.ai} – draws {self.draws}"


def _seconds(s: float) -> str:
    return f"{s:.2f} s" if s < 10 else f"{s:.0f} s"


def _trained(game: Game) -> Learner:
    """A Q-learning agent trained by self-play with its defaults, for at most TRAIN_SECONDS."""
    learner_kind = learner_class("q")
    announce(game, learner_kind)
    learner = learner_kind(game, learner_kind.default_config())
    err.print(
        f"Training a {learner.title} agent on {game.spec} by self-play…", end="", soft_wrap=True
    )
    # Compile (or load the cached) kernels and solve first: the time limit is for training.
    learner.warm_up()
    learner.optimality()
    t0 = time.monotonic()
    result = train_run(
        learner,
        default_episodes(learner),
        until_perfect=True,
        should_stop=lambda: time.monotonic() - t0 > TRAIN_SECONDS,
    )
    took = _seconds(time.monotonic() - t0)
    if result.perfect_at is not None:
        err.print(f" perfect play after {result.episodes:,} episodes ({took}).", soft_wrap=True)
        return learner
    done = (
        f"time is up after {result.episodes:,} episodes ({took})"
        if result.stopped
        else f"{result.episodes:,} episodes ({took}), not yet perfect"
    )
    err.print(
        f" {done}: it plays the best move in {result.optimality.share:.1%} of positions, "
        "so it can slip.",
        soft_wrap=True,
    )
    return learner


def _loaded(path: Path) -> Learner:
    learner = load_learner(path)
    share = learner.optimality().share
    skill = (
        "plays perfectly" if share == 1.0 else f"plays the best move in {share:.1%} of positions"
    )
    err.print(
        f"Loaded a {learner.title} agent for {learner.game.spec} from {path} "
        f"({learner.episodes:,} episodes; it {skill}).",
        soft_wrap=True,
    )
    return learner


def _agent(target: str) -> Learner:
    """TARGET is a policy file (an existing file, or any name ending in .npz) or a game spec."""
    path = Path(target)
    if target.endswith(".npz") or is_file(target):
        return _loaded(path)
    try:
        game = parse_spec(target)
    except SpecError:
        if is_dir(target):
            raise QarenaError(f"{target} is a directory, not a policy file or game spec") from None
        if "/" in target or os.sep in target:
            raise QarenaError(f"no such policy file: {target}") from None
        raise
    return _trained(game)


# --- words for the game ----------------------------------------------------------------------


# --- the session -----------------------------------------------------------------------------


def _ask(prompt: str) -> str:
    try:
        return out.input(prompt, markup=False)
    except EOFError:
        out.print()  # end the prompt's line
        raise _Quit from None


@dataclass
class _Session:
    game: Game
    agent: GreedyAgent
    first: str
    show_q: bool
    hint: bool
    rng: np.random.Generator
    solution: Solution | None
    score: _Score = field(default_factory=_Score)
    playing: bool = False  # a game is under way (the score was not just shown)

    def _seat(self) -> int:
        """0 when the person moves first, 1 when the AI does; says which."""
        if self.first == "random":
            seat = int(self.rng.integers(2))
        else:
            seat = 0 if self.first == "human" else 1
        if isinstance(self.game, TicTacToe):
            who = "you play x and move first" if seat == 0 else "you play o; the AI (x) moves first"
        else:
            who = "you move first" if seat == 0 else "the AI moves first"
        out.print(
            ("Coin toss: " + who if self.first == "random" else who[0].upper() + who[1:]) + "."
        )
        return seat

    def _options_table(self, position: Position) -> Table:
        game, agent = self.game, self.agent
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("your move", style="bold")
        matchbox = agent.learner.kind == "matchbox"
        if self.show_q:
            table.add_column("AI's box" if matchbox else "AI's value", justify="right")
        verdicts: dict[Move, int] = {}
        if self.solution is not None:
            verdicts = self.solution.move_values(position)
            table.add_column("solver")
        if self.show_q:
            table.add_column("")
        for m in game.legal_moves(position):
            row = [game.format_move(m)]
            if self.show_q:
                row.append(agent.value_text(position, m))
            if verdicts:
                row.append(value_name(verdicts[m]))
            if self.show_q:
                row.append("← the AI would play this" if agent.would_play(position, m) else "")
            table.add_row(*row)
        return table

    def _show(self, position: Position, yours: bool) -> None:
        game = self.game
        out.print()
        out.print(draw(game, position))
        mark = f" ({mark_to_move(game, position)})" if isinstance(game, TicTacToe) else ""
        out.print(f"Your turn{mark}." if yours else f"The AI's turn{mark}.")
        if not yours or not (self.show_q or self.hint):
            return
        if self.solution is not None:
            value = value_name(self.solution.value_of(position))
            out.print(f"Solver: with best play from here, a {value} for you.")
        out.print(self._options_table(position))

    def _your_move(self, positions: list[Position]) -> Move | None:
        """The person's legal move, or None to undo; asks again after anything else."""
        game, position = self.game, positions[-1]
        legal = game.legal_moves(position)
        while True:
            answer = _ask("Your move: ").strip()
            command = answer.lower()
            if command in ("q", "quit", "exit"):
                raise _Quit
            if command in ("?", "h", "help"):
                out.print(move_help(game, position))
                out.print(COMMANDS)
                continue
            if command in ("u", "undo"):
                if len(positions) < 3:
                    out.print("Nothing to undo: you have not moved yet.")
                    continue
                return None
            if not answer:
                example = game.format_move(legal[0])
                out.print(f"Type a move, like {example}, or ? for help.")
                continue
            try:
                move = game.parse_move(answer)
            except QarenaError as e:
                text = str(e)
                out.print(sentence(text), markup=False)
                continue
            if move not in legal:
                out.print(illegal(game, position, move), markup=False)
                continue
            return move

    def play_one(self) -> None:
        """One game, from the start to the result (or an early quit)."""
        game = self.game
        self.playing = True
        seat = self._seat()
        positions: list[Position] = [game.start()]
        moves: list[Move] = []
        while not game.is_terminal(positions[-1]):
            position = positions[-1]
            yours = len(moves) % 2 == seat
            self._show(position, yours)
            if yours:
                move = self._your_move(positions)
                if move is None:
                    mine, reply = (game.format_move(m) for m in moves[-2:])
                    del positions[-2:], moves[-2:]
                    out.print(f"Took back your move {mine} and the AI's reply {reply}.")
                    continue
            else:
                move = self.agent.pick(position, self.rng)
                out.print(f"The AI {played(game, move)}.")
            moves.append(move)
            positions.append(game.apply(position, move))
        self._finish(positions, seat)

    def _finish(self, positions: list[Position], seat: int) -> None:
        game, end = self.game, positions[-1]
        plies = len(positions) - 1
        yours_to_move = plies % 2 == seat
        # game.result is for the player to move at the end, who did not make the last move.
        result = game.result(end)
        mine = result if yours_to_move else -result
        out.print()
        out.print(draw(game, end))
        ending_text = ending(game, end, "The AI" if yours_to_move else "You")
        if mine == WIN:
            self.score.you += 1
            verdict = "You win!"
        elif mine == -WIN:
            self.score.ai += 1
            verdict = "The AI wins."
        else:
            self.score.draws += 1
            verdict = "Draw."
        out.print(f"{ending_text} {verdict}")
        out.print(f"Score: {self.score}")
        self.playing = False

    def run(self) -> None:
        game = self.game
        out.print(f"[bold]{game.title}[/]  [dim]{game.spec}[/]")
        out.print(rules(game))
        out.print(f"{move_help(game, game.start())} Type ? for help, u to undo, q to quit.")
        while True:
            self.play_one()
            while True:
                answer = _ask("Play again? [y/n] ").strip().lower()
                if answer in ("y", "yes"):
                    break
                if answer in ("n", "no", "q", "quit"):
                    raise _Quit
                out.print("Please answer y or n.")
            out.print()


@app.command("play")
def play_command(
    target: Annotated[
        str,
        typer.Argument(
            metavar="SPEC|FILE",
            help="A game spec (an agent is trained on the spot) or a policy file.",
        ),
    ] = "nim",
    first: Annotated[
        str, typer.Option("--first", help="Who moves first: human, ai or random.")
    ] = "human",
    show_q: Annotated[
        bool,
        typer.Option("--show-q/--no-show-q", help="Show the AI's value of each of your moves."),
    ] = True,
    hint: Annotated[
        bool, typer.Option("--hint", help="Show the solver's verdict on each of your moves.")
    ] = False,
    seed: Annotated[
        int | None, typer.Option(help="Random seed for the AI's ties and the coin toss.")
    ] = None,
) -> int:
    """Play against an agent in the terminal: you type moves, it answers."""
    if first not in FIRST:
        raise QarenaError(f"unknown --first {first!r}; expected one of {', '.join(FIRST)}")
    if seed is not None:
        check_seed(seed)
    learner = _agent(target)
    game = learner.game
    solution = None
    if hint:
        announce(game)
        solution = solve(game)
    session = _Session(
        game, GreedyAgent(learner), first, show_q, hint, np.random.default_rng(seed), solution
    )
    try:
        session.run()
    except (_Quit, KeyboardInterrupt) as e:
        if isinstance(e, KeyboardInterrupt):
            out.print()
        if session.playing and session.score.games:
            out.print(f"Final score: {session.score}")
        out.print("Goodbye.")
        return told_stop() if isinstance(e, KeyboardInterrupt) else 0
    return 0
