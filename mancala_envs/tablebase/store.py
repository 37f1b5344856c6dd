"""A table on disk: a folder with ``header.json`` and two memory-mapped arrays.

- ``values.i8`` — ``int8`` pairs ``(A, B)`` (TABLEBASE.md §2) of every canonical position, in
  global index order (:mod:`~mancala_envs.tablebase.index`), ``-127`` / ``127`` for -inf / +inf;
- ``rounds.u8`` — ``uint8`` pairs: the value-iteration round at which ``A`` and ``B`` became final
  (:mod:`~mancala_envs.tablebase.sweeps`), or for a layer of the retrograde build (``"build":
  "retrograde"`` in its header entry) a rank that serves the same purpose
  (:mod:`~mancala_envs.tablebase.retrograde`); so 2 bytes a covered position in all. A table whose
  layers need more than 255 rounds (value iteration: at most 136 so far; ranks pass 255 in Songo
  Ewondo from 12 seeds) is widened to format version 1, ``rounds.u16`` (``uint16`` pairs), which
  is what tables built before version 2 hold; both load;
- ``header.json`` — format name and version, the game, its parameters and ruleset (all of it but
  ``max_plies``, which does not enter a value), ``max_seeds`` (the layers complete), and per layer
  its size, rounds, build time and the CRC-32 of its bytes in each array.

Layer ``k`` starts at the same offset whatever the table's size, so a table grows by appending
layers: an interrupted build keeps the layers its header lists and the next one resumes after
them. The header is replaced atomically only after a layer's bytes are flushed, so it never
lists a layer that is not on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.game import Game, get_game
from mancala_envs.infra.config_files import read_config
from mancala_envs.infra.files import atomic_write, preallocate
from mancala_envs.infra.locks import LOCK_FILE, folder_lock
from mancala_envs.rulesets import R_MAX_PLIES
from mancala_envs.tablebase.header import (
    FORMAT,
    HEADER,
    ROUNDS,
    ROUNDS_V1,
    VALUES,
    VERSION,
    VERSIONS,
    arrays,
    check_header,
)
from mancala_envs.tablebase.index import layer_offsets

LOCK = LOCK_FILE
CRC_BLOCK = 1 << 26  # bytes per zlib.crc32 call


def table_name(game: Game) -> str:
    """The folder name of ``game``'s table: the game and the values of its variable parameters
    other than ``max_plies`` (En Dodoi's width: ``en_dodoi_8``): :attr:`Game.variant`."""
    return game.variant


def default_dir() -> Path:
    """Where tables live by default: ``$MANCALA_TABLEBASE_DIR``, else the per-user cache folder
    (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/mancala_envs/tablebases``."""
    if os.environ.get("MANCALA_TABLEBASE_DIR"):
        return Path(os.environ["MANCALA_TABLEBASE_DIR"]).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache).expanduser() / "mancala_envs" / "tablebases"


def default_path(game: Game) -> Path:
    return default_dir() / table_name(game)


def rules_key(game: Game) -> list[int]:
    """The ruleset vector without ``max_plies``: what a table's values depend on."""
    return [int(x) for i, x in enumerate(game.rules) if i != R_MAX_PLIES]


def new_header(game: Game) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.name,
        "params": game.variant_params,
        "rules": rules_key(game),
        "holes": 2 * game.holes_per_row,
        "max_seeds": -1,
        "layers": [],
    }


def read_header(path: Path) -> dict[str, Any]:
    """The header of the table folder ``path``; ``ValueError`` naming the problem."""
    file = path / HEADER
    if not file.is_file():
        raise ValueError(f"{path} is not a tablebase: no {HEADER}")
    header = read_config(file, FORMAT, VERSIONS, "header")
    check_header(header, path)  # every field and the arrays' sizes, before anything is allocated
    return header


