"""The on-device AlphaZero network (flax), its Gumbel MuZero search over the pgx env (mctx), and
its model file — shared by ``training/train_az_jax.py`` and the ``az-jax`` agent.

The network reads the env's observation (the mover's flat view) and returns move logits and a
value in [-1, 1] for the player to move. The search's model is the game itself:
``recurrent_fn`` steps :class:`~mancala_envs.jax.JaxEnv` and credits the reward to the player
who moved, with discount -1 when the turn passes, +1 when the same player moves again and 0 once
the game is over (values by player id: no turn order is assumed).

A model file is one JSON object: the variant, the network's sizes, the search's simulations, what
training it had, the weights (flax msgpack, base64) and a SHA-256 over all of that.
"""

from __future__ import annotations

import base64
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import flax.linen as nn
import flax.serialization
import jax
import jax.numpy as jnp
import mctx

from mancala_envs.game import get_game
from mancala_envs.infra.config_files import check_keys, need_int, need_number, read_config, sha256_hex
from mancala_envs.infra.files import atomic_write
from mancala_envs.jax import JaxEnv, env_for

FORMAT, VERSION = "mancala-az-jax", 1


class AZNet(nn.Module):
    """An MLP: ``layers`` hidden layers of ``hidden`` units on ``scale`` x the observation, a
    policy head (logits) and a value head (tanh)."""

    num_actions: int
    hidden: int = 128
    layers: int = 3
    scale: float = 10.0

    @nn.compact
    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = x * self.scale
        for _ in range(self.layers):
            x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(self.num_actions)(x), jnp.tanh(nn.Dense(1)(x))[..., 0]


def masked_logits(logits: jax.Array, legal: jax.Array) -> jax.Array:
    return jnp.where(legal, logits - jnp.max(logits, axis=-1, keepdims=True), jnp.finfo(logits.dtype).min)


def make_recurrent_fn(env: JaxEnv, net: AZNet):
    """mctx's model: one move of the game on a batch of embeddings (pgx states)."""

    def recurrent_fn(params, rng_key, action, state):
        del rng_key
        mover = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits, value = net.apply(params, state.observation)
        over = state.terminated | state.truncated
        reward = state.rewards[jnp.arange(mover.shape[0]), mover]
        discount = jnp.where(over, 0.0, jnp.where(state.current_player == mover, 1.0, -1.0))
        output = mctx.RecurrentFnOutput(
            reward=reward,
            discount=discount,
            prior_logits=masked_logits(logits, state.legal_action_mask),
            value=jnp.where(over, 0.0, value),
        )
        return output, state

    return recurrent_fn


def search(env: JaxEnv, net: AZNet, params: Any, states: Any, key: jax.Array, sims: int, gumbel_scale: float):
    """Gumbel MuZero (``mctx.gumbel_muzero_policy``) from a batch of pgx states: mctx's
    ``PolicyOutput`` (``action``, ``action_weights``: the improved policy)."""
    logits, value = net.apply(params, states.observation)
    root = mctx.RootFnOutput(
        prior_logits=masked_logits(logits, states.legal_action_mask), value=value, embedding=states
    )
    return mctx.gumbel_muzero_policy(
        params=params,
        rng_key=key,
        root=root,
        recurrent_fn=make_recurrent_fn(env, net),
        num_simulations=sims,
        invalid_actions=~states.legal_action_mask,
        qtransform=mctx.qtransform_completed_by_mix_value,
        gumbel_scale=gumbel_scale,
    )


@lru_cache(maxsize=32)
def compiled_choice(env: JaxEnv, net: AZNet, sims: int) -> Any:
    """``choose(params, states, key) -> actions``, compiled once per variant, network shape and
    ``sims``: the search's action without Gumbel noise, or with ``sims=0`` the network's most
    likely legal move."""

    def choose(params: Any, states: Any, key: jax.Array) -> jax.Array:
        if sims == 0:
            logits, _ = net.apply(params, states.observation)
            return jnp.argmax(masked_logits(logits, states.legal_action_mask), axis=-1)
        return search(env, net, params, states, key, sims, gumbel_scale=0.0).action

    return jax.jit(choose)


def init_params(net: AZNet, env: JaxEnv, seed: int) -> Any:
    return net.init(jax.random.PRNGKey(seed), jnp.zeros((1, *env.observation_shape), jnp.float32))


def save_model(path: str | Path, net: AZNet, params: Any, env: JaxEnv, sims: int, trained: dict) -> Path:
    """Write the model file (``.json``), atomically; returns its path."""
    body = {
        "format": FORMAT,
        "version": VERSION,
        "game": env.game.name,
        "params": env.game.params,
        "variant": env.game.variant,
        "network": {"hidden": net.hidden, "layers": net.layers, "scale": net.scale},
        "search": {"sims": sims},
        "trained": trained,
        "weights": base64.b64encode(flax.serialization.to_bytes(params)).decode("ascii"),
    }
    path = Path(path).with_suffix(".json")
    atomic_write(path, json.dumps(body | {"sha256": digest(body)}, indent=1) + "\n")
    return path


def digest(body: dict) -> str:
    """The SHA-256 of everything in a model file but the digest itself (canonical JSON)."""
    return sha256_hex(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())


def load_model(path: str | Path) -> tuple[AZNet, Any, JaxEnv, dict]:
    """(network, weights, env, the file's fields); ``ValueError`` naming the file and the problem
    for a missing, damaged or edited file."""
    file = Path(path)
    config = read_config(file, FORMAT, VERSION, "az-jax model")
    keys = (
        "format",
        "version",
        "game",
        "params",
        "variant",
        "network",
        "search",
        "trained",
        "weights",
        "sha256",
    )
    check_keys(config, keys, what=str(file))
    body = {k: v for k, v in config.items() if k != "sha256"}
    if config["sha256"] != digest(body):
        raise ValueError(f"{file} is damaged or edited: its SHA-256 does not match its contents")
    env = env_for(get_game(config["game"], **config["params"]))
    spec = check_keys(config["network"], ("hidden", "layers", "scale"), what=f"{file}: network")
    net = AZNet(
        num_actions=env.num_actions,
        hidden=need_int(spec["hidden"], "network.hidden", 1, 4096),
        layers=need_int(spec["layers"], "network.layers", 1, 64),
        scale=need_number(spec["scale"], "network.scale", positive=True),
    )
    try:
        params = flax.serialization.from_bytes(init_params(net, env, 0), base64.b64decode(config["weights"]))
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{file}: the weights do not fit the network ({e})") from None
    return net, params, env, config
