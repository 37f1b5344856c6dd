"""The PettingZoo Parallel API over the AEC env, for turn-based play (``<game>_v0.parallel_env()``).

Each parallel step is one move: ``step(actions)`` applies the action of the agent to move (the
one whose ``action_mask`` is non-zero, ``infos``/observations as in the AEC env) and ignores the
other agent's entry, which may be anything or absent. Rewards are those of that move (the AEC
env's ``rewards``); when the game ends both agents are terminated (or truncated) and leave
``agents``. ``max_cycles`` counts parallel steps, i.e. moves (``max_plies = max_cycles``).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import ParallelEnv

from mancala_envs.envs.aec import MancalaEnv


class MancalaParallelEnv(ParallelEnv):
    """A :class:`~mancala_envs.envs.aec.MancalaEnv` stepped through the Parallel API."""

    def __init__(self, aec_env: MancalaEnv):
        if not isinstance(aec_env, MancalaEnv):
            raise ValueError(f"MancalaParallelEnv wraps a MancalaEnv, got {type(aec_env).__name__}")
        self.aec_env = aec_env
        self.metadata = {**aec_env.metadata, "is_parallelizable": True}
        self.possible_agents = list(aec_env.possible_agents)
        self.render_mode = aec_env.render_mode
        self.agents: list[str] = []

    @classmethod
    def make(cls, env_class: type[MancalaEnv], **kwargs: Any) -> MancalaParallelEnv:
        """``env_class(**kwargs)`` as a parallel env, ``max_cycles`` read as moves."""
        if "max_cycles" in kwargs:
            if "max_plies" in kwargs:
                raise ValueError("give max_plies or max_cycles, not both")
            kwargs["max_plies"] = kwargs.pop("max_cycles")
        return cls(env_class(**kwargs))

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
        return {a: self.aec_env.observe(a) for a in self.agents}, {
            a: dict(self.aec_env.infos[a]) for a in self.agents
        }

    def step(self, actions: dict[str, Any]):
        env = self.aec_env
        if not self.agents:
            raise RuntimeError("step() after the game ended; call reset()")
        mover = env.agent_selection
        if not isinstance(actions, dict) or mover not in actions:
            raise ValueError(f"actions must be a dict holding the action of {mover}, the agent to move")
        env.step(actions[mover])
        agents = self.agents
        observations = {a: env.observe(a) for a in agents}
        rewards = {a: float(env.rewards[a]) for a in agents}
        terminations = {a: bool(env.terminations[a]) for a in agents}
        truncations = {a: bool(env.truncations[a]) for a in agents}
        infos = {a: dict(env.infos[a]) for a in agents}
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
