"""Agents: ``act(position) -> move``. Strategies here; trained policies come from learners."""

from qarena.agents.base import Agent
from qarena.agents.strategies import (
    STRATEGIES,
    BoutonAgent,
    PerfectAgent,
    PolesAgent,
    RandomAgent,
    RuleAgent,
    SubtractionRuleAgent,
    is_pole_position,
    make_agent,
)

__all__ = [
    "STRATEGIES",
    "Agent",
    "BoutonAgent",
    "PerfectAgent",
    "PolesAgent",
    "RandomAgent",
    "RuleAgent",
    "SubtractionRuleAgent",
    "is_pole_position",
    "make_agent",
]
