"""Drawing a position: a text board (:func:`ansi_board`), an RGB image (:func:`rgb_board`) and an
SVG picture (:func:`svg_board`, what notebooks show for a :class:`~mancala_envs.State`).

All read an immutable core state and need no display. The orientation is fixed: the player
``bottom`` (default ``player_0``) sits at the bottom, his row left to right as he sees it and
labelled with his actions 0..n-1; the opponent's row is on top, each hole above the hole it faces
(RULES.md §1), so a game never flips between moves. Games won on captures draw each player's
store (his captured count) at his right hand; Sadeqa II, won by survival (SQ6), has no stores.

The words are in :mod:`~mancala_envs.render.text`, the pictures in
:mod:`~mancala_envs.render.pictures`; both read a game and a state through protocols
(:class:`~mancala_envs.render.text.DrawnGame`, :class:`~mancala_envs.render.text.Position`) and
import neither :mod:`mancala_envs.game` nor :mod:`mancala_envs.state`, so that
``State._repr_svg_`` reaches :func:`svg_board` without an import circle.
"""

from mancala_envs.render.pictures import rgb_board, svg_board, write_gif
from mancala_envs.render.text import (
    AGENTS,
    DrawnGame,
    Position,
    ansi_board,
    last_move_text,
    move_captures,
    result_text,
    status_line,
)

__all__ = [
    "AGENTS",
    "DrawnGame",
    "Position",
    "ansi_board",
    "last_move_text",
    "move_captures",
    "result_text",
    "rgb_board",
    "status_line",
    "svg_board",
    "write_gif",
]
