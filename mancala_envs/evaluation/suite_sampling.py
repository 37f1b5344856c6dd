"""Making optimality suites (the file format and reading: :mod:`mancala_envs.tablebase.optimality_suite`).

:func:`make_suite` draws positions from games between varied agents (random, greedy, minimax at
two depths, MCTS, the shipped policy where it loads): it keeps the positions the table covers where
at least one legal move is *not* outcome-preserving (the others say nothing about an agent: so
never a lost position, where every move keeps the loss), deduplicates them, and balances won and
drawn positions as far as the games offer draws.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from tqdm.auto import tqdm

from mancala_envs.agents.registry import make_agent
from mancala_envs.evaluation.arena import play_game
from mancala_envs.game import Game
from mancala_envs.state import State
from mancala_envs.tablebase.optimality_suite import SuiteEntry, entry_of, informative
from mancala_envs.tablebase.store import table_name
from mancala_envs.tablebase.table import Tablebase

SUITE_AGENTS = ("random", "greedy", "minimax:depth=2", "minimax:depth=4", "mcts:sims=100", "policy")
PER_GAME = 6  # positions kept from one game at most (spread over many games)


def _position_key(state: State) -> tuple:
    return (*state.board.tolist(), *state.captured.tolist(), state.to_move)


def _suite_agents(game: Game, specs: Sequence[str], seed: int) -> list:
    agents = []
    for i, spec in enumerate(specs):
        try:
            agent = make_agent(spec, seed=seed + i)
            if spec == "policy":
                agent.act(game, game.initial_state())  # the shipped policy may not exist for this game
        except (ValueError, ImportError, OSError):
            continue
        agents.append(agent)
    return agents


def make_suite(
    tb: Tablebase,
    positions: int,
    seed: int = 0,
    max_games: int | None = None,
    progress: bool = False,
    agents: Sequence[str] = SUITE_AGENTS,
    min_positions: int | None = None,
) -> list[SuiteEntry]:
    """``positions`` informative, distinct positions, half won and half drawn where the games
    offer that many draws (module docstring), from games between agents drawn by
    ``numpy.random.default_rng(seed)``. Stops once balanced, or after ``max_games`` (default
    ``positions``) games; ``ValueError`` if those yield fewer than ``min_positions`` (default
    ``positions``). ``agents``: the
    specs that play (default :data:`SUITE_AGENTS`; one that cannot play the game is left out)."""
    if isinstance(positions, bool) or not isinstance(positions, int) or positions < 3:
        raise ValueError(f"positions must be an integer >= 3, got {positions!r}")
    game = tb.game
    rng = np.random.default_rng(seed)
    players = _suite_agents(game, agents, seed)
    target = -(-positions // 2)
    pools: dict[int, list[SuiteEntry]] = {1: [], 0: [], -1: []}  # -1 stays empty (docstring)
    seen: set[tuple] = set()
    max_games = positions if max_games is None else max_games
    bar = None
    if progress:
        bar = tqdm(total=positions, desc=f"suite {table_name(game)}", unit="pos")
    for g in range(max_games):
        if len(pools[1]) >= target and len(pools[0]) >= target:
            break
        a, b = (players[int(i)] for i in rng.integers(len(players), size=2))
        found: list[SuiteEntry] = []

        def on_move(state: State, action: int | None, found: list = found) -> None:
            if tb.covers(state) and _position_key(state) not in seen:
                entry = entry_of(tb, state)
                if informative(entry):
                    found.append(entry)

        play_game(game, a, b, seed=int(rng.integers(1 << 31)), first_player=g % 2, on_move=on_move)
        for i in rng.permutation(len(found))[:PER_GAME]:
            entry = found[int(i)]
            key = _position_key(entry.state)
            if key in seen:
                continue
            seen.add(key)
            pools[entry.outcome].append(entry)
            if bar is not None:
                bar.set_postfix_str(
                    f"{len(pools[1])} won, {len(pools[0])} drawn, {g + 1} games", refresh=False
                )
                bar.update(int(len(pools[entry.outcome]) <= target))
    if bar is not None:
        bar.close()
    chosen = _balance(pools, positions, rng)
    if len(chosen) < (positions if min_positions is None else min_positions):
        raise ValueError(
            f"only {len(chosen)} informative positions of {table_name(game)} (max_seeds={tb.max_seeds}) "
            f"found in {max_games} games; ask for fewer or allow more games"
        )
    return chosen


def _balance(pools: dict[int, list[SuiteEntry]], positions: int, rng: np.random.Generator) -> list:
    """As even a split of the outcomes as the pools allow; the shortfall of a scarce outcome is
    filled from the others, in turn."""
    left = {k: [p[int(i)] for i in rng.permutation(len(p))] for k, p in pools.items()}
    chosen: list[SuiteEntry] = []
    while len(chosen) < positions and any(left.values()):
        for k in (1, 0, -1):
            if left[k] and len(chosen) < positions:
                chosen.append(left[k].pop())
    return chosen
