"""qarena play: a person against a trained agent, in the terminal."""

from __future__ import annotations

import os
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
from qarena.cli.render import draw
from qarena.errors import QarenaError, SpecError
from qarena.fileio import is_dir, is_file
from qarena.games import Game, Move, Position, parse_spec, value_name
from qarena.games.words import move_help, played, rules, sentence
from qarena.learn.base import Learner
from qarena.learn.learners import learner_class, load_learner
from qarena.match import SPOT_LEARNER, Match, Reply, Result, train_on_the_spot
from qarena.solve import Solution, solve

FIRST = ("human", "ai", "random")

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

    def add(self, result: Result) -> None:
        if result == "human":
            self.you += 1
        elif result == "ai":
            self.ai += 1
        else:
            self.draws += 1

    def __str__(self) -> str:
        return f"you {self.you} – AI {self.ai} – draws {self.draws}"


def _seconds(s: float) -> str:
    return f"{s:.2f} s" if s < 10 else f"{s:.0f} s"


def _trained(game: Game) -> Learner:
    """An agent trained on the spot (see ``train_on_the_spot``), saying how it went."""
    kind = learner_class(SPOT_LEARNER)
    announce(game)
    err.print(f"Training a {kind.title} agent on {game.spec} by self-play…", end="", soft_wrap=True)
    training = train_on_the_spot(game)
    result, took = training.result, _seconds(training.seconds)
    if result.perfect_at is not None:
        err.print(f" perfect play after {result.episodes:,} episodes ({took}).", soft_wrap=True)
        return training.learner
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
    return training.learner


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
    ai_values: bool
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
        start = self.game.start()
        opener = self.game.seat(start)
        if opener is None:
            who = "you move first" if seat == 0 else "the AI moves first"
        elif seat == 0:
            who = f"you play {opener} and move first"
        else:
            second = self.game.seat(self.game.apply(start, self.game.legal_moves(start)[0]))
            who = f"you play {second}; the AI ({opener}) moves first"
        out.print(
            ("Coin toss: " + who if self.first == "random" else who[0].upper() + who[1:]) + "."
        )
        return seat

    def _options_table(self, position: Position) -> Table:
        game, agent = self.game, self.agent
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("your move", style="bold")
        if self.show_q:
            table.add_column(f"AI's {agent.learner.value_heading}", justify="right")
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

    def _reply_table(self, reply: Reply) -> Table:
        """The AI's own values where it just moved, the move it played marked."""
        game, agent, position = self.game, self.agent, reply.position
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("AI's move", style="bold")
        table.add_column(f"AI's {agent.learner.value_heading}", justify="right")
        verdicts: dict[Move, int] = {}
        if self.solution is not None:
            # The solver's word for the AI, who is the one to move here.
            verdicts = self.solution.move_values(position)
            table.add_column("solver (for the AI)")
        table.add_column("")
        for m in game.legal_moves(position):
            row = [game.format_move(m), agent.learner.format_value(reply.values[m])]
            if verdicts:
                row.append(value_name(verdicts[m]))
            row.append("← it played this" if m == reply.move else "")
            table.add_row(*row)
        return table

    def _show_reply(self, reply: Reply) -> None:
        out.print(f"The AI {played(self.game, reply.move)}.")
        if not self.ai_values:
            return
        out.print("The AI's values where it moved:")
        out.print(self._reply_table(reply))
        if reply.tied:
            *rest, last = (self.game.format_move(m) for m in reply.best)
            out.print(
                f"{', '.join(rest)} and {last} shared its best value; "
                "it picked among them at random."
            )

    def _show(self, position: Position, yours: bool) -> None:
        game = self.game
        out.print()
        out.print(draw(game, position))
        seat = game.seat(position)
        mark = f" ({seat})" if seat else ""
        out.print(f"Your turn{mark}." if yours else f"The AI's turn{mark}.")
        if not yours or not (self.show_q or self.hint):
            return
        if self.solution is not None:
            value = value_name(self.solution.value_of(position))
            out.print(f"Solver: with best play from here, a {value} for you.")
        out.print(self._options_table(position))

    def _your_turn(self, match: Match) -> None:
        """The person's move, or an undo; asks again after anything else."""
        game = self.game
        while True:
            answer = _ask("Your move: ").strip()
            command = answer.lower()
            if command in ("q", "quit", "exit"):
                raise _Quit
            if command in ("?", "h", "help"):
                out.print(move_help(game, match.position))
                out.print(COMMANDS)
                continue
            if not answer:
                example = game.format_move(game.legal_moves(match.position)[0])
                out.print(f"Type a move, like {example}, or ? for help.")
                continue
            try:
                if command in ("u", "undo"):
                    mine, reply = match.undo()
                    took = f"your move {game.format_move(mine)}"
                    if reply is not None:
                        took += f" and the AI's reply {game.format_move(reply)}"
                    out.print(f"Took back {took}.")
                else:
                    match.move(answer)
                return
            except QarenaError as e:
                out.print(sentence(str(e)), markup=False)

    def play_one(self) -> None:
        """One game, from the start to the result (or an early quit)."""
        self.playing = True
        match = Match(self.agent, self._seat(), self.rng)
        while not match.over:
            yours = match.humans_turn()
            self._show(match.position, yours)
            if yours:
                self._your_turn(match)
            elif reply := match.reply():
                self._show_reply(reply)
        self._finish(match)

    def _finish(self, match: Match) -> None:
        result = match.result()
        assert result is not None
        self.score.add(result)
        out.print()
        out.print(draw(self.game, match.position))
        out.print(match.result_text())
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
    ai_values: Annotated[
        bool,
        typer.Option(
            "--ai-values",
            help="After each AI move, show the AI's value of each of its own moves there.",
        ),
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
        game,
        GreedyAgent(learner),
        first,
        show_q,
        hint,
        ai_values,
        np.random.default_rng(seed),
        solution,
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
