"""Game statistics from many compiled games: lengths, results, branching, captures and
never-ending relays, under random or greedy play.

::

    stats = play_games(get_game("en_dodoi"), 100_000, seed=0, players=("greedy", "random"))
    stats.first_player_score, stats.branching_by_ply(), stats.never_ending_rate

Everything runs inside numba over the core's engine (:func:`mancala_envs.core.engine.play`); the
same seed gives the same statistics. The greedy player is :func:`mancala_envs.agents.greedy.greedy_action`,
the policy of :class:`mancala_envs.agents.greedy.GreedyAgent`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from mancala_envs.agents.greedy import greedy_action
from mancala_envs.core import layout
from mancala_envs.core.batch import random_legal_action
from mancala_envs.core.engine import new_work, play
from mancala_envs.core.fast import kernel
from mancala_envs.core.relay import simulate_relay
from mancala_envs.core.sowing import NEVER_ENDS
from mancala_envs.game import Game, require_game
from mancala_envs.rulesets import R_HOLES, R_SOWING, SOW_RELAY

POLICIES = {"random": 0, "greedy": 1}
MAX_PLIES_COUNTED = 100_000  # branching statistics are kept for the plies below this


@kernel
def never_ending_moves(state, rules, work):
    """How many of the mover's non-empty holes start a relay that never ends (SQ5/ED3)."""
    n = rules[R_HOLES]
    if rules[R_SOWING] != SOW_RELAY:
        return 0
    mover = state[layout.off_to_move(n)]
    count = 0
    for a in range(n):
        hole = mover * n + a
        if state[hole] > 0 and simulate_relay(state, n, hole, rules, work) == NEVER_ENDS:
            count += 1
    return count


@njit(cache=True)
def _play_games(rules, n_games, start_state, policies, rng, plies_counted):
    n = rules[R_HOLES]
    winner = np.empty(n_games, dtype=np.int8)
    plies = np.empty(n_games, dtype=np.int32)
    captured = np.empty((n_games, 2), dtype=np.int32)
    truncated = np.zeros(n_games, dtype=np.bool_)
    captures = np.zeros((n_games, 2), dtype=np.int32)  # moves that captured, per player
    never_ending = np.zeros(n_games, dtype=np.int32)
    branching_sum = np.zeros(plies_counted, dtype=np.int64)
    branching_games = np.zeros(plies_counted, dtype=np.int64)
    start = start_state.copy()
    state = start.copy()
    before = start.copy()
    child = start.copy()
    ties = np.empty(n, dtype=np.int64)
    work = new_work(n)
    for g in range(n_games):
        state[:] = start
        while state[layout.off_status(n)] == layout.RUNNING:
            ply = state[layout.off_ply(n)]
            mover = state[layout.off_to_move(n)]
            if ply < branching_sum.shape[0]:
                branching_sum[ply] += state[layout.off_mask(n) : layout.off_mask(n) + n].sum()
                branching_games[ply] += 1
            never_ending[g] += never_ending_moves(state, rules, work)
            if policies[mover] == 1:
                action = greedy_action(state, rules, rng, child, work, ties)
            else:
                action = random_legal_action(state, n, rng)
            before[:] = state
            play(state, action, rules, work, True)
            cap = layout.off_captured(n) + mover
            if state[cap] > before[cap] and state[layout.off_status(n)] == layout.RUNNING:
                captures[g, mover] += 1
        winner[g] = state[layout.off_winner(n)]
        plies[g] = state[layout.off_ply(n)]
        captured[g, 0] = state[layout.off_captured(n)]
        captured[g, 1] = state[layout.off_captured(n) + 1]
        truncated[g] = state[layout.off_status(n)] == layout.TRUNCATED
    return winner, plies, captured, truncated, captures, never_ending, branching_sum, branching_games


@dataclass(frozen=True)
class GameStatistics:
    """Per-game arrays of :func:`play_games` and the summaries a study reads off them."""

    game: Game
    players: tuple[str, str]
    first_player: int
    winner: np.ndarray  # int8: 0, 1, -1 draw, -2 truncated
    plies: np.ndarray  # int32
    captured: np.ndarray  # int32 (n_games, 2), final counts (end-of-game board included)
    truncated: np.ndarray  # bool
    capturing_moves: np.ndarray  # int32 (n_games, 2): moves that captured, per player
    never_ending: np.ndarray  # int32: never-ending relay moves met (legal-mask exclusions)
    branching_sum: np.ndarray  # int64 by ply: legal moves summed over the games at that ply
    branching_games: np.ndarray  # int64 by ply: games still running at that ply

    @property
    def n_games(self) -> int:
        return int(self.winner.shape[0])

    @property
    def first_player_score(self) -> float:
        """Score of the player who moved first: (wins + draws / 2) / games."""
        wins = np.count_nonzero(self.winner == self.first_player)
        draws = np.count_nonzero((self.winner == -1) | (self.winner == -2))
        return (wins + draws / 2) / self.n_games

    @property
    def draw_rate(self) -> float:
        return float(np.mean(self.winner == -1))

    @property
    def mean_branching(self) -> float:
        """Legal moves per position, over every position of every game."""
        return float(self.branching_sum.sum() / max(self.branching_games.sum(), 1))

    @property
    def never_ending_rate(self) -> float:
        """Never-ending relay moves per position met (0 in Songo Ewondo)."""
        return float(self.never_ending.sum() / max(self.branching_games.sum(), 1))

    def branching_by_ply(self, min_games: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """(plies, mean legal moves) at each ply reached by at least ``min_games`` games."""
        keep = self.branching_games >= max(min_games, 1)
        plies = np.flatnonzero(keep)
        return plies, self.branching_sum[keep] / self.branching_games[keep]


def play_games(
    game: Game,
    n_games: int,
    seed: int = 0,
    players: tuple[str, str] = ("random", "random"),
    first_player: int = 0,
) -> GameStatistics:
    """Play ``n_games`` games in compiled code, seat ``i`` following ``players[i]`` ("random" or
    "greedy"), every choice drawn from ``numpy.random.default_rng(seed)``."""
    require_game(game)
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games must be a non-negative integer, got {n_games!r}")
    if first_player not in (0, 1):
        raise ValueError(f"first_player must be 0 or 1, got {first_player!r}")
    if len(players) != 2 or any(p not in POLICIES for p in players):
        raise ValueError(f"players must be two of {sorted(POLICIES)}, got {players!r}")
    policies = np.array([POLICIES[p] for p in players], dtype=np.int64)
    rng = np.random.default_rng(seed)
    start = game.initial_state(int(first_player)).array.copy()
    counted = min(game.max_plies, MAX_PLIES_COUNTED) + 1
    arrays = _play_games(game.rules, int(n_games), start, policies, rng, counted)
    return GameStatistics(game, tuple(players), int(first_player), *arrays)
