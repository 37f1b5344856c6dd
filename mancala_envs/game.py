"""The public core API of RULES.md §5: :func:`get_game`, :class:`Game` (with :class:`State` and
:class:`IllegalMoveError` from :mod:`mancala_envs.state`), batched kernels for speed-critical
users (:meth:`Game.apply_batch`; :func:`~mancala_envs.random_play.random_games`) and a mutable
:meth:`Game.cursor`. (Just over 400 lines: one class, the whole public API of RULES.md §5.)

A :class:`Game` is a thin interpreter of one frozen :class:`~mancala_envs.rulesets.Ruleset`; every
rule lives in :mod:`mancala_envs.core`. States are immutable: ``apply`` returns a new one. Every
method checks its input here, at the boundary, and raises ``ValueError`` (``IllegalMoveError``
for actions) naming the problem; the kernels trust what they get.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mancala_envs.core import checks, engine
from mancala_envs.core.batch import (
    lookahead_batch,
    lookahead_width,
    step_batch,
    view_batch,
    view_into,
    view_size,
)
from mancala_envs.core.fast import entry_point
from mancala_envs.core.layout import NO_ACTION, NO_WINNER, layout
from mancala_envs.cursor import Cursor
from mancala_envs.rulesets import (
    DEFAULT_MAX_PLIES,
    GAMES,
    RULESETS,
    Ruleset,
    game_info,
    get_ruleset,
    parameter_values,
)
from mancala_envs.state import STATE_FORMAT, IllegalMoveError, State

__all__ = ["Game", "IllegalMoveError", "State", "get_game", "outcome", "variants"]


def as_int(value: object, what: str) -> int:
    """``value`` as a Python int: an int, a NumPy integer or a 0-d integer array (not a bool)."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return int(value)


def check_seed(seed: object, allow_none: bool = False) -> int | None:
    """``seed`` as a Python int (None passes with ``allow_none``: fresh entropy); ``ValueError``
    unless a non-negative integer."""
    if seed is None and allow_none:
        return None
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer) or seed < 0:
        what = "a non-negative integer or None" if allow_none else "a non-negative integer"
        raise ValueError(f"seed must be {what}, got {seed!r}")
    return int(seed)


def _as_array(values: object, what: str) -> np.ndarray:
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as e:  # ragged nesting and the like
        raise ValueError(f"{what} is not an array of integers: {e}") from None


def outcome(winner: int | None, seat: int) -> int:
    """+1 if ``seat`` won, -1 if it lost, 0 for a draw or no winner (the core's ``outcome_for``).
    ``winner``: a seat (0, 1), -1 (a draw), -2 or None (no winner); ``ValueError`` otherwise."""
    code = NO_WINNER if winner is None else as_int(winner, "winner")
    if code not in (0, 1, -1, NO_WINNER):
        raise ValueError(f"winner must be 0, 1, -1 (draw), -2 or None (no winner), got {winner!r}")
    if as_int(seat, "seat") not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    return int(engine.outcome_for(code, int(seat)))


def require_game(game: object) -> Game:
    """``game`` when it is a :class:`Game`; ``ValueError`` naming what it is otherwise."""
    if not isinstance(game, Game):
        raise ValueError(f"game must be a Game (see get_game), got {type(game).__name__}")
    return game


