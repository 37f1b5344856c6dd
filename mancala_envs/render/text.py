"""The words of a position: the text board (:func:`ansi_board`), the result and status lines,
the last move, and what a move captured; and the protocols every drawing reads a position through.

The drawings are consumers of positions that import neither :mod:`mancala_envs.game` nor
:mod:`mancala_envs.state`: they read a game and a state through :class:`DrawnGame` and
:class:`Position` (which :class:`mancala_envs.Game` and :class:`mancala_envs.State` satisfy), so
that ``State._repr_svg_`` reaches :func:`~mancala_envs.render.pictures.svg_board` without an import
circle.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from mancala_envs.rulesets import RESULT_BY_SURVIVAL, Ruleset


class Position(Protocol):
    """What the pictures read of a position: a :class:`mancala_envs.State`."""

    @property
    def board(self) -> np.ndarray: ...
    @property
    def captured(self) -> np.ndarray: ...
    @property
    def to_move(self) -> int: ...
    @property
    def ply(self) -> int: ...
    @property
    def last_action(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def winner(self) -> int | None: ...


class DrawnGame(Protocol):
    """What the pictures read of a game: a :class:`mancala_envs.Game`."""

    @property
    def name(self) -> str: ...
    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def holes_per_row(self) -> int: ...
    def legal_mask(self, state: Position) -> np.ndarray: ...
    def apply(self, state: Position, action: int) -> Position: ...


AGENTS = ("player_0", "player_1")


def won_by_survival(game: DrawnGame) -> bool:
    """Whether the game is won by survival (Sadeqa II, SQ6: no stores to draw)."""
    return game.ruleset.result == RESULT_BY_SURVIVAL


def _direction_word(game: DrawnGame) -> str:
    return "clockwise" if game.ruleset.direction < 0 else "counter-clockwise"


def result_text(game: DrawnGame, state: Position) -> str:
    """How a finished game ended, in the game's own terms (SE10/ED5 captures, SQ6 survival)."""
    if state.truncated:
        return f"truncated at ply {state.ply}, no winner"
    winner = state.winner
    if won_by_survival(game):
        if winner is None or winner < 0:
            return f"draw ({AGENTS[state.to_move]} has seeds but every move of his never ends, SQ6)"
        return f"{AGENTS[winner]} wins ({AGENTS[1 - winner]} has no seeds left, SQ6)"
    score = f"captured {state.captured[0]}-{state.captured[1]}"
    if winner is None or winner < 0:
        return f"draw ({score})"
    return f"{AGENTS[winner]} wins ({score})"


def status_line(game: DrawnGame, state: Position, note: str | None = None) -> str:
    """Whose turn it is, or how the game ended (``note`` replaces the ending when given)."""
    if note:
        return note
    if state.is_over:
        return "game over: " + result_text(game, state)
    return f"{AGENTS[state.to_move]} to move"


def last_move_text(state: Position) -> str:
    """``"player_1 played hole 3"`` (local hole), or ``"none"`` before the first move."""
    action = state.last_action
    if action is None:
        return "none"
    return f"{AGENTS[1 - state.to_move]} played hole {action}"


def last_move_hole(game: DrawnGame, state: Position) -> int | None:
    """The global hole the last move was sown from (None at a start or constructed position)."""
    last = state.last_action
    return None if last is None else (1 - state.to_move) * game.holes_per_row + last


def page_rows(game: DrawnGame, bottom: int) -> tuple[list[int], list[int]]:
    """Global holes of the top row (left to right on the page) and of the bottom row."""
    n, top = game.holes_per_row, 1 - bottom
    return [top * n + (n - 1 - j) for j in range(n)], [bottom * n + j for j in range(n)]


def ansi_board(
    game: DrawnGame,
    state: Position,
    title: str | None = None,
    note: str | None = None,
    bottom: int = 0,
    *,
    previous: Position | None = None,
) -> str:
    """The text board of ``state``, player ``bottom``'s row at the bottom.

    Lines: a header (title, ply, sowing direction), the status (whose turn or the result), the
    last move, then the top player's name (and captured count), his hole labels (his own local
    indexes, right to left as seen from across the board), his row, the bottom row, its labels
    0..n-1 and the bottom player's name; ``<- to move`` marks the player to move. The hole the last
    move was sown from has its count in brackets (``[0]``).

    ``previous``: the state before the last move (``ValueError`` if it is not); the seeds each
    player captured by that move then follow his captured count (``captured  12 (+4)``), or, in
    Sadeqa II, which has no stores, his name (``captured 4 seeds``).
    """
    if bottom not in (0, 1):
        raise ValueError(f"bottom must be 0 or 1, got {bottom!r}")
    n, top = game.holes_per_row, 1 - bottom
    board = state.board
    top_holes, bottom_holes = page_rows(game, bottom)
    gained = (0, 0) if previous is None else move_captures(game, previous, state)
    last_hole = last_move_hole(game, state)
    indent = "  hole"
    pad = " " * len(indent)
    lines = [
        f"{title or game.name} · ply {state.ply} · sowing {_direction_word(game)}",
        status_line(game, state, note),
        f"last move: {last_move_text(state)}",
        _ansi_name(game, state, top, gained),
        indent + _ansi_row([n - 1 - j for j in range(n)]),
        pad + _ansi_pits(board, top_holes, last_hole),
        pad + _ansi_pits(board, bottom_holes, last_hole),
        indent + _ansi_row(list(range(n))),
        _ansi_name(game, state, bottom, gained),
    ]
    return "\n".join(lines)


_CELL = 4  # the text board's width of a hole


def _ansi_row(values: list[int]) -> str:
    """A row of numbers (hole labels), right-aligned in their cells."""
    return "".join(f"{v:>{_CELL}}" for v in values)


def _ansi_pits(board: np.ndarray, holes: list[int], last_hole: int | None) -> str:
    """The counts of ``holes``, the last move's hole in brackets."""
    counts = (f"[{board[h]}]" if h == last_hole else f"{board[h]}" for h in holes)
    return "".join(f"{c:>{_CELL}}" for c in counts)


def _ansi_name(game: DrawnGame, state: Position, player: int, gained: tuple[int, int]) -> str:
    """A player's line: his name, his captured count (and what the last move gained him), and
    ``<- to move`` while he is to move."""
    text = f"{AGENTS[player]:<10}"
    if not won_by_survival(game):
        text += f" captured {int(state.captured[player]):>3}"
        if gained[player]:
            text += f" (+{gained[player]})"
    elif gained[player]:
        text += f" captured {gained[player]} seed{'' if gained[player] == 1 else 's'}"
    return text + ("   <- to move" if not state.is_over and state.to_move == player else "")


def move_captures(game: DrawnGame, before: Position, after: Position) -> tuple[int, int]:
    """Seeds each player captured by the move from ``before`` to ``after``: the growth of his
    ``captured`` count (SE3-SE5, SE8, SQ3, ED2, and the end-of-game sweeps of SE9 and ED4).
    ``ValueError`` when ``after`` is not ``before`` after one move of ``game``."""
    action = after.last_action
    if after.ply != before.ply + 1 or action is None or game.apply(before, action) != after:
        raise ValueError("move_captures: the second state is not the first one after one move")
    gained = after.captured - before.captured
    return int(gained[0]), int(gained[1])
