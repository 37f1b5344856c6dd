"""The env side of :mod:`mancala_envs.training.train_rllib`: the league's agent ids, the opponent mixture and
:class:`RLlibMancalaEnv`, RLlib's ``PettingZooEnv`` over the project's AEC env (the module
docstring of :mod:`mancala_envs.training.train_rllib` describes the whole design)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from mancala_envs import GAMES, get_game  # noqa: F401  (GAMES: re-exported, the live registry)
from mancala_envs.agents.registry import make_agent
from mancala_envs.envs.aec import MancalaEnv

try:  # the rllib extra is optional: this module must import without it (for --help and errors)
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
except ImportError:  # pragma: no cover - exercised only without ray
    PettingZooEnv = object  # type: ignore[assignment,misc]

MAIN = "main"
LEAGUE = ("self", "frozen")  # opponents played by RLlib modules; anything else is an agent spec
DEFAULT_OPPONENTS = (("0.4", "self"), ("0.4", "frozen"), ("0.1", "random"), ("0.1", "greedy"))
CHECKPOINT = "checkpoint"
# a resume must match these and every declared game parameter (--holes-per-row, ...)
RUN_DEFINING = ("game", "max_plies", "hidden", "frozen")


def frozen_ids(k: int) -> list[str]:
    """Module ids of the ``k`` frozen copies of ``main``."""
    return [f"frozen_{i}" for i in range(k)]


def module_of(agent_id: str, *args: Any, **kwargs: Any) -> str:
    """Agent-to-module mapping: the module named in the agent id ``"<module>@<seat>"``."""
    return agent_id.partition("@")[0]


def parse_opponents(pairs: Sequence[Sequence[str]], frozen: int) -> dict[str, float]:
    """``[(weight, spec), ...]`` -> ``{spec: probability}``; ``ValueError`` naming a bad entry."""
    weights: dict[str, float] = {}
    for weight, spec in pairs:
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"opponent weight {weight!r} (for {spec!r}) is not a number") from None
        if not (w >= 0 and np.isfinite(w)):
            raise ValueError(f"opponent weight for {spec!r} must be a finite number >= 0, got {weight!r}")
        if spec not in LEAGUE:
            make_agent(spec)  # raises ValueError naming the known agents for a bad spec
        if spec == "frozen" and frozen < 1 and w > 0:
            raise ValueError("opponent 'frozen' needs --frozen >= 1")
        weights[spec] = weights.get(spec, 0.0) + w
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("the opponent weights must not all be zero")
    return {spec: w / total for spec, w in weights.items() if w > 0}


class RLlibMancalaEnv(PettingZooEnv):
    """RLlib's :class:`PettingZooEnv` over a mancala AEC env, with the opponent mixture above.

    ``config``: ``game``, ``game_params`` (``max_plies``, ``holes_per_row``), ``opponents``
    (``{spec: probability}``), ``frozen`` (number of frozen slots) and ``seed``. Only the agent to
    move gets an observation, except at the end, when every RLlib-played seat gets its last one.
    ``reset``/``step`` are the wrapper's AEC loop plus the role ids and the in-env baseline.
    """

    def __init__(self, config: dict[str, Any] | None = None):
        # RLlib passes an EnvContext (a dict with worker_index and vector_index attributes): read
        # them before copying it into a plain dict, which would drop them
        worker = int(getattr(config, "worker_index", 0))
        vector = int(getattr(config, "vector_index", 0))
        config = dict(config or {})
        game = get_game(config.get("game", "sadeqa_ii"), **config.get("game_params", {}))
        super().__init__(MancalaEnv(game, first_player="random"))
        self.game = game
        self.opponents = config.get("opponents", {"self": 1.0})
        self.frozen = frozen_ids(int(config.get("frozen", 0)))
        self._rng = np.random.default_rng([int(config.get("seed", 0)), worker, vector])
        self._baselines: dict[str, Any] = {}
        n = game.holes_per_row
        obs_space = spaces.Dict(
            {
                "observations": self.env.observation_space("player_0")["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )
        self.possible_agents = [f"{m}@{seat}" for m in [MAIN, *self.frozen] for seat in (0, 1)]
        self.agents = []
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space("player_0") for a in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._ids: dict[str, str | None] = {}
        self._baseline: Any = None
        self._baseline_seat = ""

    def _baseline_agent(self, spec: str) -> Any:
        if spec not in self._baselines:
            self._baselines[spec] = make_agent(spec, seed=int(self._rng.integers(2**31)))
        return self._baselines[spec]

    def _observe(self, player: str) -> dict[str, np.ndarray]:
        raw = self.env.observe(player)
        return {"observations": raw["observation"], "action_mask": raw["action_mask"].astype(np.float32)}

    def _play_baseline(self) -> None:
        env = self.env
        while self._baseline is not None and env.agents and env.agent_selection == self._baseline_seat:
            if env.terminations[self._baseline_seat] or env.truncations[self._baseline_seat]:
                return
            env.step(self._baseline.act(self.game, env.game_state))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new game: draws the opponent (``opponents``) and the main policy's seat, lets a baseline
        move first where it is to move; returns the observation of the RLlib-played agent to move."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        specs = list(self.opponents)
        opponent = specs[self._rng.choice(len(specs), p=list(self.opponents.values()))]
        seat = int(self._rng.integers(2))
        other = 1 - seat
        self.env.reset(seed=int(self._rng.integers(2**31)))
        self._baseline = None
        ids: dict[str, str | None] = {f"player_{seat}": f"{MAIN}@{seat}"}
        if opponent == "self":
            ids[f"player_{other}"] = f"{MAIN}@{other}"
        elif opponent == "frozen":
            ids[f"player_{other}"] = f"{self.frozen[self._rng.integers(len(self.frozen))]}@{other}"
        else:
            ids[f"player_{other}"] = None
            self._baseline, self._baseline_seat = self._baseline_agent(opponent), f"player_{other}"
        self._ids = ids
        self.agents = [a for a in ids.values() if a is not None]
        self._play_baseline()
        mover = self.env.agent_selection
        return {ids[mover]: self._observe(mover)}, {}

    def step(self, action_dict: dict[str, Any]):
        """The move of the agent to move, then the baseline's replies; RLlib's five dicts, with
        ``"__all__"`` set in the terminateds (a natural end) or the truncateds at the end."""
        env = self.env
        env.step(action_dict[self._ids[env.agent_selection]])
        self._play_baseline()
        obs, rew, term, trunc, info = {}, {}, {}, {}, {}
        while env.agents:
            player = env.agent_selection
            _, reward, terminated, truncated, player_info = env.last()
            done = terminated or truncated
            agent_id = self._ids[player]
            if agent_id is not None:
                obs[agent_id] = self._observe(player)
                rew[agent_id], term[agent_id], trunc[agent_id] = reward, terminated, truncated
                info[agent_id] = player_info
            if not done:
                break
            env.step(None)
        over = not env.agents
        ended = over and any(term.values())  # a natural end (or a forfeit), else a truncation
        term["__all__"], trunc["__all__"] = ended, over and not ended
        return obs, rew, term, trunc, info


# ---------------------------------------------------------------------------- algorithm
