"""Single games and paired matches, and the statistics a match reports.

Seeding (everything follows from one integer ``seed``): a game played with :func:`play_game`
derives one seed per seat from its ``seed`` (``SeedSequence(seed).generate_state(2)``). An agent
given as a spec string is built for that game with ``make_agent(spec, seed=...)``; an agent
object is reseeded (``reseed(seed)``, or a new ``rng``). Objects are reused from game to game, so
pass spec strings for agents that keep other state between moves: then every game is
independent and resumable.

**Paired openings.** :func:`play_match` plays ``n_games / 2`` pairs: pair ``k`` starts from
opening ``k`` of the suite (cycling through a shorter suite; no suite: the initial position,
player 0 first) and is played twice, ``a`` in seat 0 then in seat 1. Game ``2k + j`` has seed
``derive_seed(seed, k, j)``. The pair is the independent unit: its score for ``a`` is the mean of
its two games (0, 1/4, 1/2, 3/4 or 1).

**Interval.** :meth:`MatchResult.confidence_interval` is the Wilson score interval of the mean
pair score over the pairs (``n = pairs``). A pair score lies in [0, 1], so its variance is at
most ``p(1 - p)`` — the Bernoulli variance Wilson assumes — which makes the interval
conservative, and it stays honest at scores of 0 or 1. **Distinct games** are distinct (start,
moves) sequences; when fewer than 90% of the games are distinct the summary says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
from tqdm.auto import tqdm

from mancala_envs import Game, IllegalMoveError, State
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import as_agent
from mancala_envs.evaluation.arena.records import GameRecord
from mancala_envs.evaluation.openings import resolve_openings
from mancala_envs.game import check_seed, require_game
from mancala_envs.infra.interrupts import check as check_interrupt

DISTINCT_WARNING = 0.9  # below this share of distinct games a report says so


def derive_seed(*entropy: int) -> int:
    """One 32-bit seed from a tuple of non-negative integers (``SeedSequence``)."""
    return int(np.random.SeedSequence(list(entropy)).generate_state(1)[0])


def prepare(agent: Agent | str, seed: int) -> Agent:
    """A fresh agent for a spec string, or ``agent`` (a callable wrapped by
    :func:`mancala_envs.agents.registry.as_agent`) reseeded where it supports it: the arena's seed, not the
    agent's own, decides its random choices."""

    player = as_agent(agent, seed=seed)
    if isinstance(agent, str):
        return player  # built with the seed
    reseed = getattr(player, "reseed", None)
    if callable(reseed):
        reseed(seed)
    elif isinstance(getattr(player, "rng", None), np.random.Generator):
        player.rng = np.random.default_rng(seed)
    return player


def agent_name(agent: Agent | str) -> str:
    """A spec string as it is, else the agent's (or wrapped callable's) ``name``."""

    return agent if isinstance(agent, str) else str(as_agent(agent).name)


