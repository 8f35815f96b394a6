"""The write-ups' presets, as data: one :class:`~qarena.learn.preset_types.Preset` per method of
a write-up qarena grew from, each value with the write-up's lines it comes from (a
:class:`~qarena.learn.preset_types.Source` each). ``learn/presets.py`` finds them by name and
applies them.
"""

from __future__ import annotations

from typing import Any

from qarena.i18n import gettext_noop
from qarena.learn.preset_types import Preset, Source

#: The course's Q-learning (002's notebook and 004's solution share its code): learning rate
#: 0.5, ε 0.1 throughout, no discount, rewards 1 and -1, every game from the opening.
_COURSE: tuple[tuple[str, Any], ...] = (
    ("alpha", 0.5),
    ("gamma", 1.0),
    ("epsilon", 0.1),
    ("epsilon_end", 0.1),
    ("schedule", "constant"),
    ("rewards", (1.0, 0.0, -1.0)),
    ("initial", 0.0),
    ("starts", 0.0),
)

# Where qarena's reading of a write-up is an interpretation: the notes ``qarena presets NAME``
# shows beside the lines. Each write-up's lines follow, one per value; ``written`` is the value
# as the write-up writes it there (tests/test_presets.py finds it on each line cited).
_NO_DISCOUNT = gettext_noop("no discount factor in its update: γ 1")
_CONSTANT = gettext_noop("ε never changes while it trains")
_NO_DRAWS = gettext_noop("nim has no draws: the draw's reward is never paid")
_OPENING = gettext_noop("every game from the start position: no exploring starts")
_NO_COUNT = gettext_noop("the write-up gives no number of games: qarena's default")
_SEAT_Q = gettext_noop(
    "one table for both players; a move is updated when its player is next to move, toward "
    "the best value there (qarena's seat-q)"
)
_BY_POSITION = gettext_noop(
    "keyed by the piles as they lie: one entry per position (qarena's merged table: --canonical)"
)

