"""An agent that plays a trained policy: a sb3-contrib ``MaskablePPO`` checkpoint (``.zip``), a
TorchScript module (``.pt``/``.pth``), or any torch callable given directly.

The policy sees the core's observation of the player to move (``game.observation(state,
state.to_move)``) and his legal mask. A callable policy is ``f(obs, mask) -> logits`` with ``obs`` a
float32 tensor ``(B, observation_size)``, ``mask`` a bool tensor ``(B, n)`` and logits ``(B, n)``.
Illegal moves get no probability; the agent plays the most likely legal move, or samples one with
its own generator when ``sample`` is true. With no path it uses the shipped ``models/<game>.zip``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import NetworkAgent
from mancala_envs import Game

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


def shipped_model(game: Game) -> Path:
    """``models/<game>.zip`` beside the package; ``ValueError`` when it is not there."""
    path = MODELS_DIR / f"{game.name}.zip"
    if not path.is_file():
        raise ValueError(
            f"no shipped policy for {game.name}: {path} does not exist; give one with policy:path=MODEL.zip"
        )
    return path


def load_policy(path: str | Path) -> Any:
    """A ``MaskablePPO`` model from a ``.zip`` or a TorchScript module from ``.pt``/``.pth``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"policy file {str(path)!r} does not exist")
    if path.suffix == ".zip":
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(path, device="cpu")
    if path.suffix in (".pt", ".pth"):
        import torch

        return torch.jit.load(str(path), map_location="cpu")
    raise ValueError(f"policy file {str(path)!r}: expected a MaskablePPO .zip or a TorchScript .pt/.pth")


class PolicyAgent(NetworkAgent):
    """Plays ``model`` (or the policy loaded from ``path``, or the shipped one for the game)."""

    def __init__(
        self, path: str | Path | None = None, sample: bool = False, seed: int = 0, model: Any = None
    ):
        if not isinstance(sample, bool):
            raise ValueError(f"policy sample must be true or false, got {sample!r}")
        if path is not None and model is not None:
            raise ValueError("give a policy path or a model, not both")
        self.name = "policy" + ("" if path is None else f":path={path}") + (",sample=true" if sample else "")
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self.model = load_policy(path) if path is not None else model
        self._shipped: dict[str, Any] = {}

    def _model_for(self, game: Game) -> Any:
        if self.model is not None:
            return self.model
        if game.name not in self._shipped:
            self._shipped[game.name] = load_policy(shipped_model(game))
        return self._shipped[game.name]

    def logits(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Masked logits ``(B, n)`` (``-inf`` on illegal moves) for a batch of observations."""
        import torch

        model = self._model_for(game)
        mask = masks.astype(bool)
        if hasattr(model, "policy") and hasattr(model, "observation_space"):  # a MaskablePPO model
            from gymnasium import spaces

            space = model.observation_space
            if isinstance(space, spaces.Dict):
                obs: Any = {"observation": observations, "action_mask": masks.astype(np.int8)}
                expected = space["observation"].shape
            else:
                obs, expected = observations, space.shape
            actions = getattr(model.action_space, "n", None)
            if tuple(expected) != (game.observation_size,) or actions != game.num_actions:
                raise ValueError(
                    f"the policy expects observations of shape {tuple(expected)} and {actions} actions, "
                    f"{game.name} has ({game.observation_size},) and {game.num_actions}"
                )
            with torch.no_grad():
                tensor, _ = model.policy.obs_to_tensor(obs)
                dist = model.policy.get_distribution(tensor, action_masks=mask)
                out = dist.distribution.logits.cpu().numpy().astype(np.float64)
        else:
            with torch.no_grad():
                out = model(torch.as_tensor(observations), torch.as_tensor(mask))
            out = np.asarray(out.detach().cpu().numpy() if hasattr(out, "detach") else out, dtype=np.float64)
        if out.shape != mask.shape:
            raise ValueError(f"the policy gave logits of shape {out.shape}, expected {mask.shape}")
        return np.where(mask, out, -np.inf)