class Game:
    """One game: a ruleset and the operations of RULES.md §5 on its states; the one object for "a
    game and its parameters" that every layer passes along (:attr:`params`, :attr:`variant`).
    ``holes_per_row`` is the holes a row wherever a reader meets them; ``num_actions``, the size of
    the action space, is the same number."""

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset
        self.name = ruleset.name
        self.holes_per_row = n = ruleset.holes_per_row
        self.num_actions = n
        self.total_seeds = ruleset.total_seeds
        self.max_plies = ruleset.max_plies
        self.rules = ruleset.to_array()
        self.layout = layout(n)
        self.state_size = self.layout.length
        self.observation_size = int(view_size(self.rules))  # the views' one definition
        self.lookahead_size = self.lookahead_width(1)
        self._scale = 1.0 / self.total_seeds
        self._apply_into = None  # engine.apply_into's compiled entry point, looked up on first use
        self._work = engine.new_work(n)  # apply's scratch (the GIL serialises calls into it)

    def __repr__(self) -> str:
        own = "".join(f", {k}={v}" for k, v in self.variant_params.items() if k != "holes_per_row")
        return f"Game({self.name!r}, holes_per_row={self.holes_per_row}{own}, max_plies={self.max_plies})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.ruleset == self.ruleset

    def __hash__(self) -> int:
        return hash(self.ruleset)

    def __reduce__(self):  # copies and pickles are rebuilt from the ruleset (fresh scratch)
        return (Game, (self.ruleset,))

    @property
    def params(self) -> dict[str, int]:
        """The parameters that rebuild this game with :func:`get_game`: ``max_plies`` (TR1), then
        those its :class:`~mancala_envs.rulesets.GameInfo` lists (En Dodoi: ``holes_per_row``)."""
        return parameter_values(self.ruleset)

    @property
    def variant_params(self) -> dict[str, int]:
        """:attr:`params` without ``max_plies``: the parameters that name the variant (tablebase
        headers, proofs, suites and model files record these)."""
        return {k: v for k, v in self.params.items() if k != "max_plies"}

    @property
    def variant(self) -> str:
        """The variant's name in file names: the game and the values of its parameters other than
        ``max_plies`` (``songo_ewondo``, En Dodoi at 8 holes: ``en_dodoi_8``). Tables, optimality
        suites and shipped models are named after it."""
        return self.name + "".join(f"_{v}" for v in self.variant_params.values())

    @property
    def title(self) -> str:
        """The variant in words, for titles: ``Songo Ewondo``, ``En Dodoi (8 holes)``
        (:meth:`~mancala_envs.rulesets.GameInfo.variant_name`)."""
        return game_info(self.name).variant_name(self.params)

    def with_max_plies(self, max_plies: int = DEFAULT_MAX_PLIES) -> Game:
        """This variant truncated at ``max_plies`` (TR1); without an argument, at the default
        (1000): the game a table, a proof or a suite is about."""
        if max_plies == self.max_plies:
            return self
        return get_game(self.name, **self.variant_params, max_plies=max_plies)

    # ------------------------------------------------------------------ states

    def initial_state(self, first_player: int = 0) -> State:
        """The starting position with ``first_player`` (0 or 1) to move."""
        return State(self, engine.initial_state(self.rules, self._player(first_player, "first_player")))

    def state_from(
        self,
        board: Sequence[int],
        captured: Sequence[int] = (0, 0),
        to_move: int = 0,
        first_move_pending: Sequence[bool] | None = None,
        *,
        ply: int = 0,
        last_action: int | None = None,
    ) -> State:
        """A position built from its parts. A position whose player to move has no legal move
        comes back already ended (SE9/SQ6/ED4), one at ``max_plies`` truncated (TR1).
        Malformed input raises ``ValueError`` naming the problem."""
        n, lay = self.holes_per_row, self.layout
        board_arr = self._counts(board, 2 * n, "board")
        captured_arr = self._counts(captured, 2, "captured")
        total = int(board_arr.sum() + captured_arr.sum())
        if total != self.total_seeds:
            raise ValueError(f"board and captured hold {total} seeds, {self.name} has {self.total_seeds}")
        ply = as_int(ply, "ply")
        if not 0 <= ply <= self.max_plies:
            raise ValueError(f"ply must be in 0..max_plies ({self.max_plies}), got {ply}")
        last = NO_ACTION if last_action is None else as_int(last_action, "last_action")
        if not -1 <= last < n:
            raise ValueError(f"last_action must be None or a hole 0..{n - 1}, got {last_action!r}")
        state = np.zeros(self.state_size, dtype=np.int32)
        state[lay.board] = board_arr
        state[lay.captured] = captured_arr
        state[lay.to_move] = self._player(to_move, "to_move")
        state[lay.ply] = ply
        state[lay.winner] = NO_WINNER
        state[lay.pending] = self._pending(first_move_pending)
        state[lay.last_action] = last
        engine.settle(state, self.rules, engine.new_work(n), True)
        return State(self, state)

    def state_from_array(self, array: np.ndarray) -> State:
        """An immutable :class:`State` holding a copy of a packed state vector (e.g. one row of a
        batch, or ``state.array``). Everything is checked: ranges, totals, and that the legal
        mask and the status are what the rules give for this position."""
        arr = self._packed(array, "a packed state", (self.state_size,))
        code = checks.check_packed(arr, self.rules, True)
        if code:
            raise ValueError(f"not a valid packed {self.name} state: {checks.describe(code)}")
        return State(self, arr)

    def state_from_dict(self, d: Mapping[str, Any]) -> State:
        """The state of a :meth:`State.to_dict` dict (any ``max_plies`` the ply fits in)."""
        if not isinstance(d, Mapping):
            raise ValueError(f"a state dict is a mapping, got {type(d).__name__}")
        if d.get("format") != STATE_FORMAT:
            raise ValueError(f"state dict format must be {STATE_FORMAT}, got {d.get('format')!r}")
        params = d.get("params") or {}
        if not isinstance(params, Mapping):
            raise ValueError(f"state dict params must be a mapping, got {params!r}")
        variant = {k: params.get(k, v) for k, v in self.variant_params.items()}
        if d.get("game") != self.name or variant != self.variant_params:
            about = ", ".join(f"{k} {v}" for k, v in params.items() if k != "max_plies") or "no parameters"
            raise ValueError(f"state dict is a {d.get('game')!r} position ({about}), not {self!r}")
        try:
            state = self.state_from(
                d["board"],
                d["captured"],
                d["to_move"],
                d.get("first_move_pending"),
                ply=d.get("ply", 0),
                last_action=d.get("last_action"),
            )
        except KeyError as e:
            raise ValueError(f"state dict has no {e.args[0]!r}") from None
        for key in ("done", "truncated", "winner"):
            if key in d and d[key] != getattr(state, key):
                raise ValueError(f"state dict says {key}={d[key]!r}, the rules give {getattr(state, key)!r}")
        return state

    def _player(self, value: object, what: str) -> int:
        player = as_int(value, what)
        if player not in (0, 1):
            raise ValueError(f"{what} must be 0 or 1, got {player}")
        return player

    def _pending(self, pending: object) -> list[int]:
        if pending is None:
            return [0, 0]
        if not self.ruleset.has_opening_rule:
            takers = ", ".join(name for name, r in RULESETS.items() if r.has_opening_rule)  # SQ4
            raise ValueError(f"first_move_pending applies to {takers} only, not {self.name}")
        arr = _as_array(pending, "first_move_pending")
        if arr.shape != (2,) or arr.dtype.kind not in "biu" or not np.isin(arr, (0, 1)).all():
            raise ValueError(f"first_move_pending must be two booleans, got {pending!r}")
        return [int(x) for x in arr]

    def _counts(self, values: object, length: int, what: str) -> np.ndarray:
        arr = _as_array(values, what)
        if arr.shape != (length,):
            raise ValueError(f"{what} must have {length} entries, got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"{what} must hold integers, got {values!r}")
        if (arr < 0).any():
            raise ValueError(f"{what} has negative counts: {arr.tolist()}")
        if (arr > self.total_seeds).any():
            raise ValueError(f"{what} has counts above the game's {self.total_seeds} seeds: {arr.tolist()}")
        return arr.astype(np.int64)

    def _packed(self, array: object, what: str, shape: tuple[int, ...]) -> np.ndarray:
        arr = _as_array(array, what)
        if arr.shape != shape:
            raise ValueError(f"{what} of {self.name} has shape {shape}, got {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"{what} must hold integers, got dtype {arr.dtype}")
        limits = np.iinfo(np.int32)
        if arr.dtype != np.int32 and arr.size and (arr.min() < limits.min or arr.max() > limits.max):
            raise ValueError(f"{what} holds values outside int32")
        return np.array(arr, dtype=np.int32, copy=True, order="C")

    def _check_state(self, state: object) -> State:
        if not isinstance(state, State):
            raise ValueError(f"expected a State, got {type(state).__name__}")
        if state._game is not self and state._game.ruleset != self.ruleset:
            raise ValueError(f"state belongs to {state._game!r}, not {self!r}")
        return state

    # ------------------------------------------------------------------ rules

    def legal_mask(self, state: State) -> np.ndarray:
        """``int8`` array of shape ``(n,)``: 1 where the local hole is a legal move for
        ``state.to_move``; all zero once the game is over (TR2). Read-only."""
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
        if type(action) is not int or not 0 <= action < self.num_actions:
            action = self.action_index(action)
        new = np.empty(self.state_size, dtype=np.int32)
        mask = np.empty(self.num_actions, dtype=np.int8)
        apply_into = self._apply_into
        if apply_into is None or not state._array.flags.writeable:
            apply_into = self._apply_entry(state._array, new, mask)
        if not apply_into(state._array, action, self.rules, new, mask, self._work):
            raise IllegalMoveError(self.why_illegal(state, action))
        return State(self, new, mask)

    def _apply_entry(self, old: np.ndarray, new: np.ndarray, mask: np.ndarray):
        """The compiled ``apply_into`` for the types of a state's own (writeable int32) array; the
        dispatcher for anything else."""
        if not old.flags.writeable:
            return engine.apply_into
        self._apply_into = entry_point(engine.apply_into, old, 0, self.rules, new, mask, self._work)
        return self._apply_into

    def action_index(self, action: object) -> int:
        """``action`` as a hole index ``0..n-1``; :class:`IllegalMoveError` if it is not one."""
        try:
            value = as_int(action, "an action")
        except ValueError:
            raise IllegalMoveError(
                f"an action is an integer hole index 0..{self.num_actions - 1}, got {action!r}"
            ) from None
        if not 0 <= value < self.num_actions:
            raise IllegalMoveError(f"action {value} is out of range: holes are 0..{self.num_actions - 1}")
        return value

    def why_illegal(self, state: State, action: int) -> str:
        """Why ``action`` cannot be played in ``state``, in words."""
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
        out = np.empty(self.observation_size, dtype=np.float32)
        view_into(
            self._check_state(state)._array, self._player(player, "player"), self.rules, self._scale, out
        )
        return out

    def counts(self, state: State, player: int) -> np.ndarray:
        """:meth:`observation` with raw seed counts (``int32``, not divided by ``total_seeds``)."""
        out = np.empty(self.observation_size, dtype=np.int32)
        view_into(self._check_state(state)._array, self._player(player, "player"), self.rules, 1, out)
        return out

    def cursor(self, state: State | None = None):
        """A mutable :class:`~mancala_envs.cursor.Cursor` at ``state`` (default: the start)."""
        return Cursor(self, self.initial_state() if state is None else self._check_state(state))

    # ------------------------------------------------------------------ batches

    def initial_states(self, n_states: int, first_player: int | np.ndarray = 0) -> np.ndarray:
        """A batch of starting positions, shape ``(n_states, state_size)`` int32."""
        n_states = as_int(n_states, "n_states")
        if n_states < 0:
            raise ValueError(f"n_states must be non-negative, got {n_states}")
        players = np.asarray(first_player)
        if players.dtype.kind not in "iu" or not np.isin(players, (0, 1)).all():
            raise ValueError(f"first_player must be 0 or 1 (or an array of them), got {first_player!r}")
        players = np.broadcast_to(players, (n_states,))
        starts = np.stack([engine.initial_state(self.rules, p) for p in (0, 1)])
        return starts[players.astype(np.intp)]

    def check_states(self, states: np.ndarray, full: bool = True) -> np.ndarray:
        """``states`` if it is an ``int32`` batch ``(B, state_size)`` of valid packed states, else
        ``ValueError`` naming the first bad row. ``full=False`` checks ranges and totals only
        (what the batch methods check on every call); ``full=True`` also the legal masks and the
        game ends (as :meth:`state_from_array`) — use it on batches you built by hand."""
        if not isinstance(states, np.ndarray) or states.ndim != 2 or states.dtype != np.int32:
            raise ValueError("states must be an int32 array of shape (batch, state_size)")
        if states.shape[1] != self.state_size:
            raise ValueError(f"{self.name} states have {self.state_size} columns, got {states.shape[1]}")
        if not states.flags.c_contiguous:
            raise ValueError("states must be a C-contiguous array (np.ascontiguousarray)")
        row, code = checks.check_packed_batch(states, self.rules, bool(full))
        if row >= 0:
            raise ValueError(f"row {row} is not a valid packed {self.name} state: {checks.describe(code)}")
        return states

    def apply_batch(
        self, states: np.ndarray, actions: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Apply ``actions[i]`` to ``states[i]`` for every row (results equal :meth:`apply`).

        Returns a new array, or writes into ``out`` (which may be ``states`` itself for an
        in-place step). Raises :class:`IllegalMoveError` naming the first illegal row (``out``
        then holds the rows before it applied)."""
        self.check_states(states, full=False)
        actions = np.asarray(actions)
        if actions.shape != (states.shape[0],) or actions.dtype.kind not in "iu":
            raise IllegalMoveError(f"actions must be {states.shape[0]} integers, got {actions!r}")
        if out is None:
            out = states.copy()
        else:
            self.check_states(out, full=False)
            if out.shape != states.shape:
                raise ValueError("out must have the shape of states")
            if out is not states:
                out[:] = states
        if actions.size and (actions.min() < 0 or actions.max() >= self.num_actions):
            bad = int(np.flatnonzero((actions < 0) | (actions >= self.num_actions))[0])
            raise IllegalMoveError(
                f"row {bad}: action {actions[bad]} is out of range 0..{self.num_actions - 1}"
            )
        bad = step_batch(out, actions.astype(np.int64, copy=False), self.rules)
        if bad >= 0:
            row = State(self, states[bad].copy())
            raise IllegalMoveError(f"row {bad}: {self.why_illegal(row, int(actions[bad]))}")
        return out

    def legal_masks(self, states: np.ndarray) -> np.ndarray:
        """``int8`` legal masks of a batch, shape ``(batch, n)``."""
        return self.check_states(states, full=False)[:, self.layout.mask].astype(np.int8)

    def observations(self, states: np.ndarray, players: np.ndarray | int) -> np.ndarray:
        """:meth:`observation` for every row, ``players`` (0/1) broadcast to the batch."""
        return self._views(states, players, np.float32, self._scale)

    def counts_batch(self, states: np.ndarray, players: np.ndarray | int) -> np.ndarray:
        """:meth:`counts` for every row (``int32``)."""
        return self._views(states, players, np.int32, 1)

    def lookahead_width(self, plies: int = 1) -> int:
        """Entries of a :meth:`lookahead_batch` row of ``plies`` (1, 2 or 3); ``lookahead_size``
        is the one-ply width."""
        if isinstance(plies, bool) or plies not in (1, 2, 3):
            raise ValueError(f"a lookahead has 1, 2 or 3 plies, got {plies!r}")
        return int(lookahead_width(self.rules, plies))

    def lookahead_batch(self, states: np.ndarray, plies: int = 1) -> np.ndarray:
        """The player to move's lookahead of every row, ``int32 (batch, lookahead_width(plies))``:
        his raw-count view (:meth:`counts`), then per action ``[legal, he moves again, game over,
        his outcome]`` and his view after that move (zeros for illegal moves), and with
        ``plies=2`` the same block for every action and every reply to it, from his side, and
        with ``plies=3`` for every move after those too
        (:func:`~mancala_envs.core.batch.lookahead_into`). Rows must be running."""
        width = self.lookahead_width(plies)
        self.check_states(states, full=False)
        if not states[:, self.layout.mask].any(axis=1).all():
            raise ValueError("lookahead_batch needs running states: some rows have no legal move")
        out = np.empty((states.shape[0], width), dtype=np.int32)
        lookahead_batch(states, self.rules, plies, out)
        return out

    def _views(self, states: np.ndarray, players: object, dtype: type, scale: float) -> np.ndarray:
        self.check_states(states, full=False)
        p = np.asarray(players)
        if p.dtype.kind not in "iu" or not np.isin(p, (0, 1)).all():
            raise ValueError(f"players must be 0 or 1 (an int or an integer array), got {players!r}")
        try:
            p = np.ascontiguousarray(np.broadcast_to(p, (states.shape[0],)), dtype=np.int64)
        except ValueError:
            raise ValueError(f"players of shape {p.shape} do not fit {states.shape[0]} states") from None
        out = np.empty((states.shape[0], self.observation_size), dtype=dtype)
        view_batch(states, p, self.rules, scale, out)
        return out


def get_game(name: str, **params: object) -> Game:
    """The registered game ``name`` (``"songo_ewondo"``, ``"sadeqa_ii"``, ``"en_dodoi"`` or one added
    with :func:`~mancala_envs.registration.register_game`) with optional ``max_plies`` (TR1, default
    1000) and the parameters of its :class:`~mancala_envs.rulesets.GameInfo` (En Dodoi:
    ``holes_per_row`` 6..10, default 8)."""
    return Game(get_ruleset(name, **params))


def variants(name: str | None = None) -> list[Game]:
    """Every variant of the registered game ``name`` (None: of every game, in registry order): one
    :class:`Game` per combination of its parameters' values (En Dodoi: 6 to 10 holes a row), each
    with the default ``max_plies``."""
    out = []
    for game in GAMES if name is None else [name]:
        info = game_info(game)
        names = [p for p, _ in info.parameters]
        for values in itertools.product(*(values for _, values in info.parameters)):
            out.append(get_game(game, **dict(zip(names, values, strict=True))))
    return out
