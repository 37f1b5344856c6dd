"""Game statistics from many compiled games: lengths, results, branching, captures and
never-ending relays, under random or greedy play.

    stats = play_games(get_game("en_dodoi"), 100_000, seed=0, players=("greedy", "random"))
    stats.first_player_score, stats.branching_by_ply(), stats.never_ending_rate

Everything runs inside numba over the core's kernels (:mod:`mancala_envs.kernels`); the same seed
gives the same statistics. The greedy policy here is the one of :class:`agents.greedy.GreedyAgent`
(:func:`greedy_action` is its compiled form).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from mancala_envs import kernels as K
from mancala_envs.game import Game
from mancala_envs.rulesets import R_HOLES, R_RESULT, R_SOWING, RESULT_BY_SURVIVAL, SOW_RELAY

POLICIES = {"random": 0, "greedy": 1}


@njit(cache=True)
def move_gain(before, after, n, player, rules):
    """What ``player``'s move from ``before`` to ``after`` gained in the game's own terms: captured
    seeds (SE10/ED5 games, the end-of-game board included), or, in a survival game (SQ6) where
    captures do not score, seeds on his row minus seeds on the opponent's row after the move."""
    if rules[R_RESULT] == RESULT_BY_SURVIVAL:
        return K.row_sum(after, n, player) - K.row_sum(after, n, 1 - player)
    cap = K.off_captured(n) + player
    return after[cap] - before[cap]


@njit(cache=True)
def greedy_action(state, rules, rng, scratch, ties):
    """One ply: a move that wins at once if there is one, else the largest :func:`move_gain`;
    ties at random. ``scratch`` is a state-sized buffer, ``ties`` an int64 buffer of n."""
    n = rules[R_HOLES]
    me = state[K.off_to_move(n)]
    best_won = -1
    best_gain = -(1 << 30)
    count = 0
    for a in range(n):
        if state[K.off_mask(n) + a] == 0:
            continue
        scratch[:] = state
        K.apply_move(scratch, a, rules)
        won = 1 if scratch[K.off_status(n)] == K.DONE and scratch[K.off_winner(n)] == me else 0
        gain = move_gain(state, scratch, n, me, rules)
        if won > best_won or (won == best_won and gain > best_gain):
            best_won, best_gain, count = won, gain, 0
        if won == best_won and gain == best_gain:
            ties[count] = a
            count += 1
    if count == 0:
        return -1
    return ties[rng.integers(0, count)]


@njit(cache=True)
def greedy_actions(states, rules, rng):
    """:func:`greedy_action` for every row of a batch of running packed states."""
    n = rules[R_HOLES]
    out = np.empty(states.shape[0], dtype=np.int64)
    scratch = np.empty(states.shape[1], dtype=states.dtype)
    ties = np.empty(n, dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = greedy_action(states[i], rules, rng, scratch, ties)
    return out


@njit(cache=True)
def never_ending_moves(state, rules, scratch, saved):
    """How many of the mover's non-empty holes start a relay that never ends (SQ5/ED3)."""
    n = rules[R_HOLES]
    if rules[R_SOWING] != SOW_RELAY:
        return 0
    mover = state[K.off_to_move(n)]
    count = 0
    for a in range(n):
        hole = mover * n + a
        if state[hole] > 0 and not K.relay_ends(state[: 2 * n], n, hole, rules, scratch, saved):
            count += 1
    return count


@njit(cache=True)
def _play_games(rules, n_games, first_player, policies, rng, max_plies):
    n = rules[R_HOLES]
    winner = np.empty(n_games, dtype=np.int8)
    plies = np.empty(n_games, dtype=np.int32)
    captured = np.empty((n_games, 2), dtype=np.int32)
    truncated = np.zeros(n_games, dtype=np.bool_)
    captures = np.zeros((n_games, 2), dtype=np.int32)  # moves that captured, per player
    never_ending = np.zeros(n_games, dtype=np.int32)
    branching_sum = np.zeros(max_plies + 1, dtype=np.int64)
    branching_games = np.zeros(max_plies + 1, dtype=np.int64)
    start = K.initial_state(rules, first_player)
    state = start.copy()
    before = start.copy()
    scratch = start.copy()
    ties = np.empty(n, dtype=np.int64)
    board_scratch = np.empty(2 * n, dtype=start.dtype)
    saved = np.empty(2 * n, dtype=start.dtype)
    for g in range(n_games):
        state[:] = start
        while state[K.off_status(n)] == K.RUNNING:
            ply = state[K.off_ply(n)]
            mover = state[K.off_to_move(n)]
            branching_sum[ply] += state[K.off_mask(n) : K.off_mask(n) + n].sum()
            branching_games[ply] += 1
            never_ending[g] += never_ending_moves(state, rules, board_scratch, saved)
            if policies[mover] == 1:
                action = greedy_action(state, rules, rng, scratch, ties)
            else:
                action = K.random_legal_action(state, n, rng)
            before[:] = state
            K.apply_move(state, action, rules)
            cap = K.off_captured(n) + mover
            if state[cap] > before[cap] and state[K.off_status(n)] == K.RUNNING:
                captures[g, mover] += 1
        winner[g] = state[K.off_winner(n)]
        plies[g] = state[K.off_ply(n)]
        captured[g, 0] = state[K.off_captured(n)]
        captured[g, 1] = state[K.off_captured(n) + 1]
        truncated[g] = state[K.off_status(n)] == K.TRUNCATED
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
    if not isinstance(game, Game):
        raise ValueError(f"game must be a Game (see get_game), got {type(game).__name__}")
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games must be a non-negative integer, got {n_games!r}")
    if first_player not in (0, 1):
        raise ValueError(f"first_player must be 0 or 1, got {first_player!r}")
    if len(players) != 2 or any(p not in POLICIES for p in players):
        raise ValueError(f"players must be two of {sorted(POLICIES)}, got {players!r}")
    policies = np.array([POLICIES[p] for p in players], dtype=np.int64)
    rng = np.random.default_rng(seed)
    arrays = _play_games(game.rules, int(n_games), int(first_player), policies, rng, game.max_plies)
    return GameStatistics(game, tuple(players), int(first_player), *arrays)
