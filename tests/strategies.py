"""Random positions and random walks for the tests, in one place.

Seeded helpers (a numpy ``Generator`` picks each move: ``legal[rng.integers(len(legal))]``, which
is also what ``rng.choice(legal)`` draws) for the fixed cases of a test, and hypothesis strategies
built on them for the property tests:

- :func:`random_move`, :func:`random_walk`, :func:`walk`: one random legal move, the positions
  of a random game, a random game followed until a condition holds (:func:`running`: not over);
- :func:`playout`, :func:`random_position`: the states of a seeded random game, the running
  position after some plies of one;
- :func:`walked_positions`, :func:`running_positions`, :func:`find_positions`,
  :func:`covered_position`: positions of seeded random games that a test wants;
- :func:`random_legal`, :func:`random_legal_batch`: a random legal action from an action mask;
- :func:`reachable_states`, :func:`constructed_states`, :func:`table_positions`: hypothesis
  strategies for a reachable position, any well-formed position and a position a table covers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from hypothesis import strategies as st

from mancala_envs import Game, State

Want = Callable[[State], bool]
SEEDS = st.integers(0, 2**32 - 1)


def running(state: State) -> bool:
    """The game goes on (a ``keep`` for :func:`walked_positions`)."""
    return not state.is_over


def random_move(game: Game, state: State, rng: np.random.Generator) -> int:
    """A uniformly random legal move of ``state`` (a running position)."""
    legal = game.legal_actions(state)
    return int(legal[rng.integers(len(legal))])


def random_walk(game: Game, rng: np.random.Generator, state: State) -> Iterator[State]:
    """The positions of a random game from ``state`` to its end, one a move (``state`` left out;
    each one's ``last_action`` is the move that made it)."""
    while not state.is_over:
        state = game.apply(state, random_move(game, state, rng))
        yield state


def walk(
    game: Game, rng: np.random.Generator, state: State | None = None, plies: int | None = None,
    until: Want | None = None,
) -> State:  # fmt: skip
    """Random moves from ``state`` (the start by default) until the game is over, ``plies`` moves
    are made or ``until(position)`` holds (checked before each move)."""
    state = game.initial_state() if state is None else state
    made = 0
    while not state.is_over and (plies is None or made < plies) and not (until and until(state)):
        state = game.apply(state, random_move(game, state, rng))
        made += 1
    return state


def playout(game: Game, seed: int, plies: int, first_player: int = 0) -> list[State]:
    """The states of a seeded random game, the start included, at most ``plies`` moves long."""
    states = [game.initial_state(first_player)]
    walked = random_walk(game, np.random.default_rng(seed), states[0])
    states += [state for _, state in zip(range(plies), walked, strict=False)]
    return states


def random_position(game: Game, plies: int, seed: int) -> State:
    """The position after ``plies`` seeded random moves from the start, or the last running one
    when the game ends before."""
    state = game.initial_state()
    for _, nxt in zip(range(plies), random_walk(game, np.random.default_rng(seed), state), strict=False):
        if nxt.is_over:
            break
        state = nxt
    return state


def walked_positions(
    game: Game, count: int, seed: int, until: Want, keep: Want, tries: int | None = None
) -> list[State]:
    """``count`` positions of seeded random games from the start (one rng for all): each game is
    walked until ``until`` holds (or it ends), its position kept when ``keep`` holds. At most
    ``tries`` games (``None``: no limit); fewer positions are returned when they run out."""
    rng, out, games = np.random.default_rng(seed), [], 0
    while len(out) < count and (tries is None or games < tries):
        state = walk(game, rng, until=until)
        games += 1
        if keep(state):
            out.append(state)
    return out


def running_positions(game: Game, count: int, seed: int, max_plies: int = 60) -> list[State]:
    """Running positions with two legal moves or more: seeded random games, either player
    first, cut after a random number of plies below ``max_plies``."""
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < count:
        first = int(rng.integers(2))
        s = walk(game, rng, game.initial_state(first), plies=int(rng.integers(0, max_plies)))
        if not s.is_over and len(game.legal_actions(s)) > 1:
            out.append(s)
    return out


def find_positions(game: Game, want: Want, count: int, seed: int, games: int = 3000) -> list[State]:
    """``count`` positions along seeded random games (either player first) for which
    ``want(position)`` holds: every position of a game is looked at, not just its end."""
    rng = np.random.default_rng(seed)
    out: list[State] = []
    for _ in range(games):
        s = game.initial_state(int(rng.integers(2)))
        while not s.is_over and len(out) < count:
            if want(s):
                out.append(s)
            s = game.apply(s, random_move(game, s, rng))
        if len(out) >= count:
            break
    assert len(out) == count, "not enough positions of the kind wanted"
    return out


def covered_position(game: Game, tb, seed: int = 0, keep: Want | None = None, tries: int = 1000) -> State:
    """The first running position of seeded random games (at most ``tries``) that the tablebase
    ``tb`` covers, with two legal moves or more and for which ``keep`` holds (when given)."""
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        state = walk(game, rng, until=tb.covers)
        if not state.is_over and len(game.legal_actions(state)) > 1 and (keep is None or keep(state)):
            return state
    raise AssertionError("no covered position of the kind wanted")


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action of one action mask."""
    return int(rng.choice(np.flatnonzero(mask)))


def random_legal_batch(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action for each row of a batch of action masks."""
    return np.argmax(masks * rng.random(masks.shape), axis=1)


# ---------------------------------------------------------------- hypothesis strategies


def _reached(game: Game, seed: int, plies: int, first_player: int) -> State:
    return playout(game, seed, plies, first_player)[-1]


def reachable_states(game: Game, max_plies: int = 400) -> st.SearchStrategy[State]:
    """A position reached by a seeded random game of at most ``max_plies`` moves, either player
    first (hypothesis shrinks the seed, the plies and the first player)."""
    return st.builds(_reached, st.just(game), SEEDS, st.integers(0, max_plies), st.integers(0, 1))


@st.composite
def constructed_states(draw: st.DrawFn, game: Game) -> State:
    """Any well-formed position: seeds spread over the board and both stores."""
    n = game.holes_per_row
    cuts = sorted(draw(st.lists(st.integers(0, game.total_seeds), min_size=2 * n + 1, max_size=2 * n + 1)))
    parts = np.diff([0, *cuts, game.total_seeds])
    pending = None
    if game.ruleset.has_opening_rule:
        pending = draw(st.tuples(st.booleans(), st.booleans()))
    return game.state_from(
        board=parts[: 2 * n],
        captured=parts[2 * n :],
        to_move=draw(st.integers(0, 1)),
        first_move_pending=pending,
    )


@st.composite
def table_positions(draw: st.DrawFn, game: Game, max_seeds: int) -> tuple[tuple[tuple[int, ...], int], int]:
    """A position a table of ``max_seeds`` covers, as ``((board, mover), captured lead)``: a board
    of at most ``max_seeds`` seeds, a mover, a lead of the right parity."""
    holes = 2 * game.holes_per_row
    k = draw(st.integers(0, max_seeds))
    cuts = sorted(draw(st.lists(st.integers(0, k), min_size=holes - 1, max_size=holes - 1)))
    board = tuple(np.diff([0, *cuts, k]).tolist())
    p = draw(st.integers(0, 1))
    spare = game.total_seeds - k
    d = draw(st.integers(-spare, spare).filter(lambda x: (x - spare) % 2 == 0))
    return (board, p), d
