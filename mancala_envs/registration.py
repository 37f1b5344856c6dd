"""Registration of the environments on import of :mod:`mancala_envs`.

PettingZoo (>= 1.27) AEC registry::

    pettingzoo.make("aec", "mancala/songo_ewondo-v0")          # also sadeqa_ii, en_dodoi

Gymnasium (single-agent, :class:`~mancala_envs.envs.single.SingleAgentEnv`; keyword arguments pass
through; ``make_vec`` builds the compiled :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv`)::

    gymnasium.make("mancala_envs/SongoEwondo-v0", opponent="minimax:depth=2", render_mode="rgb_array")
    gymnasium.make("mancala_envs/SadeqaII-v0")
    gymnasium.make("mancala_envs/EnDodoi-v0", holes_per_row=10)
    gymnasium.make_vec("mancala_envs/EnDodoi-v0", num_envs=256, opponent="greedy")

Entry points are strings, so nothing is imported until an env is made.
"""

from __future__ import annotations

ENV_IDS: dict[str, str] = {
    "mancala/songo_ewondo-v0": "mancala_envs.songo_ewondo_v0:env",
    "mancala/sadeqa_ii-v0": "mancala_envs.sadeqa_ii_v0:env",
    "mancala/en_dodoi-v0": "mancala_envs.en_dodoi_v0:env",
}
GYM_IDS: dict[str, str] = {
    "mancala_envs/SongoEwondo-v0": "songo_ewondo",
    "mancala_envs/SadeqaII-v0": "sadeqa_ii",
    "mancala_envs/EnDodoi-v0": "en_dodoi",
}


def register_envs() -> bool:
    """Register the AEC envs with PettingZoo's registry and the single-agent and vector envs with
    Gymnasium's; ids already present are left alone. Returns False when the installed PettingZoo
    has no registry (before 1.27; the Gymnasium ids are registered all the same)."""
    import gymnasium

    for env_id, game in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="mancala_envs.envs.single:SingleAgentEnv",
                vector_entry_point="mancala_envs.envs.gym_vector:MancalaVectorEnv",
                kwargs={"game": game},
                disable_env_checker=False,
            )
    try:
        from pettingzoo import aec_registry, register
    except ImportError:
        return False
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=entry_point)
    return True
