"""The one learner protocol: what every kind of learner offers, tables and networks alike.

A learner kind is a class meeting :class:`Trainable`, registered by its ``kind`` in
``learn.learners.LEARNERS``; the command line, the web app, the Python API and sweeps take it
from there (``training.run.plan_run`` sets a run up, ``train_run`` runs it in chunks,
``learners.load_learner`` reads its file by the file's kind). Two families meet it today:

- the table learners (``learn/tables/``, :class:`~qarena.learn.tables.base.Learner`): a value
  for every position of an enumerated game, judged over every position
  (``judging_family = "exact"``);
- n-tuple networks (``learn/ntuple/``): values from small tables over a board, judged along
  perfect-play games (``judging_family = "along_play"``), for boards too big for a table;
- the AlphaZero learner (``learn/alphazero/``): a policy-value network learning by self-play
  through its search, judged along perfect-play games too.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from qarena.errors import QarenaError
from qarena.games.base import Game
from qarena.i18n import _, gettext_noop, ngettext, number, option
from qarena.learn.curve import COLUMNS, CURVE_GAMES, JUDGED_COLUMNS, Curve

if TYPE_CHECKING:
    from qarena.learn.settings import TrainingSetting
    from qarena.learn.tables.base import Opponent


class Text:
    """A class's text for people, in the language of whoever reads it: a class attribute
    such as ``title = Text(gettext_noop("Q-learning"))`` reads as the translated text
    (``QLearner.title`` is "Q-learning" in English), looked up when it is read."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __get__(self, obj: object, owner: type | None = None) -> str:
        return _(self.message)


#: How a learner's curve is judged: over every position of its tables ("exact"), or along
#: games of perfect play, every move solved (``along_play``: any player can be).
JudgingFamily = Literal["exact", "along_play"]


