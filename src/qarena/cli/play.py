"""qarena play: a person against a trained agent, in the terminal."""

from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated

import numpy as np
import typer
from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from qarena.agents.base import OpponentPlayer, Player
from qarena.agents.players import (
    OPPONENTS,
    TRAINED,
    load_file,
    opponent_of,
    player,
    plays_as,
)
from qarena.agents.spec_players import forms as spec_forms
from qarena.agents.spec_players import spec_kind
from qarena.agents.strategies import SHIPPED_PLAYERS
from qarena.agents.thinking import is_thinking
from qarena.budget import check_seed
from qarena.cli.common import announce, app, err, out, route, styled, told_stop
from qarena.errors import QarenaError, SpecError
from qarena.exact import Exact, Outcome
from qarena.fileio import is_dir, is_file
from qarena.games import DRAW, LOSS, WIN, Game, Move, Position, parse_spec
from qarena.games.words import move_help, played, rules, sentence
from qarena.i18n import _, gettext_noop, ngettext, seconds
from qarena.judging.family import exact_share
from qarena.learn.family import Trainable
from qarena.learn.learners import table_class
from qarena.learn.tables.base import Learner
from qarena.match.session import Match, Reply, Result, Score
from qarena.match.spot import SPOT_LEARNER, train_on_the_spot
from qarena.show.text import draw

FIRST = ("human", "ai", "random")

COMMANDS = gettext_noop(
    "Commands: u undoes your last move and the AI's reply, ? shows this help, q quits."
)
#: Answers to "Play again?": English, German (ja / nein) and Russian (да / нет), each taken in
#: every language: the prompt shows the language's letters ([j/n], [д/н]), but a person may
#: answer with the Latin y/n whatever the language (a keyboard left in the other layout).
YES = ("y", "yes", "j", "ja", "д", "да")
NO = ("n", "no", "nein", "q", "quit", "н", "нет")
#: The solver's word on the position, for the person to move.
SOLVER_SAYS = {
    WIN: gettext_noop("Solver: with best play from here, a win for you."),
    DRAW: gettext_noop("Solver: with best play from here, a draw for you."),
    LOSS: gettext_noop("Solver: with best play from here, a loss for you."),
}


def _score_words(score: Score) -> str:
    return _("you {you} – AI {ai} – draws {draws}").format(
        you=score.you, ai=score.ai, draws=score.draws
    )


def again(answer: str) -> bool | None:
    """Whether ``answer`` to "Play again?" says yes (True), no (False), or neither (None): any
    language's word or letter (:data:`YES`, :data:`NO`), whatever the case."""
    word = answer.strip().casefold()
    if word in YES:
        return True
    if word in NO:
        return False
    return None


class _Quit(Exception):
    """The person asked to stop (q, end of input)."""


def _seconds(s: float) -> str:
    return seconds(s, ".2f" if s < 10 else ".0f")


def _trained(game: Game) -> Learner:
    """An agent trained on the spot (see ``train_on_the_spot``), saying how it went."""
    kind = table_class(SPOT_LEARNER)
    announce(game)
    err.print(
        _("Training a {learner} agent on {spec} by self-play…").format(
            learner=kind.title, spec=game.spec
        ),
        end="",
        soft_wrap=True,
    )
    training = train_on_the_spot(game)
    result, took = training.result, _seconds(training.seconds)
    n = result.episodes
    if training.perfect:
        done = ngettext(
            "perfect play after {count:,} episodes ({took}).",
            "perfect play after {count:,} episodes ({took}).",
            n,
        )
    elif result.stopped:
        done = ngettext(
            "time is up after {count:,} episodes ({took}): it plays the best move in "
            "{share:.1%} of positions, so it can slip.",
            "time is up after {count:,} episodes ({took}): it plays the best move in "
            "{share:.1%} of positions, so it can slip.",
            n,
        )
    else:
        done = ngettext(
            "{count:,} episodes ({took}), not yet perfect: it plays the best move in "
            "{share:.1%} of positions, so it can slip.",
            "{count:,} episodes ({took}), not yet perfect: it plays the best move in "
            "{share:.1%} of positions, so it can slip.",
            n,
        )
    text = done.format(count=n, took=took, share=result.exact.share)
    err.print(" " + text, soft_wrap=True)
    return training.learner


