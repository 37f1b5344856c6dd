"""Building a table layer by layer (retrograde analysis), resumable: :func:`build`.

A move never adds a seed to the board, so layer ``k`` (boards with exactly ``k`` seeds) depends
only on layers ``<= k``. For each layer, in order: the moves of every position are played once
(:func:`~mancala_envs.tablebase.kernels.expand_layer`, parallel over positions), moves that leave
the layer are resolved against the finished lower layers, and value iteration runs over the moves
that stay (:func:`~mancala_envs.tablebase.sweeps.solve_layer`). The layer is then flushed to the
table's files and listed in its header (:mod:`~mancala_envs.tablebase.store`); an interrupted
build keeps every listed layer and the next build of the same table resumes after them. With
``low_memory`` a layer is solved by :mod:`~mancala_envs.tablebase.lowmem` instead, which stores no
moves; the files are the same.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mancala_envs.game import Game, require_game
from mancala_envs.infra.files import allocated_bytes
from mancala_envs.infra.interrupts import check, deferred_interrupts
from mancala_envs.infra.memory import available_memory
from mancala_envs.rulesets import R_HOLES
from mancala_envs.tablebase import store
from mancala_envs.tablebase.index import compositions_table, layer_offsets, layer_size
from mancala_envs.tablebase.kernels import MAX_LAYER, MAX_MARGIN, expand_layer
from mancala_envs.tablebase.lowmem import layer_bytes, solve_layer_low_memory
from mancala_envs.tablebase.retrograde import check_unmoves, solve_layer_retrograde
from mancala_envs.tablebase.sweeps import solve_layer
from mancala_envs.tablebase.table import Tablebase, load, unbounded_rules

EXPAND_CHUNK = 1 << 20  # positions per compiled call (progress and Ctrl-C points)
LOW_MEMORY_BYTES = 4  # a low-memory build's budget per position of the table (both players to move)
LOW_MEMORY_SLACK = 1 << 26  # of it, kept back for the blocks, the code and the interpreter
MAX_BYTE_ROUND = 255  # the most rounds a table of format version 2 stores (in one byte)


def check_max_seeds(max_seeds: object) -> int:
    if isinstance(max_seeds, bool) or not isinstance(max_seeds, int | np.integer):
        raise ValueError(f"max_seeds must be an integer, got {max_seeds!r}")
    if not 0 <= max_seeds <= MAX_MARGIN:
        raise ValueError(f"max_seeds must be in 0..{MAX_MARGIN}, got {max_seeds}")
    return int(max_seeds)


def check_layer_size(game: Game, max_seeds: int) -> None:
    """``ValueError`` when the layer of ``max_seeds`` seeds holds more boards than its moves can
    number (:data:`~.kernels.MAX_LAYER`)."""
    holes = 2 * game.holes_per_row
    size = layer_size(max_seeds, holes)
    if size > MAX_LAYER:
        largest = max(k for k in range(max_seeds) if layer_size(k, holes) <= MAX_LAYER)
        raise ValueError(
            f"{store.table_name(game)}'s layer of {max_seeds} seeds holds {size:,} boards, more than the "
            f"{MAX_LAYER:,} a layer's moves can number (int32 codes): choose max_seeds <= {largest}"
        )


def check_table_folder(path: Path) -> Path:
    """The nearest existing folder at or above ``path`` (where its files will go); ``ValueError``
    when ``path``, or the nearest existing path above it, is not a folder."""
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        if existing == path:
            raise ValueError(f"{path} is a file, not a table folder")
        raise ValueError(f"{existing} is a file: the table folder {path} cannot be made in it")
    return existing


def check_disk_space(
    game: Game, max_seeds: int, path: Path, existing: Path, version: int = store.VERSION
) -> None:
    """``ValueError`` when the table's two arrays would need more bytes than the free space of
    ``path``'s file system (``existing``: the nearest folder at or above it, from
    :func:`check_table_folder`), less the bytes its arrays really hold on disk already (an
    interrupted build leaves them full length, possibly sparse), before any file is made."""
    positions = int(layer_offsets(max_seeds, 2 * game.holes_per_row)[max_seeds + 1])  # <= max_seeds seeds
    held = sum(allocated_bytes(path / name) for name, _ in store.arrays(version))  # not holes
    need = store.table_bytes(positions, version) - held
    free = shutil.disk_usage(existing).free
    if need > free:
        raise ValueError(
            f"a table of {store.table_name(game)} with max_seeds={max_seeds} holds {positions:,} positions: "
            f"it needs {_bytes(need)} more on disk, {existing} has {_bytes(free)} free; choose a smaller "
            "max_seeds or another folder"
        )


# The default build's memory for one layer, bytes per board of that layer (both players to move):
# its moves (4 bytes a hole) and the value iteration's arrays. Measured on En Dodoi 8: the peak
# resident memory of max_seeds=11 and 12 (7.7 M and 17.4 M boards in the last layer: 0.69 and
# 1.35 GB) grows by 69 bytes a board, 4 x 16 holes + 5; 38 covers the moves' other arrays and the
# finished layers' values read meanwhile. (A build of max_seeds=16, 300 M boards, was killed by
# the kernel above 19 GB.)
DEFAULT_BYTES_PER_BOARD = 38


def default_build_bytes(game: Game, seeds: int) -> int:
    """About the memory the default (not low-memory) build needs for the layer of ``seeds``."""
    holes = 2 * game.holes_per_row
    offsets = layer_offsets(seeds, holes)
    return int(offsets[seeds + 1] - offsets[seeds]) * (2 * holes + DEFAULT_BYTES_PER_BOARD)


def check_memory(game: Game, max_seeds: int) -> None:
    """``ValueError`` when the default build's largest layer (``max_seeds`` seeds) would need more
    memory than is available: the kernel would kill the process without a word (the layers on disk
    stay); the low-memory build fits."""
    available = available_memory()
    if available is None:
        return
    need = default_build_bytes(game, max_seeds)
    if need > available:
        raise ValueError(
            f"the default build of {store.table_name(game)}'s layer of {max_seeds} seeds needs about "
            f"{_bytes(need)} of memory and {_bytes(available)} is available: build it with "
            "low_memory=True (--low-memory: at most 4 bytes a position) or choose a smaller max_seeds"
        )


def _bytes(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.1f} MiB"


def build(
    game: Game,
    max_seeds: int,
    path: str | Path | None = None,
    *,
    progress: bool = False,
    on_layer: Callable[[int, dict], None] | None = None,
    ray_address: str | None = None,
    ray_workers: int | None = None,
    low_memory: bool = False,
    retrograde: bool = False,
) -> Tablebase:
    """The table of ``game`` with every position of at most ``max_seeds`` seeds on the board.

    ``path``: the table's folder (default :func:`~mancala_envs.tablebase.store.default_path`).
    A complete table there is loaded (its first ``max_seeds`` layers); a smaller or interrupted
    one is extended from its last complete layer. ``progress`` shows a bar (positions/s, ETA);
    ``on_layer(seeds, layer_info)`` is called after each layer is on disk. Ctrl-C or SIGTERM
    (:class:`~mancala_envs.infra.interrupts.Interrupted`), or an exception from ``on_layer``, stops
    the build with every finished layer kept. ``ray_address`` (``"local"``, ``"auto"`` or
    ``HOST:PORT``) partitions each layer, its moves and its value iteration, across Ray workers
    (:mod:`~.distributed`; ``ray_workers``: the CPUs of a local instance), with the same files as a
    local build. ``low_memory`` keeps no
    moves in memory (:mod:`~.lowmem`: at most :data:`LOW_MEMORY_BYTES` a position of the table, both
    players to move, plus a constant; slower), with the same files as the default build.
    ``retrograde`` settles each position once per side by retrograde counting over predecessors
    generated from the rules (:mod:`~.retrograde`; one-lap sowing only, Songo Ewondo): the same
    values, with ranks in the place of rounds; it keeps no moves either.

    Bad input raises ``ValueError`` before any file is made: ``max_seeds`` above the game's seeds (or
    120), a layer of more boards than its moves can number (:func:`check_layer_size`: Songo Ewondo from
    22 seeds on, En Dodoi 10 from 15), ``path`` a file, a table larger than the free disk space there
    (counting the blocks its files really hold), or a default build whose last layer needs more memory
    than is available (:func:`check_memory`). The arrays are allocated on disk before they are mapped,
    so a disk that fills up meanwhile is an ``OSError`` naming the file, never a bus error. The folder's
    ``.lock`` file is only an advisory ``flock`` (:mod:`~mancala_envs.infra.locks`), released when the
    build ends or its process dies, so a failed build never blocks the next one."""
    require_game(game)
    max_seeds = check_max_seeds(max_seeds)
    if not isinstance(low_memory, bool):
        raise ValueError(f"low_memory must be True or False, got {low_memory!r}")
    if not isinstance(retrograde, bool):
        raise ValueError(f"retrograde must be True or False, got {retrograde!r}")
    if low_memory and ray_address is not None:
        raise ValueError("a low-memory build runs on this machine: it cannot take a ray_address")
    if retrograde and (low_memory or ray_address is not None):
        raise ValueError("retrograde=True is a build of its own: it takes neither low_memory nor ray_address")
    if retrograde:
        check_unmoves(game.rules, game.name)
    if max_seeds > game.total_seeds:
        raise ValueError(
            f"max_seeds must be at most the {game.total_seeds} seeds of {game.name}, got {max_seeds}"
        )
    path = Path(path) if path is not None else store.default_path(game)
    existing = check_table_folder(path)
    check_layer_size(game, max_seeds)
    version = store.VERSION
    if (path / store.HEADER).is_file():
        header = store.read_header(path)
        store.check_game(header, game, path)
        if int(header["max_seeds"]) >= max_seeds:
            return load(path, game, max_seeds)
        version = int(header["version"])
    check_disk_space(game, max_seeds, path, existing, version)
    if not (low_memory or retrograde) and ray_address is None:  # (Ray: the moves are on the workers)
        check_memory(game, max_seeds)
    with store.build_lock(path), deferred_interrupts():  # Ctrl-C waits for a layer chunk's end
        header = store.read_header(path) if (path / store.HEADER).is_file() else store.new_header(game)
        store.check_game(header, game, path)
        done = int(header["max_seeds"])
        if done < max_seeds:
            solver = None
            if ray_address is not None:
                from mancala_envs.tablebase.distributed import RayLayerSolver

                solver = RayLayerSolver(ray_address, ray_workers)
            try:
                _build_layers(
                    game, header, path, done, max_seeds, progress, on_layer, solver, low_memory, retrograde
                )
            finally:
                if solver is not None:
                    solver.close()
    return load(path, game, max_seeds)


def _build_layers(
    game: Game,
    header: dict,
    path: Path,
    done: int,
    max_seeds: int,
    progress: bool,
    on_layer: Callable[[int, dict], None] | None,
    solver=None,
    low_memory: bool = False,
    retrograde: bool = False,
) -> None:
    n = game.holes_per_row
    holes = 2 * n
    offsets = layer_offsets(max_seeds, holes)
    comp = compositions_table(max_seeds, holes)
    positions = int(offsets[max_seeds + 1])
    values_mm, rounds_mm = store.open_arrays(path, positions, writable=True, version=header["version"])
    if done >= 0:  # resume: never build on damaged layers
        store.verify_layers(path, header, values_mm, rounds_mm)
    del rounds_mm  # written through the file (store.write_rows): its pages need not stay mapped
    values = values_mm.view(np.ndarray)
    rules = unbounded_rules(game)
    todo = 2 * int(offsets[max_seeds + 1] - offsets[done + 1])  # covered positions: both movers
    bar = _bar(todo, store.table_name(game)) if progress else None
    if not (path / store.HEADER).is_file():
        store.write_header(path, header)
    if solver is not None:
        solver.start_parts(path, rules, max_seeds, holes)
    try:
        for k in range(done + 1, max_seeds + 1):
            start_time = time.perf_counter()
            lo, hi = int(offsets[k]), int(offsets[k + 1])
            size = hi - lo
            if low_memory:
                args = (k, rules, comp, offsets, values, bar, positions, path)
                rnd, n_rounds, finished = _solve_low_memory(*args)
                cur = values[lo:hi]
            elif retrograde:
                on_chunk, on_round = _callbacks(bar, k, "threshold")
                rnd, n_rounds, finished = solve_layer_retrograde(
                    k, rules, comp, offsets, values, on_chunk, on_round
                )
                cur = values[lo:hi]
            else:
                cur, rnd, n_rounds, finished = _solve(k, rules, comp, offsets, values, bar, solver)
                values_mm[lo:hi] = cur
            values_mm.flush()
            if header["version"] == 2 and int(n_rounds) > MAX_BYTE_ROUND:  # rounds need two bytes
                store.widen_rounds(path, header, positions)
            rnd = rnd.astype(store.arrays(header["version"])[1][1])
            store.write_rows(path / store.rounds_name(header), lo, rnd)
            layer = {
                "seeds": k,
                "positions": size,
                "rounds": int(n_rounds),
                "seconds": round(time.perf_counter() - start_time, 3),
                "finished_positions": finished,
                "crc32": {store.VALUES: store.crc32(cur), store.rounds_name(header): store.crc32(rnd)},
            }
            if retrograde:  # its rounds are ranks (mancala_envs.tablebase.retrograde)
                layer["build"] = "retrograde"
            header["layers"].append(layer)
            header["max_seeds"] = k
            store.write_header(path, header)
            if bar is not None:
                bar.update(size)
            if on_layer is not None:
                on_layer(k, layer)
            check()
    finally:
        if bar is not None:
            bar.close()
        del values_mm


def _solve(k, rules, comp, offsets, values, bar, solver):
    """Layer ``k`` the default way: every move stored, then :func:`~.sweeps.solve_layer` (or the
    same on Ray workers, :mod:`~.distributed`)."""
    n = int(rules[R_HOLES])
    lo, hi = int(offsets[k]), int(offsets[k + 1])
    size = hi - lo
    on_chunk, on_round = _callbacks(bar, k)
    if solver is not None and solver.partitions(size):
        return solver.solve(k, size, on_chunk, on_round)
    edges = np.empty((size, n), dtype=np.int32)
    const = np.empty((size, 2), dtype=np.int8)
    moves = np.empty(size, dtype=np.int8)
    for s in range(0, size, EXPAND_CHUNK):
        e = min(size, s + EXPAND_CHUNK)
        expand_layer(k, s, e - s, rules, comp, offsets, values, edges[s:e], const[s:e], moves[s:e])
        on_chunk(e - s)
    cur, rnd, n_rounds = solve_layer(edges, const, moves, on_round)
    return cur, rnd, n_rounds, int(np.count_nonzero(moves == 0))


def _solve_low_memory(k, rules, comp, offsets, values, bar, table_positions, path):
    """Layer ``k`` with :mod:`~.lowmem`, its values in place in ``values``."""
    lo, hi = int(offsets[k]), int(offsets[k + 1])
    budget = LOW_MEMORY_BYTES * 2 * table_positions  # both players to move
    own = layer_bytes(hi - lo, int(rules[R_HOLES]))
    graph_bytes = budget - 2 * lo - own - LOW_MEMORY_SLACK  # the finished layers' values
    on_chunk, on_round = _callbacks(bar, k)
    return solve_layer_low_memory(
        k, rules, comp, offsets, values, max(graph_bytes, 0), path, on_chunk, on_round
    )


def _callbacks(bar, k: int, step: str = "round"):
    def on_chunk(count: int) -> None:
        if bar is not None:
            bar.update(count)
            bar.set_postfix_str(f"layer {k}: moves", refresh=False)
        check()

    def on_round(r: int, changed: int) -> None:
        if bar is not None:
            bar.set_postfix_str(f"layer {k}: {step} {r}, {changed:,} changed", refresh=False)
        check()

    return on_chunk, on_round


def _bar(total: int, name: str):

    return tqdm(
        total=total,
        desc=name,
        unit="pos",
        unit_scale=True,
        dynamic_ncols=True,
        smoothing=0.05,
        mininterval=0.5,
    )
