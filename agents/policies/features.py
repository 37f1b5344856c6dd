"""The policy networks' input layers in plain torch (the ``[agents]`` extra), in a module of their
own so that checkpoints naming them stay loadable when the training scripts change (the whole
network of a safe model file is :class:`~mancala_envs.agents.policies.network.PolicyNet`).

They are plain ``torch.nn.Module`` s with a ``features_dim`` attribute and SB3's
constructor signature ``(observation_space, **kwargs)``, so sb3-contrib takes them as
``features_extractor_class`` without this module importing SB3:

- :class:`CountFeatures` (models from 0.2 on): reads the env's raw seed counts
  (``MancalaVecEnv(..., counts=True)``, ``game.counts``), so nothing is un-normalised: the counts
  scaled by ``scale / total_seeds``, the opening flags as they are (Sadeqa II), and a one-hot code
  of each hole's count (0 .. ``one_hot_max``, larger counts in the last slot; 0: none). Captures
  and relays turn on exact counts (a hole of 2-4 seeds, a sowing that reaches a given hole),
  which one-hot codes make easy to pick up.
- :class:`SeedFeatures` (0.1 checkpoints, which pickled it as ``training.train_ppo.SeedFeatures``;
  :func:`~mancala_envs.agents.model_files.load_zip` maps that path here): the same features from
  the normalised observation, whose counts it multiplies back by ``total_seeds``.

:data:`EXTRACTORS` names them for the JSON model configs (never an import path).
"""

from __future__ import annotations

from typing import Any

from mancala_envs.infra.extras import require

require("torch", "agents", "the policy agent's network")

import torch  # noqa: E402  (after the clear message above)
from torch import nn  # noqa: E402


def _one_hot(counts: torch.Tensor, one_hot_max: int) -> torch.Tensor:
    c = torch.round(counts).long().clamp(0, one_hot_max)
    return torch.nn.functional.one_hot(c, one_hot_max + 1).flatten(1).float()


class CountFeatures(nn.Module):
    """Raw counts in: ``[counts * scale / total_seeds, flags, one-hot(hole counts)]``."""

    def __init__(
        self, observation_space: Any, holes: int, total_seeds: int, scale: float = 10.0, one_hot_max: int = 20
    ):
        super().__init__()
        size = int(observation_space.shape[0])
        self.cells, self.counted = 2 * int(holes), 2 * int(holes) + 2
        self.features_dim = size + (self.cells * (int(one_hot_max) + 1) if one_hot_max > 0 else 0)
        self.factor, self.one_hot_max = float(scale) / float(total_seeds), int(one_hot_max)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = observations.float().flatten(1)
        parts = [obs[:, : self.counted] * self.factor, obs[:, self.counted :]]
        if self.one_hot_max > 0:
            parts.append(_one_hot(obs[:, : self.cells], self.one_hot_max))
        return torch.cat(parts, dim=1)


class SeedFeatures(nn.Module):
    """0.1 checkpoints: the normalised observation times ``scale`` and the one-hot code of the
    counts it recovers (``observation * total_seeds``)."""

    def __init__(
        self, observation_space: Any, holes: int, total_seeds: int, scale: float = 10.0, one_hot_max: int = 0
    ):
        super().__init__()
        size = int(observation_space.shape[0])
        self.cells = 2 * int(holes) if one_hot_max > 0 else 0
        self.features_dim = size + self.cells * (int(one_hot_max) + 1)
        self.total, self.scale, self.one_hot_max = float(total_seeds), float(scale), int(one_hot_max)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = observations.float().flatten(1)
        if not self.cells:
            return obs * self.scale
        return torch.cat(
            [obs * self.scale, _one_hot(obs[:, : self.cells] * self.total, self.one_hot_max)], dim=1
        )


EXTRACTORS: dict[str, type[nn.Module]] = {"counts": CountFeatures, "seed": SeedFeatures}
