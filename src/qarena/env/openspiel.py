"""Every qarena game as an OpenSpiel game, so OpenSpiel's algorithms (MCTS, minimax, CFR,
tabular Q-learning, ``evaluate_bots``) run on it and qarena judges what they learn exactly.

Needs OpenSpiel (``pip install open_spiel``); it is imported only here. Importing this module
adds one Python game to OpenSpiel's registry, as OpenSpiel's own Python games do:
``python_qarena``, whose one parameter ``spec`` names the qarena game (``nim:3,5,7``,
``tictactoe:4x4:4``, ``connect4:4x5``…). :func:`openspiel_game` loads it, and so does OpenSpiel's
loader:

    game = openspiel_game("tictactoe")
    game = pyspiel.load_game("python_qarena(spec=nim:3;5;7)")  # ";" for "," in this form
    game = pyspiel.load_game("python_qarena", {"spec": "nim:3,5,7"})  # a dict takes "," as is

OpenSpiel's game strings split parameters at commas and know no quoting, so in a game string
a spec's commas are written ``;`` (and the rarer ``%``, ``;``, ``=``, ``(``, ``)`` as ``%25``,
``%3B``, ``%3D``, ``%28``, ``%29``). The game keeps its spec in that form, so ``str(game)``
(``python_qarena(spec=nim:3;5;7)``) loads back as the same game, and OpenSpiel's serialization
(``serialize_game_and_state``) and pickling of games and states, which go through that string,
round-trip; ``game.game.spec`` is qarena's own spec (``nim:3,5,7``).

Players are 0 (moves first) and 1; actions are qarena's move ids, so ``qarena.env.judge_policy``
takes a policy of actions as it is. The state's string is the position's text form; its
``position`` attribute is the qarena position. Observations (``observation_tensor``) are
``qarena.env.observation``: the position's components and the mark of the player to move.
Returns are +1 / 0 / −1, zero-sum, at the end only.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from qarena.env.encoding import observation
from qarena.games.base import Game, Move, Position
from qarena.games.spec import parse_spec

#: The name OpenSpiel knows qarena's games by.
SHORT_NAME = "python_qarena"
DEFAULT_SPEC = "nim:3,5,7"

# What OpenSpiel's game-string parser (game_parameters.cc) splits on or nests by, a newline
# (serialized games are read line by line), and "%" and ";" themselves, so decoding is exact.
_ESCAPED = "%;=()\n"
_ESCAPE = re.compile(r"%(25|3B|3D|28|29|0A|2C)", re.IGNORECASE)


def encode_spec(spec: str) -> str:
    """``spec`` as it stands in OpenSpiel's game strings, without a character their parser
    splits on: ``nim:3,5,7`` → ``nim:3;5;7``. :func:`decode_spec` reads it back exactly."""
    for char in _ESCAPED:  # "%" first, so that no escape is escaped again
        spec = spec.replace(char, f"%{ord(char):02X}")
    return spec.replace(",", ";")


def decode_spec(text: str) -> str:
    """The qarena spec that ``text``, a spec as written in an OpenSpiel game string, stands
    for: ``;`` is ``,``, and ``%2C``, ``%25``, ``%3B``, ``%3D``, ``%28``, ``%29`` are ``,``,
    ``%``, ``;``, ``=``, ``(``, ``)``. A spec with none of these reads as itself."""
    return _ESCAPE.sub(lambda m: chr(int(m[1], 16)), text.replace(";", ","))


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="qarena games (nim, subtraction, tic-tac-toe, Connect Four)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"spec": encode_spec(DEFAULT_SPEC)},
)


class QarenaGame(pyspiel.Game):  # type: ignore[misc]
    """A qarena game for OpenSpiel: its rules, its move ids as actions."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        # A dict's spec may have commas; a game string's has ";" (decode_spec reads both).
        self.game: Game = parse_spec(decode_spec(str(params.get("spec", DEFAULT_SPEC))))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.game.num_moves,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.game.max_plies,
        )
        # Kept encoded: OpenSpiel builds str(game), which it loads back, from the parameters.
        super().__init__(_GAME_TYPE, info, {"spec": encode_spec(self.game.spec)})

    def new_initial_state(self, position: Position | None = None) -> QarenaState:
        """The start, or ``position`` (a qarena position) with the player it implies to move
        (on boards; in impartial games the first player)."""
        return QarenaState(self, position)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PositionObserver(self.game, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class QarenaState(pyspiel.State):  # type: ignore[misc]
    """A position of a qarena game, and whose turn it is."""

    def __init__(self, game: QarenaGame, position: Position | None = None) -> None:
        super().__init__(game)
        rules = game.game
        self.position: Position = rules.start() if position is None else tuple(position)
        if position is not None:
            rules._check_position(self.position)
        seat = rules.to_move(self.position)
        self.seat = 0 if seat is None else seat

    # The rules are the game's, not an attribute: OpenSpiel deep-copies a Python state's
    # attributes at every clone and pickles them into its serialization, and the state's own
    # attributes are then just the position and the seat.
    @property
    def rules(self) -> Game:
        """The qarena game this state is a position of."""
        rules: Game = self.get_game().game
        return rules

    def current_player(self) -> int:
        if self.rules.is_terminal(self.position):
            return int(pyspiel.PlayerId.TERMINAL)
        return self.seat

    def _legal_actions(self, player: int) -> list[Move]:
        del player  # only the player to move is asked
        return sorted(self.rules.legal_moves(self.position))

    def _apply_action(self, action: Move) -> None:
        self.position = self.rules.apply(self.position, action)
        self.seat = 1 - self.seat

    def _action_to_string(self, player: int, action: Move) -> str:
        del player
        return self.rules.format_move(action)

    def is_terminal(self) -> bool:
        return bool(self.rules.is_terminal(self.position))

    def returns(self) -> list[float]:
        if not self.rules.is_terminal(self.position):
            return [0.0, 0.0]
        # The result is for the player to move at the end, the seat whose turn it would be.
        mover = float(self.rules.result(self.position))
        return [mover, -mover] if self.seat == 0 else [-mover, mover]

    def __str__(self) -> str:
        return self.rules.format_position(self.position)


class PositionObserver:
    """OpenSpiel's observer of a position: qarena's observation vector, and the text form with
    the player to move."""

    def __init__(self, game: Game, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.game = game
        self.tensor = np.zeros(len(game.start()) + 1, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: QarenaState, player: int) -> None:
        del player  # every player sees the whole position
        self.tensor[:] = observation(self.game, state.position, state.seat)

    def string_from(self, state: QarenaState, player: int) -> str:
        del player
        return f"{self.game.format_position(state.position)} ({state.seat} to move)"


def register() -> None:
    """Add ``python_qarena`` to OpenSpiel's registry. Importing this module already has; later
    calls do nothing."""
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, QarenaGame)


def openspiel_game(spec: str | Game) -> Any:
    """The qarena game ``spec`` as an OpenSpiel game, through OpenSpiel's own loader."""
    text = spec if isinstance(spec, str) else spec.spec
    # Encoded, so that a spec with "%" or ";" in it (a game registered elsewhere) is exact too.
    return pyspiel.load_game(SHORT_NAME, {"spec": encode_spec(parse_spec(text).spec)})


# As OpenSpiel's own Python games do: importing the module makes the game loadable by name.
register()