def game_of(header: dict[str, Any], where: Path) -> Game:
    """The game a header describes (checked against this code's ruleset)."""
    try:
        game = get_game(header["game"], **header["params"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"{where}: the header names no known game ({e})") from None
    if header["rules"] != rules_key(game) or header["holes"] != 2 * game.holes_per_row:
        raise ValueError(
            f"{where}: the table was built for other rules of {table_name(game)} than this code's; rebuild it"
        )
    return game


def check_game(header: dict[str, Any], game: Game, where: Path) -> None:
    """``ValueError`` unless the header is a table of ``game`` (any ``max_plies``)."""
    table_game = game_of(header, where)
    if table_game.name != game.name or table_game.holes_per_row != game.holes_per_row:
        raise ValueError(f"{where} is a table of {table_name(table_game)}, not of {table_name(game)}")


def fingerprint(header: dict[str, Any], max_seeds: int) -> str:
    """What identifies the values of layers ``0..max_seeds`` of a table: the SHA-256 of its game,
    parameters, rules and the CRC-32 of each of those layers' values (its header's), the same for
    every table of the game built to ``max_seeds`` or beyond, different for one whose values were
    edited; ``ValueError`` when the header lists fewer layers."""
    if not 0 <= max_seeds < len(header["layers"]):
        raise ValueError(f"the table holds layers 0..{len(header['layers']) - 1}, not 0..{max_seeds}")
    body = {
        "game": header["game"],
        "params": header["params"],
        "rules": header["rules"],
        "holes": header["holes"],
        "values_crc32": [layer["crc32"][VALUES] for layer in header["layers"][: max_seeds + 1]],
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def crc32(array: np.ndarray) -> int:
    data = memoryview(np.ascontiguousarray(array)).cast("B")
    crc = 0
    for i in range(0, len(data), CRC_BLOCK):
        crc = zlib.crc32(data[i : i + CRC_BLOCK], crc)
    return crc


def table_bytes(positions: int, version: int = VERSION) -> int:
    """Bytes of the two arrays of a table of ``positions`` canonical positions (a pair each)."""
    return positions * 2 * sum(np.dtype(dtype).itemsize for _, dtype in arrays(version))


def open_arrays(
    path: Path, positions: int, writable: bool, version: int = VERSION
) -> tuple[np.ndarray, np.ndarray]:
    """The two memory-mapped arrays of ``positions`` rows of a table of format ``version``; writable
    ones are grown as needed, their blocks allocated on disk first (``OSError`` naming the file when
    the disk is full)."""
    mapped = []
    for name, dtype in arrays(version):
        file = path / name
        size = positions * 2 * np.dtype(dtype).itemsize
        if writable:  # every block allocated now: a full disk is an OSError here, never a SIGBUS later
            preallocate(file, size)
        elif not file.is_file() or file.stat().st_size < size:
            raise ValueError(f"{file} is damaged: shorter than the {positions} positions its header lists")
        if positions == 0:
            mapped.append(np.zeros((0, 2), dtype=dtype))
            continue
        mapped.append(np.memmap(file, dtype=dtype, mode="r+" if writable else "r", shape=(positions, 2)))
    return mapped[0], mapped[1]


def write_rows(file: Path, row: int, array: np.ndarray) -> None:
    """Write ``array``'s rows at row ``row`` of the array file ``file`` (rows of ``array``'s shape)
    and sync it, without mapping the file (its pages do not stay in this process's memory)."""
    data = memoryview(np.ascontiguousarray(array)).cast("B")
    at = row * (array.nbytes // max(len(array), 1))
    fd = os.open(file, os.O_WRONLY)
    try:
        done = 0
        while done < len(data):
            done += os.pwrite(fd, data[done : done + CRC_BLOCK], at + done)
        os.fsync(fd)
    finally:
        os.close(fd)


def rounds_name(header: dict[str, Any]) -> str:
    """The rounds file of a table (``rounds.u8``, or ``rounds.u16`` for format version 1)."""
    return arrays(header["version"])[1][0]


def widen_rounds(path: Path, header: dict[str, Any], positions: int) -> None:
    """Turn a table of format version 2 into version 1: its rounds (``positions`` rows, every listed
    layer) copied from ``rounds.u8`` into ``rounds.u16`` with fresh checksums, then the header
    rewritten and ``rounds.u8`` removed. Interrupted, it leaves the version-2 table as it was."""
    holes = int(header["holes"])
    offsets = layer_offsets(max(int(header["max_seeds"]), 0), holes)
    old = np.memmap(path / ROUNDS, dtype=np.uint8, mode="r", shape=(positions, 2)) if positions else None
    preallocate(path / ROUNDS_V1, positions * 4)
    new = np.memmap(path / ROUNDS_V1, dtype=np.uint16, mode="r+", shape=(positions, 2)) if positions else None
    widened = json.loads(json.dumps(header))
    for k, layer in enumerate(widened["layers"]):
        lo, hi = int(offsets[k]), int(offsets[k + 1])
        if hi > lo:
            new[lo:hi] = old[lo:hi]
        layer["crc32"] = {
            VALUES: layer["crc32"][VALUES],
            ROUNDS_V1: crc32(new[lo:hi] if hi > lo else np.zeros(0)),
        }
    if new is not None:
        new.flush()
    del old, new
    widened["version"] = 1
    write_header(path, widened)
    (path / ROUNDS).unlink()
    header.clear()
    header.update(widened)


def verify_layers(path: Path, header: dict[str, Any], values: np.ndarray, rounds: np.ndarray) -> None:
    """Check every listed layer's size and CRC-32 against the arrays; ``ValueError`` if one differs."""
    holes = int(header["holes"])
    offsets = layer_offsets(max(int(header["max_seeds"]), 0), holes)
    layers = header["layers"]
    if len(layers) != int(header["max_seeds"]) + 1:
        raise ValueError(
            f"{path / HEADER} is damaged: {len(layers)} layers for max_seeds {header['max_seeds']}"
        )
    for k, layer in enumerate(layers):
        lo, hi = int(offsets[k]), int(offsets[k + 1])
        if layer.get("seeds") != k or layer.get("positions") != hi - lo:
            raise ValueError(f"{path / HEADER} is damaged: layer {k} does not describe {hi - lo} positions")
        for (name, _), array in zip(arrays(header["version"]), (values, rounds), strict=True):
            if crc32(array[lo:hi]) != layer.get("crc32", {}).get(name):
                raise ValueError(f"{path / name} is damaged: layer {k} fails its checksum")


def write_header(path: Path, header: dict[str, Any]) -> None:

    atomic_write(path / HEADER, json.dumps(header, indent=1) + "\n")


@contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """Hold the table folder's lock file for a build (:func:`~mancala_envs.infra.locks.folder_lock`);
    ``ValueError`` naming the holder if another process holds it."""
    with folder_lock(path, "is being built by another process"):
        yield
