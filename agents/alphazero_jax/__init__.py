"""AlphaZero trained on an accelerator (``training/train_az_jax.py``): the ``az-jax`` agent.
Importing this package imports no JAX; building the agent does (the ``[jax]`` extra)."""

from mancala_envs.agents.alphazero_jax.agent import AZJaxAgent

__all__ = ["AZJaxAgent"]
