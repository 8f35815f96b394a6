"""Training from Python: a learner of any kind (:func:`train`, as ``qarena train``) or an
n-tuple network (:func:`train_network`). Their settings come as typed keywords
(:class:`TrainSettings`, :class:`~qarena.learn.setting_keywords.NetworkSettings`) derived from
the settings' one declaration (:mod:`qarena.learn.settings`); the calls' own keywords are few."""

from __future__ import annotations

import inspect
import os
import textwrap
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, Unpack, get_type_hints

from qarena.agents.players import PlayerLike
from qarena.api.games import GameLike, game, python_call
from qarena.budget import MAX_EPISODES, check_count
from qarena.errors import QarenaError
from qarena.i18n import _
from qarena.learn.family import Trainable
from qarena.learn.ntuple.config import KIND as NTUPLE
from qarena.learn.setting_keywords import LearnerSettings, NetworkSettings
from qarena.learn.settings import (
    ALL_SETTINGS,
    KEYWORDS,
    TrainingSetting,
    registered_settings,
    setting,
    typed,
)
from qarena.show import display
from qarena.training.run import Progress, check_counts, check_judged_curve, request_run


class TrainSettings(LearnerSettings, total=False):
    """The keywords :func:`train` takes beside its own: every learner kind's training settings
    (:class:`~qarena.learn.setting_keywords.LearnerSettings`, derived from their one
    declaration; None takes the learner's default) and these of the run."""

    progress: bool
    """Show a bar in a terminal, and in a notebook a line updated in place (kept when the
    notebook is saved). Default False."""

    check_every: int | None
    """Check optimality every N episodes (``until_perfect``: 1% of the run)."""

    canonical: bool | None
    """None: qarena's default, one table entry per symmetry class, or the preset's; False
    learns every position."""

    backend: str
    """AlphaZero: where its games are played, ``"local"`` (processes here, the default) or
    ``"ray"`` (Ray actors)."""

    ray_address: str | None
    """With ``backend="ray"``: the cluster to join (default: start one here)."""

    minutes: float | None
    """End training after that many minutes of wall time, judged as at its end."""


#: The run's settings' defaults, where not None.
_RUN_DEFAULTS: dict[str, object] = {"progress": False, "backend": "local"}
_TRAIN_NAMES = frozenset(get_type_hints(TrainSettings))
_NETWORK_NAMES = frozenset(get_type_hints(NetworkSettings))


