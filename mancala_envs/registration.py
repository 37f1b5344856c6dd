"""Registration of the AEC environments with PettingZoo's registry (PettingZoo ≥ 1.27).

After :func:`register_envs` (called when :mod:`mancala_envs` is imported)::

    pettingzoo.make("aec", "mancala/songo_ewondo-v0")
    pettingzoo.make("aec", "mancala/sadeqa_ii-v0")
    pettingzoo.make("aec", "mancala/en_dodoi-v0", holes_per_row=6)

Entry points are ``"module:function"`` strings, so nothing is imported until an env is made.
"""

from __future__ import annotations

ENV_IDS: dict[str, str] = {
    "mancala/songo_ewondo-v0": "mancala_envs.songo_ewondo_v0:env",
    "mancala/sadeqa_ii-v0": "mancala_envs.sadeqa_ii_v0:env",
    "mancala/en_dodoi-v0": "mancala_envs.en_dodoi_v0:env",
}


def register_envs() -> bool:
    """Register the three environments with PettingZoo's AEC registry; ids already present are
    left alone (no override warning on re-import). Returns False, registering nothing, when the
    installed PettingZoo has no registry (before 1.27)."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:
        return False
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=entry_point)
    return True
