"""Agents: baseline bots and the registry that builds any agent (bot, checkpoint, user function)
by name. Every agent is a batched policy ``(obs (n, D) float32, mask (n, 108) bool) -> (n,) int``."""

from .bots import Bot, HollywoodBot, HollywoodParams, NellerBot, RandomBot, SimpleBot
from .registry import (
    AgentSpecError,
    available_agents,
    make_agent,
    register,
    register_prefix,
    registered_names,
    registered_prefixes,
)

__all__ = [
    "Bot", "RandomBot", "SimpleBot", "NellerBot", "HollywoodBot", "HollywoodParams",
    "AgentSpecError", "make_agent", "register", "register_prefix", "available_agents", "registered_names",
    "registered_prefixes",
]
