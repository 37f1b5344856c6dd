"""The games on accelerators: every variant as a `pgx <https://github.com/sotetsuk/pgx>`_
environment in pure JAX (``pip install "mancala_envs[jax]"``; docs/jax.md).

``make("en_dodoi", holes_per_row=8)`` (or :class:`JaxEnv`) gives a :class:`pgx.Env`: ``init(key)``,
``step(state, action, key)``, ``jit``/``vmap``/``pmap``-safe, the rules core's observation and
legal mask; ``to_state``/``from_state`` convert to and from :class:`mancala_envs.State`. Importing
:mod:`mancala_envs` never imports this package (nor JAX).
"""

from mancala_envs.infra.extras import require

require("jax", "jax", "mancala_envs.jax (the games in JAX)")
require("pgx", "jax", "mancala_envs.jax (the games in JAX)")

from mancala_envs.jax.env import (  # noqa: E402  (after the extra's check)
    JaxEnv,
    JaxState,
    env_for,
    make,
    to_packed,
    to_state,
    variant_game,
)

__all__ = ["JaxEnv", "JaxState", "env_for", "make", "to_packed", "to_state", "variant_game"]
