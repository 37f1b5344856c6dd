"""The games as data: one frozen :class:`Ruleset` per game (RULES.md §2–§4) and, beside it, its
:class:`GameInfo`, in one registry.

A ruleset holds every parameter the engine in :mod:`mancala_envs.core` needs. The engine never
looks at a game's name; it reads these fields (packed into an int64 vector by
:meth:`Ruleset.to_array`). Everything else the project knows about a game (the parameters a user
may vary and their ranges, the plies of its default opening suite, its env ids, its minimax
weights) is a field of its :class:`GameInfo`, and every table of games (:data:`RULESETS`,
:data:`GAMES`, the env ids, ...) is read live from the registry. Adding a game means adding data,
not code: :func:`mancala_envs.registration.register_game` (docs/adding-a-game.md).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

import numpy as np

# Sowing styles.
SOW_SINGLE_LAP = 0  # SE1/SE2: one lap, big holes sown into the opponent's row only
SOW_RELAY = 1  # SQ1/SQ2, ED1: relay sowing, no hole skipped

# Capture styles.
CAPTURE_CHAIN = 0  # SE3–SE5: last hole with 2..4 and a backward chain in the opponent's row
CAPTURE_OPPOSITE_EITHER_SIDE = 1  # SQ3: the hole opposite the landing hole, on either side
CAPTURE_OPPOSITE_OWN_SIDE = 2  # ED2: own-side landing only; opposite seeds plus the landing seed

# How the result is decided.
RESULT_BY_CAPTURES = 0  # SE10, ED5
RESULT_BY_SURVIVAL = 1  # SQ6

# Positions in the packed rules vector read by the kernels.
R_HOLES = 0
R_SOWING = 1
R_DIRECTION = 2
R_CAPTURE = 3
R_BIG_HOLE = 4
R_SINGLE_CAPTURE_MULTIPLE = 5
R_CAPTURE_MIN = 6
R_CAPTURE_MAX = 7
R_GRAND_SLAM_FORFEIT = 8
R_LEFTMOST_RESTRICTION = 9
R_FEEDING_TARGET = 10
R_LONE_SEED = 11
R_OPENING_HOLE = 12
R_END_TO_LAST_MOVER = 13
R_RESULT = 14
R_MAX_LAPS = 15
R_MAX_PLIES = 16
R_SEEDS_PER_HOLE = 17
RULES_LENGTH = 18

MAX_RELAY_LAPS = 10_000  # SQ5, ED3
DEFAULT_MAX_PLIES = 1000  # TR1
MAX_PLIES_LIMIT = 2**31 - 1  # the ply count is an int32 of the packed state


@dataclass(frozen=True)
class Ruleset:
    """Every parameter of one game. Field comments cite the RULES.md rule they encode."""

    name: str
    holes_per_row: int
    seeds_per_hole: int
    sowing: int  # SOW_SINGLE_LAP (SE1/SE2) or SOW_RELAY (SQ1, ED1)
    direction: int  # -1 clockwise (Songo), +1 counter-clockwise (relay games)
    capture: int  # one of the CAPTURE_* styles
    result: int  # RESULT_BY_CAPTURES or RESULT_BY_SURVIVAL
    end_board_to_last_mover: bool  # SE9, ED4
    big_hole: int = 0  # SE2: holes with this many seeds or more sow the opponent's row only
    single_capture_multiple: int = 0  # SE4: sowings of k*this (k >= 2) capture one hole only
    capture_min: int = 0  # SE3: a hole is captured when it holds capture_min..capture_max
    capture_max: int = 0
    grand_slam_forfeit: bool = False  # SE5
    leftmost_restriction: bool = False  # SE6
    feeding_target: int = 0  # SE7: 0 = no feeding rule
    lone_seed_capture: bool = False  # SE8
    opening_hole: int = -1  # SQ4: local hole of each player's forced first move, -1 = none
    max_relay_laps: int = MAX_RELAY_LAPS  # SQ5, ED3
    max_plies: int = DEFAULT_MAX_PLIES  # TR1

    @property
    def total_seeds(self) -> int:
        return 2 * self.holes_per_row * self.seeds_per_hole

    @property
    def has_opening_rule(self) -> bool:
        return self.opening_hole >= 0

    def to_array(self) -> np.ndarray:
        """The rules vector the compiled kernels read (positions ``R_*``)."""
        a = np.zeros(RULES_LENGTH, dtype=np.int64)
        a[R_HOLES] = self.holes_per_row
        a[R_SOWING] = self.sowing
        a[R_DIRECTION] = self.direction
        a[R_CAPTURE] = self.capture
        a[R_BIG_HOLE] = self.big_hole
        a[R_SINGLE_CAPTURE_MULTIPLE] = self.single_capture_multiple
        a[R_CAPTURE_MIN] = self.capture_min
        a[R_CAPTURE_MAX] = self.capture_max
        a[R_GRAND_SLAM_FORFEIT] = self.grand_slam_forfeit
        a[R_LEFTMOST_RESTRICTION] = self.leftmost_restriction
        a[R_FEEDING_TARGET] = self.feeding_target
        a[R_LONE_SEED] = self.lone_seed_capture
        a[R_OPENING_HOLE] = self.opening_hole
        a[R_END_TO_LAST_MOVER] = self.end_board_to_last_mover
        a[R_RESULT] = self.result
        a[R_MAX_LAPS] = self.max_relay_laps
        a[R_MAX_PLIES] = self.max_plies
        a[R_SEEDS_PER_HOLE] = self.seeds_per_hole
        a.setflags(write=False)
        return a


SONGO_EWONDO = Ruleset(
    name="songo_ewondo",
    holes_per_row=7,
    seeds_per_hole=5,
    sowing=SOW_SINGLE_LAP,
    direction=-1,
    capture=CAPTURE_CHAIN,
    result=RESULT_BY_CAPTURES,
    end_board_to_last_mover=True,
    big_hole=14,
    single_capture_multiple=7,
    capture_min=2,
    capture_max=4,
    grand_slam_forfeit=True,
    leftmost_restriction=True,
    feeding_target=7,
    lone_seed_capture=True,
)

SADEQA_II = Ruleset(
    name="sadeqa_ii",
    holes_per_row=6,
    seeds_per_hole=3,
    sowing=SOW_RELAY,
    direction=+1,
    capture=CAPTURE_OPPOSITE_EITHER_SIDE,
    result=RESULT_BY_SURVIVAL,
    end_board_to_last_mover=False,
    opening_hole=5,
)

EN_DODOI = Ruleset(
    name="en_dodoi",
    holes_per_row=8,
    seeds_per_hole=4,
    sowing=SOW_RELAY,
    direction=+1,
    capture=CAPTURE_OPPOSITE_OWN_SIDE,
    result=RESULT_BY_CAPTURES,
    end_board_to_last_mover=True,
)

EN_DODOI_WIDTHS = range(6, 11)  # RULES.md §4: holes_per_row 6..10

DEFAULT_OPENING_PLIES = (4, 8)  # random plies of a game's default opening suite, where it has none
# Minimax heuristic weights: (captured, row, non-empty holes) difference weights, then the
# low-material extension threshold (-1: none); agents.minimax explains them. A game without its
# own gets the default of its result rule:
WEIGHTS_BY_CAPTURES = (4, 1, 0, -1)  # SE10/ED5: captures decide, the board goes to the last mover
WEIGHTS_BY_SURVIVAL = (0, 1, 1, -1)  # SQ6: seeds and occupied holes keep a player alive
GENERIC_AEC_ENTRY_POINT = "mancala_envs.envs.aec:MancalaEnv"  # the AEC env of a game without a module

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_GYM_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
_FIXED_FIELDS = ("name", "max_plies")  # max_plies (TR1) is every game's parameter


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def _span(values: range) -> str:
    return f"{values.start}..{values[-1]}" if values.step == 1 else ", ".join(map(str, values))


def check_ruleset(ruleset: Ruleset) -> Ruleset:
    """``ruleset`` when the engine supports it; ``ValueError`` naming the first problem otherwise.

    Supported: one-lap sowing with the chain capture (SE1–SE8) or relay sowing with an opposite
    capture on either side (SQ3) or the mover's side (ED2); the opening rule (SQ4) with relays
    only; either result rule (SE10/ED5 or SQ6) and either end of the board (SE9/ED4 or SQ6). The
    one-lap options (big holes ... lone seed) must keep their defaults in a relay game."""
    if not isinstance(ruleset, Ruleset):
        raise ValueError(f"a ruleset must be a Ruleset, got {type(ruleset).__name__}")
    r = ruleset
    if not isinstance(r.name, str) or not _NAME.match(r.name):
        raise ValueError(f"a game name is lower-case letters, digits and '_', from a letter; got {r.name!r}")
    for f in fields(r)[1:]:
        value = getattr(r, f.name)
        if f.type == "bool" and not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{f.name} must be a bool, got {value!r}")
        if f.type == "int":
            _check_int(f.name, value)

    def need(ok: bool, problem: str) -> None:
        if not ok:
            raise ValueError(f"ruleset {r.name!r}: {problem}")

    need(r.holes_per_row >= 2, f"holes_per_row must be at least 2, got {r.holes_per_row}")
    need(r.seeds_per_hole >= 1, f"seeds_per_hole must be at least 1, got {r.seeds_per_hole}")
    need(r.direction in (-1, 1), f"direction must be -1 or +1, got {r.direction}")
    need(r.result in (RESULT_BY_CAPTURES, RESULT_BY_SURVIVAL), f"unknown result rule {r.result}")
    need(r.max_relay_laps >= 1, f"max_relay_laps must be at least 1, got {r.max_relay_laps}")
    need(1 <= r.max_plies <= MAX_PLIES_LIMIT, f"max_plies must be in 1..{MAX_PLIES_LIMIT}, got {r.max_plies}")
    if r.sowing == SOW_SINGLE_LAP:
        need(r.capture == CAPTURE_CHAIN, "one-lap sowing (SE1) captures by the chain rule (SE3) only")
        need(1 <= r.capture_min <= r.capture_max, "the chain capture needs 1 <= capture_min <= capture_max")
        need(min(r.big_hole, r.single_capture_multiple, r.feeding_target) >= 0, "negative one-lap option")
        need(r.opening_hole == -1, "the opening rule (SQ4) applies to relay games only")
    elif r.sowing == SOW_RELAY:
        styles = (CAPTURE_OPPOSITE_EITHER_SIDE, CAPTURE_OPPOSITE_OWN_SIDE)
        need(r.capture in styles, "relay sowing (SQ1, ED1) captures opposite the landing hole (SQ3 or ED2)")
        one_lap = (r.big_hole, r.single_capture_multiple, r.capture_min, r.capture_max, r.feeding_target)
        flags = (r.grand_slam_forfeit, r.leftmost_restriction, r.lone_seed_capture)
        need(not any(one_lap) and not any(flags), "the one-lap options (SE2–SE8) do not apply to relays")
        hole = r.opening_hole
        need(-1 <= hole < r.holes_per_row, f"opening_hole must be -1 or a local hole, got {hole}")
    else:
        need(False, f"unknown sowing style {r.sowing}")
    return r


def default_heuristic_weights(ruleset: Ruleset) -> tuple[int, int, int, int]:
    """The minimax weights of a game without its own: those of its result rule (SE10/ED5, SQ6)."""
    return WEIGHTS_BY_CAPTURES if ruleset.result == RESULT_BY_CAPTURES else WEIGHTS_BY_SURVIVAL


class UnknownParameterError(ValueError):
    """A parameter the game does not declare (:meth:`GameInfo.ruleset_with`): ``unknown``, the names
    given that it does not take, ``accepted``, those it does. The envs turn it into their
    ``UnknownArgumentError`` (:func:`mancala_envs.envs.common.resolve_game`)."""

    def __init__(self, game: str, unknown: Sequence[str], accepted: Sequence[str]):
        self.game, self.unknown, self.accepted = game, tuple(sorted(unknown)), tuple(sorted(accepted))
        names, allowed = ", ".join(self.unknown), ", ".join(self.accepted)
        super().__init__(f"unknown parameter(s) {names} for {game}; accepted: {allowed}")


@dataclass(frozen=True)
class GameInfo:
    """A game as data: its base :class:`Ruleset` and what the rest of the project reads about it.

    ``parameters``: the ruleset's int fields a user may set through ``get_game``, with their
    allowed values (a mapping or ``(name, range)`` pairs; ``max_plies``, TR1, is every game's
    parameter and is not listed). ``opening_plies``: the random plies of the game's default
    opening suite (:mod:`mancala_envs.evaluation.openings`). ``heuristic_weights``: minimax's
    (None: :func:`default_heuristic_weights`). ``env_module``: a module exporting the PettingZoo
    ``env()`` (None: :data:`GENERIC_AEC_ENTRY_POINT`). ``gym_name``: the Gymnasium id's name (None:
    ``display_name`` without spaces). A bad field raises ``ValueError`` naming it.
    """

    ruleset: Ruleset
    display_name: str
    parameters: tuple[tuple[str, range], ...] = ()
    opening_plies: tuple[int, int] = DEFAULT_OPENING_PLIES
    heuristic_weights: tuple[int, int, int, int] | None = None
    env_module: str | None = None
    gym_name: str | None = None

    def variant_name(self, params: Mapping[str, Any]) -> str:
        """``Songo Ewondo``, ``En Dodoi (8 holes)``: the game with the values in ``params`` of its
        declared parameters in words (``holes_per_row`` as holes, another by its name)."""
        words = [
            f"{params[p]} holes" if p == "holes_per_row" else f"{p} {params[p]}"
            for p, _ in self.parameters
            if params.get(p)
        ]
        return self.display_name + (f" ({', '.join(words)})" if words else "")

    def __post_init__(self) -> None:
        r = check_ruleset(self.ruleset)
        if not isinstance(self.display_name, str) or not self.display_name.strip():
            raise ValueError(f"display_name must be a non-empty string, got {self.display_name!r}")
        items = self.parameters.items() if isinstance(self.parameters, Mapping) else self.parameters
        params = tuple((str(p), v) for p, v in items)
        variable = {f.name for f in fields(Ruleset) if f.type == "int"} - set(_FIXED_FIELDS)
        for p, values in params:
            if p not in variable:
                fields_ = ", ".join(sorted(variable))
                raise ValueError(f"{p!r} is not a variable int field of a Ruleset: {fields_}")
            if not isinstance(values, range) or not values or values.step < 1:
                raise ValueError(f"parameter {p} takes a non-empty increasing range, got {values!r}")
            if getattr(r, p) not in values:
                raise ValueError(f"{r.name}'s own {p} ({getattr(r, p)}) is not in its range {_span(values)}")
        if len({p for p, _ in params}) != len(params):
            raise ValueError(f"a parameter is listed twice: {[p for p, _ in params]}")
        object.__setattr__(self, "parameters", params)
        plies = tuple(_check_int("opening_plies", x) for x in self.opening_plies)
        if len(plies) != 2 or not 0 <= plies[0] <= plies[1]:
            raise ValueError(f"opening_plies must be (lo, hi) with 0 <= lo <= hi, got {self.opening_plies!r}")
        object.__setattr__(self, "opening_plies", plies)
        if self.heuristic_weights is not None:
            w = tuple(_check_int("heuristic_weights", x) for x in self.heuristic_weights)
            if len(w) != 4:
                raise ValueError(f"heuristic_weights are 4 integers, got {self.heuristic_weights!r}")
            object.__setattr__(self, "heuristic_weights", w)
        if self.env_module is not None and not isinstance(self.env_module, str):
            raise ValueError(f"env_module must be a module name or None, got {self.env_module!r}")
        camel = self.gym_name if self.gym_name is not None else "".join(self.display_name.split())
        if not isinstance(camel, str) or not _GYM_NAME.match(camel):
            raise ValueError(f"the Gymnasium name must be letters and digits, got {camel!r} (set gym_name)")

    @property
    def name(self) -> str:
        return self.ruleset.name

    @property
    def parameter_names(self) -> tuple[str, ...]:
        """Every keyword ``get_game`` takes for this game: ``max_plies`` (TR1), then its own."""
        return ("max_plies", *(p for p, _ in self.parameters))

    @property
    def env_id(self) -> str:
        """The PettingZoo AEC id, ``mancala/<name>-v0``."""
        return f"mancala/{self.name}-v0"

    @property
    def env_entry_point(self) -> str:
        return f"{self.env_module}:env" if self.env_module else GENERIC_AEC_ENTRY_POINT

    @property
    def env_kwargs(self) -> dict[str, str]:
        """The keyword arguments the AEC entry point is registered with."""
        return {} if self.env_module else {"game": self.name}

    @property
    def gym_id(self) -> str:
        """The Gymnasium id, ``mancala_envs/<CamelName>-v0``."""
        return f"mancala_envs/{self.gym_name or ''.join(self.display_name.split())}-v0"

    @property
    def weights(self) -> tuple[int, int, int, int]:
        """The minimax heuristic weights: the game's own, else its result rule's default."""
        return self.heuristic_weights or default_heuristic_weights(self.ruleset)

    def ruleset_with(self, **params: object) -> Ruleset:
        """The ruleset with ``params`` applied (``max_plies`` and the game's :attr:`parameters`;
        None leaves a field as it is): the one validation of a game's parameters, on every way
        to a :class:`~mancala_envs.game.Game`. A name the game does not declare raises
        :class:`UnknownParameterError`, a bad value ``ValueError``, each naming it."""
        unknown = set(params) - set(self.parameter_names)
        if unknown:
            raise UnknownParameterError(self.name, sorted(unknown), self.parameter_names)
        changes: dict[str, int] = {}
        if params.get("max_plies") is not None:
            max_plies = _check_int("max_plies", params["max_plies"])
            if not 1 <= max_plies <= MAX_PLIES_LIMIT:
                limit = MAX_PLIES_LIMIT
                raise ValueError(f"max_plies must be at least 1 and at most {limit}, got {max_plies}")
            changes["max_plies"] = max_plies
        for p, values in self.parameters:
            if params.get(p) is not None:
                value = _check_int(p, params[p])
                if value not in values:
                    raise ValueError(f"{p} must be in {_span(values)} for {self.name}, got {value}")
                changes[p] = value
        return check_ruleset(replace(self.ruleset, **changes)) if changes else self.ruleset

    def variant(self, **params: object) -> Ruleset:
        """Deprecated: :meth:`ruleset_with` (a *variant* is :attr:`Game.variant`, a name)."""
        warnings.warn(
            "GameInfo.variant is deprecated; use GameInfo.ruleset_with", DeprecationWarning, stacklevel=2
        )
        return self.ruleset_with(**params)


SONGO_EWONDO_INFO = GameInfo(
    SONGO_EWONDO,
    "Songo Ewondo",
    heuristic_weights=(4, 1, 0, -1),  # captures decide (SE10); the board goes to the last mover (SE9)
    env_module="mancala_envs.songo_ewondo_v0",
)
SADEQA_II_INFO = GameInfo(
    SADEQA_II,
    "Sadeqa II",
    heuristic_weights=(0, 1, 1, 4),  # won by survival (SQ6); one ply deeper at <= 4 seeds a row
    env_module="mancala_envs.sadeqa_ii_v0",
)
EN_DODOI_INFO = GameInfo(
    EN_DODOI,
    "En Dodoi",
    parameters=(("holes_per_row", EN_DODOI_WIDTHS),),
    opening_plies=(2, 6),  # the player to move keeps an edge from every range (evaluation.openings)
    heuristic_weights=(4, 1, 0, 6),  # as Songo's (ED4, ED5); one ply deeper at <= 6 seeds a row
    env_module="mancala_envs.en_dodoi_v0",
)
BUILTIN_GAMES: tuple[GameInfo, ...] = (SONGO_EWONDO_INFO, SADEQA_II_INFO, EN_DODOI_INFO)

# ---------------------------------------------------------------------------- the registry

_REGISTRY: dict[str, GameInfo] = {}
RULESETS: dict[str, Ruleset] = {}  # name -> base ruleset of every registered game, kept in sync


def add_game(info: GameInfo) -> GameInfo:
    """Put ``info`` in the registry (the data half of
    :func:`mancala_envs.registration.register_game`, which also registers its envs). An equal
    GameInfo again is a no-op; another game of a registered name or env id is a ``ValueError``."""
    if not isinstance(info, GameInfo):
        raise ValueError(f"register a GameInfo, got {type(info).__name__}")
    known = _REGISTRY.get(info.name)
    if known is not None:
        if known != info:
            raise ValueError(f"another game named {info.name!r} is registered; unregister it first")
        return known
    for other in _REGISTRY.values():
        if info.gym_id == other.gym_id:
            raise ValueError(f"{info.name}'s Gymnasium id {info.gym_id} is {other.name}'s (set gym_name)")
    _REGISTRY[info.name] = info
    RULESETS[info.name] = info.ruleset
    return info


def remove_game(name: str) -> GameInfo:
    """Take the game ``name`` out of the registry and return it (the built-in games stay)."""
    info = game_info(name)
    if info in BUILTIN_GAMES:
        raise ValueError(f"{name} is a built-in game; it cannot be unregistered")
    del _REGISTRY[name], RULESETS[name]
    return info


def game_info(name: str) -> GameInfo:
    """The :class:`GameInfo` of the registered game ``name``; ``ValueError`` for another name."""
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def registered_games() -> tuple[GameInfo, ...]:
    """Every registered game's :class:`GameInfo`, in registration order."""
    return tuple(_REGISTRY.values())


