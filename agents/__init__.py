"""Baseline agents, the arena and ratings for mancala_envs.

``make_agent(spec, seed)`` builds any agent from a string such as ``"minimax:depth=4"``.
"""

from agents.base import Agent, RandomAgent
from agents.greedy import GreedyAgent
from agents.human import HumanAgent
from agents.mcts import MCTSAgent
from agents.minimax import MinimaxAgent
from agents.policy import PolicyAgent
from agents.registry import AGENT_NAMES, make_agent

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "GreedyAgent",
    "HumanAgent",
    "MCTSAgent",
    "MinimaxAgent",
    "PolicyAgent",
    "RandomAgent",
    "make_agent",
]