def given_by_name(
    call: str,
    given: Mapping[str, Any],
    names: Collection[str],
    extra: Mapping[str, str] | None = None,
    named: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The keywords ``given`` by the declared names ``names``, over those the call took by
    name (``named``): a setting given by its command-line name (``epsilon_schedule=``,
    ``**{"lambda": …}``; the declaration's :data:`~qarena.learn.settings.KEYWORDS`, and
    ``extra``'s) counts as given by its declared name. Any other keyword is the TypeError
    Python gives; one setting given by both names with different values is refused."""
    aliases = {**KEYWORDS, **(extra or {})}
    found = {**(named or {}), **{k: v for k, v in given.items() if k in names}}
    for key, value in given.items():
        if key in names:
            continue
        name = aliases.get(key)
        if name is None or name not in names:
            raise TypeError(f"{call}() got an unexpected keyword argument {key!r}")
        if found.get(name) is not None and value is not None and found[name] != value:
            raise QarenaError(_("{a} and {b} are one setting; give it once").format(a=name, b=key))
        if value is not None:
            found[name] = value
    return found


@python_call
def train_network(
    spec: GameLike,
    games: int | None = None,
    *,
    workers: int | None = None,
    curve: bool = False,
    every: int | None = None,
    resume: Trainable | None = None,
    callback: Callable[[Progress], object] | None = None,
    **settings: Unpack[NetworkSettings],
) -> Trainable:
    """Train an n-tuple network as ``qarena train SPEC --learner ntuple`` does and return it:
    ``games`` of self-play (default: scaled to the board) on ``workers`` threads (default:
    every core), its settings (:class:`~qarena.learn.setting_keywords.NetworkSettings`) None
    taking the defaults (with ``resume``, that network's own). ``curve`` judges it every
    ``every`` games along perfect-play games; ``callback`` is called with a :class:`Progress`
    after each chunk and stops the run when it returns True."""
    found = given_by_name("train_network", settings, _NETWORK_NAMES)
    g = game(spec)
    if curve:
        check_judged_curve(g)  # refused before training: judging may have no bound
    if games is not None:
        check_count("games", games, MAX_EPISODES)
    if every is not None:
        check_count("every", every, MAX_EPISODES)
    if workers is not None:
        check_count("workers", workers, len(os.sched_getaffinity(0)) * 4)
    if resume is not None:
        resume.run_start = resume.episodes  # α and ε go over this run, as from its file
    # qarena.train's run, with the network's words for its games.
    return train(
        g, NTUPLE, games, curve=curve, every=every, resume=resume, callback=callback,
        workers=workers, **found,
    )  # fmt: skip


@python_call
def train(  # noqa: PLR0913 - qarena.train's own keywords; the settings come as TrainSettings
    spec: GameLike,
    learner: str | None = None,
    episodes: int | None = None,
    *,
    preset: str | None = None,
    opponent: PlayerLike | None = None,
    seat: str | None = None,
    until_perfect: bool = False,
    curve: bool = False,
    every: int | None = None,
    resume: Trainable | None = None,
    callback: Callable[[Progress], object] | None = None,
    workers: int | None = None,
    **settings: Unpack[TrainSettings],
) -> Trainable:
    """Train a learner of any kind as ``qarena train`` does and return it.

    ``learner`` is one of ``q`` (the default), ``afterstate``, ``matchbox``, ``seat-q``,
    ``naive-q``, ``elimination``, ``game-backup``, ``ntuple`` (an n-tuple network: its own
    settings ``tuples``, ``tuple_length``, ``alpha_end``, ``lam``, ``opening``; self-play on
    ``workers`` threads, default every core), ``alphazero`` (a policy-value network learning
    by self-play through its search, from the ``qarena[deep]`` extra: its own settings
    ``channels``, ``blocks``, ``simulations``, with ``alpha``, ``opening``, ``seed``), or any
    kind registered in :data:`qarena.learn.learners.LEARNERS`. The training settings and the
    run's own come as keywords, typed and documented in :class:`TrainSettings` (the training
    settings' one declaration: :mod:`qarena.learn.settings`), a training setting None taking
    the learner's default; a setting may also be given by its command-line name
    (``epsilon_schedule=``, ``**{"lambda": 0.5}``). ``preset`` names a write-up's method
    (:mod:`qarena.learn.presets`: learner, settings, opponent, seat, episodes, and the
    write-up's own kind of table: every position, unless ``canonical=True``); what is given
    as well overrides it, and ``learner.preset`` records the preset, its values and what was
    overridden. ``canonical`` (None: qarena's default, one table entry per symmetry class, or
    the preset's) False learns every position. ``backend`` ``"ray"`` plays an AlphaZero
    learner's games on Ray actors (at ``ray_address``, or a local Ray instance).
    ``opponent`` is ``"self"`` or any player (a built-in's name, a policy file, a learner,
    a function). ``until_perfect`` stops as soon as the solver finds the play perfect;
    ``minutes`` ends training after that many minutes of wall time, judged as at its end;
    ``curve`` records a learning curve (``learner.curve``). ``progress`` shows a bar in a
    terminal, and in a notebook a line updated in place (kept when the notebook is saved);
    ``callback`` is called with a :class:`Progress` after each short chunk of episodes, and
    stops training when it returns True. ``resume`` goes on training that learner (the
    settings given replace its own).
    """
    # A kind registered after import (its own settings) is declared; mypy sees only qarena's.
    names = _TRAIN_NAMES.union(s.name for s in registered_settings())
    found = given_by_name("train", settings, names)
    g = game(spec)
    given: dict[str, Any] = {s.name: found.get(s.name) for s in ALL_SETTINGS}
    if given["rewards"] is not None:  # typed before it is compared with a preset's
        given["rewards"] = typed("rewards", given["rewards"])
    check_every = found.get("check_every")
    check_counts(episodes, check_every, every, workers)
    # The one set-up of a run's request, as qarena train's and the web's.
    request = request_run(
        g,
        learner,
        given,
        preset=preset,
        opponent=opponent,
        seat=seat,
        episodes=episodes,
        canonical=found.get("canonical"),
        until_perfect=until_perfect,
        check_every=check_every,
        curve=curve,
        every=every,
        workers=workers,
        backend=found.get("backend", "local"),
        ray_address=found.get("ray_address"),
        minutes=found.get("minutes"),
    )
    plan = request.plan(resume=resume)
    agent, total, start = plan.learner, plan.total, plan.learner.episodes
    stop = [False]

    def report(p: Progress) -> None:
        if callback is not None and callback(p) is True:
            stop[0] = True

    def go(on_progress: Callable[[Progress], None]) -> None:
        plan.run(on_progress, lambda: stop[0])

    if not found.get("progress", False):
        go(report)
        return agent
    with display.progress(f"{agent.kind} {g.spec}", total) as bar:

        def show(p: Progress) -> None:
            bar.update(p.episodes)
            report(p)

        go(show)
        bar.update(agent.episodes - start, total=agent.episodes - start)
    return agent


def _signature(
    function: Callable[..., Any], settings: type, defaults: Mapping[str, object]
) -> inspect.Signature:
    """``function``'s signature with each of the ``settings`` TypedDict's fields as a keyword
    of its own, typed as declared, in place of ``**settings``: what ``help()`` and
    :func:`inspect.signature` show, so that each setting is named there with its type."""
    own = inspect.signature(function, eval_str=True)
    kept = [p for p in own.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    keywords = [
        inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=defaults.get(name), annotation=hint
        )
        for name, hint in get_type_hints(settings).items()
    ]
    return own.replace(parameters=[*kept, *keywords])


def _settings_help(doc: str | None, declared: Iterable[TrainingSetting]) -> str:
    """``doc`` with the settings' help, from their declaration, at its end: what ``help()``
    shows (the reference pages show the TypedDict's fields)."""
    lines = [
        textwrap.fill(
            f"- ``{s.name}``: {s.help}", 92, initial_indent="    ", subsequent_indent="      "
        )
        for s in declared
    ]
    return (doc or "").rstrip() + "\n\n    Its settings (None: the default):\n\n" + "\n".join(lines)


# help(qarena.train) names every setting with its type, default and help, each derived from
# the declaration; the code takes them as one **settings.
train.__signature__ = _signature(train, TrainSettings, _RUN_DEFAULTS)  # type: ignore[attr-defined]
train.__doc__ = _settings_help(train.__doc__, ALL_SETTINGS)
train_network.__signature__ = _signature(train_network, NetworkSettings, {})  # type: ignore[attr-defined]
train_network.__doc__ = _settings_help(
    train_network.__doc__, (setting(name) for name in get_type_hints(NetworkSettings))
)
