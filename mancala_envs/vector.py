"""Kept for imports written before 0.2: the SB3 vector env lives in :mod:`mancala_envs.envs.vector`."""

from mancala_envs.envs.vector import MancalaVecEnv

__all__ = ["MancalaVecEnv"]
