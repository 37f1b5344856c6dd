"""The public core API of RULES.md §5: :func:`get_game`, :class:`Game`, :class:`State`,
:class:`IllegalMoveError`, plus batched kernels for speed-critical users (:meth:`Game.apply_batch`,
:func:`random_games`).

A :class:`Game` is a thin interpreter of one frozen :class:`~mancala_envs.rulesets.Ruleset`; every
rule lives in :mod:`mancala_envs.kernels`. States are immutable: ``apply`` returns a new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from mancala_envs import kernels as K
from mancala_envs.rulesets import Ruleset, get_ruleset


class IllegalMoveError(ValueError):
    """An action that the rules forbid in this position, or one that is not a hole index."""


class State:
    """One immutable position. Fields of RULES.md §5 as read-only properties (no setters; the
    arrays they return are read-only views), so ``apply`` never changes a state it was given.

    ``board`` and ``captured`` are read-only ``int32`` arrays; ``winner`` is 0, 1, -1 (draw) or
    None (running or truncated); ``first_move_pending`` is a pair of bools for Sadeqa II and None
    for the other games. ``array`` is the packed vector the kernels work on (layout in
    :mod:`mancala_envs.kernels`), also read-only.
    """

    __slots__ = ("_array", "_game", "_mask", "_n")

    def __init__(self, game: Game, array: np.ndarray, mask: np.ndarray | None = None):
        if mask is None:
            mask = array[game._mask_slice].astype(np.int8)
        mask.flags.writeable = False
        self._array = array
        self._mask = mask
        self._game = game
        self._n = game.holes_per_row

    def _view(self, start: int, stop: int) -> np.ndarray:
        view = self._array[start:stop]
        view.flags.writeable = False
        return view

    @property
    def game(self) -> Game:
        return self._game

    @property
    def array(self) -> np.ndarray:
        return self._view(0, self._array.shape[0])

    @property
    def board(self) -> np.ndarray:
        return self._view(0, 2 * self._n)

    @property
    def captured(self) -> np.ndarray:
        return self._view(2 * self._n, 2 * self._n + 2)

    @property
    def to_move(self) -> int:
        return int(self._array[2 * self._n + 2])

    @property
    def ply(self) -> int:
        return int(self._array[2 * self._n + 3])

    @property
    def done(self) -> bool:
        return bool(self._array[2 * self._n + 4] == K.DONE)

    @property
    def truncated(self) -> bool:
        return bool(self._array[2 * self._n + 4] == K.TRUNCATED)

    @property
    def is_over(self) -> bool:
        """``done or truncated``."""
        return bool(self._array[2 * self._n + 4] != K.RUNNING)

    @property
    def winner(self) -> int | None:
        w = int(self._array[2 * self._n + 5])
        return None if w == K.NO_WINNER else w

    @property
    def first_move_pending(self) -> tuple[bool, bool] | None:
        if not self._game.ruleset.has_opening_rule:
            return None
        p = 2 * self._n + 6
        return bool(self._array[p]), bool(self._array[p + 1])

    @property
    def last_action(self) -> int | None:
        """Local hole of the move that led here (None at a start or constructed position)."""
        a = int(self._array[2 * self._n + 8])
        return None if a < 0 else a

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and other._game.ruleset == self._game.ruleset
            and np.array_equal(other._array, self._array)
        )

    def __hash__(self) -> int:
        return hash((self._game.ruleset, self._array.tobytes()))

    def __repr__(self) -> str:
        extra = f", first_move_pending={list(self.first_move_pending)}" if self.first_move_pending else ""
        return (
            f"State({self._game.name}, board={self.board.tolist()}, captured={self.captured.tolist()}, "
            f"to_move={self.to_move}, ply={self.ply}, done={self.done}, truncated={self.truncated}, "
            f"winner={self.winner}{extra})"
        )

    def __reduce__(self):
        return (_rebuild_state, (self._game.ruleset, np.array(self._array)))


def _rebuild_state(ruleset: Ruleset, array: np.ndarray) -> State:
    return State(Game(ruleset), array)


class RandomGames(NamedTuple):
    """Results of :func:`random_games`, one entry per game."""

    winner: np.ndarray  # int8: 0, 1, -1 draw, -2 truncated (no winner)
    plies: np.ndarray  # int32
    captured: np.ndarray  # int32, shape (n_games, 2)
    truncated: np.ndarray  # bool
    legal_moves: np.ndarray | None  # int64: legal moves summed over each game's plies (branching
    # factor = legal_moves / plies); only with random_games(..., count_legal_moves=True)


def _as_int(value: object, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return int(value)


class Game:
    """One game: a ruleset and the operations of RULES.md §5 on its states."""

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset
        self.name = ruleset.name
        self.holes_per_row = ruleset.holes_per_row
        self.num_actions = ruleset.holes_per_row
        self.total_seeds = ruleset.total_seeds
        self.max_plies = ruleset.max_plies
        self.rules = ruleset.to_array()
        n = ruleset.holes_per_row
        self.state_size = 3 * n + 9
        self.observation_size = 2 * n + 2 + (2 if ruleset.has_opening_rule else 0)
        self._mask_slice = slice(2 * n + 9, 3 * n + 9)

    def __repr__(self) -> str:
        return f"Game({self.name!r}, holes_per_row={self.holes_per_row}, max_plies={self.max_plies})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.ruleset == self.ruleset

    def __hash__(self) -> int:
        return hash(self.ruleset)

    def __reduce__(self):
        return (Game, (self.ruleset,))

    @property
    def params(self) -> dict[str, int]:
        """The parameters that rebuild this game with :func:`get_game`."""
        params = {"max_plies": self.max_plies}
        if self.name == "en_dodoi":
            params["holes_per_row"] = self.holes_per_row
        return params

    # ------------------------------------------------------------------ states

    def initial_state(self, first_player: int = 0) -> State:
        """The starting position with ``first_player`` (0 or 1) to move."""
        player = _as_int(first_player, "first_player")
        if player not in (0, 1):
            raise ValueError(f"first_player must be 0 or 1, got {player}")
        return State(self, K.initial_state(self.rules, player))

    def state_from(
        self,
        board: Sequence[int],
        captured: Sequence[int] = (0, 0),
        to_move: int = 0,
        first_move_pending: Sequence[bool] | None = None,
    ) -> State:
        """A position built from its parts (ply 0). A position whose player to move has no legal
        move comes back already ended (SE9/SQ6/ED4). Malformed input raises ``ValueError``."""
        n = self.holes_per_row
        board_arr = self._int_vector(board, 2 * n, "board")
        captured_arr = self._int_vector(captured, 2, "captured")
        total = int(board_arr.sum() + captured_arr.sum())
        if total != self.total_seeds:
            raise ValueError(f"board and captured hold {total} seeds, {self.name} has {self.total_seeds}")
        player = _as_int(to_move, "to_move")
        if player not in (0, 1):
            raise ValueError(f"to_move must be 0 or 1, got {player}")
        if first_move_pending is not None and not self.ruleset.has_opening_rule:
            raise ValueError(f"first_move_pending applies to sadeqa_ii only, not {self.name}")
        pending = [False, False] if first_move_pending is None else list(first_move_pending)
        if len(pending) != 2 or not all(
            isinstance(p, (bool, np.bool_, int)) and p in (0, 1) for p in pending
        ):
            raise ValueError(f"first_move_pending must be two booleans, got {first_move_pending!r}")
        state = np.zeros(self.state_size, dtype=np.int32)
        state[: 2 * n] = board_arr
        state[2 * n : 2 * n + 2] = captured_arr
        state[2 * n + 2] = player
        state[2 * n + 5] = K.NO_WINNER
        state[2 * n + 6 : 2 * n + 8] = pending
        state[2 * n + 8] = -1
        K.settle(state, self.rules)
        return State(self, state)

    def state_from_array(self, array: np.ndarray) -> State:
        """An immutable :class:`State` holding a copy of a packed state vector (e.g. one row of a
        batch, or ``state.array``)."""
        arr = np.array(array, dtype=np.int32, copy=True)
        if arr.shape != (self.state_size,):
            raise ValueError(f"a packed {self.name} state has shape ({self.state_size},), got {arr.shape}")
        return State(self, arr)

    @staticmethod
    def _int_vector(values: Sequence[int], length: int, what: str) -> np.ndarray:
        arr = np.asarray(values)
        if arr.shape != (length,):
            raise ValueError(f"{what} must have {length} entries, got shape {arr.shape}")
        if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.all(arr == np.round(arr))):
            raise ValueError(f"{what} must hold integers, got {values!r}")
        arr = arr.astype(np.int64)
        if (arr < 0).any():
            raise ValueError(f"{what} has negative counts: {arr.tolist()}")
        return arr

    def _check_state(self, state: State) -> State:
        if not isinstance(state, State):
            raise ValueError(f"expected a State, got {type(state).__name__}")
        if state._game is not self and state._game.ruleset != self.ruleset:
            raise ValueError(f"state belongs to {state._game!r}, not {self!r}")
        return state

    # ------------------------------------------------------------------ rules

    def legal_mask(self, state: State) -> np.ndarray:
        """``int8`` array of shape ``(n,)``: 1 where the local hole is a legal move for
        ``state.to_move``; all zero once the game is over (TR2)."""
        if type(state) is not State or state._game is not self:
            self._check_state(state)
        return state._mask

    def legal_actions(self, state: State) -> list[int]:
        """The legal local holes, ascending."""
        return np.flatnonzero(self._check_state(state)._mask).tolist()

    def apply(self, state: State, action: int) -> State:
        """The state after ``action`` (a local hole index); ``state`` is unchanged.
        Raises :class:`IllegalMoveError` for an action that is not legal here."""
        if type(state) is not State or state._game is not self:
            self._check_state(state)
        if type(action) is not int:
            action = self._action_int(action)
        new = np.empty(self.state_size, dtype=np.int32)
        mask = np.empty(self.num_actions, dtype=np.int8)
        if not K.apply_into(state._array, action, self.rules, new, mask):
            raise IllegalMoveError(self._why_illegal(state, action))
        return State(self, new, mask)

    def _action_int(self, action: object) -> int:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                return int(action)
            raise IllegalMoveError(
                f"an action is an integer hole index 0..{self.num_actions - 1}, got {action!r}"
            )
        return int(action)

    def _why_illegal(self, state: State, action: int) -> str:
        if state.is_over:
            return f"the game is over ({'truncated' if state.truncated else 'done'}); no move is legal"
        if not 0 <= action < self.num_actions:
            return f"action {action} is out of range: holes are 0..{self.num_actions - 1}"
        return (
            f"action {action} is illegal for player {state.to_move} in {self.name}; "
            f"legal actions: {self.legal_actions(state)}"
        )

    def observation(self, state: State, player: int) -> np.ndarray:
        """``float32`` vector of ``observation_size`` entries, as ``player`` sees ``state``::

            [own row (n), opponent row (n), own captured, opponent captured]
            (+ Sadeqa II: own first_move_pending, opponent first_move_pending, as 0/1)

        Rows are the board rolled by ``-player * n`` (each row from its owner's seat, own row
        first), so one network plays both seats. Seed counts are divided by ``total_seeds``.
        """
        array = self._check_state(state)._array
        player = _as_int(player, "player")
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player}")
        out = np.empty(self.observation_size, dtype=np.float32)
        K.observe(array, player, self.rules, self.total_seeds, out)
        return out

    # ------------------------------------------------------------------ batches

    def initial_states(self, n_states: int, first_player: int | np.ndarray = 0) -> np.ndarray:
        """A batch of starting positions, shape ``(n_states, state_size)`` int32."""
        n_states = _as_int(n_states, "n_states")
        if n_states < 0:
            raise ValueError(f"n_states must be non-negative, got {n_states}")
        players = np.broadcast_to(np.asarray(first_player), (n_states,))
        if not np.isin(players, (0, 1)).all():
            raise ValueError("first_player must be 0 or 1")
        starts = [K.initial_state(self.rules, p) for p in (0, 1)]
        return (
            np.stack([starts[int(p)] for p in players])
            if n_states
            else np.empty((0, self.state_size), dtype=np.int32)
        )

    def _check_batch(self, states: np.ndarray) -> None:
        if not isinstance(states, np.ndarray) or states.dtype != np.int32 or states.ndim != 2:
            raise ValueError("states must be an int32 array of shape (batch, state_size)")
        if states.shape[1] != self.state_size:
            raise ValueError(f"{self.name} states have {self.state_size} columns, got {states.shape[1]}")

    def apply_batch(
        self, states: np.ndarray, actions: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Apply ``actions[i]`` to ``states[i]`` for every row (results equal :meth:`apply`).

        Returns a new array, or writes into ``out`` (which may be ``states`` itself for an
        in-place step). Raises :class:`IllegalMoveError` naming the first illegal row."""
        self._check_batch(states)
        actions = np.asarray(actions)
        if actions.shape != (states.shape[0],) or actions.dtype.kind not in "iu":
            raise IllegalMoveError(f"actions must be {states.shape[0]} integers, got {actions!r}")
        if out is None:
            out = states.copy()
        else:
            self._check_batch(out)
            if out.shape != states.shape or not out.flags.c_contiguous:
                raise ValueError("out must be a C-contiguous array of the same shape as states")
            if out is not states:
                out[:] = states
        bad = K.step_batch(out, actions.astype(np.int64, copy=False), self.rules)
        if bad >= 0:
            row = self.state_from_array(states[bad])
            raise IllegalMoveError(f"row {bad}: {self._why_illegal(row, int(actions[bad]))}")
        return out

    def legal_masks(self, states: np.ndarray) -> np.ndarray:
        """``int8`` legal masks of a batch, shape ``(batch, n)``."""
        self._check_batch(states)
        return states[:, self._mask_slice].astype(np.int8)

    def observations(self, states: np.ndarray, players: np.ndarray | int) -> np.ndarray:
        """:meth:`observation` for every row, ``players`` broadcast to the batch."""
        self._check_batch(states)
        players = np.broadcast_to(np.asarray(players, dtype=np.int64), (states.shape[0],))
        out = np.empty((states.shape[0], self.observation_size), dtype=np.float32)
        K.observe_batch(states, np.ascontiguousarray(players), self.rules, self.total_seeds, out)
        return out


