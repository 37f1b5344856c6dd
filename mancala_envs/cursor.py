"""A mutable position for Python search and game loops: :class:`Cursor` (``game.cursor(state)``).

``Game.apply`` returns a new immutable :class:`~mancala_envs.State` per move, which costs a few
allocations besides the compiled move. A cursor keeps a stack of packed positions instead:
:meth:`Cursor.apply` plays a move in place (one compiled call), :meth:`Cursor.undo` takes it back
(no call at all), and :meth:`Cursor.legal_actions` is a cached tuple. The rules are the core's
(:func:`mancala_envs.core.engine.play`); illegal moves raise :class:`IllegalMoveError` as
``Game.apply`` does. :meth:`Cursor.state` returns the current position as an immutable ``State``.

    cursor = game.cursor()
    while not cursor.is_over:
        cursor.apply(random.choice(cursor.legal_actions()))
    final = cursor.state()
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from mancala_envs.core.engine import mask_bits, push_move
from mancala_envs.state import IllegalMoveError, State

if TYPE_CHECKING:
    from mancala_envs.game import Game


@cache
def _actions(bits: int) -> tuple[int, ...]:
    return tuple(a for a in range(bits.bit_length()) if bits >> a & 1)


class Cursor:
    """A stack of positions of one game; the top is the current one (module docstring)."""

    __slots__ = ("_actions", "_bits", "_depth", "_game", "_n", "_rules", "_stack")

    def __init__(self, game: Game, state: State):
        self._game = game
        self._rules = game.rules
        self._n = game.num_actions
        self._stack = np.empty((64, game.state_size), dtype=np.int32)
        self._stack[0] = state._array
        self._depth = 0
        bits = int(mask_bits(self._stack[0], self._n))
        self._bits = [bits] * 64
        self._actions = [_actions(bits)] * 64

    @property
    def game(self) -> Game:
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
        return int(self._stack[self._depth, self._game.layout.to_move])

    def legal_actions(self) -> tuple[int, ...]:
        """The legal local holes of the current position, ascending (a cached tuple)."""
        return self._actions[self._depth]

    def apply(self, action: int) -> None:
        """Play ``action`` on the current position, in place."""
        if type(action) is not int or not 0 <= action < self._n:
            action = self._game.action_index(action)
        depth = self._depth
        if depth + 1 == len(self._bits):
            self._stack = np.concatenate([self._stack, np.empty_like(self._stack)])
            self._bits += self._bits
            self._actions += self._actions
        bits = push_move(self._stack, depth, action, self._rules)
        if bits < 0:
            raise IllegalMoveError(self._game.why_illegal(self.state(), action))
        self._depth = depth = depth + 1
        self._bits[depth] = bits
        self._actions[depth] = _actions(bits)

    def undo(self) -> None:
        """Take back the last applied move."""
        if self._depth == 0:
            raise ValueError("nothing to undo: the cursor is at the position it was made from")
        self._depth -= 1

    def state(self) -> State:
        """The current position as an immutable :class:`State` (a copy)."""
        return State(self._game, self._stack[self._depth].copy())
