"""The AlphaZero learner (``--learner alphazero``): a policy-value network (``net.py``)
learning from its own games, played through its search (``search.py``), in the synchronous
rhythm AlphaZero.jl uses on one machine — a chunk of games of self-play, then learning from a
replay buffer of the latest positions — so that a seed learns the same network however it is
watched, and the two phases never compete for the cores.

:class:`~qarena.learn.alphazero.loop.SelfPlayLearning` is the loop (``loop.py``);
:class:`AlphaZeroLearner` the learner kind and the player it plays as
(:mod:`~qarena.learn.alphazero.player`: greedily from its policy head; ``mcts:N:FILE`` searches
with it)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from qarena import threads
from qarena.budget import check_count, format_bytes, memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.games.base import BoardGrid, Game
from qarena.i18n import _, gettext_noop, ngettext
from qarena.learn.alphazero.files import KIND
from qarena.learn.alphazero.loop import ChunkReport, LearningSettings, SelfPlayLearning
from qarena.learn.alphazero.net import (
    Moments,
    PolicyValueNet,
    param_count,
    torch_module,
)
from qarena.learn.alphazero.player import AlphaZeroEvaluator, AlphaZeroPlays
from qarena.learn.alphazero.search import SearchSettings
from qarena.learn.alphazero.workers import RaySelfPlay, SelfPlayPool, Workers
from qarena.learn.curve import Curve
from qarena.learn.family import JudgingFamily, Text, Trainable

if TYPE_CHECKING:
    from qarena.learn.tables.base import Opponent


#: Games of self-play in one chunk: played in lockstep (one batched evaluation a simulation
#: step for all of them), then learned from. Fixed, so a seed learns the same network however
#: the run is watched.
CHUNK = 32
#: Games behind each point of its curve (of perfect play, and as many against it).
JUDGED_GAMES = 20
#: Games a run learns unless told: this many times the square of the board's cells (60,000 on
#: Connect Four 4×5, within half an hour on two cores: BENCHMARKS.md), at most
#: :data:`MOST_DEFAULT_GAMES`.
GAMES_PER_CELL_SQUARED = 150
MOST_DEFAULT_GAMES = 100_000
#: The most games a network counts as learned.
MOST_GAMES = 2**62 - 1
#: What PyTorch's runtime takes once imported (about 240 MB of peak RSS measured with qarena
#: loaded, on one thread), counted in a run's memory.
TORCH_BYTES = 256 * 2**20


@dataclass(frozen=True)
class AlphaZeroConfig:
    """How the learner is shaped and learns: a residual network of ``blocks`` blocks of
    ``channels`` channels (its first weights drawn from ``seed``, as is its self-play);
    ``simulations`` of PUCT search a move of self-play; Adam's step size ``alpha``; each game
    of self-play opening with 0 to ``opening`` random moves it does not learn from. The rest
    (exploration, noise, temperature, the buffer and batches) are :class:`SearchSettings`'
    and :class:`LearningSettings`' defaults."""

    channels: int = 64
    blocks: int = 3
    simulations: int = 32
    alpha: float = 1e-3
    opening: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        from qarena.learn.settings import check_config  # the declaration imports this module

        for name in ("channels", "blocks", "simulations", "opening", "seed"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise QarenaError(_("training settings are malformed ({problem})").format(
                    problem=name))  # fmt: skip
        check_config(self, tuple(f.name for f in fields(self)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def search(self) -> SearchSettings:
        return SearchSettings(simulations=self.simulations, opening=self.opening)

    @property
    def learning(self) -> LearningSettings:
        return LearningSettings(alpha=self.alpha, seed=self.seed)

    @classmethod
    def build(
        cls, given: Mapping[str, Any], base: AlphaZeroConfig | None = None
    ) -> AlphaZeroConfig:
        """``base`` (default: the defaults) with the settings given (None: not given); a
        setting it does not use is refused in the command line's words."""
        from qarena.learn.settings import build_config  # the declaration imports this module

        return build_config(cls, given, base, KIND)


#: The most random opening moves a game of self-play opens with unless told (the setting's
#: bound).
MOST_OPENING = 100


def default_opening(game: Game) -> int:
    """Random opening moves a game of self-play on ``game`` opens with at most, unless told:
    the board's cells (at most :data:`MOST_OPENING`); a random opening stops before a move
    that would end the game."""
    return min(MOST_OPENING, len(game.start()))


def _board_of(game: Game) -> BoardGrid:
    grid = game.grid
    if grid is None:
        raise QarenaError(
            _("the AlphaZero learner plays board games (tic-tac-toe, Connect Four), not {spec}")
            .format(spec=game.spec)
        )  # fmt: skip
    return grid


@dataclass
class AlphaZeroLearner(Trainable, AlphaZeroPlays):
    """A policy-value network for one board learning by self-play through its search: a
    learner kind (``--learner alphazero``) and the player it plays as, the move its policy
    head ranks highest (:class:`~qarena.learn.alphazero.player.AlphaZeroPlays`)."""

    kind: ClassVar[str] = KIND
    title: ClassVar[Text] = Text(gettext_noop("AlphaZero"))
    hyperparameters: ClassVar[tuple[str, ...]] = (
        "channels", "blocks", "simulations", "alpha", "opening", "seed",
    )  # fmt: skip
    judging_family: ClassVar[JudgingFamily] = "along_play"
    curve_games: ClassVar[int] = JUDGED_GAMES
    curve_points: ClassVar[int] = 10
    chunk: ClassVar[int | None] = CHUNK
    unit: ClassVar[Literal["episodes", "games"]] = "games"
    self_play_only: ClassVar[bool] = True
    #: Plays its games on several cores (--workers: processes, each playing a share of a
    #: chunk's games with the latest weights; the learning stays in this process).
    threaded: ClassVar[bool] = True
    backends: ClassVar[tuple[str, ...]] = ("local", "ray")
    value_label: ClassVar[Text] = Text(gettext_noop("prior"))

    game: Game
    net: PolicyValueNet
    config: AlphaZeroConfig = field(default_factory=AlphaZeroConfig)
    name: str = "alphazero"
    games: int = 0
    seconds: float = 0.0
    curve: Curve | None = None
    run_start: int = 0
    preset: dict[str, Any] | None = None
    #: The replay buffer's positions and Adam's state read from its file, until the loop
    #: takes them.
    kept: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    moments_kept: Moments | None = field(default=None, repr=False)
    _loop: SelfPlayLearning | None = field(default=None, repr=False)
    _pool: Workers | None = field(default=None, repr=False)
    #: Where its games are played (``use_backend``): "local", or "ray" at ``ray_address``.
    backend: str = field(default="local", repr=False)
    ray_address: str | None = field(default=None, repr=False)

    # --- as a learner kind (learn/family.py) --------------------------------------------

    @property
    def episodes(self) -> int:
        """Games learned so far: a game of self-play is its episode."""
        return self.games

    @episodes.setter
    def episodes(self, value: int) -> None:
        self.games = value

    @classmethod
    def default_config(cls, game: Game | None = None, **overrides: Any) -> AlphaZeroConfig:
        """Its settings for ``game`` unless told: games of self-play open with up to as many
        random moves as the board has cells (the games then pass through positions at every
        depth, which the exact judge asks about: on Connect Four 4×5, 0.80 of all decision
        positions kept after 5 minutes against 0.56 without; BENCHMARKS.md)."""
        base = AlphaZeroConfig() if game is None else AlphaZeroConfig(opening=default_opening(game))
        return replace(base, **overrides) if overrides else base

    @classmethod
    def build_config(cls, given: Mapping[str, Any], base: Any = None) -> AlphaZeroConfig:
        return AlphaZeroConfig.build(given, base)

    @classmethod
    def check_game(cls, game: Game) -> None:
        _board_of(game)

    @classmethod
    def model_bytes(cls, config: Any, game: Game | None = None) -> int:
        from qarena.learn.alphazero.files import buffer_bytes, load_bytes

        if game is None or game.grid is None:
            return TORCH_BYTES
        weights = param_count(game.grid, config.channels, config.blocks)
        buffer = buffer_bytes(game.grid, LearningSettings.buffer)
        learner = TORCH_BYTES + load_bytes(weights) + buffer
        # Each worker process (one per core unless told) holds PyTorch and the weights twice.
        workers = len(os.sched_getaffinity(0))
        return learner + workers * (TORCH_BYTES + 2 * 4 * weights)

    @classmethod
    def check_fits(cls, config: Any, game: Game | None = None) -> None:
        need, most = cls.model_bytes(config, game), memory_budget()
        if need > most:
            raise TooLargeError(
                _(
                    "a network of {blocks} blocks of {channels} channels needs {need} to learn, "
                    "more than this machine can spare ({budget})"
                ).format(
                    blocks=config.blocks,
                    channels=config.channels,
                    need=format_bytes(need),
                    budget=format_bytes(most),
                )
            )

    @classmethod
    def default_length(cls, game: Game) -> int | None:
        return min(MOST_DEFAULT_GAMES, GAMES_PER_CELL_SQUARED * len(game.start()) ** 2)

    @classmethod
    def fixed_settings(cls) -> tuple[str, ...]:
        return ("channels", "blocks", "seed")

    @classmethod
    def create(cls, game: Game, config: Any) -> AlphaZeroLearner:
        grid = _board_of(game)
        cls.check_fits(config, game)
        net = PolicyValueNet.new(grid, config.channels, config.blocks, config.seed)
        return cls(game, net, config)

    @classmethod
    def read(
        cls,
        path: str | os.PathLike[str],
        meta: Mapping[str, Any],
        game: Game | None = None,
        budget: int | None = None,
    ) -> AlphaZeroLearner:
        from qarena.learn.alphazero.files import load_net

        p = os.fspath(path)
        loaded = load_net(p, game, budget)
        found = loaded.meta

        def damaged(what: str) -> QarenaError:
            return QarenaError(_("{file} is damaged: {what}").format(file=p, what=what[:200]))

        settings = found.get("settings", {})
        if not isinstance(settings, dict):
            raise damaged(_("its settings are malformed"))
        try:
            config = AlphaZeroConfig.build(settings)
        except QarenaError as e:
            raise damaged(str(e)) from None
        if (config.channels, config.blocks) != (loaded.net.channels, loaded.net.blocks):
            raise damaged(_("its settings do not match its network"))
        games, seconds = found.get("games", 0), found.get("seconds", 0.0)
        if not isinstance(games, int) or isinstance(games, bool) or not 0 <= games <= MOST_GAMES:
            raise damaged(_("its count of games is not a count"))
        real = isinstance(seconds, int | float) and not isinstance(seconds, bool)
        if not real or not math.isfinite(seconds) or seconds < 0:
            raise damaged(_("its training time is not a number of seconds"))
        learner = cls(loaded.game, loaded.net, config, games=games, run_start=games)
        learner.seconds = float(seconds)
        learner.kept, learner.moments_kept = loaded.buffer, loaded.moments
        if "curve" in found:
            try:
                learner.curve = Curve.from_json(found["curve"], cls.curve_columns())
            except QarenaError as e:
                raise damaged(str(e)) from None
        return learner

    def _meta(self, extra: Mapping[str, Any] | None) -> dict[str, Any]:
        return {
            **(extra or {}),
            "games": self.games,
            "settings": self.config.to_dict(),
            "seconds": round(self.seconds, 3),
            **({"curve": self.curve.to_json()} if self.curve is not None else {}),
            **({"preset": self.preset} if self.preset is not None else {}),
        }

    def _buffer(self) -> dict[str, np.ndarray]:
        return self._loop.buffer_arrays() if self._loop is not None else self.kept

    def _moments(self) -> Moments | None:
        return self._loop.moments() if self._loop is not None else self.moments_kept

    def save(
        self,
        path: str | os.PathLike[str],
        inputs: Iterable[str | os.PathLike[str]] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        from qarena.learn.alphazero.files import save_net

        save_net(
            path, self.game, self.net, self._meta(extra), inputs, self._buffer(), self._moments()
        )

    def to_bytes(self, extra: Mapping[str, Any] | None = None) -> bytes:
        from qarena.learn.alphazero.files import net_bytes

        return net_bytes(self.game, self.net, self._meta(extra), self._buffer(), self._moments())

    def default_episodes(self, self_play: bool = True) -> int:
        found = self.default_length(self.game)
        assert found is not None
        return found

    def check_room(self, games: int, name: str | None = None) -> None:
        if self.games + games > MOST_GAMES:
            raise QarenaError(
                _(
                    "{network} has learned {games:,} games; {more:,} more would pass the most a "
                    "network counts ({most:,})"
                ).format(
                    network=name or _("the network"), games=self.games, more=games, most=MOST_GAMES
                )
            )

    def shape(self) -> dict[str, Any]:
        return {"channels": self.net.channels, "blocks": self.net.blocks,
                "weights": int(self.net.weights.size)}  # fmt: skip

    def summary(self) -> list[tuple[str, str]]:
        return [
            (
                _("network"),
                ngettext(
                    "{blocks} residual block of {channels} channels, {weights:,} weights; "
                    "{simulations} simulations a move of self-play",
                    "{blocks} residual blocks of {channels} channels, {weights:,} weights; "
                    "{simulations} simulations a move of self-play",
                    self.net.blocks,
                ).format(
                    blocks=self.net.blocks,
                    channels=self.net.channels,
                    weights=int(self.net.weights.size),
                    simulations=self.config.simulations,
                ),
            )
        ]

    def loaded_text(self, file: str, share: float | None = None) -> str:
        return _(
            "Loaded an AlphaZero network for {spec} from {file} ({count:,} games of self-play)."
        ).format(spec=self.game.spec, file=file, count=self.games)

    def opponent_text(self) -> str:
        return ngettext(
            "Opponent: an AlphaZero network that learned the game by self-play through its "
            "search, in {count:,} game.",
            "Opponent: an AlphaZero network that learned the game by self-play through its "
            "search, in {count:,} games.",
            self.games,
        ).format(count=self.games)

    def train_chunk(
        self,
        episodes: int,
        total: int,
        *,
        opponent: Opponent | None = None,
        seat: str = "both",
        workers: int = 1,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        """``episodes`` more games of self-play, learned from in chunks of :data:`CHUNK`,
        played on ``workers`` processes (one: in this process); returns the moves made (the
        positions searched).

        ``should_stop`` (and any stop of the caller's :func:`threads.limit`) is looked at
        throughout, within a fraction of a second on the default network: in the games' every
        simulation step, in the workers' wait (which ends them), and between learning steps.
        Games under way then are dropped; the games learned from before are kept."""
        check_count("games", episodes, 10**10)
        self.check_room(episodes)
        loop = self.loop()
        moves = 0
        stopped = False
        with threads.limit(should_stop=should_stop):
            try:
                pool = self.pool(workers)
                while episodes > 0:
                    n = min(CHUNK, episodes)
                    report = loop.play_and_learn(n, pool)
                    self.games = loop.games
                    moves += report.positions
                    episodes -= n
                    if threads.limit_reached() is not None:
                        stopped = True
                        break
            except threads.Stopped:
                stopped = True  # within a chunk's games: they are dropped
        if stopped or self.games - self.run_start >= total:
            self.close()  # the run is over: its workers end with it
        return moves

    def use_backend(self, backend: str, address: str | None = None) -> None:
        if (backend, address) != (self.backend, self.ray_address):
            self.close()
        self.backend, self.ray_address = backend, address

    def pool(self, workers: int) -> Workers | None:
        """The workers its games are played on (None: one worker, in this process), started
        on first use and kept for the run: processes here, or Ray actors."""
        if workers <= 1 and self.backend == "local":
            self.close()
            return None
        if self._pool is None or self._pool.workers != workers:
            self.close()
            if self.backend == "ray":
                self._pool = RaySelfPlay(workers, self.ray_address)
            else:
                self._pool = SelfPlayPool(workers)
        return self._pool

    def close(self) -> None:
        """End its worker processes, if it has any (a run's end does)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def loop(self) -> SelfPlayLearning:
        """The self-play loop it learns with (made when it first learns; a resumed file's
        buffer refilled)."""
        c = self.config
        if self._loop is None or self._loop.search != c.search or self._loop.learning != c.learning:
            old, moments = self._buffer(), self._moments()
            self._loop = SelfPlayLearning(self.game, self.net, c.search, c.learning, self.games)
            self._loop.restore(old)
            self._loop.moments_kept = moments  # Adam goes on where it stopped
            self.kept, self.moments_kept = {}, None
        return self._loop

    def warm_up(self) -> None:
        """Import PyTorch, so timing excludes it."""
        torch_module()

    def __repr__(self) -> str:
        return (
            f"AlphaZeroLearner({self.game.spec}, {self.net.blocks} blocks of "
            f"{self.net.channels} channels, games={self.games:,}, seed={self.config.seed})"
        )

    @property
    def nbytes(self) -> int:
        """Bytes its weights take, flat and in the module, and its replay buffer."""
        found = 2 * int(self.net.weights.nbytes)
        return found + sum(int(a.nbytes) for a in self._buffer().values())


__all__ = [
    "AlphaZeroConfig",
    "AlphaZeroEvaluator",
    "AlphaZeroLearner",
    "ChunkReport",
    "LearningSettings",
    "SelfPlayLearning",
]