def get_game(name: str, **params: object) -> Game:
    """The game ``name`` (``"songo_ewondo"``, ``"sadeqa_ii"`` or ``"en_dodoi"``) with optional
    ``max_plies`` (default 1000) and, for En Dodoi, ``holes_per_row`` (6..10, default 8)."""
    return Game(get_ruleset(name, **params))


def random_games(
    game: Game, n_games: int, seed: int = 0, first_player: int = 0, count_legal_moves: bool = False
) -> RandomGames:
    """Play ``n_games`` games between uniformly random players inside compiled code.

    Every choice is drawn from ``numpy.random.default_rng(seed)``: the same seed gives the same
    arrays. ``winner`` is 0, 1, -1 (draw) or -2 (truncated at ``max_plies``, no winner).
    ``count_legal_moves=True`` also sums the legal moves of every ply (the branching factor); it
    computes every legal mask, so relay games run several times slower."""
    if not isinstance(game, Game):
        raise ValueError(f"game must be a Game (see get_game), got {type(game).__name__}")
    n_games = _as_int(n_games, "n_games")
    if n_games < 0:
        raise ValueError(f"n_games must be non-negative, got {n_games}")
    player = _as_int(first_player, "first_player")
    if player not in (0, 1):
        raise ValueError(f"first_player must be 0 or 1, got {player}")
    rng = np.random.default_rng(seed)
    winner, plies, captured, truncated, legal = K.play_random_games(
        game.rules, n_games, player, rng, bool(count_legal_moves)
    )
    return RandomGames(winner, plies, captured, truncated, legal if count_legal_moves else None)
