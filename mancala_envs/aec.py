"""Kept for imports written before 0.2: the AEC env lives in :mod:`mancala_envs.envs.aec`."""

from mancala_envs.envs.aec import MancalaEnv

__all__ = ["MancalaEnv"]
