"""An immutable position, :class:`State` (RULES.md §5), and its JSON-safe form.

A state wraps one packed ``int32`` vector (layout in :mod:`mancala_envs.core.layout`) and the
:class:`~mancala_envs.game.Game` it belongs to. Its fields are read-only properties whose arrays
are read-only views, so ``Game.apply`` never changes a state it was given.

This module is the floor of the public API: it imports nothing above it. It names its game by
what it reads of it (:class:`GameOfState`, which :class:`~mancala_envs.game.Game` satisfies), and
draws itself for notebooks with :func:`mancala_envs.render.svg_board`, which reads a position
through protocols of its own and imports neither this module nor the game's.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from mancala_envs.core.layout import DONE, NO_WINNER, RUNNING, TRUNCATED, Layout
from mancala_envs.rulesets import Ruleset

STATE_FORMAT = 1  # version of State.to_dict's form


class GameOfState(Protocol):
    """What a :class:`State` reads of its game: a :class:`~mancala_envs.game.Game`."""

    @property
    def name(self) -> str: ...
    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def params(self) -> dict[str, int]: ...
    def state_from_array(self, array: np.ndarray) -> State: ...


class IllegalMoveError(ValueError):
    """An action that the rules forbid in this position, or one that is not a hole index."""


class State:
    """One immutable position. Fields of RULES.md §5 as read-only properties.

    ``board`` and ``captured`` are read-only ``int32`` arrays; ``winner`` is 0, 1, -1 (draw) or
    None (running or truncated); ``first_move_pending`` is a pair of bools for Sadeqa II and None
    for the other games. ``array`` is the packed vector the kernels work on, also read-only.
    Build states with the :class:`~mancala_envs.game.Game` (``initial_state``, ``state_from``,
    ``state_from_array``, ``state_from_dict``, ``apply``), never from this constructor.
    """

    __slots__ = ("_array", "_game", "_lay", "_mask")

    def __init__(self, game: GameOfState, array: np.ndarray, mask: np.ndarray | None = None):
        lay: Layout = game.layout
        if mask is None:
            mask = array[lay.mask].astype(np.int8)
        mask.setflags(write=False)
        self._array = array
        self._mask = mask
        self._game = game
        self._lay = lay

    def _view(self, part: slice) -> np.ndarray:
        view = self._array[part]
        view.flags.writeable = False
        return view

    @property
    def game(self) -> GameOfState:
        """The :class:`~mancala_envs.game.Game` this state belongs to."""
        return self._game

    @property
    def array(self) -> np.ndarray:
        return self._view(slice(None))

    @property
    def board(self) -> np.ndarray:
        return self._view(self._lay.board)

    @property
    def captured(self) -> np.ndarray:
        return self._view(self._lay.captured)

    @property
    def to_move(self) -> int:
        return int(self._array[self._lay.to_move])

    @property
    def ply(self) -> int:
        return int(self._array[self._lay.ply])

    @property
    def done(self) -> bool:
        return bool(self._array[self._lay.status] == DONE)

    @property
    def truncated(self) -> bool:
        return bool(self._array[self._lay.status] == TRUNCATED)

    @property
    def is_over(self) -> bool:
        """``done or truncated``."""
        return bool(self._array[self._lay.status] != RUNNING)

    @property
    def winner(self) -> int | None:
        w = int(self._array[self._lay.winner])
        return None if w == NO_WINNER else w

    @property
    def first_move_pending(self) -> tuple[bool, bool] | None:
        if not self._game.ruleset.has_opening_rule:
            return None
        p = self._array[self._lay.pending]
        return bool(p[0]), bool(p[1])

    @property
    def last_action(self) -> int | None:
        """Local hole of the move that led here (None at a start or constructed position)."""
        a = int(self._array[self._lay.last_action])
        return None if a < 0 else a

    @property
    def seeds_on_board(self) -> int:
        return int(self._array[self._lay.board].sum())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that :meth:`Game.state_from_dict` turns back into this state:
        ``format``, ``game``, ``params``, ``board``, ``captured``, ``to_move``, ``ply``,
        ``last_action`` (None at a start), ``first_move_pending`` (Sadeqa II only) and, for the
        reader, ``done``, ``truncated`` and ``winner`` (checked when the dict is read back)."""
        d: dict[str, Any] = {
            "format": STATE_FORMAT,
            "game": self._game.name,
            "params": dict(self._game.params),
            "board": self.board.tolist(),
            "captured": self.captured.tolist(),
            "to_move": self.to_move,
            "ply": self.ply,
            "last_action": self.last_action,
        }
        if self._game.ruleset.has_opening_rule:
            d["first_move_pending"] = list(self.first_move_pending)
        d.update(done=self.done, truncated=self.truncated, winner=self.winner)
        return d

    def _repr_svg_(self) -> str:
        """The board as an SVG picture (what Jupyter shows for a state)."""
        from mancala_envs.render import svg_board  # below this module: render imports no state

        return svg_board(self._game, self)

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
        # rebuilt by its game (pickled as its ruleset), checked: a pickle may have been edited
        return (self._game.state_from_array, (np.array(self._array),))