def play_game(
    game: Game,
    agent0: Agent | str,
    agent1: Agent | str,
    seed: int = 0,
    first_player: int = 0,
    on_move: Callable[[State, int | None], None] | None = None,
    start: State | None = None,
) -> GameRecord:
    """Play one game, ``agent0`` in seat 0 and ``agent1`` in seat 1, from ``start`` (default: the
    initial position with ``first_player`` to move) to its end or ``max_plies``.

    ``on_move(state, action)`` is called with the start (``action=None``) and after every move.
    An illegal move raises :class:`IllegalMoveError` naming the agent."""
    require_game(game)
    seed = check_seed(seed)
    seeds = tuple(int(s) for s in np.random.SeedSequence(seed).generate_state(2))
    players = (prepare(agent0, seeds[0]), prepare(agent1, seeds[1]))
    state = game.initial_state(first_player) if start is None else game._check_state(start)
    if state.is_over:
        raise ValueError(f"cannot play from a finished position: {state!r}")
    begin = state
    moves: list[int] = []
    if on_move is not None:
        on_move(state, None)
    while not state.is_over:
        mover = state.to_move
        action = players[mover].act(game, state)
        check_interrupt()
        try:
            state = game.apply(state, action)
        except IllegalMoveError as e:
            raise IllegalMoveError(
                f"agent {players[mover].name!r} (seat {mover}) played {action!r}: {e}"
            ) from e
        moves.append(int(action))
        if on_move is not None:
            on_move(state, int(action))
    return GameRecord(
        game=game.name,
        params=dict(game.params),
        seed=seed,
        agents=(agent_name(players[0]), agent_name(players[1])),
        agent_seeds=(seeds[0], seeds[1]),
        first_player=begin.to_move if start is not None else int(first_player),
        moves=moves,
        winner=state.winner,
        plies=state.ply,
        captured=(int(state.captured[0]), int(state.captured[1])),
        truncated=state.truncated,
        start=None if start is None else begin.to_dict(),
    )


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``."""
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class MatchResult:
    """Outcome of a match from ``a``'s point of view (truncated games count as draws).

    ``pair_scores``: ``a``'s score in each opening pair; ``distinct``: distinct games played."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int
    truncated: int
    records: list[GameRecord] = field(repr=False, default_factory=list)
    pair_scores: list[float] = field(repr=False, default_factory=list)
    distinct: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return len(self.pair_scores)

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / games``."""
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan

    def confidence_interval(self, level: float = 0.95) -> tuple[float, float]:
        """Wilson interval of the mean pair score over the pairs (module docstring)."""
        return wilson_interval(float(np.sum(self.pair_scores)), self.pairs, level)

    @property
    def distinct_share(self) -> float:
        return self.distinct / self.games if self.games else math.nan

    def caveat(self) -> str:
        """Words for the report when the games are not varied enough to be a sample, else ''."""
        if self.games and self.distinct_share < DISTINCT_WARNING:
            return (
                f"only {self.distinct} of {self.games} games are distinct: the score rests on few "
                "games (use an opening suite)"
            )
        return ""

    def summary(self) -> str:
        lo, hi = self.confidence_interval()
        text = (
            f"{self.a} vs {self.b}: {self.score:.3f} [{lo:.3f}, {hi:.3f}] over {self.pairs} opening pairs "
            f"({self.games} games, {self.distinct} distinct; W/D/L {self.wins}/{self.draws}/{self.losses})"
        )
        return text + (f" — {self.caveat()}" if self.caveat() else "")


def tally(a: str, b: str, records: Iterable[GameRecord]) -> MatchResult:
    """``a``'s results against ``b`` over ``records`` (grouped into pairs by ``meta["pair"]`` or,
    for tournament records, ``meta["index"] // 2``)."""
    res = MatchResult(a, b, 0, 0, 0, 0, [])
    pairs: dict[object, list[float]] = {}
    seen = set()
    for rec in records:
        s = rec.score_of(rec.seat_of(a))
        res.wins += s == 1.0
        res.draws += s == 0.5
        res.losses += s == 0.0
        res.truncated += rec.truncated
        res.records.append(rec)
        key = rec.meta.get("pair_index", rec.meta.get("index", len(pairs) * 2) // 2)
        pairs.setdefault(key, []).append(s)
        seen.add(rec.sequence_key())
    res.pair_scores = [float(np.mean(v)) for v in pairs.values()]
    res.distinct = len(seen)
    return res


def check_even(n: object, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n <= 0 or n % 2:
        raise ValueError(
            f"{what} must be a positive even integer (each opening is played with both seatings), got {n!r}"
        )
    return int(n)


def play_match(
    game: Game,
    a: Agent | str,
    b: Agent | str,
    n_games: int,
    seed: int = 0,
    openings: Sequence[State] | str | None = "default",
    progress: bool = False,
    on_game: Callable[[GameRecord], None] | None = None,
) -> MatchResult:
    """``n_games`` (even) games between ``a`` and ``b`` in ``n_games / 2`` opening pairs (module
    docstring). Every agent is reseeded from ``seed`` before each game (:func:`prepare`), so its
    own seed does not change the games. ``openings``: ``"default"`` (the game's default suite,
    :mod:`mancala_envs.evaluation.openings`), ``None``/``"none"`` (the initial position), a JSONL path or a
    list of
    States. ``on_game(record)`` is called after each game (e.g. to write it at once)."""

    require_game(game)
    n_games = check_even(n_games, "n_games")
    seed = check_seed(seed)
    a, b = (x if isinstance(x, str) else as_agent(x) for x in (a, b))  # a callable: wrapped once
    suite = resolve_openings(game, openings, n_games // 2)
    records = []
    for k in progress_bar(range(n_games // 2), progress, f"{agent_name(a)} vs {agent_name(b)}", unit="pair"):
        start = None if suite is None else suite[k % len(suite)]
        for j, seats in enumerate(((a, b), (b, a))):
            rec = play_game(game, *seats, seed=derive_seed(seed, k, j), start=start)
            rec.meta = {
                "index": 2 * k + j,
                "pair_index": k,
                "a_seat": j,
                "opening": None if suite is None else k % len(suite),
            }
            records.append(rec)
            if on_game is not None:
                on_game(rec)
    # the names the agents played under: a spec that spells out a default is named without it
    first = records[0]
    return tally(first.agents[first.meta["a_seat"]], first.agents[1 - first.meta["a_seat"]], records)


def progress_bar(
    it: Iterable, enabled: bool, desc: str, total: int | None = None, initial: int = 0, unit: str = "game"
):
    if not enabled:
        return it

    return tqdm(it, desc=desc, total=total, initial=initial, unit=unit, dynamic_ncols=True)
