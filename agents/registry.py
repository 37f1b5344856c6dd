"""Build agents from spec strings: ``make_agent("mcts:sims=1000,c=1.4", seed=0)``.

A spec is a name, optionally followed by ``:`` and comma-separated ``key=value`` parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent, RandomAgent
from agents.greedy import GreedyAgent
from agents.human import HumanAgent
from agents.mcts import MCTSAgent
from agents.minimax import MinimaxAgent
from agents.policy import PolicyAgent
from agents.rllib_agent import RLlibAgent


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an integer") from None


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


def _boolean(text: str) -> bool:
    words = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
    if text.lower() not in words:
        raise ValueError(f"{text!r} is not a boolean (true/false)")
    return words[text.lower()]


# name -> (constructor taking **params and seed, {parameter: parser}, how the spec reads)
AGENTS: dict[str, tuple[Callable[..., Agent], dict[str, Callable[[str], Any]], str]] = {
    "random": (RandomAgent, {}, "random"),
    "greedy": (GreedyAgent, {}, "greedy"),
    "minimax": (MinimaxAgent, {"depth": _integer, "time": _number}, "minimax:depth=4[,time=SECONDS]"),
    "mcts": (
        MCTSAgent,
        {"sims": _integer, "c": _number, "time": _number},
        "mcts:sims=1000[,c=1.4][,time=SECONDS]",
    ),
    "policy": (PolicyAgent, {"path": str, "sample": _boolean}, "policy[:path=MODEL.zip][,sample=true]"),
    "rllib": (
        RLlibAgent,
        {"path": str, "module": str, "sample": _boolean},
        "rllib:path=DIR[,module=main][,sample=true]",
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
    the spec, whitespace removed.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
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
    agent = factory(**params, seed=seed)
    agent.name = name + (":" + ",".join(f"{k}={v}" for k, v in raw.items()) if raw else "")
    return agent
