"""An evaluation: how good an agent is, its optimality and its record against the game's
opponents in both seats; and complete judging, every decision position judged and the matches
played through the compiled kernel (``sampled.py`` judges where that cannot be done)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from qarena.agents.opponents import opponent
from qarena.exact.space import GameTables
from qarena.games import parse_spec
from qarena.i18n import _, number
from qarena.judging.tables import Optimality, learner_optimality, optimality_of_values
from qarena.learn.tables.base import Learner
from qarena.optional import need
from qarena.show.matches import SeatRecords, both_seats, evaluation_opponents

if TYPE_CHECKING:
    from qarena.exact import Oracle
    from qarena.judging.best_reply import BestReply, SeatReply
    from qarena.judging.sampled import Sample


@dataclass(frozen=True)
class Evaluation:
    game: str
    optimality: Optimality
    matches: dict[str, SeatRecords]
    #: The judged decisions when optimality comes from a sample (sampled.py), not
    #: from every position.
    sample: Sample | None = field(default=None, repr=False, compare=False)
    #: What judged it (``player.judge_player``): the game's family and this machine's route.
    oracle: Oracle | None = field(default=None, repr=False, compare=False)
    #: The best reply to it from the start in each seat (``best_reply.py``), where every
    #: position is judged (a game enumerated here, no sample); else None.
    best_reply: BestReply | None = field(default=None, repr=False, compare=False)
    #: Why a search for the best reply was not made (a board solved by search whose memory
    #: cannot hold its budget, a player that cannot answer where it would be asked); else None.
    best_reply_note: str | None = field(default=None, repr=False, compare=False)
    #: Said where a player that may play a position's images apart was judged at one
    #: position of each symmetry class (its game's tables per position do not fit here).
    classes_note: str | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        o = self.optimality
        against = ", ".join(
            f"{name} {r.total.shares()['win']:.3f}" for name, r in self.matches.items()
        )
        # A sample's share is an estimate: its 95% interval belongs beside it, as eval shows it.
        interval = ""
        if self.sample is not None:
            low, high = self.sample.interval
            interval = f", 95% interval [{low:.4f}, {high:.4f}]"
        unbeaten = ""
        if self.best_reply is not None:
            # A search that found no line proved nothing: neither yes nor no.
            seats = ", ".join(
                f"{seat} {('no' if r.beaten else 'yes') if r.proved else 'unknown'}"
                for seat, r in self.best_reply.seats.items()
            )
            unbeaten = f"; unbeaten from the start: {seats}"
        return (
            f"Evaluation({self.game}: optimality {o.share:.4f} ({o.optimal} of {o.decisions}"
            f"{interval}); wins against {against}{unbeaten})"
        )

    def _repr_html_(self) -> str:
        """In a notebook: optimality, and win/draw/loss against each opponent in each seat."""
        import html

        o = self.optimality
        line = _(
            "optimality {share:.4f}: keeps the value in {optimal:,} of {decisions:,} decision "
            "positions"
        ).format(share=o.share, optimal=o.optimal, decisions=o.decisions)
        if self.sample is not None:
            low, high = self.sample.interval
            line += f" [{number(low, '.4f')}, {number(high, '.4f')}]"
        head = f"<p>{html.escape(self.game)}: {html.escape(line)}</p>"
        if self.best_reply is not None:
            head += f"<p>{html.escape(unbeaten_text(self.best_reply))}</p>"
        cells = "".join(
            f"<tr><td>{html.escape(name)}</td>"
            + "".join(
                "<td>" + "/".join(number(v, ".3f") for v in seat.shares().values()) + "</td>"
                for seat in (r.first, r.second)
            )
            + "</tr>"
            for name, r in self.matches.items()
        )
        header = "".join(
            f"<th>{html.escape(h)}</th>"
            for h in (_("opponent"), _("agent moves first"), _("agent moves second"))
        )
        return f"{head}<table><tr>{header}</tr>{cells}</table>"

    def to_pandas(self) -> Any:
        """The matches as a pandas DataFrame: a row per opponent and seat (the agent's seat),
        with win, draw and loss shares; pandas must be installed."""
        pd = need("pandas", "pandas")
        rows = [
            {"opponent": name, "seat": seat, **getattr(r, seat).shares()}
            for name, r in self.matches.items()
            for seat in ("first", "second")
        ]
        return pd.DataFrame(rows, columns=["opponent", "seat", "win", "draw", "loss"])

    def to_json(self) -> dict[str, Any]:
        """The ``qarena eval --json`` object; ``lengths`` only when the games were measured."""
        record: dict[str, Any] = {
            "game": self.game,
            "optimality": self.optimality.share,
            "decisions": self.optimality.decisions,
            "optimal_decisions": self.optimality.optimal,
            "matches": {name: r.shares() for name, r in self.matches.items()},
        }
        lengths = {name: r.lengths for name, r in self.matches.items() if r.lengths is not None}
        if lengths:
            record["lengths"] = {name: seats.to_json() for name, seats in lengths.items()}
        if self.sample is not None:
            record["sample"] = self.sample.to_json(parse_spec(self.game))
        if self.oracle is not None:
            record["oracle"] = self.oracle.record()
        if self.best_reply is not None:
            record["best_reply"] = self.best_reply.to_json()
        if self.best_reply_note is not None:
            record["best_reply_note"] = self.best_reply_note
        if self.classes_note is not None:
            record["classes_note"] = self.classes_note
        return record


def unbeaten_text(found: BestReply) -> str:
    """Whether it is unbeaten from the start in each seat (both judged), in one line: "unknown"
    where a search found no line that beats it within its budget, which proves nothing."""

    def answer(reply: SeatReply) -> str:
        if not reply.proved:
            return _("unknown")
        return _("no") if reply.beaten else _("yes")

    return _("unbeaten from the start: moving first {first}, moving second {second}").format(
        first=answer(found.seats["first"]), second=answer(found.seats["second"])
    )


def strategy_mask(tables: GameTables, name: str) -> np.ndarray:
    """The moves the named strategy (random, perfect, bouton, poles, poles-strict,
    subtraction) picks among."""
    mask = opponent(tables, name).mask
    assert mask is not None  # only "self" has none, and it is no strategy
    return mask


def strategy_masks(tables: GameTables, names: Iterable[str]) -> dict[str, np.ndarray]:
    """:func:`strategy_mask` of each name, built once for any number of evaluations."""
    return {name: strategy_mask(tables, name) for name in names}


def record_against(
    learner: Learner,
    opponents: Mapping[str, np.ndarray],
    games: int,
    seed: int,
    lengths: bool = False,
) -> dict[str, SeatRecords]:
    """The learner's greedy play against each opponent (by name, its move mask), ``games``
    games in each seat; each series is seeded by ``seed`` and the opponent's name. With
    ``lengths``, how many plies the games lasted too."""
    agent, tables = learner.best_moves(), learner.tables
    return {
        name: both_seats(tables, agent, mask, games, seed, name, lengths)
        for name, mask in opponents.items()
    }


def evaluate_moves(
    tables: GameTables, moves: np.ndarray, games: int = 1000, seed: int = 0, lengths: bool = False
) -> Evaluation:
    """As :func:`evaluate`, for a player given as the moves it picks among in each row (a
    built-in strategy): its optimality, and the same matches a trained agent plays."""
    masks = strategy_masks(tables, evaluation_opponents(tables.game))
    return Evaluation(
        tables.game.spec,
        optimality_of_values(tables, moves.astype(np.float64)),
        {
            name: both_seats(tables, moves, mask, games, seed, name, lengths)
            for name, mask in masks.items()
        },
    )


def evaluate(
    learner: Learner, games: int = 1000, seed: int = 0, lengths: bool = False
) -> Evaluation:
    """Optimality over every decision position, and matches against the game's opponents
    (with ``lengths``, how long those games lasted)."""
    masks = strategy_masks(learner.tables, evaluation_opponents(learner.game))
    return Evaluation(
        learner.game.spec,
        learner_optimality(learner),
        record_against(learner, masks, games, seed, lengths),
    )
