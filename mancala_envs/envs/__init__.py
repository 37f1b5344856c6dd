"""The environments over the rules core:

- :class:`~mancala_envs.envs.aec.MancalaEnv` — the PettingZoo AEC env (one class, any game);
- :class:`~mancala_envs.envs.single.SingleAgentEnv` — a Gymnasium env against a fixed opponent;
- :class:`~mancala_envs.envs.vector.MancalaVecEnv` — an SB3 ``VecEnv`` over the compiled kernel;
- :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv` — the same kernel as a Gymnasium
  ``VectorEnv``.

Imported on first use (the vector envs pull in Stable-Baselines3).
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
