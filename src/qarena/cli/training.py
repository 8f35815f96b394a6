"""qarena train: learn by self-play or against an opponent, and save a policy file. Its
progress bar and stop are in ``train_progress``, what it says of the run at its end in
``run_summary``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from qarena.cli.common import (
    CanonicalOpt,
    EpisodesOpt,
    SpecArg,
    announce,
    app,
    check_curve_every,
    err,
    out,
    told_stop,
    with_settings,
)
from qarena.cli.run_summary import judged_record, judged_table, run_record, run_table
from qarena.cli.train_progress import with_progress
from qarena.errors import QarenaError
from qarena.fileio import check_target, is_file
from qarena.games import parse_spec
from qarena.games.base import Game
from qarena.i18n import _, ngettext
from qarena.learn.learners import load_learner, save_learner
from qarena.learn.settings import ALL_SETTINGS
from qarena.learn.tables.base import read_rewards
from qarena.training.run import RunPlan, RunRequest, check_counts, request_run

#: Default runs of this many episodes or more (minutes, at about a million a second) are
#: announced, so nobody waits without knowing why.
LONG_RUN_EPISODES = 100_000_000


def _rewards(text: str) -> tuple[float, float, float]:
    rewards = read_rewards(text)
    if rewards is None:
        raise QarenaError(
            _("--rewards must be three numbers WIN,DRAW,LOSS like 1,0,-1, not {text!r}").format(
                text=text
            )
        )
    return rewards


@app.command("train")
@with_settings(after="seat")
def train_command(  # noqa: PLR0913 - the command's options
    spec: SpecArg,
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Policy file to write (.npz; default: a new file named after the game and "
            "learner in the current folder, like nim-1-2-3-q.npz).",
            show_default=False,
        ),
    ] = None,
    learner_kind: Annotated[
        str | None,
        typer.Option(
            "--learner",
            "-l",
            help="The learner: {learner_titles}; or ntuple (an n-tuple network, for boards of "
            "any size), or alphazero (a policy-value network learning through its search; "
            # The backslash keeps rich from reading "[deep]" as a style tag in --help.
            "pip install 'qarena\\[deep]'). Default: q.",
            show_default=False,
        ),
    ] = None,
    episodes: EpisodesOpt = None,
    opponent_name: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="self, random, perfect, strongest, bouton, subtraction, poles, poles-strict, "
            "or a policy file. Default: self.",
            show_default=False,
        ),
    ] = None,
    seat: Annotated[
        str | None,
        typer.Option(
            help="Against an opponent: first, second, or both (alternating). Default: both.",
            show_default=False,
        ),
    ] = None,
    preset_name: Annotated[
        str | None,
        typer.Option(
            "--preset",
            help="Every setting of a write-up's method (learner, settings, opponent, seat, "
            "episodes); options given as well override it. One of: {presets}.",
            show_default=False,
        ),
    ] = None,
    canonical: CanonicalOpt = None,
    until_perfect: Annotated[
        bool,
        typer.Option("--until-perfect", help="Stop as soon as the solver finds the play perfect."),
    ] = False,
    check_every: Annotated[
        int | None,
        typer.Option(help="Check optimality every N episodes (--until-perfect: 1% of the run)."),
    ] = None,
    resume: Annotated[Path | None, typer.Option(help="Continue training this policy file.")] = None,
    curve: Annotated[
        bool,
        typer.Option(
            "--curve",
            help="Record a learning curve (optimality, wins against random and perfect) "
            "in the policy file; draw it with qarena plot.",
        ),
    ] = False,
    every: Annotated[
        int | None,
        typer.Option(help="With --curve: a point every K episodes (default: 1% of the run)."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="n-tuple network: threads of self-play sharing its tables; AlphaZero: "
            "processes (or Ray actors) playing its games (default: every core).",
            show_default=False,
        ),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(help="AlphaZero: where its games are played, local (processes here) or ray."),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(help="With --backend ray: the cluster to join (default: start one here)."),
    ] = None,
    minutes: Annotated[
        float | None,
        typer.Option(
            help="Stop training after M minutes of wall time, saving and judging the learner "
            "as at the end of its episodes (with a large --episodes: train for M minutes).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    **settings: Any,
) -> int:
    """Train an agent by self-play or against an opponent, and save it as a policy file."""
    game = parse_spec(spec)
    given = {s.name: settings[s.name] for s in ALL_SETTINGS}
    if given["rewards"] is not None:
        given["rewards"] = _rewards(given["rewards"])
    # The one set-up of a run's request, as qarena.train's and the web's: a preset fills what
    # was not given, and what the learner kind has no use for is refused.
    request = request_run(
        game,
        learner_kind,
        given,
        preset=preset_name,
        opponent=opponent_name,
        seat=seat,
        episodes=episodes,
        canonical=canonical,
        until_perfect=until_perfect,
        check_every=check_every,
        curve=curve,
        every=every,
        workers=workers,
        backend=backend,
        ray_address=ray_address,
        minutes=minutes,
    )
    chosen = out_file is None
    if out_file is None:
        out_file = default_out(game, request.kind)
    run = _Run(out_file, request.episodes, resume, curve, every, as_json)
    code = _train(request, run)
    if chosen and out_file.exists():
        err.print(_("No --out given: saved to {file}.").format(file=out_file), soft_wrap=True)
    return code


#: The most default names tried (nim-1-2-3-q.npz, then -2 … ) before refusing.
DEFAULT_NAMES = 1000


def default_out(game: Game, learner_kind: str) -> Path:
    """A new file in the current folder named after the game and learner, never an existing
    one: a run without --out must not replace an earlier run's file."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", f"{game.spec} {learner_kind}").strip("-")
    for n in range(1, DEFAULT_NAMES + 1):
        path = Path(f"{stem}.npz" if n == 1 else f"{stem}-{n}.npz")
        if not path.exists():
            return path
    raise QarenaError(
        _("{file} and {count:,} more like it exist already; name the file with --out").format(
            file=f"{stem}.npz", count=DEFAULT_NAMES - 1
        )
    )