class Trainable(ABC):
    """A learner kind. Class traits say what it is and how its runs go; instances learn."""

    #: Its name as data (files, URLs, the command line) and for people, in their language.
    kind: ClassVar[str]
    title: ClassVar[Text]
    #: The training settings it reads, by their declared names (``learn/settings.py``: the
    #: bounds, options and form fields are derived from the declaration).
    hyperparameters: ClassVar[tuple[str, ...]]
    #: The settings only it reads, declared with it (a kind registered from outside qarena:
    #: ``learners.register`` adds them to ``learn/settings.py``'s declaration, whence the
    #: command line's options, the API's keywords, the Train form's fields, a sweep's axes and
    #: its CSV columns). qarena's own kinds' are declared in ``learn/settings.py`` itself.
    settings: ClassVar[tuple[TrainingSetting, ...]] = ()
    #: Its judging family (``judging.family.family_of`` looks it up): how its curve is judged,
    #: and so what a point of it holds.
    judging_family: ClassVar[JudgingFamily] = "along_play"
    #: Games behind each point of its curve (per opponent, or of perfect play).
    curve_games: ClassVar[int] = CURVE_GAMES
    #: Points in a run's curve when its spacing is not given: one every run/this episodes.
    curve_points: ClassVar[int] = 100
    #: Episodes between two reports of progress, fixed (so one thread learns the same from
    #: the same seed however the run is watched); None: sized to about CHUNK_SECONDS.
    chunk: ClassVar[int | None] = None
    #: What it counts, as the command line's progress shows it: "episodes" or "games".
    unit: ClassVar[Literal["episodes", "games"]] = "episodes"
    #: Learns only by self-play (no --opponent, --seat, --no-canonical, --until-perfect).
    self_play_only: ClassVar[bool] = False
    #: Runs on several threads sharing what it learns (--workers).
    threaded: ClassVar[bool] = False
    #: Where it can play its games (``--backend``): here, and for some kinds a Ray cluster.
    backends: ClassVar[tuple[str, ...]] = ("local",)
    #: Keeps a value for every position, in a table (``qarena table --top`` and ``--csv``
    #: read it whole); any learner shows its values of one position's moves.
    keeps_table: ClassVar[bool] = False
    #: What its values of moves are called in a table's heading, in the reader's language.
    value_label: ClassVar[Text] = Text(gettext_noop("value"))

    game: Game
    config: Any
    #: Episodes learned so far, and those before this run (where schedules start again).
    episodes: int
    run_start: int
    #: Seconds of training so far (kernel calls only, not judging).
    seconds: float
    curve: Curve | None
    #: The preset a run started from (learn/presets.py), when one did.
    preset: dict[str, Any] | None

    @classmethod
    def curve_columns(cls) -> tuple[str, ...]:
        """The columns of its curve's points."""
        return COLUMNS if cls.judging_family == "exact" else JUDGED_COLUMNS

    # --- what a run of it takes (its traits answered here, so no caller reads them) ------
    @classmethod
    def takes(cls, flag: str) -> bool:
        """Whether the run option ``flag`` applies to it: a learner that learns only by
        self-play has no use for :data:`SELF_PLAY_REFUSES` (whom it plays, its seat, its kind
        of table, checks of its optimality)."""
        return not (cls.self_play_only and flag in SELF_PLAY_REFUSES)

    @classmethod
    def refuse_unused(cls, options: Iterable[tuple[str, bool]]) -> None:
        """Refuse, in one line, the first of a run's options given (``(flag, used)`` pairs)
        that it has no use for (:meth:`takes`)."""
        refuse_options(((flag, used and not cls.takes(flag)) for flag, used in options), cls.kind)

    @classmethod
    def run_threads(cls, workers: int | None, cores: int) -> int:
        """The threads a run of it takes: ``workers`` (default: every one of ``cores``) for a
        kind that runs on threads, else one."""
        return (workers or cores) if cls.threaded else 1

    @classmethod
    def refuse_workers(cls, workers: int | None, kinds: Iterable[type[Trainable]]) -> None:
        """Refuse, in one line, ``workers`` given for a kind that runs on one thread, naming
        those of ``kinds`` that run on threads."""
        if workers is not None and not cls.threaded:
            threaded = [k.kind for k in kinds if k.threaded]
            raise QarenaError(
                _("{flag} applies to {learners} only").format(
                    flag=option("--workers"), learners="--learner " + _(" or ").join(threaded)
                )
            )

    @classmethod
    def reproducible_options(cls) -> tuple[str, ...]:
        """The command line's options that make its run give the same file from the same
        seed: one thread, for a kind that runs on threads."""
        return ("--workers", "1") if cls.threaded else ()

    # --- settings -------------------------------------------------------------------------
    @classmethod
    @abstractmethod
    def default_config(cls, game: Game | None = None, **overrides: Any) -> Any:
        """Its settings unless told, for ``game`` when they depend on it."""

    @classmethod
    @abstractmethod
    def build_config(cls, given: Mapping[str, Any], base: Any = None) -> Any:
        """``base`` (default: the defaults) with the settings ``given`` (None: not given),
        each checked against its declaration; a setting it does not read is refused."""

    @classmethod  # noqa: B027 - a hook; tables are checked when built
    def check_fits(cls, config: Any, game: Game | None = None) -> None:
        """Refuse, before anything is allocated, settings whose model (for ``game``, where
        its size depends on the board) passes the memory budget (a network's tables)."""

    @classmethod  # noqa: B027 - a hook: most kinds learn any game
    def check_game(cls, game: Game) -> None:
        """Refuse, in one line, a game this kind cannot learn (a network: not a board)."""

    @classmethod
    def model_bytes(cls, config: Any, game: Game | None = None) -> int:
        """Bytes of the model ``config`` shapes (for ``game``, where its size depends on the
        board), besides the game's tables (a network's)."""
        return 0

    @classmethod
    def default_length(cls, game: Game) -> int | None:
        """A run's default length on ``game`` known from the game alone (None: the learner
        says it once built, :meth:`default_episodes`)."""
        return None

    @classmethod
    def fixed_settings(cls) -> tuple[str, ...]:
        """Settings a resumed run keeps from its file (a network's shape and seed)."""
        return ()

    # --- making and reading ---------------------------------------------------------------
    @classmethod
    @abstractmethod
    def create(cls, game: Game, config: Any) -> Self:
        """A new learner of ``game`` with the settings ``config``, nothing learned yet."""

    @classmethod
    @abstractmethod
    def read(
        cls,
        path: str | os.PathLike[str],
        meta: Mapping[str, Any],
        game: Game | None = None,
        budget: int | None = None,
    ) -> Self:
        """The learner in the file ``path`` (whose metadata is ``meta``), of ``game`` when
        given, within the memory ``budget`` (default: the machine's)."""

    @classmethod
    def file_kind(cls, meta: Mapping[str, Any]) -> str | None:
        """The kind a file's metadata names: a network's ``kind``, a table's ``learner``."""
        kind = meta.get("kind", meta.get("learner"))
        return kind if isinstance(kind, str) else None

    @abstractmethod
    def save(
        self,
        path: str | os.PathLike[str],
        inputs: Iterable[str | os.PathLike[str]] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Write it to a file, atomically (``inputs``, files the command read, are never
        overwritten; ``extra`` joins its metadata)."""

    @abstractmethod
    def to_bytes(self, extra: Mapping[str, Any] | None = None) -> bytes:
        """Its file as bytes (a sweep's run), ``extra`` joining its metadata."""

    # --- training -------------------------------------------------------------------------
    @abstractmethod
    def default_episodes(self, self_play: bool = True) -> int:
        """A run's length unless told, scaled to its game."""

    @abstractmethod
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
        """``episodes`` more of a run of ``total`` (schedules go over the run); returns the
        moves made. A learner that looks at ``should_stop`` within a chunk counts only the
        episodes it played (:attr:`episodes`)."""

    def use_backend(self, backend: str, address: str | None = None) -> None:  # noqa: B027 - a hook
        """Play its games on ``backend`` (one of :attr:`backends`; "ray": the cluster at
        ``address``, or a local one) from now on."""

    def check_room(self, episodes: int, name: str | None = None) -> None:  # noqa: B027 - a hook
        """Refuse, in one line, a run whose count would pass the most a file holds."""

    @abstractmethod
    def warm_up(self) -> None:
        """Compile (or load the cached) kernels without learning, so timing excludes it."""

    def summary(self) -> list[tuple[str, str]]:
        """Rows (label, text, for people) a run's summary shows about the learner itself."""
        return []

    def shape(self) -> dict[str, Any]:
        """Its size as data, for a run's JSON record (a network's tuples and their length)."""
        return {}

    def describe_value(self, value: float) -> str:
        """One of its values of a move in a sentence (``value +0.8100``); table learners name
        theirs (``learned value +0.8100``, the matchbox learner's ``allowed``)."""
        return _("value {value}").format(value=number(value, "+.4f"))

    def hyperparameter_values(self) -> dict[str, Any]:
        """Its settings by name, as its file and pages show them."""
        full = self.config.to_dict()
        return {name: full[name] for name in self.hyperparameters if name in full}

    # --- what people are told about it ----------------------------------------------------
    def trained_count(self) -> str:
        """How much it learned, in its unit: "2,000 episodes", "5,000 games of self-play"."""
        n = self.episodes
        if self.unit == "games":
            text = ngettext("{count:,} game of self-play", "{count:,} games of self-play", n)
        else:
            text = ngettext("{count:,} episode", "{count:,} episodes", n)
        return text.format(count=n)

    def loaded_text(self, file: str, share: float | None = None) -> str:
        """What ``qarena play FILE`` says it loaded: its game, its file, how much it learned
        (and, given ``share`` — ``judging.family.exact_share``, for a learner judged over
        every position — how well it plays)."""
        return _("Loaded an agent for {spec} from {file}: {learner}, {trained}.").format(
            spec=self.game.spec, file=file, learner=self.title, trained=self.trained_count()
        )

    def trained_text(self, share: float | None = None) -> str:
        """How it learned and how well it plays, as a stored policy's page says it
        (``share``: ``judging.family.exact_share``'s answer, for a learner judged over every
        position; the store keeps it)."""
        return _(
            "{trained}. Its optimality is not judged here: qarena eval FILE judges it."
        ).format(trained=self.trained_count())

    def opponent_text(self) -> str:
        """What a person playing against it in the browser is told of it, when it is not a
        stored policy of theirs to link to (a shipped network, a learner that plays as
        itself)."""
        return _("Opponent: {learner}, {trained}.").format(
            learner=self.title, trained=self.trained_count()
        )

    # --- as its player is kept loaded -----------------------------------------------------
    @property
    def learner(self) -> Trainable:
        """The learner its player plays from: a learner that plays as itself is its own."""
        return self

    def connectx_source(self, book: bool = False) -> str:
        """It as one Python file that Kaggle's ConnectX runs without qarena (``qarena export
        --connectx``), with the opening book of its board when ``book``; a kind that cannot
        be one refuses in one line (only an n-tuple network of Connect Four can)."""
        raise QarenaError(
            _(
                "{learner} cannot be exported to Kaggle's ConnectX: only an n-tuple network of "
                "Connect Four can"
            ).format(learner=self.title)
        )

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays it holds (each counted once): what keeping it loaded costs."""
        import numpy as np

        arrays = {id(a): a for a in vars(self).values() if isinstance(a, np.ndarray)}
        return sum(int(a.nbytes) for a in arrays.values())


#: The run options a learner that learns only by self-play has no use for.
SELF_PLAY_REFUSES = frozenset(
    {"--opponent", "--seat", "--no-canonical", "--until-perfect", "--check-every"}
)


def refuse_options(options: Iterable[tuple[str, bool]], learner: str = "") -> None:
    """Refuse, in one line, the first of the options given (``(flag, used)`` pairs) that a
    learner which learns only by self-play (``learner``, its title) has no use for."""
    for flag, used in options:
        if used:
            raise QarenaError(
                _(
                    "{flag} does not apply to the {learner} learner, which learns by self-play "
                    "and is judged along perfect-play games ({curve})"
                ).format(flag=option(flag), learner=learner, curve=option("--curve"))
            )


__all__ = ["SELF_PLAY_REFUSES", "JudgingFamily", "Text", "Trainable", "refuse_options"]
