"""Baseline agents, the arena and ratings for mancala_envs."""

from agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
