"""The check of a table's ``header.json`` before anything is allocated: :func:`check_header`.

A header is read from disk and may have been damaged or edited, so every field is checked for
its type and range before a size is computed from it: ``game`` and ``params`` name a known game,
``rules`` is a list of integers, ``holes`` is that game's, ``max_seeds`` is ``-1`` (nothing built
yet) up to the seeds the game holds, ``layers`` lists exactly one well-formed entry per complete
layer (its ``seeds``, its ``positions`` as the index counts them, ``rounds``, ``seconds``,
``finished_positions`` and the CRC-32 of its bytes in each array), and the two arrays on disk are
at least as long as those layers. Every refusal is a ``ValueError`` naming the file and the field.
Keys this code does not know are ignored (a header's format version says what it holds).
:func:`mancala_envs.tablebase.store.read_header` calls it (so every load and resumed build does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.game import Game, get_game
from mancala_envs.infra.config_files import (
    check_keys,
    need_choice,
    need_equal,
    need_int,
    need_list,
    need_number,
)
from mancala_envs.tablebase.index import layer_offsets, layer_size
from mancala_envs.tablebase.kernels import MAX_MARGIN

HEADER_FIELDS = ("format", "version", "game", "params", "rules", "holes", "max_seeds", "layers")
LAYER_FIELDS = ("seeds", "positions", "rounds", "seconds", "finished_positions", "crc32")
FORMAT = "mancala_envs.tablebase"
VERSION = 2  # what a new table is; 1 (rounds in two bytes) still loads and extends
VERSIONS = (1, 2)
HEADER, VALUES, ROUNDS = "header.json", "values.i8", "rounds.u8"  # the files of a table folder
ROUNDS_V1 = "rounds.u16"
ROUND_TYPES = {1: (ROUNDS_V1, np.uint16), 2: (ROUNDS, np.uint8)}  # rounds file and type per version


def arrays(version: int) -> tuple[tuple[str, type], tuple[str, type]]:
    """The two array files of a table of format ``version``: name and element type."""
    return (VALUES, np.int8), ROUND_TYPES[version]


CRC_MAX = 2**32 - 1
MAX_ROUNDS = 2**31 - 1


def check_header(header: Any, path: str | Path) -> Game:
    """The game of the header of the table folder ``path`` after checking every field and the
    sizes of the arrays on disk (module docstring); ``ValueError`` naming the file and the field
    otherwise. Nothing is allocated before ``max_seeds`` is known to be at most the game's seeds."""
    path = Path(path)
    file = path / HEADER
    try:
        game = _check(header, FORMAT, VERSIONS)
    except ValueError as e:
        raise ValueError(f"{file} is damaged: {e}") from None
    max_seeds, holes = header["max_seeds"], header["holes"]
    positions = int(layer_offsets(max_seeds, holes)[max_seeds + 1]) if max_seeds >= 0 else 0
    for name, dtype in arrays(header["version"]):
        array = path / name
        size = positions * 2 * np.dtype(dtype).itemsize
        have = array.stat().st_size if array.is_file() else 0
        if have < size:
            raise ValueError(
                f"{array} is damaged: shorter than the {positions} positions its header lists "
                f"({have} bytes, {size} needed)"
            )
    return game


def _check(header: Any, fmt: str, versions: tuple[int, ...]) -> Game:
    check_keys(header, HEADER_FIELDS, (), "the header", unknown_ok=True)
    need_choice(header["format"], "format", [fmt])
    need_choice(header["version"], "version", list(versions))
    game = _game(header)
    for i, x in enumerate(need_list(header["rules"], "rules", 1, 64)):
        need_int(x, f"rules[{i}]")
    holes = need_equal(header["holes"], "holes", 2 * game.holes_per_row, f"{game.name}'s")
    top = min(game.total_seeds, MAX_MARGIN)
    max_seeds = need_int(header["max_seeds"], "max_seeds", -1, top)
    layers = header["layers"]
    need_list(layers, "layers", max_seeds + 1, max_seeds + 1)
    names = [name for name, _ in arrays(header["version"])]
    for k, layer in enumerate(layers):
        _check_layer(layer, k, layer_size(k, holes), names)
    return game


def _game(header: dict[str, Any]) -> Game:
    """The game of ``game`` and ``params`` (integers only)."""
    if not isinstance(header["game"], str):
        raise ValueError(f"game must be a game name, got {header['game']!r}")
    params = check_keys(header["params"], (), (), "params", unknown_ok=True)
    for key, value in params.items():
        need_int(value, f"params.{key}")
    try:
        return get_game(header["game"], **params)
    except (TypeError, ValueError) as e:
        raise ValueError(f"the header names no known game ({e})") from None


def _check_layer(layer: Any, k: int, positions: int, names: list[str]) -> None:
    """``ValueError`` naming ``layers[k].FIELD`` unless entry ``k`` describes layer ``k``."""
    what = f"layers[{k}]"
    check_keys(layer, LAYER_FIELDS, (), what, unknown_ok=True)
    need_equal(layer["seeds"], f"{what}.seeds", k, "its place in the list")
    need_equal(layer["positions"], f"{what}.positions", positions, f"the boards of {k} seeds")
    need_int(layer["rounds"], f"{what}.rounds", 0, MAX_ROUNDS)
    need_number(layer["seconds"], f"{what}.seconds", minimum=0)
    need_int(layer["finished_positions"], f"{what}.finished_positions", 0, positions)
    crc = check_keys(layer["crc32"], names, (), f"{what}.crc32")
    for name in names:
        need_int(crc[name], f"{what}.crc32.{name}", 0, CRC_MAX)


__all__ = ["check_header"]
