"""Baseline agents, the arena and ratings for mancala_envs.

``make_agent(spec, seed)`` builds any agent from a string such as ``"minimax:depth=4"``;
``as_agent(x)`` turns a spec, an agent or a callable into an agent (the one adapter).
"""

from agents.base import Agent, RandomAgent
from agents.greedy import GreedyAgent
from agents.human import HumanAgent
from agents.mcts import MCTSAgent
from agents.minimax import MinimaxAgent
from agents.policy import PolicyAgent
from agents.registry import AGENT_NAMES, as_agent, make_agent

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "GreedyAgent",
    "HumanAgent",
    "MCTSAgent",
    "MinimaxAgent",
    "PolicyAgent",
    "RandomAgent",
    "as_agent",
    "make_agent",
]
