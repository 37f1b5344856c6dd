"""Kept for imports written before 0.2: the SB3 vector env lives in :mod:`mancala_envs.envs.vector`.

Imported on first use, so ``import mancala_envs.vector`` needs no Stable-Baselines3; reading
``MancalaVecEnv`` without the ``[sb3]`` extra raises
:class:`~mancala_envs.infra.extras.MissingExtraError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mancala_envs.envs.vector import MancalaVecEnv

__all__ = ["MancalaVecEnv"]


def __getattr__(name: str) -> Any:
    if name == "MancalaVecEnv":
        from mancala_envs.envs.vector import MancalaVecEnv

        return MancalaVecEnv
    raise AttributeError(f"module 'mancala_envs.vector' has no attribute {name!r}")
