"""The forced-end search (mancala_envs.agents.alphazero.forced_end) against a plain recursive AND-OR search
written here,
and the az agent's use of it (``finish``)."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import random_move, random_walk
from variants import NARROWEST, ids

from mancala_envs import get_game
from mancala_envs.agents.alphazero.agent import DEFAULT_DISCOUNT, DEFAULT_FINISH
from mancala_envs.agents.alphazero.forced_end import check_finish, shortest_forced_end
from mancala_envs.agents.registry import make_agent
from mancala_envs.core.engine import decided_winner

# a subset for time (the plain AND-OR search written here is exponential): Songo Ewondo and En Dodoi's
# narrowest board
GAMES = [v for v in NARROWEST if v[0] != "sadeqa_ii"]


def forces_end(game, state, plies: int, leader: int) -> bool:
    """Can ``leader`` force the game to end within ``plies`` plies? (a truncated game is no end)"""
    if state.is_over:
        return state.done and state.winner == leader
    if plies == 0:
        return False
    results = (forces_end(game, game.apply(state, a), plies - 1, leader) for a in game.legal_actions(state))
    return any(results) if state.to_move == leader else all(results)


def leader_to_move(game, count: int, seed: int) -> list:
    """Running positions of random games, decided for the player to move, with at most 6 seeds on
    the board (one a game)."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        for state in random_walk(game, rng, game.initial_state()):
            leader = decided_winner(state.array, game.rules)
            if not state.is_over and leader == state.to_move and state.board.sum() <= 6:
                out.append(state)
                break
    return out


@pytest.mark.parametrize(("name", "params"), GAMES, ids=ids(GAMES))
def test_shortest_forced_end_matches_the_plain_search(name, params):
    """The plies found are the fewest within which the plain search proves an end, and the move
    returned starts such an end; (-1, 0) exactly when none exists within the limit."""
    game = get_game(name, **params)
    limit, proved = 7, 0
    for state in leader_to_move(game, 60, seed=4):
        action, plies = shortest_forced_end(state.array, game.rules, limit, 10**7)
        shortest = next((d for d in range(1, limit + 1) if forces_end(game, state, d, state.to_move)), 0)
        assert plies == shortest
        if shortest:
            proved += 1
            assert forces_end(game, game.apply(state, int(action)), plies - 1, state.to_move)
        else:
            assert action == -1
    assert 3 <= proved < 60


@pytest.mark.parametrize(("name", "params"), GAMES, ids=ids(GAMES))
def test_playing_the_forced_end_ends_the_game_whatever_the_replies(name, params):
    """From a position with a forced end in d plies, the leader playing the search's move at each
    turn and random replies end the game with his win within d plies."""
    game = get_game(name, **params)
    rng, checked = np.random.default_rng(8), 0
    for state in leader_to_move(game, 40, seed=6):
        leader = state.to_move
        _, plies = shortest_forced_end(state.array, game.rules, 9, 10**7)
        if plies < 3:
            continue
        for k in range(plies + 1):  # noqa: B007 (k: the plies it took)
            if state.is_over:
                break
            if state.to_move == leader:
                action = shortest_forced_end(state.array, game.rules, 9, 10**7)[0]
            else:
                action = random_move(game, state, rng)
            state = game.apply(state, int(action))
        assert state.done and state.winner == leader and k <= plies
        checked += 1
    assert checked >= 3


def deep_enough(game):
    """A decided position whose shortest forced end takes 3 to 9 plies."""
    return next(
        s
        for s in leader_to_move(game, 60, seed=4)
        if shortest_forced_end(s.array, game.rules, 9, 10**7)[1] >= 3
    )


def test_no_search_when_the_game_is_not_decided_for_the_mover_or_the_budget_runs_out():
    game = get_game("songo_ewondo")
    assert shortest_forced_end(game.initial_state().array, game.rules, 9, 10**6) == (-1, 0)
    state = deep_enough(game)
    other = game.state_from(state.board, state.captured, 1 - state.to_move)
    assert shortest_forced_end(other.array, game.rules, 9, 10**7) == (-1, 0)  # his opponent leads
    assert shortest_forced_end(state.array, game.rules, 9, 1) == (-1, 0)
    for bad in (-1, 65, True, 2.5, "9"):
        with pytest.raises(ValueError, match="forced-end plies"):
            check_finish(bad)


def test_az_finishes_with_the_forced_end():
    """``az:finish=P`` plays the forced end's first move in a decided position, also in
    ``act_batch``; with ``finish=0`` the search decides; bad values are refused by name."""
    game = get_game("songo_ewondo")
    state = deep_enough(game)
    want = shortest_forced_end(state.array, game.rules, 9, 100_000)[0]
    agent = make_agent("az:sims=8,finish=9")
    assert agent.name == "az:sims=8,finish=9"
    agent.search = None  # the forced end decides: the search is never called
    assert agent.act(game, state) == want
    both = np.stack([state.array, game.initial_state().array])
    assert agent.finishing_moves(game, both).tolist() == [want, -1]
    searched = make_agent("az:sims=8,finish=0,discount=0.25")
    assert searched.act(game, state) == searched.search(game, state.array[None]).action[0]
    assert [s.decided_discount for s in searched._searches.values()] == [0.25]
    default = make_agent("az")
    assert (default.discount, default.finish, default.name) == (DEFAULT_DISCOUNT, DEFAULT_FINISH, "az")
    for spec in ("az:finish=-1", "az:finish=65", "az:discount=1", "az:discount=-0.5"):
        with pytest.raises(ValueError, match=r"forced-end plies|az discount"):
            make_agent(spec)


def test_sadeqa_ii_az_is_the_plain_search():
    """Sadeqa II is won by survival, not captures: no position is decided, so the finishing never
    acts and ``az`` plays exactly as ``az:discount=0,finish=0``."""
    game = get_game("sadeqa_ii")
    rng = np.random.default_rng(2)
    rows = []
    for _ in range(12):
        plies = int(rng.integers(1, 40))
        state = game.initial_state()
        for _, nxt in zip(range(plies), random_walk(game, rng, state), strict=False):
            if nxt.is_over:
                break
            state = nxt
        rows.append(state.array)
    rows = np.stack(rows)
    finishing, plain = make_agent("az:sims=16"), make_agent("az:sims=16,discount=0,finish=0")
    assert (finishing.finishing_moves(game, rows) == -1).all()
    assert finishing.act_batch(game, rows).tolist() == plain.act_batch(game, rows).tolist()
