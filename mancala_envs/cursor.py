"""A mutable position for Python search and game loops: :class:`Cursor` (``game.cursor(state)``).

``Game.apply`` returns a new immutable :class:`~mancala_envs.State` per move, which costs a few
allocations besides the compiled move. A cursor keeps a stack of packed positions instead:
:meth:`Cursor.apply` plays a move in place (one compiled call, made without the dispatcher's type
lookup: :func:`mancala_envs.core.fast.entry_point`), :meth:`Cursor.undo` takes it back (no call at
all), and :meth:`Cursor.legal_actions` is a cached tuple. The rules are the core's
(:func:`mancala_envs.core.engine.play`); illegal moves raise :class:`IllegalMoveError` as
``Game.apply`` does. :meth:`Cursor.state` returns the current position as an immutable ``State``::

    cursor = game.cursor()
    while not cursor.is_over:
        cursor.apply(random.choice(cursor.legal_actions()))
    final = cursor.state()

The cursor is part of the game's API by design: :meth:`Game.cursor <mancala_envs.game.Game.cursor>`
makes one, and this module sits between the state and the game, naming its game by what it reads
of it (:class:`GameOfCursor`), so that it imports nothing above it.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from mancala_envs.core.engine import mask_bits, new_work, push_move
from mancala_envs.core.fast import entry_point
from mancala_envs.state import GameOfState, IllegalMoveError, State


class GameOfCursor(GameOfState, Protocol):
    """What a :class:`Cursor` reads of its game: a :class:`~mancala_envs.game.Game`."""

    @property
    def rules(self) -> np.ndarray: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def holes_per_row(self) -> int: ...
    @property
    def state_size(self) -> int: ...
    def action_index(self, action: object) -> int: ...
    def why_illegal(self, state: State, action: int) -> str: ...


_ACTIONS = [tuple(a for a in range(10) if bits >> a & 1) for bits in range(1 << 10)]  # mask bits -> holes


_PUSH = []


def _push_entry(stack: np.ndarray, rules: np.ndarray, work: np.ndarray):
    """``push_move``'s compiled entry point for the cursor's argument types, which never change."""
    if not _PUSH:
        _PUSH.append(entry_point(push_move, stack, 1, 0, rules, work))
    return _PUSH[0]


class Cursor:
    """A stack of positions of one game; the top is the current one (module docstring)."""

    __slots__ = ("_bits", "_depth", "_game", "_n", "_push", "_rules", "_stack", "_to_move", "_work")

    def __init__(self, game: GameOfCursor, state: State):
        self._game = game
        self._rules = game.rules
        self._n = game.num_actions
        self._to_move = game.layout.to_move
        self._stack = np.empty((64, game.state_size), dtype=np.int32)
        self._stack[0] = state._array
        self._work = new_work(game.holes_per_row)
        self._depth = 0
        self._bits = [int(mask_bits(self._stack[0], self._n))] * 64
        self._push = _push_entry(self._stack, self._rules, self._work)

    @property
    def game(self) -> GameOfCursor:
        """The :class:`~mancala_envs.game.Game` this cursor plays."""
        return self._game

    @property
    def depth(self) -> int:
        """Moves applied since the cursor was made (and not undone)."""
        return self._depth

    @property
    def is_over(self) -> bool:
        """The current position is done or truncated (no legal move, TR2)."""
        return self._bits[self._depth] == 0

    @property
    def to_move(self) -> int:
        return int(self._stack[self._depth, self._to_move])

    def legal_actions(self) -> tuple[int, ...]:
        """The legal local holes of the current position, ascending (a shared tuple)."""
        return _ACTIONS[self._bits[self._depth]]

    def apply(self, action: int) -> None:
        """Play ``action`` on the current position, in place."""
        if type(action) is not int or not 0 <= action < self._n:
            action = self._game.action_index(action)
        depth = self._depth + 1
        if depth == len(self._bits):
            self._stack = np.concatenate([self._stack, np.empty_like(self._stack)])
            self._bits += self._bits
        bits = self._push(self._stack, depth, action, self._rules, self._work)
        if bits < 0:
            raise IllegalMoveError(self._game.why_illegal(self.state(), action))
        self._depth = depth
        self._bits[depth] = bits

    def undo(self) -> None:
        """Take back the last applied move."""
        if self._depth == 0:
            raise ValueError("nothing to undo: the cursor is at the position it was made from")
        self._depth -= 1

    def state(self) -> State:
        """The current position as an immutable :class:`State` (a copy)."""
        return State(self._game, self._stack[self._depth].copy())
