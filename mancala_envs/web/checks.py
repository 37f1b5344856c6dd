"""The web app's boundary: every request body is checked here, with the Python API's own checks
(``get_game``, ``Game.state_from_dict``, ``Game.apply``, ``parse_spec``), before anything runs.

A bad request raises ``ValueError`` (or :class:`~mancala_envs.IllegalMoveError`) with a message
naming the problem; :mod:`mancala_envs.web.app` answers it with status 400 and that message. No
value from a request names a file: records are chosen by their index in the server's own listing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mancala_envs import Game, State, get_game
from mancala_envs.agents.registry import AGENT_NAMES, parse_spec
from mancala_envs.evaluation.openings import random_openings
from mancala_envs.game import as_int
from mancala_envs.infra.lru import LRU

MAX_BODY_BYTES = 64 * 1024  # a position with a long move list fits many times over
MAX_MOVES = 2000  # longer than any game within the default max_plies (1000)
SUITE_OPENINGS = 100  # openings offered per variant: the first of the game's default suite
# agents a request may name, and parameters it may not give (they name files or start table builds)
# agents the page offers: not the ones that need a file of their own (the page takes no paths)
WEB_AGENTS = tuple(a for a in AGENT_NAMES if a not in ("human", "rllib", "az-jax"))
REFUSED_PARAMETERS = ("path", "max_seeds", "trusted", "proof")
# the depth/sims a spec without them means (the agents' defaults), pinned when a time cap is added
DEFAULT_SIZE = {"minimax": ("depth", "4"), "mcts": ("sims", "1000"), "az": ("sims", "100")}
MAX_PERFECT_DEPTH = 6  # perfect searches (in Python) to this depth outside its table


@dataclass(frozen=True)
class Position:
    """A game from a request: its start and the states after each of its moves."""

    game: Game
    states: list[State]
    moves: list[int]

    @property
    def state(self) -> State:
        return self.states[-1]


def require_dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def require_keys(body: dict[str, Any], allowed: tuple[str, ...], what: str) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise ValueError(f"unknown key(s) {names} in {what}; allowed: {', '.join(allowed)}")


def game_from(body: dict[str, Any]) -> Game:
    """The game a request names: ``game`` (a name) and ``params`` (an object; default none)."""
    name = body.get("game")
    if not isinstance(name, str):
        raise ValueError(f"'game' must be a game name (a string), got {name!r}")
    params = require_dict(body.get("params", {}), "'params'")
    try:
        return get_game(name, **params)
    except TypeError as e:  # an unknown parameter
        raise ValueError(str(e)) from None


def opening(game: Game, index: object) -> State:
    """Opening ``index`` of the game's default suite (the arena's ``--openings default``)."""
    i = as_int(index, "opening")
    if not 0 <= i < SUITE_OPENINGS:
        raise ValueError(f"opening must be in 0..{SUITE_OPENINGS - 1}, got {i}")
    return suite(game)[i]


SUITES_KEPT = 16  # suites kept (a game with each max_plies is another), least recently used dropped
_SUITES: LRU[list[State]] = LRU(SUITES_KEPT)


def suite(game: Game) -> list[State]:
    """The game's opening suite (made once, kept while it is among the recently used)."""
    return _SUITES.get(game, lambda: random_openings(game, SUITE_OPENINGS))


def start_from(game: Game, start: object) -> State:
    """``null`` (the initial position), ``{"opening": i}`` or ``{"state": STATE_DICT}``."""
    if start is None:
        return game.initial_state()
    start = require_dict(start, "'start'")
    if len(start) != 1 or next(iter(start)) not in ("opening", "state"):
        raise ValueError('\'start\' must be null, {"opening": INDEX} or {"state": STATE_DICT}')
    if "opening" in start:
        return opening(game, start["opening"])
    d = require_dict(start["state"], "'start.state'")
    if d.get("game", game.name) != game.name or d.get("params", game.params) != game.params:
        raise ValueError(
            f"the pasted position is a {d.get('game')} game with {d.get('params')}, "
            f"not {game.name} with {game.params}"
        )
    return game.state_from_dict(d)


def position_from(body: dict[str, Any]) -> Position:
    """The position a request describes: ``game``, ``params``, ``start`` and ``moves`` (local
    holes, replayed with ``Game.apply``: an illegal one raises ``IllegalMoveError``)."""
    game = game_from(body)
    state = start_from(game, body.get("start"))
    moves = body.get("moves", [])
    if not isinstance(moves, list):
        raise ValueError(f"'moves' must be a list of holes, got {type(moves).__name__}")
    if len(moves) > MAX_MOVES:
        raise ValueError(f"'moves' holds {len(moves)} moves; at most {MAX_MOVES}")
    states, played = [state], []
    for ply, move in enumerate(moves):
        action = as_int(move, f"move {ply}")
        states.append(game.apply(states[-1], action))
        played.append(action)
    return Position(game, states, played)


def bounded_spec(spec: object, seconds: float, tables: bool) -> str:
    """An agent spec a request may run, its compute bounded by ``seconds`` a move.

    Refused: agents that are not for the web (``human``: a side of the page; ``rllib``), and
    parameters that name files or build tables (``path``, ``max_seeds``, ``trusted``, ``proof``). A search
    agent (``minimax``, ``mcts``, ``az``) given no ``time`` gets ``time=seconds`` with its depth or
    simulations pinned to their defaults (so it plays as the spec says, unless the cap cuts it
    short); one given a larger ``time`` is refused. ``perfect`` reads the server's table (``tables``
    says whether there is one) and searches at most :data:`MAX_PERFECT_DEPTH` plies outside it."""
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string such as 'minimax:depth=4', got {spec!r}")
    name, params = parse_spec(spec)
    if name not in WEB_AGENTS:
        raise ValueError(f"agent {name!r} cannot play in the web app; agents: {', '.join(WEB_AGENTS)}")
    refused = sorted(set(params) & set(REFUSED_PARAMETERS))
    if refused:
        raise ValueError(
            f"parameter {refused[0]!r} is not accepted by the web app (the server chooses its files)"
        )
    if name in DEFAULT_SIZE:
        if "time" in params:
            try:
                asked = float(params["time"])
            except ValueError:
                raise ValueError(f"bad {name} parameter time: {params['time']!r} is not a number") from None
            if not asked <= seconds:
                raise ValueError(
                    f"{name} time={params['time']} is over the server's cap of {seconds:g} s a move"
                )
        else:
            key, default = DEFAULT_SIZE[name]
            params.setdefault(key, default)
            params["time"] = f"{seconds:g}"
    if name == "perfect":
        if not tables:
            raise ValueError("perfect needs a tablebase, and the server has none for this variant")
        depth = params.get("depth", "4")
        if not (depth.isascii() and depth.isdigit()) or not 1 <= int(depth) <= MAX_PERFECT_DEPTH:
            raise ValueError(f"perfect depth must be in 1..{MAX_PERFECT_DEPTH} here, not {depth!r}")
    return name + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
