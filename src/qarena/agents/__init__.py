"""Players: the one protocol every player meets (``act(position) -> move``, ``values``), the
built-in strategies, trained agents, adapters for a function or a table, and the one lookup
by name (:func:`player`)."""

# The search players qarena ships declare themselves when their modules load, in this order
# (MCTS first in every list of thinking players).
# isort: off
from qarena.agents import mcts  # noqa: F401
from qarena.agents import alphabeta  # noqa: F401

# And the players named by a spec of another kind: a Kaggle ConnectX agent (connectx:FILE).
from qarena.agents import connectx  # noqa: F401

# isort: on
from qarena.agents.base import Agent, Player
from qarena.agents.greedy import GreedyAgent
from qarena.agents.opponents import move_mask
from qarena.agents.players import FunctionPlayer, PlayerLike, TablePlayer, player
from qarena.agents.strategies import (
    STRATEGIES,
    BoutonAgent,
    PerfectAgent,
    PolesAgent,
    RandomAgent,
    RuleAgent,
    StrongestAgent,
    SubtractionRuleAgent,
    is_builtin,
    is_pole_position,
    make_agent,
)

__all__ = [
    "STRATEGIES",
    "Agent",
    "BoutonAgent",
    "FunctionPlayer",
    "GreedyAgent",
    "PerfectAgent",
    "Player",
    "PlayerLike",
    "PolesAgent",
    "RandomAgent",
    "RuleAgent",
    "StrongestAgent",
    "SubtractionRuleAgent",
    "TablePlayer",
    "is_builtin",
    "is_pole_position",
    "make_agent",
    "move_mask",
    "player",
]