class GameNames(Sequence[str]):
    """The registered games' names in registration order: a read-only tuple read live."""

    def __getitem__(self, index):  # type: ignore[override]
        return tuple(_REGISTRY)[index]

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(_REGISTRY))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in _REGISTRY

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, GameNames) else other)

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: tuple) -> tuple:
        return tuple(self) + tuple(other)

    def __repr__(self) -> str:
        return repr(tuple(self))


K = TypeVar("K")
V = TypeVar("V")


class GameTable(Mapping[K, V]):
    """A read-only table derived from the registry and read live: ``item(info)`` is one
    registered game's ``(key, value)`` (e.g. ``registration.ENV_IDS``, ``openings.DEFAULT_PLIES``)."""

    def __init__(self, item: Callable[[GameInfo], tuple[K, V]]):
        self._item = item

    def _table(self) -> dict[K, V]:
        return dict(self._item(info) for info in _REGISTRY.values())

    def __getitem__(self, key: K) -> V:
        return self._table()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __repr__(self) -> str:
        return repr(self._table())


GAMES = GameNames()
for _info in BUILTIN_GAMES:
    add_game(_info)


def ruleset_parameters(name: str) -> set[str]:
    """The parameters :func:`get_ruleset` accepts for the game ``name`` (``max_plies`` alone for a
    name that is not registered)."""
    info = _REGISTRY.get(name) if isinstance(name, str) else None
    return set(info.parameter_names) if info else {"max_plies"}