def _train(request: RunRequest, run: _Run) -> int:
    """The train command once its request is checked and its file known, for every learner
    kind: what is its own (the files, the progress bar, the summary) around the run
    ``request.plan`` sets up."""
    game, out_file, resume = request.game, run.out_file, run.resume
    cls = request.learner
    check_curve_every(run.every, run.curve)
    check_counts(run.episodes, request.check_every, run.every, request.workers)
    # The one input --out may name is --resume's file: training goes on in place, and the file
    # is read whole and verified before the new one replaces it atomically.
    opponent = request.opponent
    inputs = [opponent] if isinstance(opponent, str) and is_file(opponent) else []
    check_target(out_file, inputs)
    resumed = None
    if resume is not None:
        resumed = load_learner(resume, game, cls.kind)
    elif request.tables:
        announce(game)  # its tables are the game's: a long search is said before it starts
    plan = request.plan(resume=resumed, resumed_from=None if resume is None else str(resume))
    _say_default_run(game, plan, run.episodes)
    title = _("{learner} on {spec}").format(learner=cls.title, spec=game.spec)
    result = with_progress(title, plan.total, cls.unit, plan.run)
    save_learner(out_file, plan.learner, inputs)
    # What a run says of itself follows how its learner is judged: over every position, or
    # along perfect-play games (its curve's last point).
    if request.tables:
        summary = run_record(result, plan, game, cls.kind) if run.as_json else None
        table = None if run.as_json else run_table(result, plan, game, cls.title, out_file)
    else:
        summary = judged_record(result, plan, game) if run.as_json else None
        table = None if run.as_json else judged_table(result, plan, game, out_file)
    if summary is not None:
        out.print(json.dumps(summary), soft_wrap=True)
    else:
        out.print(table)
    if result.stopped:
        return _interrupted(result.episodes)
    return 0


def _say_default_run(game: Game, plan: RunPlan, episodes: int | None) -> None:
    """Say how long a default run is where it is long: a table learner's of many episodes,
    and always a run of games of self-play (minutes on a big board)."""
    if episodes is not None:
        return
    if plan.learner.unit == "games":
        err.print(
            _(
                "{spec}: the default run is {count:,} games of self-play; --episodes N trains "
                "fewer."
            ).format(spec=game.spec, count=plan.total)
        )
    elif plan.total >= LONG_RUN_EPISODES:
        err.print(
            _(
                "{spec} has many moves to learn: the default run is {count:,} episodes, which "
                "can take a long while; --episodes N trains fewer."
            ).format(spec=game.spec, count=plan.total)
        )


@dataclass(frozen=True)
class _Run:
    """The options every kind of run takes: its file, its length, the file it goes on from,
    its curve, and how its summary is printed."""

    out_file: Path
    episodes: int | None
    resume: Path | None
    curve: bool
    every: int | None
    as_json: bool


def _interrupted(count: int) -> int:
    err.print(
        ngettext(
            "interrupted after {count:,} episodes; what was learned is saved.",
            "interrupted after {count:,} episodes; what was learned is saved.",
            count,
        ).format(count=count)
    )
    return told_stop()
