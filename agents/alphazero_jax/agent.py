"""The on-device AlphaZero network as an agent of the project's protocol:
``make_agent("az-jax:path=MODEL.json[,sims=N]")``.

A model written by ``training/train_az_jax.py`` (:mod:`.model`) plays through its Gumbel MuZero
search of ``sims`` simulations (default: the model's own), deterministic (no Gumbel noise), or
the network alone with ``sims=0`` (the most likely legal move). Positions reach JAX through
``JaxEnv.from_state``; search and network are compiled once per agent. Needs the ``[jax]`` extra.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mancala_envs.agents.base import Agent, require_running, spec_name
from mancala_envs.game import Game
from mancala_envs.infra.extras import require
from mancala_envs.state import State

MAX_SIMS = 100_000


class AZJaxAgent(Agent):
    """``az-jax:path=MODEL.json[,sims=N]`` (module docstring)."""

    def __init__(self, path: str | None = None, sims: int | None = None, seed: int = 0):
        super().__init__(seed)
        if path is None:
            raise ValueError("az-jax needs path=MODEL.json (a model of training/train_az_jax.py)")
        require("jax", "jax", "the az-jax agent")
        from mancala_envs.agents.alphazero_jax import model  # JAX only when this agent is built

        self.net, self.params, self.env, self.config = model.load_model(Path(path))
        self.sims = int(self.config["search"]["sims"]) if sims is None else sims
        if not 0 <= self.sims <= MAX_SIMS:
            raise ValueError(f"az-jax sims must be in 0..{MAX_SIMS}, got {self.sims}")
        self.name = spec_name("az-jax", {"path": path, "sims": sims})
        self._choose = model.compiled_choice(self.env, self.net, self.sims)

    def act(self, game: Game, state: State) -> int:
        require_running(game, state)
        if game.variant != self.env.game.variant:
            raise ValueError(f"this az-jax model plays {self.env.game.variant}, not {game.variant}")
        import jax

        jstate = self.env.from_state(self.env.game.state_from_array(state.array))
        batch = jax.tree.map(lambda x: x[None], jstate)
        key = jax.random.PRNGKey(int(self.rng.integers(2**31)))
        return int(np.asarray(self._choose(self.params, batch, key))[0])
