"""The policy networks' input layers (SB3 features extractors), in a module of their own so that
checkpoints naming them stay loadable when the training scripts change.

- :class:`CountFeatures` (models from 0.2 on): reads the env's raw seed counts
  (``MancalaVecEnv(..., counts=True)``, ``game.counts``), so nothing is un-normalised: the counts
  scaled by ``scale / total_seeds``, the opening flags as they are (Sadeqa II), and a one-hot code
  of each hole's count (0 .. ``one_hot_max``, larger counts in the last slot; 0: none). Captures
  and relays turn on exact counts (a hole of 2-4 seeds, a sowing that reaches a given hole),
  which one-hot codes make easy to pick up.
- :class:`SeedFeatures` (0.1 checkpoints, also importable as ``mancala_envs.training.train_ppo.SeedFeatures``,
  the path they pickled): the same features from the normalised observation, whose counts it
  multiplies back by ``total_seeds``.

:data:`EXTRACTORS` names them for the JSON model configs (never an import path).
"""

from __future__ import annotations

from typing import Any

import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


def _one_hot(counts: torch.Tensor, one_hot_max: int) -> torch.Tensor:
    c = torch.round(counts).long().clamp(0, one_hot_max)
    return torch.nn.functional.one_hot(c, one_hot_max + 1).flatten(1).float()


class CountFeatures(BaseFeaturesExtractor):
    """Raw counts in: ``[counts * scale / total_seeds, flags, one-hot(hole counts)]``."""

    def __init__(
        self, observation_space: Any, holes: int, total_seeds: int, scale: float = 10.0, one_hot_max: int = 20
    ):
        size = int(observation_space.shape[0])
        self.cells, self.counted = 2 * int(holes), 2 * int(holes) + 2
        super().__init__(
            observation_space, size + (self.cells * (int(one_hot_max) + 1) if one_hot_max > 0 else 0)
        )
        self.factor, self.one_hot_max = float(scale) / float(total_seeds), int(one_hot_max)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = observations.float().flatten(1)
        parts = [obs[:, : self.counted] * self.factor, obs[:, self.counted :]]
        if self.one_hot_max > 0:
            parts.append(_one_hot(obs[:, : self.cells], self.one_hot_max))
        return torch.cat(parts, dim=1)


class SeedFeatures(BaseFeaturesExtractor):
    """0.1 checkpoints: the normalised observation times ``scale`` and the one-hot code of the
    counts it recovers (``observation * total_seeds``)."""

    def __init__(
        self, observation_space: Any, holes: int, total_seeds: int, scale: float = 10.0, one_hot_max: int = 0
    ):
        size = int(observation_space.shape[0])
        self.cells = 2 * int(holes) if one_hot_max > 0 else 0
        super().__init__(observation_space, size + self.cells * (int(one_hot_max) + 1))
        self.total, self.scale, self.one_hot_max = float(total_seeds), float(scale), int(one_hot_max)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = observations.float().flatten(1)
        if not self.cells:
            return obs * self.scale
        return torch.cat(
            [obs * self.scale, _one_hot(obs[:, : self.cells] * self.total, self.one_hot_max)], dim=1
        )


EXTRACTORS: dict[str, type[BaseFeaturesExtractor]] = {"counts": CountFeatures, "seed": SeedFeatures}
