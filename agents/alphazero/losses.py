"""The training losses of the az network (:mod:`~mancala_envs.agents.alphazero.network`), shared by
AlphaZero-style self-play and distillation: the policy head learns a target distribution over the
legal moves, the value head a target value for the player to move."""

from __future__ import annotations

import torch
from torch import nn


def policy_value_losses(
    net: nn.Module, obs: torch.Tensor, mask: torch.Tensor, policy: torch.Tensor, value: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The two losses on a minibatch (network inputs ``obs``, legal ``mask``, targets ``policy``
    and ``value``): the cross-entropy of the policy targets with the masked logits' softmax, and
    the squared error of the value."""
    logits, v = net(obs)
    log_p = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
    return -(policy * log_p).sum(1).mean(), ((v - value) ** 2).mean()