def _loaded(path: str | os.PathLike[str], learner: Trainable | None = None) -> Trainable:
    """Says what the policy file at ``path`` held (``learner``, when it is read already), in
    the learner's own words (its game, how long it trained, how well it plays)."""
    if learner is None:
        learner = load_file(path)  # the file's own kind decides
    err.print(learner.loaded_text(os.fspath(path), exact_share(learner)), soft_wrap=True)
    return learner


def _spec_of(target: str) -> Game | None:
    """The game TARGET names when it is a game spec; None when it is a policy file (an
    existing file, or any name ending in .npz)."""
    if target.endswith(".npz") or is_file(target):
        return None
    try:
        return parse_spec(target)
    except SpecError:
        if is_dir(target):
            raise QarenaError(
                _("{target} is a directory, not a policy file or game spec").format(target=target)
            ) from None
        if "/" in target or os.sep in target:
            raise QarenaError(_("no such policy file: {file}").format(file=target)) from None
        raise


def _from_file(target: str, seed: int | None) -> OpponentPlayer:
    """The player of the policy file TARGET, saying what was loaded (in the learner's own
    words): the file's own kind decides (:func:`~qarena.agents.players.load_file`, as for
    every player's file), and its player is named by the file, as
    :func:`~qarena.agents.players.player` names a file's player."""
    loaded = _loaded(target)
    return plays_as(loaded, os.path.basename(target), seed)


def _as_opponent(found: Player) -> OpponentPlayer:
    """A player a person plays against: perfect play, a file's player and a learner's agent
    all tell the moves they pick among (``ChoosingPlayer``)."""
    assert isinstance(found, OpponentPlayer), found
    return found


