"""The three games as data: one frozen :class:`Ruleset` per game (RULES.md §2–§4).

A ruleset holds every parameter the engine in :mod:`mancala_envs.core` needs. The engine never
looks at a game's name; it reads these fields (packed into an int64 vector by
:meth:`Ruleset.to_array`). Adding a variant means adding a ruleset, not code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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

RULESETS: dict[str, Ruleset] = {r.name: r for r in (SONGO_EWONDO, SADEQA_II, EN_DODOI)}
EN_DODOI_WIDTHS = range(6, 11)


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def ruleset_parameters(name: str) -> set[str]:
    """The parameters :func:`get_ruleset` accepts for the game ``name``."""
    return {"max_plies", "holes_per_row"} if name == "en_dodoi" else {"max_plies"}


def get_ruleset(name: str, **params: object) -> Ruleset:
    """The ruleset of game ``name`` with ``params`` applied (``max_plies``; ``holes_per_row``
    for En Dodoi). Unknown names or parameters raise ``ValueError`` naming the problem."""
    if not isinstance(name, str) or name not in RULESETS:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(RULESETS)}")
    base = RULESETS[name]
    allowed = ruleset_parameters(name)
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(unknown)} for {name}; accepted: {', '.join(sorted(allowed))}"
        )
    changes: dict[str, int] = {}
    if params.get("max_plies") is not None:
        max_plies = _check_int("max_plies", params["max_plies"])
        if not 1 <= max_plies <= MAX_PLIES_LIMIT:
            raise ValueError(f"max_plies must be at least 1 and at most {MAX_PLIES_LIMIT}, got {max_plies}")
        changes["max_plies"] = max_plies
    if params.get("holes_per_row") is not None:
        holes = _check_int("holes_per_row", params["holes_per_row"])
        if holes not in EN_DODOI_WIDTHS:
            raise ValueError(f"holes_per_row must be in 6..10 for en_dodoi, got {holes}")
        changes["holes_per_row"] = holes
    return replace(base, **changes) if changes else base