def declared_parameters() -> tuple[str, ...]:
    """Every parameter some registered game declares (``max_plies`` aside), each once, in
    registration order (the command-line flags of :mod:`mancala_envs.variant`)."""
    names: dict[str, None] = {}
    for info in _REGISTRY.values():
        names.update((p, None) for p, _ in info.parameters)
    return tuple(names)


def parameter_values(ruleset: Ruleset) -> dict[str, int]:
    """The parameters that rebuild ``ruleset`` with :func:`get_ruleset`: ``max_plies``, then the
    variable fields of its game (none for a name that is not registered)."""
    info = _REGISTRY.get(ruleset.name)
    names = info.parameter_names if info else ("max_plies",)
    return {p: getattr(ruleset, p) for p in names}


def parameter_help(param: str) -> str:
    """A command-line help text for the game parameter ``param``: the games taking it, its values
    and default, e.g. ``"en_dodoi only: 6..10 (default 8)"``."""
    takers = [
        f"{info.name}: {_span(values)} (default {getattr(info.ruleset, p)})"
        for info in _REGISTRY.values()
        for p, values in info.parameters
        if p == param
    ]
    if len(takers) == 1:
        return takers[0].replace(":", " only:", 1)
    return "; ".join(takers) or "no registered game takes it"


def get_ruleset(name: str, **params: Any) -> Ruleset:
    """The ruleset of the registered game ``name`` with ``params`` applied (``max_plies``, TR1,
    and its :attr:`GameInfo.parameters`, e.g. ``holes_per_row`` for En Dodoi). Unknown names or
    parameters raise ``ValueError`` naming the problem."""
    return game_info(name).ruleset_with(**params)
