"""What the three kinds of environment share: agent names, game resolution, the error for an
unknown keyword argument, the info keys and winner codes, spaces, the start state of an episode
(``reset(options={"state": ...})``) and the opponent adapter.

Every env's infos hold the same numeric keys from ``reset`` on (:data:`INFO_KEYS`; what each
env adds, such as ``"action_mask"`` with ``obs_format="flat"``, comes on top)::

    seat            int         the seat the info is about: the agent's index (AEC, parallel) or
                                the learner's seat (single-agent and vector envs)
    captured        (int, int)  seeds captured (own, opponent's), from that seat
    ply             int         moves played so far
    winner          int         0 or 1 the winning seat, DRAW (-1) a draw, NO_WINNER (-2) none:
                                the game is running, was truncated, or ended by an illegal-move
                                forfeit in the AEC/parallel env (the single-agent and vector envs
                                count a learner's forfeit as the opponent's win)
    illegal_action  bool        True for the seat whose illegal action ended the game

The codes are the rules core's (:mod:`mancala_envs.core.layout`); agent names never appear in
an info value, so libraries that turn every info value into a tensor (TorchRL) can read them.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from mancala_envs.core.layout import DRAW as DRAW  # the winner codes, re-exported
from mancala_envs.core.layout import NO_WINNER as NO_WINNER
from mancala_envs.game import Game, get_game
from mancala_envs.infra.compile_note import announce_compilation
from mancala_envs.rulesets import UnknownParameterError, declared_parameters, ruleset_parameters
from mancala_envs.state import State

AGENTS = ("player_0", "player_1")
INFO_KEYS = ("seat", "captured", "ply", "winner", "illegal_action")  # in every env's infos, from reset


class UnknownArgumentError(TypeError, ValueError):
    """A keyword argument an env does not take. A ``TypeError``, as Python raises for a function
    (and as libraries that probe optional arguments, such as TorchRL's ``GymEnv``, expect), and a
    ``ValueError``, which these envs raised before."""


def unknown_arguments(where: str, unknown: Any, accepted: str) -> UnknownArgumentError:
    """The error for the keyword arguments ``unknown`` (names) given to ``where`` (e.g.
    ``"SingleAgentEnv.__init__"``), in Python's words, then ``accepted`` (what it takes)."""
    first, *more = sorted(unknown)
    also = f" (and {', '.join(repr(m) for m in more)})" if more else ""
    return UnknownArgumentError(f"{where}() got an unexpected keyword argument {first!r}{also}; {accepted}")


def info_dict(seat: int, captured: tuple[int, int], ply: int, winner: int, illegal: bool) -> dict[str, Any]:
    """One info dict of :data:`INFO_KEYS` (plain Python numbers, module docstring)."""
    return {"seat": seat, "captured": captured, "ply": ply, "winner": winner, "illegal_action": illegal}


def resolve_game(
    game: str | Game, params: Mapping[str, Any], min_plies: int = 2, env: type | None = None
) -> Game:
    """The :class:`Game` named ``game`` built with ``params``, or ``game`` itself (then no params).
    ``params`` are the keyword arguments the env class ``env`` did not name, validated once, by
    :meth:`~mancala_envs.rulesets.GameInfo.ruleset_with` (through :func:`get_game`): one that is no
    parameter of the game raises :class:`UnknownArgumentError` listing the env's arguments and the
    game's parameters; a parameter of any registered game given as None is left out (the game's
    own value). A game with an opponent needs ``max_plies >= 2`` (each side moves once). The first
    call of a process whose compiled rules kernels are not cached yet announces their compilation
    (:mod:`mancala_envs.infra.compile_note`)."""
    announce_compilation("rules")
    declared = {"max_plies", *declared_parameters()}
    params = {k: v for k, v in params.items() if v is not None or k not in declared}
    if isinstance(game, Game):
        unknown = set(params) - ruleset_parameters(game.name)
        if unknown:
            raise _unknown_argument(env, game.name, unknown, sorted(ruleset_parameters(game.name)))
        if params:
            raise ValueError(f"game parameters {sorted(params)} apply to a game name, not to a Game object")
        result = game
    elif isinstance(game, str):
        try:
            result = get_game(game, **params)
        except UnknownParameterError as e:
            raise _unknown_argument(env, e.game, e.unknown, e.accepted) from None
    else:
        raise ValueError(f"game must be a game name or a mancala_envs.Game, got {game!r}")
    if result.max_plies < min_plies:
        raise ValueError(f"max_plies must be at least {min_plies} here, got {result.max_plies}")
    return result


def _unknown_argument(
    env: type | None, name: str, unknown: Iterable[str], game_params: Iterable[str]
) -> UnknownArgumentError:
    """The error for keyword arguments ``unknown`` that are neither the env class ``env``'s nor
    parameters of the game ``name``: an env with ``accepted_arguments(name)`` lists those, another
    its own arguments, then the game's parameters."""
    listed = f"the game parameters of {name} are {', '.join(game_params)}"
    if env is None:
        return unknown_arguments("get_game", unknown, listed)
    where = f"{env.__name__}.__init__"
    accepted = getattr(env, "accepted_arguments", None)
    if accepted is not None:
        return unknown_arguments(where, unknown, f"accepted: {', '.join(accepted(name))}")
    named = inspect.signature(env.__init__).parameters.items()
    args = [k for k, p in named if k not in ("self", "game") and p.kind is not p.VAR_KEYWORD]
    return unknown_arguments(where, unknown, f"its arguments are {', '.join(args)}; {listed}")


def make_spaces(game: Game) -> tuple[spaces.Box, spaces.Dict, spaces.Discrete]:
    """The flat observation space, the dict observation space and the action space of ``game``."""
    flat = spaces.Box(0.0, 1.0, (game.observation_size,), np.float32)
    mask = spaces.Box(0, 1, (game.num_actions,), np.int8)
    return flat, spaces.Dict({"observation": flat, "action_mask": mask}), spaces.Discrete(game.num_actions)


def as_state(game: Game, value: object) -> State:
    """A running :class:`State` of ``game`` from a State or its ``to_dict()`` form."""
    if isinstance(value, Mapping):
        state = game.state_from_dict(value)
    elif isinstance(value, State):
        state = game._check_state(value)
    else:
        raise ValueError(f"a start state is a State or a State.to_dict() dict, got {type(value).__name__}")
    if state.is_over:
        raise ValueError(f"cannot start an episode from a finished position: {state!r}")
    return state


def start_state(game: Game, options: Mapping[str, Any] | None, first_player: int) -> State:
    """The first position of an episode: ``options["state"]`` if given, else the start."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options or ()) - {"state"})
    if unknown:
        warnings.warn(f"reset options {unknown} ignored: the only option is 'state'", stacklevel=3)
    if options and options.get("state") is not None:
        return as_state(game, options["state"])
    return game.initial_state(first_player)


AGENT_PROVIDER = "mancala_envs.agents"  # the package that registers the spec resolver on import
_resolver: Callable[..., Any] | None = None


def register_agent_resolver(resolver: Callable[..., Any]) -> None:
    """Set how the envs turn a spec string or a callable into an agent: ``resolver(opponent,
    seed=..., batched_callable=...)``. :mod:`mancala_envs.agents` registers
    :func:`~mancala_envs.agents.registry.as_agent` when it is imported."""
    global _resolver
    _resolver = resolver


def opponent_agent(opponent: object, seed: int, batched_callable: bool = False) -> Any:
    """The opponent as an agent of the one protocol (``act``/``act_batch``): an object with ``act``
    is kept as it is; a spec string or a callable (``f(observation_dict)`` for the single-agent
    env, ``f(observations, masks)`` for the vector env) goes to the registered resolver. The envs
    sit below the agents, so the resolver is registered by the agents package; a spec given before
    it was imported imports it by name (:data:`AGENT_PROVIDER`)."""
    if callable(getattr(opponent, "act", None)):
        return opponent
    if _resolver is None:
        importlib.import_module(AGENT_PROVIDER)  # registers its resolver
    assert _resolver is not None, f"{AGENT_PROVIDER} did not register an agent resolver"
    return _resolver(opponent, seed=seed, batched_callable=batched_callable)
