"""An agent that plays an RLlib policy: ``make_agent("rllib:path=DIR")``.

``DIR`` is any of: the ``--out`` folder of ``mancala train-rllib`` (its latest checkpoint,
``DIR/checkpoint``, is used), an RLlib algorithm checkpoint (the folder holding
``learner_group/``), or a single RLModule checkpoint folder. ``module`` names the RLModule of a
multi-module checkpoint (default ``main``, the policy ``train-rllib`` trains).

The module sees what it saw in training: ``{"observations": game.observation(state, mover),
"action_mask": legal mask (float32)}`` (the key ``observations`` is the one RLlib's
action-masking RLModule expects). Illegal moves get no probability; the agent plays the most
likely legal move, or samples one with its own generator when ``sample`` is true.

Ray is imported only when a checkpoint is loaded, so the core install does not need the
``rllib`` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents.base import NetworkAgent, spec_name
from mancala_envs.game import Game

RUN_CHECKPOINT = "checkpoint"  # the latest checkpoint inside a train-rllib --out folder
MODULES_PATH = ("learner_group", "learner", "rl_module")


def module_dir(path: str | Path, module: str = "main") -> Path:
    """The RLModule checkpoint folder that ``path`` stands for (module docstring)."""
    path = Path(path)
    if not path.is_dir():
        raise ValueError(f"RLlib checkpoint folder {str(path)!r} does not exist")
    for base in (path / RUN_CHECKPOINT, path):
        if (base / MODULES_PATH[0]).is_dir():
            candidate = base.joinpath(*MODULES_PATH, module)
            if not candidate.is_dir():
                found = sorted(p.name for p in base.joinpath(*MODULES_PATH).iterdir() if p.is_dir())
                raise ValueError(f"checkpoint {str(base)!r} has no module {module!r}; it has {found}")
            return candidate
    if any(path.glob("module_state*")):
        return path
    raise ValueError(
        f"{str(path)!r} is not an RLlib checkpoint: expected a train-rllib output folder, an algorithm "
        "checkpoint (with learner_group/) or an RLModule checkpoint (with module_state*)"
    )


def load_module(path: str | Path, module: str = "main") -> Any:
    """The RLModule saved under ``path`` (see :func:`module_dir`), on the CPU."""
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as e:
        raise ValueError(f"rllib agents need the rllib extra (pip install -e '.[rllib]'): {e}") from None
    return RLModule.from_checkpoint(module_dir(path, module))


class RLlibAgent(NetworkAgent):
    """Plays the RLModule loaded from ``path`` (or ``rl_module``, an RLModule given directly)."""

    def __init__(
        self,
        path: str | Path | None = None,
        module: str = "main",
        sample: bool = False,
        seed: int = 0,
        rl_module: Any = None,
    ):
        if not isinstance(sample, bool):
            raise ValueError(f"rllib sample must be true or false, got {sample!r}")
        if (path is None) == (rl_module is None):
            raise ValueError("an rllib agent needs a checkpoint: give path=DIR (or an RLModule), not both")
        super().__init__(seed)
        params = {
            "path": path,
            "module": None if module == "main" else module,
            "sample": "true" if sample else None,
        }
        self.name = spec_name("rllib", params)
        self.sample = sample
        self.module = load_module(path, module) if path is not None else rl_module

    def _check(self, game: Game) -> None:
        space = self.module.observation_space
        inner = space["observations"] if hasattr(space, "spaces") else space
        actions = getattr(self.module.action_space, "n", None)
        if tuple(inner.shape) != (game.observation_size,) or actions != game.num_actions:
            raise ValueError(
                f"the RLlib module expects observations of shape {tuple(inner.shape)} and {actions} actions, "
                f"{game.name} has ({game.observation_size},) and {game.num_actions}"
            )

    def logits(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Masked logits ``(B, n)`` (``-inf`` on illegal moves) for a batch of observations."""
        import torch

        self._check(game)
        mask = masks.astype(bool)
        obs: Any = torch.tensor(observations, dtype=torch.float32)
        if hasattr(self.module.observation_space, "spaces"):  # the action-masking module's Dict input
            obs = {"observations": obs, "action_mask": torch.tensor(masks, dtype=torch.float32)}
        with torch.no_grad():
            out = self.module.forward_inference({"obs": obs})["action_dist_inputs"]
        out = out.detach().cpu().numpy().astype(np.float64)
        return np.where(mask, out, -np.inf)
