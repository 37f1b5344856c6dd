"""A table build past one process: each layer's moves on Ray workers (``--ray-address``).

The expensive part of a layer is playing every position's moves
(:func:`~mancala_envs.tablebase.kernels.expand_layer`); it reads only the finished lower layers. So
the driver splits the layer's index range into chunks, each a Ray task that maps the table's
``values`` file read-only from the shared folder (the driver flushed every finished layer there),
expands its chunk with the same compiled kernel and returns the chunk's edges and constants. The
driver copies them into place and runs the layer's value iteration itself, as a local build does:
the same kernel on the same inputs, so the files are byte-identical to a local build's.

The folder must be visible to every worker at the same path (a local disk for a single-machine
Ray, a network file system for a cluster). Ray is the ``rllib`` extra's engine.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.infra.extras import require
from mancala_envs.tablebase import store
from mancala_envs.tablebase.index import compositions_table, layer_offsets
from mancala_envs.tablebase.kernels import expand_layer

CHUNK = 1 << 20  # positions per task
IN_FLIGHT = 4  # tasks submitted per worker ahead of the results read


def expand_chunk(
    folder: str, rules: list[int], max_seeds: int, holes: int, seeds: int, start: int, count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One task: the ``edges``, ``const`` and ``moves`` of positions ``start .. start + count - 1``
    of layer ``seeds``, from the finished layers in ``folder`` (one thread: a worker is one CPU)."""
    import numba

    numba.set_num_threads(1)
    offsets = layer_offsets(max_seeds, holes)
    comp = compositions_table(max_seeds, holes)
    positions = int(offsets[max_seeds + 1])
    values = np.memmap(Path(folder) / store.VALUES, dtype=np.int8, mode="r", shape=(positions, 2))
    n = holes // 2
    edges = np.empty((count, n), dtype=np.int32)
    const = np.empty((count, 2), dtype=np.int8)
    moves = np.empty(count, dtype=np.int8)
    rule_array = np.array(rules, dtype=np.int64)
    rule_array.setflags(write=False)
    expand_layer(seeds, start, count, rule_array, comp, offsets, values.view(np.ndarray), edges, const, moves)
    return edges, const, moves


class RayExpander:
    """Expands layers on the Ray cluster at ``address`` (``"local"``: start one on this machine with
    ``workers`` CPUs; ``"auto"`` or ``HOST:PORT``: join a running one)."""

    def __init__(self, address: str, workers: int | None = None):
        self.ray = require("ray", "rllib", "a build with --ray-address")
        if not isinstance(address, str) or not address:
            raise ValueError(f"ray_address must be 'local', 'auto' or HOST:PORT, got {address!r}")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"ray workers must be a positive integer, got {workers!r}")
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address == "local":
            options["num_cpus"] = workers or os.cpu_count()
        self.started = not self.ray.is_initialized()
        if self.started:
            self.ray.init(address=address, **options)
        self.workers = int(workers or self.ray.cluster_resources().get("CPU", 1))
        self.task = self.ray.remote(num_cpus=1)(expand_chunk)

    def expand(
        self, folder: Path, rules: np.ndarray, max_seeds: int, holes: int, seeds: int, arrays, on_chunk
    ):
        """Fill ``arrays`` = (edges, const, moves) of layer ``seeds``; ``on_chunk(count)`` after each
        chunk arrives (progress, Ctrl-C points)."""
        edges, const, moves = arrays
        size = edges.shape[0]
        chunks = deque(range(0, size, CHUNK))
        pending: dict[Any, int] = {}
        args = (str(folder), [int(x) for x in rules], max_seeds, holes, seeds)
        try:
            while chunks or pending:
                while chunks and len(pending) < IN_FLIGHT * self.workers:
                    s = chunks.popleft()
                    pending[self.task.remote(*args, s, min(CHUNK, size - s))] = s
                ready, _ = self.ray.wait(list(pending), num_returns=1)
                s = pending.pop(ready[0])
                e_chunk, c_chunk, m_chunk = self.ray.get(ready[0])
                e = s + len(m_chunk)
                edges[s:e], const[s:e], moves[s:e] = e_chunk, c_chunk, m_chunk
                on_chunk(e - s)
        finally:
            for ref in pending:
                self.ray.cancel(ref)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()
