"""The PettingZoo Parallel API over the AEC env, for turn-based play (``<game>_v0.parallel_env()``).

Each parallel step is one move: ``step(actions)`` applies the action of the agent to move (the
one whose ``action_mask`` is non-zero, ``infos``/observations as in the AEC env) and ignores the
other agent's entry, which may be anything or absent. Rewards are those of that move (the AEC
env's ``rewards``); when the game ends both agents are terminated (or truncated) and leave
``agents``. ``max_cycles`` counts parallel steps, i.e. moves (``max_plies = max_cycles``).

**The waiting player.** Only one agent moves per step; by default the other agent's
``action_mask`` is all zero (no legal action). Libraries that sample an action for every live
agent from its mask (TorchRL's masked random policy and masked categorical distributions) cannot
sample from an all-zero mask: ``parallel_env(waiting_noop=True)`` gives every agent that cannot
move now (the waiting player, and both in the last observation) exactly one legal action,
:data:`NOOP_ACTION` (hole 0), a no-op that the env ignores. The agent to move is then
:attr:`MancalaParallelEnv.agent_selection`, not the one with a non-zero mask.

Registered for ``pettingzoo.make("parallel", "mancala/<game>-v0")`` (the AEC ids).

The Parallel env at a glance:

====================  ========================================================================================
Import                ``from mancala_envs import songo_ewondo_v0``, then ``songo_ewondo_v0.parallel_env()``
                      (also ``sadeqa_ii_v0``, ``en_dodoi_v0``); any registered game: :func:`parallel_env`
API                   PettingZoo's ``ParallelEnv``, one move per step (``metadata["is_parallelizable"]`` True)
Agents                ``["player_0", "player_1"]``, both live until the game ends
Actions               ``actions[agent]``, each agent's ``Discrete(n)``; only the entry of the agent to move
                      counts
Agent to move         :attr:`MancalaParallelEnv.agent_selection` (without ``waiting_noop``, also the one
                      with a non-zero ``action_mask``)
Observations          as the AEC env's (``obs_format``), for both agents every step
Action mask           ``observations[agent]["action_mask"]`` (``obs_format="flat"``:
                      ``infos[agent]["action_mask"]``); the waiting agent's is all zero, or the no-op alone
                      with ``waiting_noop=True``
Rewards               those of the step's move: +1 / -1 / 0 at the end only
Registered ids        ``pettingzoo.make("parallel", "mancala/<game>-v0")``
====================  ========================================================================================

Arguments: every argument of :class:`~mancala_envs.envs.aec.MancalaEnv` (``max_plies``, ``first_player``,
``render_mode``, ``illegal_action``, ``obs_format``, ...), and

================  =========  =================================================================================
argument          default    meaning
================  =========  =================================================================================
``waiting_noop``  ``False``  give an agent that cannot move the one legal no-op action :data:`NOOP_ACTION`
                             (above)
``max_cycles``    ``None``   a truncation limit in parallel steps, i.e. moves: ``max_plies = max_cycles``;
                             give it or ``max_plies``
``game``          ``None``   the game (a name or a :class:`~mancala_envs.Game`), for :func:`parallel_env`
                             only: a ``<game>_v0`` module's ``parallel_env`` knows its game
================  =========  =================================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from mancala_envs.envs.aec import MancalaEnv
from mancala_envs.envs.common import unknown_arguments

NOOP_ACTION = 0  # with waiting_noop=True: the one legal (and ignored) action of an agent that cannot move


class MancalaParallelEnv(ParallelEnv):
    """A :class:`~mancala_envs.envs.aec.MancalaEnv` stepped through the Parallel API;
    ``waiting_noop=True`` gives the waiting player the no-op action (module docstring)."""

    def __init__(self, aec_env: MancalaEnv, *, waiting_noop: bool = False):
        if not isinstance(aec_env, MancalaEnv):
            raise ValueError(f"MancalaParallelEnv wraps a MancalaEnv, got {type(aec_env).__name__}")
        if not isinstance(waiting_noop, bool):
            raise ValueError(f"waiting_noop must be True or False, got {waiting_noop!r}")
        self.aec_env = aec_env
        self.waiting_noop = waiting_noop
        self.metadata = {**aec_env.metadata, "is_parallelizable": True}
        self.possible_agents = list(aec_env.possible_agents)
        self.render_mode = aec_env.render_mode
        self.agents: list[str] = []

    @classmethod
    def make(cls, env_class: type[MancalaEnv], **kwargs: Any) -> MancalaParallelEnv:
        """``env_class(**kwargs)`` as a parallel env, ``max_cycles`` read as moves;
        ``waiting_noop`` is the parallel env's own argument."""
        waiting_noop = kwargs.pop("waiting_noop", False)
        game = kwargs.get("game") or env_class.game_name
        accepted = env_class.accepted_arguments(getattr(game, "name", game))
        unknown = set(kwargs) - {"game", *accepted}
        if unknown:
            accepted_text = f"accepted: {', '.join(sorted([*accepted, 'waiting_noop']))}"
            raise unknown_arguments("parallel_env", unknown, accepted_text)
        if "max_cycles" in kwargs:
            if "max_plies" in kwargs:
                raise ValueError("give max_plies or max_cycles, not both")
            kwargs["max_plies"] = kwargs.pop("max_cycles")
        return cls(env_class(**kwargs), waiting_noop=waiting_noop)

    @property
    def agent_selection(self) -> str:
        """The agent to move (the one whose action counts in the next ``step``)."""
        return self.aec_env.agent_selection

    @property
    def game(self):
        return self.aec_env.game

    def observation_space(self, agent: str):
        return self.aec_env.observation_space(agent)

    def action_space(self, agent: str):
        return self.aec_env.action_space(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        self.aec_env.reset(seed=seed, options=options)
        self.agents = list(self.aec_env.agents)
        return self._observations(self.agents), self._infos(self.agents)

    def _observations(self, agents: list[str]) -> dict[str, Any]:
        observations = {a: self.aec_env.observe(a) for a in agents}
        if self.waiting_noop and self.aec_env.obs_format == "dict":
            for obs in observations.values():
                self._noop(obs["action_mask"])
        return observations

    def _infos(self, agents: list[str]) -> dict[str, dict[str, Any]]:
        infos = {a: dict(self.aec_env.infos[a]) for a in agents}
        if self.waiting_noop and self.aec_env.obs_format == "flat":
            for info in infos.values():
                info["action_mask"] = self._noop(info["action_mask"].copy())
        return infos

    @staticmethod
    def _noop(mask: np.ndarray) -> np.ndarray:
        if not mask.any():
            mask[NOOP_ACTION] = 1
        return mask

    def step(self, actions: dict[str, Any]):
        env = self.aec_env
        if not self.agents:
            raise RuntimeError("step() after the game ended; call reset()")
        mover = env.agent_selection
        if not isinstance(actions, dict) or mover not in actions:
            raise ValueError(f"actions must be a dict holding the action of {mover}, the agent to move")
        env.step(actions[mover])
        agents = self.agents
        observations = self._observations(agents)
        rewards = {a: float(env.rewards[a]) for a in agents}
        terminations = {a: bool(env.terminations[a]) for a in agents}
        truncations = {a: bool(env.truncations[a]) for a in agents}
        infos = self._infos(agents)
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        self.agents = list(env.agents)
        return observations, rewards, terminations, truncations, infos

    def render(self):
        return self.aec_env.render()

    def state(self):
        return self.aec_env.state()

    def close(self) -> None:
        self.aec_env.close()


def parallel_env(game: Any = None, **kwargs: Any) -> MancalaParallelEnv:
    """The parallel env of any game (a name or a :class:`~mancala_envs.Game`): the Parallel entry
    point of a registered game without a module of its own."""
    return MancalaParallelEnv.make(MancalaEnv, game=game, **kwargs)


def game_module_api(game: str, module: str) -> tuple[type[MancalaEnv], Any, Any]:
    """What a ``<game>_v0`` module exports, PettingZoo's way: ``raw_env`` (the AEC env class of
    ``game``), ``env(**kwargs)`` (it, PettingZoo's standard wrappers being built in) and
    ``parallel_env(**kwargs)`` (the Parallel API). ``module`` is the exporting module's name."""
    doc = f"The {game} AEC environment (module docstring); ``env()`` returns it unwrapped."
    raw_env = type("raw_env", (MancalaEnv,), {"__module__": module, "__doc__": doc}, game=game)

    def env(**kwargs: Any) -> MancalaEnv:
        return raw_env(**kwargs)

    def parallel_env(**kwargs: Any) -> MancalaParallelEnv:
        return MancalaParallelEnv.make(raw_env, **kwargs)

    env.__doc__ = f"The {game} AEC environment (PettingZoo's standard wrappers are built in)."
    parallel_env.__doc__ = f"The {game} environment through PettingZoo's Parallel API."
    for f in (env, parallel_env):
        f.__module__, f.__qualname__ = module, f.__name__
    return raw_env, env, parallel_env