def _opponent(target: str, opponent: str | None, seed: int | None) -> tuple[Game, OpponentPlayer]:
    """The game and whom the person meets: a spec meets the game's default opponent unless
    one is asked for (perfect play on a board solved by search, else an agent trained on the
    spot, :func:`~qarena.agents.players.opponent_of`); a file plays as itself. Every player
    comes from the one resolution, :func:`~qarena.agents.players.player`."""
    game = _spec_of(target)
    chosen = opponent_of(game, opponent) if game is not None else (opponent or TRAINED)
    if chosen == TRAINED:
        if game is None:
            agent = _from_file(target, seed)
            return agent.game, agent
        return game, _as_opponent(player(_trained(game), seed=seed))
    if game is None:
        game = load_file(target).game
    announce(game)
    if chosen in ("perfect", "strongest"):
        route(game)  # says why where this machine searches a game enumerated elsewhere
    agent = _as_opponent(player(chosen, game, seed))
    if chosen in SHIPPED_PLAYERS:
        err.print(SHIPPED_PLAYERS[chosen].playing)
    elif is_thinking(chosen) or spec_kind(chosen) is not None:
        err.print(_("Playing against {player}: {what}.").format(
            player=chosen, what=agent.describe() or chosen
        ))  # fmt: skip
    elif chosen == "perfect":
        err.print(_("Playing against perfect play, by the solver."))
    else:
        # A person asking for perfect play gets it at its strongest (issue 36): the
        # fastest win, the longest resistance. "perfect" keeps picking at random.
        err.print(
            _(
                "Playing against perfect play at its strongest, by the solver: the fastest "
                "win, the longest resistance."
            )
        )
    return game, agent


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
    agent: OpponentPlayer
    first: str
    show_q: bool
    hint: bool
    ai_values: bool
    rng: np.random.Generator
    solution: Exact | None
    results: Counter[Result] = field(default_factory=Counter)
    playing: bool = False  # a game is under way (the score was not just shown)

    def _seat(self) -> int:
        """0 when the person moves first, 1 when the AI does; says which."""
        if self.first == "random":
            seat = int(self.rng.integers(2))
        else:
            seat = 0 if self.first == "human" else 1
        start = self.game.start()
        opener = self.game.seat(start)
        toss = self.first == "random"
        if opener is None:
            if seat == 0:
                who = _("Coin toss: you move first.") if toss else _("You move first.")
            else:
                who = _("Coin toss: the AI moves first.") if toss else _("The AI moves first.")
        elif seat == 0:
            who = (
                _("Coin toss: you play {mark} and move first.")
                if toss
                else _("You play {mark} and move first.")
            ).format(mark=opener)
        else:
            second = self.game.seat(self.game.apply(start, self.game.legal_moves(start)[0]))
            who = (
                _("Coin toss: you play {mark}; the AI ({opener}) moves first.")
                if toss
                else _("You play {mark}; the AI ({opener}) moves first.")
            ).format(mark=second, opener=opener)
        out.print(who)
        return seat

    def _verdicts(self, position: Position, beside_own: bool) -> dict[Move, Outcome]:
        """The solver's outcome of each move here, when it is asked for and the AI's own
        values shown ``beside_own`` do not already say it (perfect play's are the solver's)."""
        if self.solution is None or (beside_own and self.agent.solution is not None):
            return {}
        return self.solution.move_outcomes(position)

    def _options_table(self, position: Position) -> RenderableType:
        game, agent = self.game, self.agent
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column(_("your move"), style="bold")
        if self.show_q:
            table.add_column(_("AI's {value}").format(value=agent.value_heading), justify="right")
        verdicts = self._verdicts(position, self.show_q)
        if verdicts:
            table.add_column(_("solver"))
        if self.show_q:
            table.add_column("")
        moves = game.legal_moves(position)
        marked = {m for m in moves if self.show_q and agent.would_play(position, m)}
        alike = len(moves) > 1 and len(marked) == len(moves)
        if alike:  # a mark on every row says nothing; one line below says it
            marked = set()
        for m in moves:
            row = [game.format_move(m)]
            if self.show_q:
                row.append(agent.value_text(position, m))
            if verdicts:
                row.append(verdicts[m].words())
            if self.show_q:
                row.append(_("← the AI would play this") if m in marked else "")
            table.add_row(*row)
        if alike:
            # Perfect play's values are verdicts: every move may keep the value ("loss") at
            # different distances ("loss in 3", "loss in 12"), which is not "the same value".
            if len({agent.value_text(position, m) for m in moves}) > 1:
                note = _(
                    "Every move has the same outcome, in different numbers of moves: in your "
                    "place the AI would play any of these."
                )
            else:
                note = _("Every move has the same value: the AI would play any of them.")
            return Group(table, Text(note))
        return table

    def _reply_table(self, reply: Reply) -> Table:
        """The AI's own values where it just moved, the move it played marked."""
        game, agent, position = self.game, self.agent, reply.position
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column(_("AI's move"), style="bold")
        table.add_column(_("AI's {value}").format(value=agent.value_heading), justify="right")
        # The solver's word for the AI, who is the one to move here.
        verdicts = self._verdicts(position, True)
        if verdicts:
            table.add_column(_("solver (for the AI)"))
        table.add_column("")
        for m in game.legal_moves(position):
            row = [game.format_move(m), agent.value_text(position, m, "ai")]
            if verdicts:
                row.append(verdicts[m].words("ai"))
            row.append(_("← it played this") if m == reply.move else "")
            table.add_row(*row)
        return table

    def _show_reply(self, reply: Reply) -> None:
        out.print(_("The AI {move}.").format(move=played(self.game, reply.move)))
        if not self.ai_values:
            return
        out.print(_("The AI's values where it moved:"))
        out.print(self._reply_table(reply))
        if reply.tied:
            *rest, last = (self.game.format_move(m) for m in reply.best)
            # Tied by value, perhaps at different distances (perfect play: "win in 4", "win
            # in 16"): said as the web says it.
            texts = {self.agent.value_text(reply.position, m, "ai") for m in reply.best}
            text = (
                _(
                    "{moves} and {last} have the same outcome for it, in different numbers of "
                    "moves; it picked among them at random."
                )
                if len(texts) > 1
                else _("{moves} and {last} shared its best value; it picked among them at random.")
            )
            out.print(text.format(moves=", ".join(rest), last=last))

    def _show(self, position: Position, yours: bool) -> None:
        game = self.game
        out.print()
        out.print(draw(game, position))
        seat = game.seat(position)
        if seat:
            turn = _("Your turn ({mark}).") if yours else _("The AI's turn ({mark}).")
        else:
            turn = _("Your turn.") if yours else _("The AI's turn.")
        out.print(turn.format(mark=seat))
        if not yours or not (self.show_q or self.hint):
            return
        if self.solution is not None:
            out.print(_(SOLVER_SAYS[self.solution.value_of(position)]))
        out.print(self._options_table(position))

    def _your_turn(self, match: Match) -> None:
        """The person's move, or an undo; asks again after anything else."""
        game = self.game
        while True:
            answer = _ask(_("Your move: ")).strip()
            command = answer.lower()
            if command in ("q", "quit", "exit"):
                raise _Quit
            if command in ("?", "h", "help"):
                out.print(move_help(game, match.position))
                out.print(_(COMMANDS))
                continue
            if not answer:
                example = game.format_move(game.legal_moves(match.position)[0])
                out.print(_("Type a move, like {example}, or ? for help.").format(example=example))
                continue
            try:
                if command in ("u", "undo"):
                    mine, reply = match.undo()
                    if reply is None:
                        took = _("Took back your move {move}.")
                    else:
                        took = _("Took back your move {move} and the AI's reply {reply}.")
                    out.print(
                        took.format(
                            move=game.format_move(mine),
                            reply=None if reply is None else game.format_move(reply),
                        )
                    )
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
        self.results[result] += 1
        out.print()
        out.print(draw(self.game, match.position))
        out.print(match.result_text())
        out.print(_("Score: {score}").format(score=_score_words(Score.of(self.results))))
        self.playing = False

    def run(self) -> None:
        game = self.game
        out.print(styled("[bold]{title}[/]  [dim]{spec}[/]", title=game.title, spec=game.spec))
        out.print(rules(game))
        out.print(
            _("{moves} Type ? for help, u to undo, q to quit.").format(
                moves=move_help(game, game.start())
            )
        )
        while True:
            self.play_one()
            while True:
                answer = again(_ask(_("Play again? [y/n] ")))
                if answer is True:
                    break
                if answer is False:
                    raise _Quit
                out.print(_("Please answer y or n."))
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
    opponent: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="trained (an agent trained on the spot, or the policy file), strongest (the "
            "solver's perfect play that wins in the fewest moves and holds out longest when "
            "lost; the default on boards solved by search), perfect (the solver's perfect "
            "play, any move that keeps the value, at random), network (the n-tuple network "
            "shipped for classic Connect Four), a thinking player (mcts:N), or {spec_players}.",
        ),
    ] = None,
) -> int:
    """Play against an agent in the terminal: you type moves, it answers."""
    if first not in FIRST:
        raise QarenaError(
            _("unknown --first {value!r}; expected one of {values}").format(
                value=first, values=", ".join(FIRST)
            )
        )
    if (
        opponent not in (None, *OPPONENTS)
        and not is_thinking(opponent)
        and spec_kind(opponent) is None
    ):
        raise QarenaError(
            _("unknown --opponent {value!r}; expected one of {values}").format(
                value=opponent, values=", ".join((*OPPONENTS, "mcts:N", *spec_forms()))
            )
        )
    if seed is not None:
        check_seed(seed)
    if sys.stdin is None or sys.stdin.closed:  # started with <&-: no one can type a move
        raise QarenaError(_("play reads your moves from standard input, which is closed"))
    game, agent = _opponent(target, opponent, seed)
    solution = None
    if hint:
        announce(game)
        # Perfect play's own answers serve the hints (its route has been said already).
        solution = agent.solution if agent.solution is not None else route(game).exact()
    session = _Session(
        game,
        agent,
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
        if session.playing and session.results:
            score = _score_words(Score.of(session.results))
            out.print(_("Final score: {score}").format(score=score))
        out.print(_("Goodbye."))
        return told_stop() if isinstance(e, KeyboardInterrupt) else 0
    return 0
