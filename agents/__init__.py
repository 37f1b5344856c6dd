"""Baseline agents, the arena and ratings for mancala_envs.

``make_agent(spec, seed)`` builds any agent from a string such as ``"minimax:depth=4"``;
``as_agent(x)`` turns a spec, an agent or a callable into an agent (the one adapter).
"""

from mancala_envs.agents.base import Agent, RandomAgent
from mancala_envs.agents.greedy import GreedyAgent
from mancala_envs.agents.human import HumanAgent
from mancala_envs.agents.mcts.agent import MCTSAgent
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.agents.policies.policy import PolicyAgent
from mancala_envs.agents.registry import AGENT_NAMES, as_agent, make_agent

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
