"""The environments over the rules core:

- :class:`~mancala_envs.envs.aec.MancalaEnv` — the PettingZoo AEC env (one class, any game);
- :class:`~mancala_envs.envs.single.SingleAgentEnv` — a Gymnasium env against a fixed opponent;
- :class:`~mancala_envs.envs.vector_driver.VectorDriver` — the framework-free driver of many games
  over the compiled kernel, with two thin faces:
  :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv` (a Gymnasium ``VectorEnv``) and
  :class:`~mancala_envs.envs.vector.MancalaVecEnv` (an SB3 ``VecEnv``: the ``[sb3]`` extra).

Imported on first use (``MancalaVecEnv`` pulls in Stable-Baselines3).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MancalaEnv", "MancalaVecEnv", "MancalaVectorEnv", "SingleAgentEnv"]


def __getattr__(name: str) -> Any:
    if name == "MancalaEnv":
        from mancala_envs.envs.aec import MancalaEnv

        return MancalaEnv
    if name == "SingleAgentEnv":
        from mancala_envs.envs.single import SingleAgentEnv

        return SingleAgentEnv
    if name == "MancalaVecEnv":
        from mancala_envs.envs.vector import MancalaVecEnv

        return MancalaVecEnv
    if name == "MancalaVectorEnv":
        from mancala_envs.envs.gym_vector import MancalaVectorEnv

        return MancalaVectorEnv
    raise AttributeError(f"module 'mancala_envs.envs' has no attribute {name!r}")
