"""The pictures of a position: an RGB image (:func:`rgb_board`), an SVG picture
(:func:`svg_board`, what notebooks show for a :class:`~mancala_envs.State` and what the web app
draws) and an animated GIF of a game (:func:`write_gif`), in the layout of
:mod:`mancala_envs.render`; they read a position through the protocols of
:mod:`~mancala_envs.render.text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from html import escape
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mancala_envs.render.text import (
    AGENTS,
    DrawnGame,
    Position,
    last_move_hole,
    last_move_text,
    move_captures,
    page_rows,
    status_line,
    won_by_survival,
)

# Colours of the pictures.
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
_CAPTURE = (255, 120, 90)


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def rgb_board(
    game: DrawnGame,
    state: Position,
    title: str | None = None,
    note: str | None = None,
    cell: int = 56,
    bottom: int = 0,
) -> np.ndarray:
    """An ``(H, W, 3)`` ``uint8`` picture of ``state``: two rows of pits with their seed counts,
    hole labels, the mover's row outlined, the last move's pit ringed in green, a status line
    and, in games won on captures, a store at each player's right hand with his captured count."""
    if bottom not in (0, 1):
        raise ValueError(f"bottom must be 0 or 1, got {bottom!r}")
    n, top = game.holes_per_row, 1 - bottom
    margin = cell // 4
    width = (n + 2) * cell + 2 * margin
    height = (cell // 2 + margin) + 2 * cell + cell // 2 + 2 * margin
    img = Image.new("RGB", (width, height), _BACKGROUND)
    pen = _Pen(
        ImageDraw.Draw(img), cell, margin, margin, cell // 2 + 2 * margin, _font(cell // 3), _font(cell // 5)
    )
    pen.draw.rounded_rectangle(
        (pen.left, pen.y_top - margin // 2, pen.left + (n + 2) * cell, pen.y_top + 2 * cell + margin // 2),
        radius=cell // 3,
        fill=_WOOD,
        outline=_WOOD_EDGE,
        width=3,
    )
    mover = -1 if state.is_over else state.to_move
    if not won_by_survival(game):  # the top player's store on the left, the bottom player's on the right
        for player, x0 in ((top, pen.left), (bottom, pen.left + (n + 1) * cell)):
            _rgb_store(pen, x0, int(state.captured[player]), player == mover)
    top_holes, bottom_holes = page_rows(game, bottom)
    for r, holes, player in ((0, top_holes, top), (1, bottom_holes, bottom)):
        _rgb_row(pen, r, holes, player, n, mover, state.board, last_move_hole(game, state))
    _rgb_texts(pen, game, state, (top, bottom), title, note, height)
    return np.array(img, dtype=np.uint8)


class _Pen(NamedTuple):
    """What :func:`rgb_board`'s parts draw with: the canvas, the cell and margin sizes, the board's
    left edge and the top of its upper row, and the two fonts (counts, labels)."""

    draw: ImageDraw.ImageDraw
    cell: int
    margin: int
    left: int
    y_top: int
    big: ImageFont.FreeTypeFont | ImageFont.ImageFont
    small: ImageFont.FreeTypeFont | ImageFont.ImageFont


def _rgb_store(pen: _Pen, x0: int, captured: int, moving: bool) -> None:
    """One player's store with his captured count, outlined while he is to move."""
    cell, y_top = pen.cell, pen.y_top
    box = (x0 + cell // 8, y_top + cell // 8, x0 + cell - cell // 8, y_top + 2 * cell - cell // 8)
    pen.draw.rounded_rectangle(
        box, radius=cell // 3, fill=_STORE, outline=_HIGHLIGHT if moving else _WOOD_EDGE, width=3
    )
    center = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    pen.draw.text(center, str(captured), fill=_TEXT_LIGHT, font=pen.big, anchor="mm")


def _rgb_row(
    pen: _Pen, r: int, holes: list[int], player: int, n: int, mover: int, board: np.ndarray, last: int | None
) -> None:
    """Row ``r`` (0 top, 1 bottom) of ``player``'s pits: counts, local hole labels, the mover's
    row outlined and the pit of the last move (global hole ``last``) ringed."""
    draw, cell, margin, left, y_top = pen.draw, pen.cell, pen.margin, pen.left, pen.y_top
    if player == mover:
        y0 = y_top + r * cell
        draw.rounded_rectangle(
            (left + cell + 2, y0 + 2, left + (n + 1) * cell - 2, y0 + cell - 2),
            radius=cell // 4,
            outline=_HIGHLIGHT,
            width=3,
        )
    for j, hole in enumerate(holes):
        cx = left + (j + 1) * cell + cell / 2
        cy = y_top + r * cell + cell / 2
        rad = cell * 0.38
        draw.ellipse(
            (cx - rad, cy - rad, cx + rad, cy + rad),
            fill=_PIT_MOVER if player == mover else _PIT,
            outline=_LAST_MOVE if hole == last else None,
            width=3,
        )
        draw.text((cx, cy), str(int(board[hole])), fill=_TEXT_LIGHT, font=pen.big, anchor="mm")
        label_y = y_top - margin // 2 - 2 if r == 0 else y_top + 2 * cell + margin // 2 + 2
        anchor = "md" if r == 0 else "ma"
        draw.text((cx, label_y), str(hole - player * n), fill=_TEXT_DARK, font=pen.small, anchor=anchor)


def _rgb_texts(
    pen: _Pen,
    game: DrawnGame,
    state: Position,
    seats: tuple[int, int],
    title: str | None,
    note: str | None,
    height: int,
) -> None:
    """The players' names (``seats``: top, bottom), the heading and the last move's line."""
    draw, cell, margin, left, y_top = pen.draw, pen.cell, pen.margin, pen.left, pen.y_top
    (top, bottom), n = seats, game.holes_per_row
    names_y = (y_top - margin // 2 - 2, y_top + 2 * cell + margin // 2 + 2)
    draw.text((left + cell / 2, names_y[0]), AGENTS[top], fill=_TEXT_DARK, font=pen.small, anchor="md")
    draw.text(
        (left + (n + 1.5) * cell, names_y[1]), AGENTS[bottom], fill=_TEXT_DARK, font=pen.small, anchor="ma"
    )
    heading = f"{title or game.name} · ply {state.ply} · {status_line(game, state, note)}"
    draw.text((margin, margin // 2), heading, fill=_TEXT_DARK, font=_font(cell // 4), anchor="la")
    last = f"last move: {last_move_text(state)}"
    draw.text((margin, height - margin // 2), last, fill=_TEXT_DARK, font=pen.small, anchor="ld")


def _hex(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def svg_board(
    game: DrawnGame,
    state: Position,
    cell: int = 44,
    bottom: int = 0,
    *,
    previous: Position | None = None,
    interactive: bool = False,
    labels: Mapping[int, str] | None = None,
) -> str:
    """An SVG picture of ``state`` (the layout of :func:`rgb_board`), for notebooks and the web app.

    ``previous``: the state before the last move; the seeds it captured are then marked (a ``+k``
    badge in the capturing player's store, or beside his row in Sadeqa II). ``interactive``: every
    pit carries ``data-player`` and ``data-hole`` (local hole) attributes and the mover's legal pits
    the class ``legal``, for a page to make them clickable. ``labels``: short texts drawn under (or
    over) the mover's pits, keyed by local hole (the web app's analysis overlay)."""
    if bottom not in (0, 1):
        raise ValueError(f"bottom must be 0 or 1, got {bottom!r}")
    n, top = game.holes_per_row, 1 - bottom
    stores = not won_by_survival(game)
    gained = (0, 0) if previous is None else move_captures(game, previous, state)
    pad = cell // 3 if labels else 0  # room for the labels above and below the board
    width, height = (n + 2) * cell, 2 * cell + cell + 2 * pad
    mover = -1 if state.is_over else state.to_move
    legal = game.legal_mask(state) if interactive and not state.is_over else np.zeros(n, dtype=np.int8)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="{_hex(_BACKGROUND)}"/>',
        f'<rect x="2" y="{cell // 2 + pad}" width="{width - 4}" height="{2 * cell}" rx="{cell // 3}" '
        f'fill="{_hex(_WOOD)}" stroke="{_hex(_WOOD_EDGE)}" stroke-width="3"/>',
    ]
    sheet = _Sheet(
        cell, cell // 2 + pad, pad, n, mover, last_move_hole(game, state), legal, interactive, labels
    )
    top_holes, bottom_holes = page_rows(game, bottom)
    for r, holes, player in ((0, top_holes, top), (1, bottom_holes, bottom)):
        for j, hole in enumerate(holes):
            parts += _svg_pit(sheet, r, j, hole, player, int(state.board[hole]))
    for player in (top, bottom):
        x = (0.5 if player == top else n + 1.5) * cell
        captured = int(state.captured[player]) if stores else None
        parts += _svg_store(sheet, x, player, player == top, captured, gained[player])
    caption = escape(f"{game.name} · ply {state.ply} · {status_line(game, state)}")
    parts.append(
        f'<text x="4" y="{height - 6}" font-size="{cell // 4}" fill="{_hex(_TEXT_DARK)}">{caption}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


class _Sheet(NamedTuple):
    """What :func:`svg_board`'s parts draw with: the cell size, the top of the board and the room
    for labels, the holes per row, the mover (-1: none), the last move's global hole, the legal
    mask, and the ``interactive`` and ``labels`` arguments."""

    cell: int
    y0: int
    pad: int
    n: int
    mover: int
    last_hole: int | None
    legal: np.ndarray
    interactive: bool
    labels: Mapping[int, str] | None


def _svg_pit(sheet: _Sheet, r: int, j: int, hole: int, player: int, seeds: int) -> list[str]:
    """The ``j``-th pit of row ``r`` (0 top, 1 bottom), global ``hole`` of ``player`` holding
    ``seeds``: its circle, its count and, as asked, its local index and its label."""
    cell, y0, last = sheet.cell, sheet.y0, sheet.last_hole
    local = hole - player * sheet.n
    cx, cy = (j + 1.5) * cell, y0 + (r + 0.5) * cell
    ring = f' stroke="{_hex(_LAST_MOVE)}" stroke-width="3"' if hole == last else ""
    fill = _hex(_PIT_MOVER if player == sheet.mover else _PIT)
    attrs = ""
    if sheet.interactive:
        playable = player == sheet.mover and sheet.legal[local]
        attrs = (
            f' class="pit{" legal" if playable else ""}{" last" if hole == last else ""}"'
            f' data-player="{player}" data-hole="{local}"'
        )
    parts = [f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.38}" fill="{fill}"{ring}{attrs}/>']
    if sheet.interactive:  # the hole's local index, small, at the pit's upper left
        parts.append(
            f'<text class="hole" x="{cx - cell * 0.36}" y="{cy - cell * 0.3}" '
            f'font-size="{cell // 5}" '
            f'fill="{_hex(_TEXT_LIGHT)}" opacity="0.7" pointer-events="none">{local}</text>'
        )
    through = ' pointer-events="none"' if sheet.interactive else ""  # clicks on a count reach its pit
    parts.append(
        f'<text x="{cx}" y="{cy + 5}" text-anchor="middle" font-size="{cell // 3}" '
        f'fill="{_hex(_TEXT_LIGHT)}"{through}>{seeds}</text>'
    )
    if sheet.labels and player == sheet.mover and local in sheet.labels:
        ly = y0 - 4 if r == 0 else y0 + 2 * cell + sheet.pad - 2
        parts.append(
            f'<text class="label" x="{cx}" y="{ly}" text-anchor="middle" font-size="{cell // 4}" '
            f'fill="{_hex(_TEXT_DARK)}">{escape(sheet.labels[local])}</text>'
        )
    return parts


def _svg_store(
    sheet: _Sheet, x: float, player: int, on_top: bool, captured: int | None, gained: int
) -> list[str]:
    """``player``'s store at ``x``: his ``captured`` count (None: a game without stores) and the
    ``+k`` badge of the seeds the last move ``gained`` him."""
    cell, y0 = sheet.cell, sheet.y0
    parts = []
    if captured is not None:
        parts.append(
            f'<text x="{x}" y="{y0 + cell + 5}" text-anchor="middle" font-size="{cell // 3}" '
            f'fill="{_hex(_TEXT_LIGHT)}">{captured}</text>'
        )
    if gained:
        by = y0 + (cell * 0.45 if on_top else cell * 1.75)
        parts.append(
            f'<text class="captured" data-player="{player}" x="{x}" y="{by}" text-anchor="middle" '
            f'font-size="{cell // 4}" font-weight="bold" fill="{_hex(_CAPTURE)}">+{gained}</text>'
        )
    return parts


def write_gif(
    game: DrawnGame, states: list[Position], path, bottom: int = 0, frame_ms: int = 700, cell: int = 56
) -> None:
    """An animated GIF of a game: one :func:`rgb_board` frame per state (the last held longer)."""
    if not states:
        raise ValueError("write_gif needs at least one state")
    frames = [Image.fromarray(rgb_board(game, s, cell=cell, bottom=bottom)) for s in states]
    durations = [frame_ms] * (len(frames) - 1) + [frame_ms * 4]
    frames[0].save(path, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0)
