"""Registration of the environments on import of :mod:`mancala_envs`.

PettingZoo (>= 1.27) AEC and Parallel registries, one id per game::

    pettingzoo.make("aec", "mancala/songo_ewondo-v0")          # also sadeqa_ii, en_dodoi
    pettingzoo.make("parallel", "mancala/en_dodoi-v0", waiting_noop=True)

Gymnasium (single-agent, :class:`~mancala_envs.envs.single.SingleAgentEnv`; keyword arguments pass
through; ``make_vec`` builds the compiled :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv`)::

    gymnasium.make("mancala_envs/SongoEwondo-v0", opponent="minimax:depth=2", render_mode="rgb_array")
    gymnasium.make("mancala_envs/SadeqaII-v0")
    gymnasium.make("mancala_envs/EnDodoi-v0", holes_per_row=10)
    gymnasium.make_vec("mancala_envs/EnDodoi-v0", num_envs=256, opponent="greedy")

Entry points are strings, so nothing is imported until an env is made. The ids are data of each
game (:class:`~mancala_envs.rulesets.GameInfo`): :data:`ENV_IDS` and :data:`GYM_IDS` are read live
from the registry, and :func:`register_game` adds a game and its envs (docs/adding-a-game.md).
"""

from __future__ import annotations

import gymnasium

from mancala_envs.rulesets import GameInfo, GameTable, add_game, registered_games, remove_game

GENERIC_PARALLEL_ENTRY_POINT = "mancala_envs.envs.parallel:parallel_env"  # a game without a module


def parallel_entry_point(info: GameInfo) -> str:
    """The Parallel API entry point of a game: its module's ``parallel_env``, else the generic one
    (called with the game's :attr:`~mancala_envs.rulesets.GameInfo.env_kwargs`)."""
    return f"{info.env_module}:parallel_env" if info.env_module else GENERIC_PARALLEL_ENTRY_POINT


# PettingZoo id -> entry point (AEC, Parallel), and Gymnasium id -> game name, of every registered game
ENV_IDS: GameTable[str, str] = GameTable(lambda info: (info.env_id, info.env_entry_point))
PARALLEL_IDS: GameTable[str, str] = GameTable(lambda info: (info.env_id, parallel_entry_point(info)))
GYM_IDS: GameTable[str, str] = GameTable(lambda info: (info.gym_id, info.name))


def _register_gym(info: GameInfo) -> None:
    if info.gym_id not in gymnasium.registry:
        gymnasium.register(
            id=info.gym_id,
            entry_point="mancala_envs.envs.single:SingleAgentEnv",
            vector_entry_point="mancala_envs.envs.gym_vector:MancalaVectorEnv",
            kwargs={"game": info.name},
            disable_env_checker=False,
        )


def register_envs() -> bool:
    """Register the AEC and Parallel envs of every registered game with PettingZoo's registries
    and the single-agent and vector envs with Gymnasium's; ids already present are left alone.
    Returns False when the installed PettingZoo has no registry (before 1.27; the Gymnasium ids
    are registered all the same)."""
    for info in registered_games():
        _register_gym(info)
    try:
        from pettingzoo import aec_registry, parallel_registry, register
    except ImportError:
        return False
    for info in registered_games():
        if info.env_id not in aec_registry:
            register("aec", info.env_id, entry_point=info.env_entry_point, kwargs=info.env_kwargs)
        if info.env_id not in parallel_registry:
            register("parallel", info.env_id, entry_point=parallel_entry_point(info), kwargs=info.env_kwargs)
    return True


def register_game(info: GameInfo) -> GameInfo:
    """Add a game: ``info`` (its :class:`~mancala_envs.rulesets.Ruleset` and metadata) joins the
    registry, so ``get_game``, ``GAMES``, the command lines' choices and every table of games know
    it, and its PettingZoo and Gymnasium ids are registered. Registering an equal GameInfo again
    is a no-op; another game of the same name is a ``ValueError``."""
    info = add_game(info)
    register_envs()
    return info


def unregister_game(name: str) -> GameInfo:
    """Undo :func:`register_game` for the game ``name`` (not a built-in one): out of the registry
    and out of Gymnasium's and PettingZoo's registries. Returns its GameInfo."""
    info = remove_game(name)
    gymnasium.registry.pop(info.gym_id, None)
    try:
        from pettingzoo import aec_registry, parallel_registry
    except ImportError:
        return info
    aec_registry.pop(info.env_id, None)
    parallel_registry.pop(info.env_id, None)
    return info