_PAPER: tuple[Source, ...] = (
    Source("game", (35, 236), ("letzte Streichholz", "3, 5, 7"), gettext_noop("misère")),
    Source("learner", (362, 365), ("gegen sich selbst", "NimAI()"), _SEAT_Q),
    Source("alpha", (290,), ("learningrate=0.1",)),
    Source("gamma", (290,), ("discount=0.8",)),
    Source("epsilon", (290,), ("epsilon=0.1",)),
    Source("epsilon_end", (290,), ("epsilon=0.1",), _CONSTANT),
    Source("schedule", (341,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (397, 402), ("-100", "100"), _NO_DRAWS),
    Source("initial", (309,), ("Q = 0",)),
    Source("starts", (371,), ("Nim(startboard)",), _OPENING),
    Source("opponent", (362,), ("gegen sich selbst",)),
    Source("episodes", (486,), ("100000",)),
    Source(
        "canonical",
        (93, 136, 310),
        ("Dubletten", "realitätsgetreu", "tuple(state)"),
        gettext_noop(
            "it weighs sorting the piles, which would merge their orders (line 93), and keeps "
            "them as they lie: one entry per position (qarena's merged table: --canonical)"
        ),
    ),
)

_TWELVE_STICKS = Source("game", (4,), ("zwölf", "ein bis drei"))
_ONE_HEAP = Source("canonical", (4,), ("einen Haufen",), gettext_noop("one heap: nothing to merge"))
_PICKS_AT_RANDOM = gettext_noop(
    "no exploration: a move is picked at random among those not taken out"
)
_NIMM: tuple[Source, ...] = (
    Source("epsilon", (16,), ("zufälligen Zug",), _PICKS_AT_RANDOM),
    Source("epsilon_end", (16,), ("zufälligen Zug",), _PICKS_AT_RANDOM),
    Source("schedule", (16,), ("zufälligen Zug",), _PICKS_AT_RANDOM),
    Source("starts", (4,), ("zwölf",), _OPENING),
    Source(
        "opponent",
        (17, 27),
        ("trainiert mit random_move",),
        gettext_noop("the first of its four pairings of trainer and judge"),
    ),
    Source("seat", (13,), ("ersten Zug",)),
    Source("episodes", (), (), _NO_COUNT),
    _ONE_HEAP,
)

_NOTEBOOK: tuple[Source, ...] = (
    Source(
        "game",
        (41, 103),
        ("1, 3, 5, 7", "self.winner = self.player"),
        gettext_noop("misère, as its code plays it, though line 12 leaves misère aside"),
    ),
    Source("learner", (226, 229), ("against itself", "NimAI()"), _SEAT_Q),
    Source("alpha", (126,), ("alpha=0.5",)),
    Source("gamma", (168,), ("reward + future_rewards",), _NO_DISCOUNT),
    Source("epsilon", (126,), ("epsilon=0.1",)),
    Source("epsilon_end", (126,), ("epsilon=0.1",), _CONSTANT),
    Source("schedule", (216,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (260, 265), ("-1", "1"), _NO_DRAWS),
    Source("initial", (164,), ("return 0",)),
    Source("starts", (234,), ("Nim()",), _OPENING),
    Source("opponent", (226,), ("against itself",)),
    Source("episodes", (121, 221), ("10000",)),
    Source("canonical", (133, 162), ("tuple of remaining piles", "tuple(state)"), _BY_POSITION),
)

_BLOG_STEP = gettext_noop(
    "its step is 0.1·α (line 235); train() passes step_size=, which the constructor (line "
    "199) does not take: read as α, the step is 0.1 times it"
)
_BLOG: tuple[Source, ...] = (
    Source("game", (18, 19), ("ZEILEN = 3", "SPALTEN = 3")),
    Source(
        "learner",
        (233, 235, 236),
        ("reversed", "td_error"),
        gettext_noop("every position of a game moved toward the next at its end, last first"),
    ),
    Source("alpha", (199, 235, 360), ("alpha=0.1", "0.1", "0.99"), _BLOG_STEP),
    Source("alpha_second", (235, 361), ("0.1", "0.8"), _BLOG_STEP),
    Source("gamma", (235,), ("self.q[states[i + 1]]",), _NO_DISCOUNT),
    Source("epsilon", (360,), ("epsilon=0.5",)),
    Source("epsilon_second", (361,), ("epsilon=0.2",)),
    Source("epsilon_end", (360,), ("epsilon=0.5",), _CONSTANT),
    Source("schedule", (249,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (190, 191, 192), ("1", "0.5", "0")),
    Source("initial", (193,), ("0.25",)),
    Source("starts", (338,), ("Status()",), _OPENING),
    Source(
        "opponent",
        (360, 361),
        ("KI(",),
        gettext_noop("its two agents play each other: self-play, each seat with its own α and ε"),
    ),
    Source("episodes", (428, 431), ("50000",)),
    Source(
        "canonical",
        (34, 51),
        ("eindeutiger Hashwert", "hash_wert * 3"),
        gettext_noop(
            "each board its own number: mirror images apart (qarena's merged table: --canonical)"
        ),
    ),
)

_CS50: tuple[Source, ...] = (
    Source("game", (14, 76), ("1, 3, 5, 7", "self.winner = self.player"), gettext_noop("misère")),
    Source("learner", (199, 202), ("against itself", "NimAI()"), _SEAT_Q),
    Source("alpha", (81,), ("alpha=0.5",)),
    Source("gamma", (133,), ("reward + future_rewards",), _NO_DISCOUNT),
    Source("epsilon", (81,), ("epsilon=0.1",)),
    Source("epsilon_end", (81,), ("epsilon=0.1",), _CONSTANT),
    Source("schedule", (182,), ("self.epsilon",), _CONSTANT),
    Source("rewards", (233, 239), ("-1", "1"), _NO_DRAWS),
    Source("initial", (112,), (", 0)",)),
    Source("starts", (207,), ("Nim()",), _OPENING),
    Source("opponent", (199,), ("against itself",)),
    Source("episodes", (), (), _NO_COUNT),
    Source(
        "canonical",
        (88, 112, 368),
        ("tuple of remaining piles", "tuple(state)", "по порядку"),
        _BY_POSITION,
    ),
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "advanced-nim",
        "000",
        "Advanced Nim",
        "German",
        "nim:3,5,7",
        "seat-q",
        gettext_noop(
            "The term paper's Q-learning on 3-5-7 nim (misère): one table for both players, "
            "learning rate 0.1, discount 0.8, ε 0.1 throughout, rewards 100 and -100, "
            "100,000 games of self-play."
        ),
        (
            ("alpha", 0.1),
            ("gamma", 0.8),
            ("epsilon", 0.1),
            ("epsilon_end", 0.1),
            ("schedule", "constant"),
            ("rewards", (100.0, 0.0, -100.0)),
            ("initial", 0.0),
            ("starts", 0.0),
        ),
        episodes=100_000,
        sources=_PAPER,
    ),
    Preset(
        "nimm12-first",
        "001",
        "Nimm-Spiel (erste Version)",
        "German",
        "subtraction:12:3",
        "elimination",
        gettext_noop(
            "The 12-stick write-up's first version: after a lost game the last move is "
            "taken out, moves are picked at random among the rest, no exploration; it moves "
            "first and trains against random play (the write-up gives no number of games: "
            "qarena's default)."
        ),
        (("epsilon", 0.0), ("epsilon_end", 0.0), ("schedule", "constant"), ("starts", 0.0)),
        opponent="random",
        seat="first",
        sources=(
            _TWELVE_STICKS,
            Source("learner", (16,), ("letzten Zug",)),
            *_NIMM,
        ),
    ),
    Preset(
        "nimm12-better",
        "001",
        "Nimm-Spiel (bessere KI)",
        "German",
        "subtraction:12:3",
        "chain-elimination",
        gettext_noop(
            "The 12-stick write-up's better version: losing moves taken out, and a position "
            "whose moves all lose takes the move before it along (qarena's chain-elimination "
            "learner: matchbox without its known win played first); it moves first and trains "
            "against random play (the write-up gives no number of games: qarena's default)."
        ),
        (("epsilon", 0.0), ("epsilon_end", 0.0), ("schedule", "constant"), ("starts", 0.0)),
        opponent="random",
        seat="first",
        sources=(
            _TWELVE_STICKS,
            Source(
                "learner",
                (26,),
                ("alle Züge verlierend",),
                gettext_noop(
                    "its rule as written: qarena's matchbox would also play a known win first, "
                    "which the write-up's rule does not"
                ),
            ),
            *_NIMM,
        ),
    ),
    Preset(
        "course-notebook",
        "002",
        "Nim AI Explanation: Reinforcement Learning",
        "English",
        "nim:1,3,5,7",
        "seat-q",
        gettext_noop(
            "The course notebook's Q-learning on 1-3-5-7 nim (misère, as its code plays): "
            "learning rate 0.5, ε 0.1 throughout, no discount, rewards 1 and -1, "
            "10,000 games of self-play."
        ),
        _COURSE,
        episodes=10_000,
        sources=_NOTEBOOK,
    ),
    Preset(
        "tictactoe-blog",
        "003",
        "Q-Learning Teil 2",
        "German",
        "tictactoe:3x3:3",
        # The blog's own rule: every position of a game backed up at its end.
        "game-backup",
        gettext_noop(
            "The tic-tac-toe blog's two agents: steps 0.099 and 0.08 (its 0.1 times α 0.99 "
            "and 0.8), ε 0.5 and 0.2 throughout, no discount, rewards 1, 0.5, 0, every value "
            "0.25 at first, 50,000 games against each other, learned by the blog's own rule "
            "(game-backup: every position of a game backed up at its end)."
        ),
        (
            ("alpha", 0.099),
            ("alpha_second", 0.08),
            ("gamma", 1.0),
            ("epsilon", 0.5),
            ("epsilon_second", 0.2),
            ("epsilon_end", 0.5),
            ("schedule", "constant"),
            ("rewards", (1.0, 0.5, 0.0)),
            ("initial", 0.25),
            ("starts", 0.0),
        ),
        episodes=50_000,
        sources=_BLOG,
    ),
    Preset(
        "cs50-nim",
        "004",
        "Решение задания 42 (nim.py)",
        "Russian",
        "nim:1,3,5,7",
        "seat-q",
        gettext_noop(
            "The course assignment's NimAI on 1-3-5-7 nim (misère): learning rate 0.5, "
            "ε 0.1 throughout, no discount, rewards 1 and -1, self-play (the write-up gives "
            "no number of games: qarena's default)."
        ),
        _COURSE,
        sources=_CS50,
    ),
)


__all__ = ["PRESETS"]
