"""Drawing a position: a text board (:func:`ansi_board`) and an RGB image (:func:`rgb_board`).

Both read an immutable core :class:`~mancala_envs.game.State`; neither needs a display. The text
board shows both rows **as the player to move sees them** (RULES.md §1: his own row at the bottom,
left to right, labelled with his actions 0..n-1; the opponent's row on top, each hole above the
one it faces). The image keeps ``player_0`` at the bottom in every frame so that a recorded game
does not flip between moves; the player to move is highlighted instead.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mancala_envs.game import Game, State

AGENTS = ("player_0", "player_1")

# Colours of the image.
_BACKGROUND = (246, 240, 226)
_WOOD = (156, 102, 58)
_WOOD_EDGE = (98, 60, 30)
_PIT = (96, 58, 28)
_PIT_MOVER = (124, 80, 42)
_STORE = (88, 52, 24)
_TEXT_LIGHT = (250, 244, 230)
_TEXT_DARK = (40, 28, 16)
_HIGHLIGHT = (240, 190, 60)
_LAST_MOVE = (90, 200, 120)


def _direction_word(game: Game) -> str:
    return "clockwise" if game.ruleset.direction < 0 else "counter-clockwise"


def status_line(state: State, note: str | None = None) -> str:
    """Whose turn it is, or how the game ended (``note`` replaces the ending when given)."""
    if note:
        return note
    if state.truncated:
        return f"game over: truncated at ply {state.ply}, no winner"
    if state.done:
        winner = state.winner
        score = f"captured {state.captured[0]}-{state.captured[1]}"
        if winner is None or winner < 0:
            return f"game over: draw ({score})"
        return f"game over: {AGENTS[winner]} wins ({score})"
    return f"{AGENTS[state.to_move]} to move"


def last_move_text(state: State) -> str:
    """``"player_1 played hole 3"`` (local hole), or ``"none"`` before the first move."""
    action = state.last_action
    if action is None:
        return "none"
    return f"{AGENTS[1 - state.to_move]} played hole {action}"


def ansi_board(game: Game, state: State, title: str | None = None, note: str | None = None) -> str:
    """The text board of ``state`` from the seat of the player to move.

    Lines: a header (title, ply, sowing direction), the status (whose turn or the result), the
    last move, then the opponent's name and captured count, his hole labels (his own local
    indexes, right to left as seen from across the board), his row, the mover's row, the mover's
    labels 0..n-1 (his actions) and the mover's name and captured count.
    """
    n = game.holes_per_row
    me = state.to_move
    opp = 1 - me
    board = state.board
    captured = state.captured
    cell = 4
    top_holes = [opp * n + (n - 1 - j) for j in range(n)]
    bottom_holes = [me * n + j for j in range(n)]

    def row(values: list[int]) -> str:
        return "".join(f"{v:>{cell}}" for v in values)

    indent = "  hole"
    pad = " " * len(indent)
    lines = [
        f"{title or game.name} · ply {state.ply} · sowing {_direction_word(game)}",
        status_line(state, note),
        f"last move: {last_move_text(state)}",
        f"{AGENTS[opp]:<10} captured {int(captured[opp]):>3}",
        indent + row([n - 1 - j for j in range(n)]),
        pad + row([int(board[h]) for h in top_holes]),
        pad + row([int(board[h]) for h in bottom_holes]),
        indent + row(list(range(n))),
        f"{AGENTS[me]:<10} captured {int(captured[me]):>3}" + ("   <- to move" if not state.is_over else ""),
    ]
    return "\n".join(lines)


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def rgb_board(game: Game, state: State, title: str | None = None, note: str | None = None,
              cell: int = 56) -> np.ndarray:
    """An ``(H, W, 3)`` ``uint8`` picture of ``state``: two rows of pits with their seed counts,
    a store at each end holding that player's captured count (``player_0``'s on the right,
    ``player_1``'s on the left), hole labels, the mover's row outlined, the last move's pit
    ringed in green and a status line. ``player_0`` is always the bottom row."""
    n = game.holes_per_row
    margin = cell // 4
    header = cell // 2 + margin
    footer = cell // 2
    width = (n + 2) * cell + 2 * margin
    height = header + 2 * cell + footer + 2 * margin
    img = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    big, small = _font(cell // 3), _font(cell // 5)

    left, top = margin, header + margin
    draw.rounded_rectangle(
        (left, top - margin // 2, left + (n + 2) * cell, top + 2 * cell + margin // 2),
        radius=cell // 3, fill=_WOOD, outline=_WOOD_EDGE, width=3,
    )
    board = state.board
    mover = -1 if state.is_over else state.to_move
    last = state.last_action
    last_hole = None if last is None else (1 - state.to_move) * n + last

    # Stores: player_1's on the left, player_0's on the right (each to its owner's right hand).
    for player, x0 in ((1, left), (0, left + (n + 1) * cell)):
        box = (x0 + cell // 8, top + cell // 8, x0 + cell - cell // 8, top + 2 * cell - cell // 8)
        draw.rounded_rectangle(box, radius=cell // 3, fill=_STORE,
                               outline=_HIGHLIGHT if player == mover else _WOOD_EDGE, width=3)
        draw.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), str(int(state.captured[player])),
                  fill=_TEXT_LIGHT, font=big, anchor="mm")

    # Pits: the top row shows player_1's holes facing player_0's (hole i faces 2n-1-i).
    for r, player in ((0, 1), (1, 0)):
        if player == mover:
            y0 = top + r * cell
            draw.rounded_rectangle((left + cell + 2, y0 + 2, left + (n + 1) * cell - 2, y0 + cell - 2),
                                   radius=cell // 4, outline=_HIGHLIGHT, width=3)
        for j in range(n):
            hole = j if player == 0 else 2 * n - 1 - j
            cx = left + (j + 1) * cell + cell / 2
            cy = top + r * cell + cell / 2
            rad = cell * 0.38
            draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad),
                         fill=_PIT_MOVER if player == mover else _PIT,
                         outline=_LAST_MOVE if hole == last_hole else None, width=3)
            draw.text((cx, cy), str(int(board[hole])), fill=_TEXT_LIGHT, font=big, anchor="mm")
            local = hole - player * n
            label_y = top - margin // 2 - 2 if r == 0 else top + 2 * cell + margin // 2 + 2
            draw.text((cx, label_y), str(local), fill=_TEXT_DARK, font=small,
                      anchor="md" if r == 0 else "ma")

    names_y = (top - margin // 2 - 2, top + 2 * cell + margin // 2 + 2)
    draw.text((left + cell / 2, names_y[0]), AGENTS[1], fill=_TEXT_DARK, font=small, anchor="md")
    draw.text((left + (n + 1.5) * cell, names_y[1]), AGENTS[0], fill=_TEXT_DARK, font=small, anchor="ma")

    heading = f"{title or game.name} · ply {state.ply} · {status_line(state, note)}"
    draw.text((margin, margin // 2), heading, fill=_TEXT_DARK, font=_font(cell // 4), anchor="la")
    draw.text((margin, height - margin // 2), f"last move: {last_move_text(state)}", fill=_TEXT_DARK,
              font=small, anchor="ld")
    return np.array(img, dtype=np.uint8)
