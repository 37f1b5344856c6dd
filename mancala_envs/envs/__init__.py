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

import importlib
from typing import Any

_WHERE = {
    "MancalaEnv": "mancala_envs.envs.aec",
    "SingleAgentEnv": "mancala_envs.envs.single",
    "MancalaVecEnv": "mancala_envs.envs.vector",
    "MancalaVectorEnv": "mancala_envs.envs.gym_vector",
}
__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'mancala_envs.envs' has no attribute {name!r}")
