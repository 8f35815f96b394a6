"""The web app's state and what its routes do with it: the policy store, games in play,
training jobs, loaded agents, and the limits on what the app builds (``limits.py``)."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request

from qarena.agents.base import OpponentPlayer, Player
from qarena.agents.players import OPPONENTS, TRAINED, opponent_of, player, plays_as
from qarena.agents.spec_players import refuse_code
from qarena.agents.strategies import SHIPPED_PLAYERS, STRATEGIES, players_of
from qarena.agents.thinking import is_thinking, make_thinking
from qarena.errors import QarenaError
from qarena.exact import Oracle
from qarena.games import Game, parse_spec
from qarena.i18n import _
from qarena.judging.family import family_of
from qarena.learn.settings import ALL_SETTINGS
from qarena.match.spot import SPOT_LEARNER
from qarena.training.run import RunRequest, request_run
from qarena.web.exceptions import Full
from qarena.web.jobs import LIVE, Job, Jobs, Spot
from qarena.web.limits import Limits, over_budget
from qarena.web.models import NewGame, TrainIn
from qarena.web.play import (
    DELAYS,
    Agent,
    Games,
    Opponent,
    Scores,
    Session,
    Stored,
    Watch,
    Watches,
)
from qarena.web.searches import (
    Kept,
    KeptSolution,
    Searches,
    bounded,
    check_offered,
    offered_boards,
)
from qarena.web.store import PolicyRow, PolicyStore, is_policy_id, training_of
from qarena.web.thinking import Live, Thinking
from qarena.web.thinking import check as check_thinking
from qarena.web.thinking import words as thinking_words

log = logging.getLogger("qarena.web")

#: Loaded agents kept in memory: at most this many, and at most :data:`AGENT_CACHE_BYTES`
#: of their arrays (two networks of the largest the server loads, ``MAX_NETWORK_BYTES``);
#: the least recently used go first.
AGENT_CACHE = 16
AGENT_CACHE_BYTES = 1_200_000_000
#: What a preset fills besides the settings, when the request does not give it.
RUN_FIELDS = ("learner", "opponent", "seat", "episodes")


def held_bytes(agent: Stored) -> int:
    """Bytes of the arrays a loaded agent holds (its ``nbytes``: a network's, or a table
    agent's with its learner's and its game's tables)."""
    return agent.nbytes


class Web:
    """The app's state: stores, games, jobs, loaded agents, and the settings."""

    def __init__(self, data_dir: Path, limits: Limits) -> None:
        self.limits = limits
        self.store = PolicyStore(data_dir)
        tidied = self.store.tidy()
        (log.warning if tidied else log.info)(
            "policy store %s: removed %d temp files of dead writers, indexed %d policy files "
            "without a row, left alone %d that do not load and %d too big to load, dropped %d "
            "rows without a file",
            data_dir, tidied.temps, tidied.indexed, tidied.unreadable, tidied.skipped,
            tidied.dropped,
        )  # fmt: skip
        self.games = Games(limits.max_games, limits.idle_seconds)
        self.watches = Watches(limits.max_games, limits.idle_seconds)
        self.scores = Scores()
        self.jobs = Jobs(self.store, limits.max_training, limits.max_queued)
        self._agents: OrderedDict[str, tuple[Stored, int]] = OrderedDict()
        self._perfect: OrderedDict[tuple[str, bool], OpponentPlayer] = OrderedDict()
        #: The solutions perfect play answers from, within a bound on their memory; games hold
        #: them through ``KeptSolution``, so none outlives its place in the cache.
        self.kept = Kept()
        #: The gate of requests that may search (see ``searches.py``).
        self.searches = Searches(
            limits.search_slots,
            limits.max_waiting,
            limits.move_seconds,
            # Looked up at each call: ``qarena serve`` sets ``stopping`` after this.
            lambda: self.stopping(),  # noqa: PLW0108
        )
        self._shipped: dict[tuple[str, str], OpponentPlayer] = {}
        #: The search players of the games against thinking players, within their bounds.
        self.live = Live()
        self._lock = threading.Lock()
        self._spot_lock = threading.Lock()
        #: Whether the server is stopping: set when serving under ``qarena serve``.
        self.stopping: Callable[[], bool] = lambda: False

    def too_big(self, game: Game) -> str | None:
        """Why the web app will not train ``game`` (None if it will). Cheap: it reads the
        game's sizes (its estimated positions: classes, for canonical learning) and builds
        nothing."""
        size = over_budget(game, self.limits)
        if size is None:
            return None
        # A file name made for the reader (the folder takes only ids of 12 hex digits), so
        # that the command can be run as it is; not at the end, where a full stop follows.
        return _(
            "{spec} is too big to train in the web app ({size}); train it on the command line "
            "into this server's policy folder with qarena train {spec} --out {file} and it "
            "plays here"
        ).format(spec=game.spec, size=size, file=self.store.fresh_path())

    def too_big_to_upload(self, game: Game) -> str | None:
        """Why the web app will not take an upload of a policy for ``game`` (None if it will):
        checking one builds the game's tables, as training here does, so the same budget."""
        size = over_budget(game, self.limits)
        if size is None:
            return None
        return _(
            "{spec} is too big for the web app to check an upload of ({size}); copy the file "
            "into this server's policy folder instead, as {file}, and it plays here"
        ).format(spec=game.spec, size=size, file=self.store.fresh_path())

    def _out_of_reach(self, game: Game) -> str | None:
        """Whether this server answers perfect play of ``game``: on a board solved by search,
        only one it offers (``check_offered`` refuses the others); else None when its
        enumeration is within the budget, or how far over it, in words."""
        if Oracle.of(game).searched:
            check_offered(game)
            return None
        return over_budget(game, self.limits)

    def game(self, spec: str, stored: bool = False) -> Game:
        """The game a spec names, if it is within the budget: checked before any table is built
        or any training starts. With ``stored``, a game too big to train here passes when the
        store holds a policy for it (trained on the command line): playing it only loads it."""
        game = self._parse(spec)
        why = self.too_big(game)
        if why is not None and not (stored and self._stored(game) is not None):
            raise QarenaError(why)
        return game

    def _parse(self, spec: str) -> Game:
        """The game ``spec`` names; nothing is built."""
        if not spec.isascii():
            # Python reads digits of any script as numbers; specs are typed in ASCII.
            raise QarenaError(
                _(
                    "{spec!r} is not a game spec: write it in ASCII letters and digits, e.g. "
                    "nim:3,5,7"
                ).format(spec=spec)
            )
        return parse_spec(spec)

    def _stored(self, game: Game) -> PolicyRow | None:
        """The game's best stored policy, looking for files put in the folder since."""
        row = self.store.best_for(game.spec)
        if row is None and self.store.refresh():
            row = self.store.best_for(game.spec)
        return row

    def agent(self, policy_id: str) -> Stored:
        """The stored policy's agent, or its n-tuple network (NotFound when there is none),
        loaded once."""
        with self._lock:
            cached = self._agents.get(policy_id)
            if cached is not None:
                self._agents.move_to_end(policy_id)
                return cached[0]
        # Read once here, not on every page that shows how the agent was trained.
        training = training_of(self.store.meta(policy_id))
        loaded = self.store.load(policy_id)
        # A table learner plays as its greedy agent, which carries its policy id and how it
        # was trained here; a network plays as itself.
        table = family_of(loaded).table(loaded)
        agent: Stored = (
            Agent(table, policy=policy_id, training=training)
            if table is not None
            else plays_as(loaded)
        )
        with self._lock:
            self._agents[policy_id] = (agent, held_bytes(agent))
            # Bounded by bytes too: a few big networks would otherwise hold gigabytes.
            while len(self._agents) > AGENT_CACHE or (
                sum(size for _agent, size in self._agents.values()) > AGENT_CACHE_BYTES
            ):
                self._agents.popitem(last=False)
        return agent

    def delete(self, policy_id: str) -> None:
        """Delete a stored policy (NotFound when there is none) and forget its agent."""
        self.store.delete(policy_id)
        with self._lock:
            self._agents.pop(policy_id, None)

    def opponent_for(self, spec: str, first: str, opponent: str | None = None) -> Opponent | Job:
        """Whom a person asking to play ``spec`` meets, for the home page's form and the API
        alike. ``opponent`` "strongest" is the solver's perfect play at its strongest (the
        fastest win, the longest resistance), "perfect" its perfect play picking at random
        among the moves that keep the value; "trained" (or None, on a
        game that is not searched) the game's best stored agent (a game too big to train here
        plays when one was trained on the command line into the folder), else, within the
        budget, the on-the-spot run training one, else the refusal, saying how to train it.
        A game solved by search (classic Connect Four) plays the strongest unless asked;
        "network" is the n-tuple network shipped for the game (classic Connect Four); a
        thinking player's spec (``mcts:1000``) that player (:meth:`thinking`). A player that
        would run a file's own code (``connectx:FILE``) is refused first: never here."""
        if opponent is not None:
            refuse_code(opponent)
        if opponent is not None and is_thinking(opponent):
            return self.thinking(opponent, self._parse(spec))
        if opponent not in (None, *OPPONENTS):
            raise QarenaError(
                _(
                    "the opponent is 'trained', 'strongest', 'perfect', 'network' or a thinking "
                    "player (like mcts:1000), not {opponent!r}"
                ).format(opponent=opponent)
            )
        game = self._parse(spec)
        chosen = opponent_of(game, opponent)
        if chosen in SHIPPED_PLAYERS:
            return self.shipped(chosen, game)
        if chosen != TRAINED:
            return self.perfect(game, strongest=chosen == "strongest")
        answers = Oracle.of(game)
        try:
            game = self.game(spec, stored=True)
        except QarenaError as e:
            if answers.searched and game.spec in offered_boards():
                raise QarenaError(
                    _("{why}; or play it against perfect play (the solver)").format(why=e)
                ) from None
            if answers.searched:  # perfect play of it is not offered here (check_offered)
                raise QarenaError(
                    _(
                        "{why}; or play it against perfect play on the command line: qarena "
                        "play {spec} --opponent perfect"
                    ).format(why=e, spec=game.spec)
                ) from None
            raise
        return self.agent_or_job(game, first)

    def shipped(self, name: str, game: Game) -> OpponentPlayer:
        """The player shipped with qarena as ``name`` for ``game`` (``network``: the n-tuple
        network), from the one resolution of a player (which refuses, in one line, a game it
        does not play), loaded once (it is read-only)."""
        with self._lock:
            found = self._shipped.get((name, game.spec))
        if found is None:
            made = player(name, game)
            assert isinstance(made, OpponentPlayer), made
            found = made
            with self._lock:
                self._shipped[(name, game.spec)] = found
        return found

    def thinking(self, spec: str, game: Game) -> Thinking:
        """The thinking player ``spec`` names for ``game`` (``mcts:1000``,
        ``alphabeta:4:network``, a stored policy's id as FILE), checked before any game starts:
        a game perfect play is offered on here (the page can then show the solver's verdicts),
        a budget within the web's time (``web.thinking.check``), a file the server holds, of
        this game. Each game then thinks with a search player of its own (``Games.new``)."""
        refuse_code(spec)  # a file's own code (its leaves scored by connectx:FILE): never here
        size = self._out_of_reach(game)
        if size is not None:
            raise QarenaError(
                _(
                    "the web app plays {spec} only within its budget ({size}); play it on "
                    "the command line: qarena play {spec} --opponent {player}"
                ).format(spec=game.spec, size=size, player=spec)
            )
        check_thinking(spec, game, is_policy_id)

        def evaluator_of(name: str) -> Player:
            # Loaded once and shared by every game (read-only), unlike the search itself.
            if name in SHIPPED_PLAYERS:
                return self.shipped(name, game)
            found = self.agent(name)
            if found.game.spec != game.spec:
                raise QarenaError(
                    _("policy {id} plays {game}, not {spec}").format(
                        id=name, game=found.game.spec, spec=game.spec
                    )
                )
            return found

        def make(seed: int | None) -> Player:
            return make_thinking(spec, game, seed, evaluator_of)

        def legend() -> str:
            return _(
                "Its values: each move's mean result over the simulations of its search that "
                "tried it, from -1 (a loss) to +1 (a win) for the AI."
            )

        first = make(None)  # made once now, so that a refusal comes before any game starts
        return Thinking(spec, game, make, self.live, words=thinking_words(first, legend))

    def perfect(self, game: Game, strongest: bool = True) -> OpponentPlayer:
        """Perfect play of ``game`` (at its strongest unless asked: the person-facing default,
        issue 36), kept per game: by search on the boards solved by search
        that the web offers it on (``searches.check_offered``), else from the enumerated
        solution, which the web app builds only within its budget. Its answers come from
        ``self.kept``, which holds the solutions within a bound on memory."""
        with self._lock:
            agent = self._perfect.get((game.spec, strongest))
            if agent is not None:
                self._perfect.move_to_end((game.spec, strongest))
                return agent
        size = self._out_of_reach(game)
        if size is not None:
            raise QarenaError(
                _(
                    "perfect play of {spec} needs its every position solved ({size}); "
                    "play it with qarena play {spec} --opponent perfect on the command line"
                ).format(spec=game.spec, size=size)
            )
        # The one resolution of a player, answering from the kept solutions.
        found = player(
            "strongest" if strongest else "perfect", game, solution=KeptSolution(game, self.kept)
        )
        assert isinstance(found, OpponentPlayer), found
        agent = found
        with self._lock:
            self._perfect[(game.spec, strongest)] = agent
            while len(self._perfect) > AGENT_CACHE:
                self._perfect.popitem(last=False)
        return agent

    def may_search(self, spec: str | None, opponent: str | None = None) -> bool:
        """Whether a new game of ``spec`` against ``opponent`` (perfect play unless asked)
        may search, so that its request goes through ``self.searches``. Reads the spec only."""
        if opponent is not None and is_thinking(opponent):
            return True  # it searches wherever it plays (on the search gate's threads)
        if spec is None or opponent == "trained" or opponent in SHIPPED_PLAYERS:
            return False
        try:
            return Oracle.of(self._parse(spec)).searched
        except QarenaError:
            return False

    def offers_beat(self, session: Session) -> bool:
        """Whether the game page offers "Show me how to beat it" against ``session``'s AI
        (``web.beating``): exact and quick only on a board enumerated within this server's
        budget, against an AI whose moves are the same whenever asked (a player that thinks
        searches anew in each game, with a seed of its own)."""
        if session.thinking or session.oracle.searched:
            return False
        return over_budget(session.game, self.limits) is None

    def searching(self, session: Session, hint: bool = False) -> bool:
        """Whether serving ``session`` may search: perfect play of a board solved by search,
        or the solver's verdicts shown there (``hint``: whatever is shown after a toggle)."""
        if session.thinking:
            return True  # its moves search, whatever the game
        return (session.perfect or session.show_hint or hint) and Oracle.of(session.game).searched

    def new_game_state(self, body: NewGame) -> dict[str, Any] | Job:
        """:meth:`start_game`, and the new game's state (a search when perfect play opens),
        within the move's time limit; a start given up leaves no game behind."""
        with bounded(self.limits.move_seconds):
            got = self.start_game(body)
            if isinstance(got, Job):
                return got
            try:
                return got.state()
            except BaseException:
                self.games.discard(got.id)
                raise

    def game_state(self, game_id: str, action: Callable[[Session], object]) -> dict[str, Any]:
        """``action`` on the game, then its state, within the move's time limit; given up
        midway (``searches.Busy``), the game is put back as it was before."""
        with self.games.playing(game_id) as session:
            before = session.snapshot()
            try:
                with bounded(self.limits.move_seconds):
                    action(session)
                    return session.state()
            except BaseException:
                session.restore(before)
                raise

    def agent_or_job(self, game: Game, first: str) -> Stored | Job:
        """The game's best stored agent; else the on-the-spot run training one, shared by
        everyone who asks meanwhile (started if there is none)."""
        row = None
        with self._spot_lock:
            # The run first, the store after: a run stores its policy before it is done, so
            # between the two looks a policy is never missed and never trained twice.
            job = self.jobs.spot_job(game)
            if job is None:
                row = self._stored(game)
                if row is None:
                    job = self.jobs.start(
                        request_run(game, SPOT_LEARNER, {}),
                        spot=Spot(first, self.limits.train_seconds),
                    )
        if row is not None:
            return self.agent(row.id)
        assert job is not None
        return job

    def start_game(self, body: NewGame) -> Session | Job:
        """A new game, or the on-the-spot run to wait for before there can be one."""
        agent: Opponent
        if body.policy is not None and body.opponent is not None and body.opponent != "trained":
            raise QarenaError(
                _("a policy plays as itself: give a policy or opponent {opponent}").format(
                    opponent=body.opponent
                )
            )
        if body.policy is not None:
            game = None if body.game is None else self.game(body.game, stored=True)
            agent = self.agent(body.policy)
            if game is not None and game.spec != agent.game.spec:
                raise QarenaError(
                    _("policy {id} plays {game}, not {spec}").format(
                        id=body.policy, game=agent.game.spec, spec=body.game
                    )
                )
        elif body.game is None:
            raise QarenaError(_("give a game spec, a policy id, or both"))
        else:
            got = self.opponent_for(body.game, body.first, body.opponent)
            if isinstance(got, Job):
                return got
            agent = got
        return self.games.new(agent, body.first, body.seed)

    def game_after(self, job: Job, body: NewGame) -> Session:
        """The game ``body`` asked for, once ``job`` (its on-the-spot run) has ended."""
        if job.state == "done" and job.policy is not None:
            return self.games.new(self.agent(job.policy), body.first, body.seed)
        if job.state in LIVE:
            raise Full(
                _("the agent for {spec} is still training; try again in a minute").format(
                    spec=job.game.spec
                )
            )
        raise QarenaError(_(job.error) if job.error else _("training failed"))

    def start_watch(self, a: str, b: str, spec: str, delay: float = 1.0) -> Watch:
        """Two players watched against each other: stored policies by id, or built-in players
        (random, perfect, strongest, the game's rule players) of the game ``spec`` names, which
        a policy overrides."""
        if delay not in DELAYS:
            shown = ", ".join(f"{d:g}" for d in DELAYS)
            raise QarenaError(
                _("the pause between moves is one of {shown} seconds, not {delay:g}").format(
                    shown=shown, delay=delay
                )
            )
        names = (a.strip(), b.strip())
        for name in names:
            refuse_code(name)  # a file's own code (connectx:FILE) never runs here
        agents = {
            i: self.agent(n)
            for i, n in enumerate(names)
            if n not in (*STRATEGIES, "network") and not is_thinking(n)
        }
        games = {x.game.spec for x in agents.values()}
        if len(games) > 1:
            first, second = games
            raise QarenaError(
                _("the two policies play different games: {a} and {b}").format(a=first, b=second)
            )
        if agents:
            game = next(iter(agents.values())).game
        elif Oracle.of(self._parse(spec)).searched:
            # Too big to enumerate, but the solver judges every move by search.
            game = self._parse(spec)
        else:
            game = self.game(spec)
        if Oracle.of(game).searched:
            # Every move of a duel is judged by search: only where the web answers in time.
            check_offered(game)
        # The solver's answers from the kept solutions, within their bound on memory.
        solution = KeptSolution(game, self.kept)
        players: list[Player] = []
        for i, name in enumerate(names):
            if i in agents:
                stored = agents[i]
                # Named by its policy id; its tables are shared, not copied.
                players.append(stored.seeded(None, name))
            elif name in SHIPPED_PLAYERS:
                players.append(self.shipped(name, game))
            elif is_thinking(name):
                # A search of its own for each seat of each duel, as for each game.
                players.append(self.thinking(name, game).fresh(None))
            else:
                if name not in players_of(game):
                    raise QarenaError(
                        _("{name} does not play {spec}").format(name=name, spec=game.spec)
                    )
                players.append(player(name, game, solution=solution))
        watch = Watch(game, players, delay=delay)
        watch.solution = solution
        return self.watches.add(watch)

    def _request(self, body: TrainIn) -> RunRequest:
        """The run a Train request asks for, checked as ``qarena train`` checks it (the one
        set-up, :func:`~qarena.training.run.request_run`: its preset filling every field not
        given, the learner kind's own refusals); then what is the web's: a learner that builds
        the game's tables trains only a game within this server's budget."""
        sent = body.model_fields_set
        # Under a preset, a field not sent is not given (the preset fills it); one sent is,
        # even at its default.
        run = {
            k: getattr(body, k) if body.preset is None or k in sent else None for k in RUN_FIELDS
        }
        settings = {s.name: getattr(body, s.name) for s in ALL_SETTINGS}
        request = request_run(
            self._parse(body.game),
            run["learner"],
            settings,
            preset=body.preset,
            opponent=run["opponent"],
            seat=run["seat"],
            episodes=run["episodes"],
            # Under a preset, not sent: the write-up's own table.
            canonical=body.canonical if body.preset is None or "canonical" in sent else None,
            until_perfect=body.until_perfect,
        )
        if request.tables:
            self.game(body.game)  # its tables are the game's: within the budget
        return request

    def check_training(self, body: TrainIn) -> None:
        """The checks of :meth:`start_training`, which start nothing (QarenaError when one
        fails)."""
        self.jobs.check(self._request(body))

    def start_training(self, body: TrainIn) -> Job:
        """A training run with the settings of ``qarena train``, checked as it checks them
        (:meth:`_request`), then the opponent, the episodes and the memory it takes here."""
        return self.jobs.start(self._request(body))


async def _the_web(request: Request) -> Web:
    web: Web = request.app.state.web
    return web


#: A route's parameter for the app's state.
WebDep = Annotated[Web, Depends(_the_web)]
