"""Build agents from spec strings: ``make_agent("mcts:sims=1000,c=1.4", seed=0)``.

A spec is a name, optionally followed by ``:`` and comma-separated ``key=value`` parameters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.alphazero_jax import AZJaxAgent
from mancala_envs.agents.base import Agent, RandomAgent, require_running
from mancala_envs.agents.greedy import GreedyAgent
from mancala_envs.agents.human import HumanAgent
from mancala_envs.agents.mcts.agent import MCTSAgent
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.agents.model_files import model_played
from mancala_envs.agents.perfect import PerfectAgent
from mancala_envs.agents.policies.policy import PolicyAgent
from mancala_envs.agents.policies.rllib import RLlibAgent
from mancala_envs.game import check_seed
from mancala_envs.infra.compile_note import agent_kernels, announce_compilation


def _integer(text: str) -> int:
    """``text`` as an integer written in ASCII digits (``int`` alone also reads ``'٣'`` or ``'1_0'``)."""
    if re.fullmatch(r"[+-]?[0-9]+", text) is None:
        raise ValueError(f"{text!r} is not an integer")
    return int(text)


def _number(text: str) -> float:
    try:
        if not text.isascii() or "_" in text:
            raise ValueError
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not np.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value


def _boolean(text: str) -> bool:
    words = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
    if text.lower() not in words:
        raise ValueError(f"{text!r} is not a boolean (true/false)")
    return words[text.lower()]


# name -> (constructor taking **params and seed, {parameter: parser}, how the spec reads)
AGENTS: dict[str, tuple[Callable[..., Agent], dict[str, Callable[[str], Any]], str]] = {
    "random": (RandomAgent, {}, "random"),
    "greedy": (GreedyAgent, {}, "greedy"),
    "minimax": (
        MinimaxAgent,
        {"depth": _integer, "time": _number, "epsilon": _number},
        "minimax:depth=4[,time=SECONDS (no depth cap unless given)][,epsilon=0.1]",
    ),
    "mcts": (
        MCTSAgent,
        {"sims": _integer, "c": _number, "time": _number},
        "mcts:sims=1000[,c=1.4][,time=SECONDS (no sims cap unless given)]",
    ),
    "policy": (
        PolicyAgent,
        {"path": str, "sample": _boolean, "temperature": _number, "trusted": _boolean},
        "policy[:path=MODEL.json][,sample=true|temperature=T][,trusted=true for a pickled .zip]",
    ),
    "az": (
        AZAgent,
        {
            "path": str,
            "sims": _integer,
            "time": _number,
            "temperature": _number,
            "discount": _number,
            "finish": _integer,
            "forward": str,
        },
        "az[:path=MODEL.json][,sims=100][,time=S][,temperature=T][,discount=D][,finish=PLIES]"
        "[,forward=numba|torch]",
    ),
    "az-jax": (AZJaxAgent, {"path": str, "sims": _integer}, "az-jax:path=MODEL.json[,sims=N]"),
    "rllib": (
        RLlibAgent,
        {"path": str, "module": str, "sample": _boolean},
        "rllib:path=DIR[,module=main][,sample=true]",
    ),
    "perfect": (
        PerfectAgent,
        {"max_seeds": _integer, "path": str, "depth": _integer, "proof": str},
        "perfect[:max_seeds=K][,path=DIR][,depth=4][,proof=PATH|off]",
    ),
    "human": (HumanAgent, {}, "human"),
}
AGENT_NAMES = tuple(AGENTS)


def agent_help() -> str:
    """One line per agent: how its spec reads."""
    return "; ".join(usage for _, _, usage in AGENTS.values())


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:sims=1000,c=1.4"`` -> ``("mcts", {"sims": "1000", "c": "1.4"})`` (values unparsed)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string such as 'minimax:depth=4', got {spec!r}")
    name, colon, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r} in {spec!r}; known agents: {agent_help()}")
    params: dict[str, str] = {}
    if colon:
        for item in rest.split(","):
            key, eq, value = (part.strip() for part in item.partition("="))
            if not eq or not key or not value:
                raise ValueError(f"malformed parameter {item.strip()!r} in {spec!r}: write key=value")
            if key in params:
                raise ValueError(f"parameter {key!r} given twice in {spec!r}")
            params[key] = value
    return name, params


def make_agent(spec: str, seed: int = 0) -> Agent:
    """The agent described by ``spec``, with its generator seeded by ``seed``.

    Raises ``ValueError`` naming the known agents for an unknown name, the accepted parameters for
    an unknown one, and the problem for a malformed or out-of-range value. The agent's ``name`` is
    its canonical spec: ``make_agent(agent.name)`` rebuilds the same agent (defaults left out).
    """
    check_seed(seed)
    name, raw = parse_spec(spec)
    factory, accepted, usage = AGENTS[name]
    params: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in accepted:
            allowed = ", ".join(accepted) if accepted else "none"
            raise ValueError(f"agent {name!r} has no parameter {key!r}; accepted: {allowed} (spec: {usage})")
        try:
            params[key] = accepted[key](value)
        except ValueError as err:
            raise ValueError(f"bad {name} parameter {key}: {err}") from None
    announce_compilation(*agent_kernels(name))  # its kernels' first use may compile them
    return factory(**params, seed=seed)  # each agent names itself with the spec that rebuilds it


def models_played(game: Any, specs: Iterable[object]) -> dict[str, dict[str, str]]:
    """``{spec: {"file", "sha256"}}`` for every spec string in ``specs`` that plays a model file
    in ``game`` (``policy``, ``az``): what a result file records so that a table measured with a
    model that has changed since can be marked stale."""
    out = {}
    for spec in specs:
        if isinstance(spec, str):
            record = model_played(game, *parse_spec(spec))
            if record is not None:
                out[spec] = record
    return out


class CallableAgent(Agent):
    """An agent around a callable, for the envs' older ``opponent=`` forms: ``f(observation_dict)
    -> action`` (single-agent env) or, ``batched``, ``f(observations, masks) -> actions`` (vector
    env). Observations are the mover's (``game.observation``), masks int8."""

    def __init__(self, fn: Callable[..., Any], batched: bool, seed: int = 0):
        super().__init__(seed)
        self.fn, self.batched = fn, batched
        self.name = f"callable:{getattr(fn, '__name__', type(fn).__name__)}"

    def act(self, game: Any, state: Any) -> int:
        mask = require_running(game, state).copy()
        obs = game.observation(state, state.to_move)
        if self.batched:
            return self.fn(obs[None], mask[None])[0]
        return self.fn({"observation": obs, "action_mask": mask})

    def act_batch(self, game: Any, states: np.ndarray) -> np.ndarray:
        if not self.batched:
            return super().act_batch(game, states)
        masks = game.legal_masks(states)
        return np.asarray(self.fn(game.observations(states, states[:, game.layout.to_move]), masks))


def as_agent(opponent: object, seed: int = 0, batched_callable: bool = False) -> Agent:
    """The one adapter from what a caller holds to the agent protocol (``agents/base.py``): a spec
    string (built with :func:`make_agent` and ``seed``), an agent (anything with ``act``, returned
    as it is) or a callable (wrapped in :class:`CallableAgent`)."""
    if isinstance(opponent, str):
        return make_agent(opponent, seed=seed)
    if callable(getattr(opponent, "act", None)):
        return opponent  # type: ignore[return-value]
    if callable(opponent):
        return CallableAgent(opponent, batched_callable, seed=seed)
    raise ValueError(
        "an opponent is an agent spec (e.g. 'greedy', 'minimax:depth=2'), an agent or a callable, "
        f"got {opponent!r}"
    )
