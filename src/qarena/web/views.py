"""What the Train, Policies, Inspect and Compare pages show, built from the app's state; the
routes in ``routes/pages.py`` stay thin."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from qarena import threads
from qarena.agents.spec_players import refuse_code, runs_code
from qarena.errors import QarenaError, SpecError, TooLargeError
from qarena.exact import Exact, solve
from qarena.games import Game, Position, parse_spec, value_name, value_word
from qarena.games.words import sentence
from qarena.i18n import _
from qarena.judging.family import family_of
from qarena.learn.curve import Curve
from qarena.learn.learners import LEARNERS, learner_class, table_class
from qarena.learn.presets import PRESETS
from qarena.learn.settings import (
    ALPHAZERO_NAMES,
    ALPHAZERO_SETTINGS,
    NETWORK_SETTINGS,
    SETTINGS,
    TrainingSetting,
    registered_settings,
)
from qarena.show.curve_svg import METRICS, PALETTE, curve_svg, curves_svg
from qarena.show.svg import inspect_svg
from qarena.web.describe import (
    LABELS,
    capitalized,
    labels,
    learner_title,
    policy_label,
    setting_rows,
    verdict_span,
)
from qarena.web.forms import TRAIN_DEFAULTS
from qarena.web.jobs import Job
from qarena.web.service import Web
from qarena.web.store import PolicyRow

#: Policies one comparison draws at most: each needs a colour told apart from the others'.
MAX_COMPARED = 8

# --- the Train page --------------------------------------------------------------------------

#: The form's fields in "More options": an error in one of them opens it.
ADVANCED = tuple(LABELS)
#: Which field an error is about, by its English words (those of the command line and of
#: LearnConfig; a refusal in another language is checked again in English to find its field):
#: the first pattern found wins, so longer flags come before their prefixes.
_FIELD_WORDS = [
    (r"--epsilon-schedule|epsilon schedule|^schedule\b", "schedule"),
    (r"--epsilon-second|epsilon-second|^epsilon_second\b", "epsilon_second"),
    (r"--alpha-second|alpha-second|^alpha_second\b", "alpha_second"),
    (r"--epsilon-end|epsilon-end|epsilon end|^epsilon_end\b", "epsilon_end"),
    (r"--alpha-end|alpha-end|^alpha_end\b", "alpha_end"),
    (r"--tuple-length|tuple length|^tuple_length\b", "tuple_length"),
    (r"--tuples\b|^tuples\b|tuples of", "tuples"),
    (r"--channels\b|^channels\b|blocks of [0-9]+ channels", "channels"),
    (r"--blocks\b|^blocks\b", "blocks"),
    (r"--simulations\b|^simulations\b", "simulations"),
    (r"--lambda\b|^lambda\b", "lam"),
    (r"--epsilon\b|^epsilon\b", "epsilon"),
    (r"--alpha|^alpha\b", "alpha"),
    (r"--gamma|^gamma\b", "gamma"),
    (r"--rewards|^rewards\b", "rewards"),
    (r"--initial|initial value|^initial\b", "initial"),
    (r"--seed|^seed\b|^the seed\b", "seed"),
    (r"--start-order|start order|^start_order\b", "start_order"),
    (r"--starts|exploring starts|^starts\b", "starts"),
    (r"--seat|unknown seat|^seat\b", "seat"),
    (r"--episodes|^episodes\b", "episodes"),
    (r"opponent|to train against|^policy [0-9a-f]{12} (plays|learned)", "opponent"),
    (r"unknown learner|^learner\b", "learner"),
    (r"^canonical\b|positions learned", "canonical"),
    (r"^game\b", "game"),
]


def error_field(error: Exception, text: str) -> str | None:
    """The form field a refusal is about, to show it there (None: the form as a whole)."""
    if isinstance(error, SpecError | TooLargeError) or "too big to train in the web" in text:
        return "game"
    for pattern, field in _FIELD_WORDS:
        if re.search(pattern, text):
            return field
    return None


def opponent_choices(web: Web, spec: str) -> dict[str, Any]:
    """The opponents a game offers, as ``qarena train`` names them (its rule players only
    for it), and its stored policies. An unreadable spec offers those of every game."""
    builtin = [
        ("self", _("itself (self-play)")),
        ("random", _("random play")),
        ("perfect", _("perfect play")),
        ("strongest", _("perfect play at its strongest")),
    ]
    try:
        if not spec.isascii():
            raise QarenaError("not ASCII")
        game: Game | None = parse_spec(spec.strip())
    except QarenaError:
        game = None
    if game is None:
        return {"builtin": builtin, "stored": [], "game": None}
    builtin += [(name, _("the {name} player").format(name=name)) for name in game.rule_players]
    stored = [r for r in web.store.list(game.spec) if r.tables]  # tables only
    return {"builtin": builtin, "stored": stored, "game": game.spec}


def train_context(
    web: Web,
    job: Job | None,
    form: dict[str, Any],
    error: str | None = None,
    field: str | None = None,
    first: str | None = None,
) -> dict[str, Any]:
    more = (
        field in ADVANCED
        or any(form.get(k, "") != TRAIN_DEFAULTS.get(k, "") for k in ADVANCED if k != "canonical")
        or form.get("canonical") == "no"
    )
    return {
        "job": job,
        "next": f"/train/{job.id}/play?first={first or job.first}" if job else None,
        "snap": job.snapshot() if job else None,
        "curve": Markup(job.chart() if job else curve_svg([], 1)),
        "form": form,
        "error": error,
        "error_field": field,
        "more_open": more,
        "labels": labels(),
        "settings": SETTINGS,
        "kind_fieldsets": kind_fieldsets(),
        "presets": PRESETS,
        "opponent_choices": opponent_choices(web, str(form.get("game", ""))),
    }


def kind_fieldsets() -> list[tuple[str, list[TrainingSetting]]]:
    """The Train form's groups of the settings only some kinds read, each with its legend:
    the n-tuple network's, AlphaZero's, those both networks read (the random opening), then
    each registered kind's own (its declaration's ``settings``, under its title)."""
    groups = [
        (_("n-tuple network only"), [s for s in NETWORK_SETTINGS if s.name not in ALPHAZERO_NAMES]),
        (_("AlphaZero only"), list(ALPHAZERO_SETTINGS)),
        (
            _("n-tuple network and AlphaZero"),
            [s for s in NETWORK_SETTINGS if s.name in ALPHAZERO_NAMES],
        ),
    ]
    own = {s.name for s in registered_settings()}
    for cls in LEARNERS.values():
        mine = [s for s in cls.settings if s.name in own]
        if mine:
            groups.append((_("{learner} only").format(learner=capitalized(cls.title)), mine))
    return groups


def _typed(x: float) -> str:
    return f"{x:g}"


def job_form(job: Job) -> dict[str, Any]:
    """The Train form as the run was asked for, to train another like it."""
    if not learner_class(job.learner).takes("--opponent"):  # its kind's own settings
        form = {
            **TRAIN_DEFAULTS,
            "game": job.game.spec,
            "learner": job.learner,
            "episodes": str(job.episodes),
        }
        given = job.config.to_dict()
        defaults = learner_class(job.learner).default_config(job.game).to_dict()
        for name, value in given.items():
            if value != defaults[name]:
                form[name] = str(value) if isinstance(value, int) else _typed(value)
        return form
    c = job.config
    hyper = job.config.to_dict()
    form = {
        **TRAIN_DEFAULTS,
        "game": job.game.spec,
        "learner": job.learner,
        "episodes": str(job.episodes),
        "opponent": job.opponent,
        "seat": job.seat,
        "until_perfect": "on" if job.until_perfect else "",
        "canonical": "yes" if c.canonical else "no",
    }
    # Settings shown only where they differ from the learner's defaults, as they were typed.
    defaults = table_class(job.learner).default_config(canonical=c.canonical).to_dict()
    for setting in SETTINGS:
        name, value = setting.name, hyper[setting.name]
        if value is None or value == defaults[name]:
            continue
        if setting.kind == "rewards":
            form[name] = ",".join(_typed(r) for r in value)
        elif setting.kind in ("choice", "int"):
            form[name] = str(value)
        else:
            form[name] = _typed(value)
    return form


# --- the Inspect page ------------------------------------------------------------------------


def _read_position(game: Game, text: str, solution: Exact) -> Position:
    if not text.isascii():
        # Python reads digits of any script as numbers; positions are ASCII.
        raise QarenaError(
            _("{text!r} is not a position: write it in ASCII letters and digits").format(text=text)
        )
    pos = game.parse_position(text)
    solution.value_of(pos)  # refuses positions play cannot reach
    return pos


def turn_text(game: Game, position: Position) -> str:
    """Whose turn it is: the side's mark on boards; in impartial games (heaps) both players
    have the same moves, so just the player to move."""
    if game.is_terminal(position):
        return _("The game is over: {ending}.").format(ending=game.end_words(position))
    seat = game.seat(position) if game.to_move(position) is not None else None
    if seat is None:
        return _("Turn: the player to move (both players have the same moves).")
    return _("Turn: {mark}.").format(mark=seat)


def inspect_context(
    web: Web, policy_id: str, position: str | None, came_from: str | None
) -> dict[str, Any]:
    """The Inspect page: the position (the start, unless one is given), the agent's values on
    it beside the solver's verdicts, links to the position after each move and back, and how
    the agent (a table learner's, or an n-tuple network) was trained."""
    row = web.store.get(policy_id)
    agent = web.agent(policy_id)
    game = agent.game
    # A network may play a board too big to enumerate: the solver searches it there, with the
    # web's kept solutions (bounded in memory), through the search gate (``pages.inspect``).
    solution = web.kept.get(game) if not row.tables else solve(game)
    error = None
    pos: Position = game.start()
    if position:
        try:
            pos = _read_position(game, position, solution)
        except threads.Stopped:
            raise  # a search cut short is not a bad position (pages.inspect answers 503)
        except QarenaError as e:
            error = sentence(str(e))
    previous = None
    if came_from and error is None:
        try:
            before = _read_position(game, came_from, solution)
            if pos in {game.apply(before, m) for m in game.legal_moves(before)}:
                previous = game.format_position(before)
        except threads.Stopped:
            raise
        except QarenaError:
            pass  # a link's leftover: there is just no way back shown
    here = game.format_position(pos)
    verdicts = solution.move_values(pos)
    values = agent.move_values(pos) if not game.is_terminal(pos) else {}
    moves, links, notes = [], {}, {}
    for m in game.legal_moves(pos):
        text = game.format_move(m)
        after = game.format_position(game.apply(pos, m))
        href = f"?position={_quote(after)}&from={_quote(here)}"
        links[text] = href
        # As qarena table draws a board: each cell its value, in the short form.
        notes[text] = agent.format_value(values[m], compact=True)
        row_of_move = {
            "move": text,
            "value": agent.value_text(pos, m),
            "best": agent.would_play(pos, m),
            "verdict": value_name(verdicts[m]),
            "verdict_text": value_word(verdicts[m]),
            "href": href,
        }
        moves.append(row_of_move)
    context = {
        "row": row,
        "game": game,
        "turn": turn_text(game, pos),
        "position": here,
        "start": game.format_position(game.start()),
        "previous": previous,
        "svg": Markup(inspect_svg(game, pos, links, notes)),
        "walk_help": _walk_help(game),
        "value_span": verdict_span(solution.value_of(pos)),
        "over": game.is_terminal(pos),
        "moves": moves,
        # "←" picks out the agent's choice; when every move ties, it would pick out nothing.
        "mark_best": not all(m["best"] for m in moves),
        "value_heading": agent.value_heading,
        "legend": agent.value_legend(),
        "error": error,
    }
    # Every kind alike, from its own answers: a table learner plays as its greedy agent (its
    # page says "agent"), another kind as itself; only an agent trained here says how.
    learner = agent.learner
    curve = learner.curve
    family = family_of(learner)
    training: dict[str, Any] | None = getattr(agent, "training", None)
    heading = (
        _("{learner} agent for {game}")
        if family.table(learner) is not None
        else _("{learner} for {game}")
    )
    return {
        **context,
        "heading": heading.format(learner=learner_title(learner.kind), game=game.title),
        "trained": learner.trained_text(row.optimality),
        "settings": setting_rows(
            learner.hyperparameter_values(), training, learner.preset, own_order=True
        ),
        # One that learns by self-play alone has no opponent to record.
        "trained_here": training is not None or not learner.takes("--opponent"),
        "curve": (
            Markup(family.draw(curve.points, learner.episodes))
            if curve is not None and curve.points
            else None
        ),
        # Beside others: a table learner's curve, or a network's judged over all positions.
        "comparable": family.comparable(curve),
    }


def _walk_help(game: Game) -> str:
    if game.layout == "grid":
        return _(
            "Click a cell to see the position after that move. Each empty cell shows the "
            "agent's value of the move there, as the table does."
        )
    if game.layout in ("piles", "heap"):
        return _(
            "Click a match to see the position after taking it and every match to its right; "
            "hover over it for the agent's value of that move."
        )
    return _("Follow a move's link in the table to see the position after it.")


def _quote(text: str) -> str:
    return quote(text, safe="")


# --- the Compare page ------------------------------------------------------------------------

#: What the chart can show, by key (message ids: translated where shown).
METRIC_LABELS = [(key, series[0]) for key, series in METRICS.items()]


def _label(row: PolicyRow) -> str:
    return policy_label(learner_title(row.learner), row.game, row.episodes, row.id)


def _check_comparable(policy_id: str, curve: Curve, metric: str) -> None:
    """Refuse a curve that has nothing to show beside the others: whether it is unbeaten where
    the curve does not record it (trained before curves did, or on a board solved by search),
    a network's judged along perfect-play games only, or a network's measure other than
    optimality and the unbeaten seats."""
    if metric == "unbeaten" and not curve.unbeaten:
        raise QarenaError(
            _(
                "policy {id}'s curve does not record whether it is unbeaten from the start "
                "(trained before curves did, or on a board solved by search)"
            ).format(id=policy_id)
        )
    if not curve.judged:
        return
    if not curve.everywhere:
        raise QarenaError(
            _(
                "policy {id} is a network judged along perfect-play games only: qarena plot "
                "FILE draws its curve"
            ).format(id=policy_id)
        )
    if metric not in ("optimality", "unbeaten"):
        raise QarenaError(
            _(
                "policy {id} is a network: its curve is compared by optimality (over a uniform "
                "sample of all positions) and the seats where it is unbeaten only"
            ).format(id=policy_id)
        )


def compare_context(web: Web, game: str, ids: list[str], metric: str) -> dict[str, Any]:
    """The Compare page: the store's policies (of ``game`` when given) to choose from, and
    the chosen ones' learning curves on one chart, naming those that have none."""
    web.store.refresh()
    # A network's curve is judged along perfect-play games; where its board is enumerated it
    # records optimality over a uniform sample of all positions too, drawn beside the others.
    everything = web.store.list()
    games = sorted({r.game for r in everything})
    rows = [r for r in everything if r.game == game] if game else everything
    chosen = list(dict.fromkeys(ids))  # in order, once each
    problems = []
    for name in chosen:
        try:
            refuse_code(name)  # a file's own code (connectx:FILE) never runs here
        except QarenaError as e:
            problems.append(str(e))
    chosen = [name for name in chosen if not runs_code(name)]
    if metric not in METRICS:
        problems.append(_("there is no curve called {metric!r} to show").format(metric=metric))
        metric = "optimality"
    if len(chosen) > MAX_COMPARED:
        problems.append(
            _("compare at most {most} policies at once, not {count}").format(
                most=MAX_COMPARED, count=len(chosen)
            )
        )
        chosen = chosen[:MAX_COMPARED]
    series, without = [], []
    for policy_id in chosen:
        try:
            row = web.store.get(policy_id)
            raw = web.store.meta(policy_id).get("curve")
            curve = Curve.from_json(raw) if raw is not None else None
            if curve is not None:
                _check_comparable(policy_id, curve, metric)
        except QarenaError as e:
            text = str(e)
            problems.append(
                text
                if policy_id in text
                else _("policy {id}: {problem}").format(id=policy_id, problem=text)
            )
            continue
        if curve is None or not curve.points:
            without.append(_label(row))
        else:
            series.append((row.id, _label(row), curve.points))
    label = _(dict(METRIC_LABELS)[metric])
    legend = [
        (PALETTE[i % len(PALETTE)], text, key) for i, (key, text, _points) in enumerate(series)
    ]
    return {
        "games": games,
        "game": game,
        "rows": rows,
        "chosen": set(chosen),
        "metric": metric,
        "metrics": [(k, capitalized(_(v))) for k, v in METRIC_LABELS],
        "metric_heading": capitalized(label),
        "chart": Markup(curves_svg(series, metric)) if series else None,
        "legend": legend,
        "without": without,
        "error": " ".join(sentence(p) for p in problems) or None,
        "most": MAX_COMPARED,
    }


__all__ = [
    "MAX_COMPARED",
    "compare_context",
    "error_field",
    "inspect_context",
    "job_form",
    "opponent_choices",
    "train_context",
    "turn_text",
]
