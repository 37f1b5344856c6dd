"""The pictures and the text board of a position are the same, byte for byte, as those drawn
before render's ``rgb_board``, ``svg_board`` and ``ansi_board`` were split into parts (digests
recorded from the code before):
every game and width, both seats at the bottom, starts, middles, ends and truncations, with the
options (title, note, cell size; previous, interactive, labels)."""

from __future__ import annotations

import hashlib

import numpy as np
import PIL
import pytest
from PIL import features

from mancala_envs import get_game
from mancala_envs.render import ansi_board, rgb_board, svg_board

VARIANTS = [("songo_ewondo", {}), ("sadeqa_ii", {}), ("en_dodoi", {"holes_per_row": 6}), ("en_dodoi", {}),
            ("en_dodoi", {"holes_per_row": 10}), ("songo_ewondo", {"max_plies": 9})]  # fmt: skip
ANSI_DIGEST = "d0e3d7739d39fe1d9351526b3ada2eb7dba90d6e5705fae4768142fe55be3579"
SVG_DIGEST = "7a7627680858b3bfd839242a2e3598a2a169b18f5810ae1abda1e72b4d1f55dd"
RGB_DIGEST = "18f6e5937257a50566061a37062ec76de21e11ca8927b159369b0402507fdde5"
RGB_DRAWN_WITH = ("11.3.0", "2.13.3")  # Pillow and its FreeType: another may draw other pixels


def positions():
    """``(game, state, previous state)``: a seeded random game of each variant, at five plies."""
    for name, params in VARIANTS:
        game = get_game(name, **params)
        rng = np.random.default_rng(len(name) + len(params))
        states = [game.initial_state(1 if params else 0)]
        while not states[-1].is_over:
            legal = game.legal_actions(states[-1])
            states.append(game.apply(states[-1], legal[rng.integers(len(legal))]))
        for k in sorted({0, 1, len(states) // 2, len(states) - 2, len(states) - 1}):
            yield game, states[k], states[k - 1] if k else None


def svg_digest() -> str:
    digest = hashlib.sha256()
    for game, state, previous in positions():
        labels = {a: f"<{a}>" for a in game.legal_actions(state)} if not state.is_over else {0: "x"}
        for bottom in (0, 1):
            for options in ({}, {"cell": 60, "previous": previous}, {"interactive": True, "labels": labels}):
                digest.update(svg_board(game, state, bottom=bottom, **options).encode())
    return digest.hexdigest()


def ansi_digest() -> str:
    digest = hashlib.sha256()
    for game, state, previous in positions():
        for bottom in (0, 1):
            digest.update(ansi_board(game, state, "T" if bottom else None, bottom=bottom).encode())
            digest.update(ansi_board(game, state, note="a note", bottom=bottom, previous=previous).encode())
    return digest.hexdigest()


def rgb_digest() -> str:
    digest = hashlib.sha256()
    for game, state, _ in positions():
        for bottom, options in ((0, {}), (1, {"title": "T", "note": "a note", "cell": 40})):
            digest.update(rgb_board(game, state, bottom=bottom, **options).tobytes())
    return digest.hexdigest()


def test_the_text_boards_are_unchanged():
    assert ansi_digest() == ANSI_DIGEST


def test_the_svg_pictures_are_unchanged():
    assert svg_digest() == SVG_DIGEST


def test_the_rgb_pictures_are_unchanged():
    drawn_with = (PIL.__version__, features.version("freetype2"))
    if drawn_with != RGB_DRAWN_WITH:
        pytest.skip(f"the digest was recorded with Pillow and FreeType {RGB_DRAWN_WITH}, not {drawn_with}")
    assert rgb_digest() == RGB_DIGEST
