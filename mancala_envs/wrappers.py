"""Kept for imports written before 0.2: the single-agent env lives in :mod:`mancala_envs.envs.single`."""

from mancala_envs.envs.single import SingleAgentEnv

__all__ = ["SingleAgentEnv"]
