"""A table build past one process: each layer partitioned across Ray workers (``--ray-address``).

Each worker (a Ray actor, :class:`LayerPart`) owns part of a layer's index range: chunks of it,
dealt by the driver as the workers finish the previous ones (a chunk's cost varies along the
range). It plays its chunks' moves with the same compiled kernel as a local build
(:func:`~mancala_envs.tablebase.kernels.expand_layer`), reading the finished lower layers from the
table's ``values`` file in the shared folder (mapped read-only; the driver flushes every finished
layer there), and keeps their in-layer edges, constants and the reversed edges. The layer's value
iteration runs on the workers too: each Jacobi round, every worker recomputes its rows flagged
dirty (:func:`~mancala_envs.tablebase.sweeps.recompute`) from its own copy of the layer's values
of the previous round and returns only the positions that changed (or all its values, where most
changed); the driver records their round and sends the union of the changes to every worker,
which writes it into its copy and flags its rows with a move to a changed position. These are the
iterates of :func:`~mancala_envs.tablebase.sweeps.iterate` on the same inputs, so the files are
byte-identical to a local build's. Layers below :data:`MIN_LAYER` positions are solved on the
driver, as in a local build (the exchanges of their rounds would cost more than their work).

The folder must be visible to every worker at the same path (a local disk for a single-machine
Ray, a network file system for a cluster). Ray is the ``rllib`` extra's engine.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from mancala_envs.core.fast import inline_kernel
from mancala_envs.infra.extras import require
from mancala_envs.tablebase import store
from mancala_envs.tablebase.index import compositions_table, layer_offsets
from mancala_envs.tablebase.kernels import expand_layer
from mancala_envs.tablebase.sweeps import commit_one, predecessors, recompute, start_values

CHUNK = 1 << 20  # the most positions per expansion call (progress and Ctrl-C points)
CHUNKS_PER_WORKER = 16  # at least: the chunks are dealt as the workers finish them
IN_FLIGHT = 2  # expansion calls queued per worker
MIN_LAYER = 1 << 20  # smaller layers are solved on the driver, as in a local build
DENSE = 5  # a round's changes travel as whole values where more than 1/DENSE of the positions changed
MAX_ROUND = np.iinfo(np.uint16).max


@njit(cache=True)
def commit_part(ids, dirty, fresh, cur, changed):
    """The rows of a part (layer indices ``ids``) whose recomputed values ``fresh`` differ from
    ``cur`` go to ``changed`` (``cur`` is left as it is: a round's changes are written when they
    arrive with the others'); clears ``dirty``. Returns how many there are."""
    m = 0
    for i in range(dirty.shape[0]):
        if dirty[i] == 0:
            continue
        dirty[i] = 0
        if fresh[i, 0] != cur[ids[i], 0] or fresh[i, 1] != cur[ids[i], 1]:
            changed[m] = i
            m += 1
    return m


@inline_kernel
def take(q, vals, k, cur, starts, preds, dirty):
    """Position ``q``'s value from row ``k`` of ``vals`` where it changed, flagging the rows of this
    part with a move to it."""
    if vals[k, 0] != cur[q, 0] or vals[k, 1] != cur[q, 1]:
        cur[q, 0] = vals[k, 0]
        cur[q, 1] = vals[k, 1]
        for j in range(starts[q], starts[q + 1]):
            dirty[preds[j]] = 1


@njit(cache=True)
def apply_changes(rows, vals, cur, starts, preds, dirty):
    """A round's changes (layer indices ``rows``, values ``vals``) into ``cur`` (:func:`take`)."""
    for k in range(rows.shape[0]):
        take(rows[k], vals, k, cur, starts, preds, dirty)


@njit(cache=True)
def apply_values(vals, cur, starts, preds, dirty):
    """:func:`apply_changes` from the whole layer's new values ``vals`` (a round where most
    positions changed: sent whole, 2 bytes a position instead of 10 a change)."""
    for q in range(cur.shape[0]):
        take(q, vals, q, cur, starts, preds, dirty)


@njit(cache=True)
def record_changes(round_no, rows, vals, cur, rounds, changed):
    """The driver's side of a round: rows ``k`` of ``vals`` into positions ``rows[k]`` of ``cur``,
    ``round_no`` into ``rounds`` for each side that changed (:func:`~.sweeps.commit_one`); the
    positions that changed go to ``changed``. Returns how many there are."""
    m = 0
    for k in range(rows.shape[0]):
        if commit_one(k, rows[k], round_no, vals, cur, rounds):
            changed[m] = rows[k]
            m += 1
    return m


@njit(cache=True)
def part_values(ids, cur, fresh, changed):
    """All of a part's values after a round, in its order: ``cur`` at its positions ``ids``, its
    ``changed`` rows from ``fresh``."""
    out = np.empty((ids.shape[0], 2), dtype=np.int8)
    for i in range(ids.shape[0]):
        out[i, 0] = cur[ids[i], 0]
        out[i, 1] = cur[ids[i], 1]
    for c in changed:
        out[c, 0] = fresh[c, 0]
        out[c, 1] = fresh[c, 1]
    return out


class LayerPart:
    """A worker's part of each layer: the chunks of its index range it expanded (run as a Ray actor
    of one CPU; a plain object in tests)."""

    def __init__(self, folder: str, rules: list[int], max_seeds: int, holes: int):
        import numba

        numba.set_num_threads(1)
        self.offsets = layer_offsets(max_seeds, holes)
        self.comp = compositions_table(max_seeds, holes)
        positions = int(self.offsets[max_seeds + 1])
        self.values = np.memmap(Path(folder) / store.VALUES, dtype=np.int8, mode="r", shape=(positions, 2))
        self.rules = np.array(rules, dtype=np.int64)
        self.rules.setflags(write=False)
        self.n = holes // 2

    def ready(self) -> bool:
        """Load the compiled kernels (numba's cache) off the clock, on layer 0 (one position,
        nothing written): a local build's are loaded before its first layer too."""
        self.begin(0, 1)
        self.expand(0, 1)
        first, _ = self.initial()
        self.start_rounds(first, 1)
        self.round(np.zeros(1, dtype=np.int64), first)
        self.round(None, first)
        part_values(self.ids, self.cur, self.fresh, self.changed[:0])
        return True

    def begin(self, seeds: int, capacity: int) -> None:
        """Start on layer ``seeds``, owning nothing yet, with room for ``capacity`` positions
        (more grows the arrays)."""
        self.seeds, self.count = seeds, 0
        self._arrays(max(capacity, 1))

    def _arrays(self, capacity: int) -> None:
        """(Re)allocate the part's arrays for ``capacity`` positions, keeping the first ``count``."""
        old = [getattr(self, name, None) for name in ("edges", "const", "moves", "ids")]
        self.edges = np.empty((capacity, self.n), dtype=np.int32)
        self.const = np.empty((capacity, 2), dtype=np.int8)
        self.moves = np.empty(capacity, dtype=np.int8)
        self.ids = np.empty(capacity, dtype=np.int64)
        if self.count:
            for new, kept in zip((self.edges, self.const, self.moves, self.ids), old, strict=True):
                new[: self.count] = kept[: self.count]

    def expand(self, lo: int, hi: int) -> int:
        """Own positions ``lo .. hi - 1`` of the layer: play their moves. Returns their number."""
        c, m = self.count, hi - lo
        if c + m > len(self.ids):
            self._arrays(max(2 * len(self.ids), c + m))
        values = self.values.view(np.ndarray)
        e, k, v = self.edges[c : c + m], self.const[c : c + m], self.moves[c : c + m]
        expand_layer(self.seeds, lo, m, self.rules, self.comp, self.offsets, values, e, k, v)
        self.ids[c : c + m] = np.arange(lo, hi)
        self.count = c + m
        return m

    def initial(self) -> tuple[np.ndarray, int]:
        """The part's round-0 values (in the order its chunks came) and how many of its positions
        are finished."""
        c = self.count
        self.edges, self.const, self.moves, self.ids = (
            self.edges[:c],
            self.const[:c],
            self.moves[:c],
            self.ids[:c],
        )
        first = np.empty((c, 2), dtype=np.int8)
        start_values(self.const, self.moves, first)
        return first, int(np.count_nonzero(self.moves == 0))

    def start_rounds(self, cur: np.ndarray, size: int) -> None:
        """Round 0's values of the whole layer (``size`` positions); builds the reversed edges."""
        self.cur = np.array(cur, dtype=np.int8)
        self.starts, self.preds = predecessors(self.edges, size)
        self.dirty = (self.moves > 0).astype(np.uint8)
        self.fresh = np.empty((len(self.ids), 2), dtype=np.int8)
        self.changed = np.empty(len(self.ids), dtype=np.int64)

    def round(self, rows: np.ndarray | None, vals: np.ndarray) -> tuple[int, np.ndarray | None, np.ndarray]:
        """One Jacobi round: apply the previous round's changes of the whole layer (``rows`` None:
        ``vals`` holds the whole layer's values), recompute the flagged rows of the part. Returns
        how many were recomputed and the changes, in the same form: the positions that changed
        (layer indices) with their values, or None with all the part's values (in its order) where
        more than 1/:data:`DENSE` of it changed."""
        if rows is None:
            apply_values(vals, self.cur, self.starts, self.preds, self.dirty)
        else:
            apply_changes(rows, vals, self.cur, self.starts, self.preds, self.dirty)
        dirty = recompute(self.dirty, self.edges, self.const, self.cur, self.fresh)
        changed = self.changed[: commit_part(self.ids, self.dirty, self.fresh, self.cur, self.changed)]
        if len(changed) * DENSE > len(self.ids):
            return dirty, None, part_values(self.ids, self.cur, self.fresh, changed)
        return dirty, self.ids[changed], self.fresh[changed]


class RayLayerSolver:
    """Solves layers on the Ray cluster at ``address`` (``"local"``: start one on this machine with
    ``workers`` CPUs; ``"auto"`` or ``HOST:PORT``: join a running one), one :class:`LayerPart` actor
    per worker."""

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
        self.parts: list[Any] = []

    def start_parts(self, folder: Path, rules: np.ndarray, max_seeds: int, holes: int) -> None:
        """Start the workers' :class:`LayerPart` actors for a table; returns when they are up."""
        actor = self.ray.remote(num_cpus=1)(LayerPart)
        args = (str(folder), [int(x) for x in rules], max_seeds, holes)
        self.parts = [actor.remote(*args) for _ in range(self.workers)]
        self._call("ready")  # the workers' start-up is Ray's, not the first layer's
        rows, nothing = np.empty(0, np.int64), np.empty((0, 2), np.int8)
        record_changes(0, rows, nothing, nothing, np.empty((0, 2), np.uint16), rows)

    def partitions(self, size: int) -> bool:
        """Whether a layer of ``size`` positions goes to the workers: a smaller one is solved
        faster locally than the rounds' exchanges take."""
        return size >= MIN_LAYER

    def _call(self, method: str, *args_per_part) -> list:
        """``method`` on every part (with the i-th of each argument list), their results in order."""
        refs = [getattr(p, method).remote(*(a[i] for a in args_per_part)) for i, p in enumerate(self.parts)]
        return self.ray.get(refs)

    def solve(self, seeds: int, size: int, on_chunk, on_round) -> tuple[np.ndarray, np.ndarray, int, int]:
        """Layer ``seeds`` (``size`` positions) of the table the parts were started for
        (:meth:`start_parts`): its values, rounds, number of rounds that changed something and
        finished positions, as :func:`~.sweeps.solve_layer` gives them. ``on_chunk(count)`` after
        each expanded chunk, ``on_round(round, changed)`` after each round (progress, Ctrl-C points)."""
        step = max(1, min(CHUNK, -(-size // (CHUNKS_PER_WORKER * len(self.parts)))))
        room = size // len(self.parts) + (IN_FLIGHT + 2) * step  # a fair share and a few chunks more
        self._call("begin", [seeds] * len(self.parts), [min(size, room)] * len(self.parts))
        owned = self._expand(size, step, on_chunk)
        ids = [
            np.concatenate([np.arange(lo, hi) for lo, hi in chunks] or [[]]).astype(np.int64)
            for chunks in owned
        ]
        cur = np.empty((size, 2), dtype=np.int8)
        finished = 0
        for part_ids, (first, done) in zip(ids, self._call("initial"), strict=True):
            cur[part_ids] = first
            finished += done
        ref = self.ray.put(cur)
        self._call("start_rounds", [ref] * len(self.parts), [size] * len(self.parts))
        rounds = np.zeros((size, 2), dtype=np.uint16)
        return cur, rounds, self._iterate(cur, rounds, ids, on_round), finished

    def _expand(self, size: int, step: int, on_chunk) -> list[list[tuple[int, int]]]:
        """Deal the layer's chunks to the workers as they finish the previous ones (a chunk's cost
        varies along the index range, so fixed slices would leave one worker waiting); returns the
        chunks each worker owns, in the order it expanded them."""
        chunks = deque(range(0, size, step))
        owned: list[list[tuple[int, int]]] = [[] for _ in self.parts]
        pending: dict[Any, int] = {}

        def deal(i: int) -> None:
            lo = chunks.popleft()
            owned[i].append((lo, min(size, lo + step)))
            pending[self.parts[i].expand.remote(*owned[i][-1])] = i

        for i in range(len(self.parts)):
            for _ in range(IN_FLIGHT):
                if chunks:
                    deal(i)
        while pending:
            ready, _ = self.ray.wait(list(pending), num_returns=1)
            i = pending.pop(ready[0])
            on_chunk(self.ray.get(ready[0]))
            if chunks:
                deal(i)
        return owned

    def _iterate(self, cur: np.ndarray, rounds: np.ndarray, ids: list[np.ndarray], on_round) -> int:
        """Rounds to the fixpoint (:func:`~.sweeps.iterate`'s loop); returns the last round that
        changed something. ``ids``: the layer indices of each part's rows, in its order."""
        message = (np.empty(0, dtype=np.int64), np.empty((0, 2), dtype=np.int8))
        buffer = np.empty(max((len(i) for i in ids), default=0), dtype=np.int64)
        round_no = 0
        while True:
            refs = [self.ray.put(x) for x in message]
            results = self._call("round", [refs[0]] * len(self.parts), [refs[1]] * len(self.parts))
            if sum(dirty for dirty, _, _ in results) == 0:
                return round_no
            round_no += 1
            if round_no > MAX_ROUND:
                raise ValueError(f"value iteration needs more than {MAX_ROUND} rounds: they overflow uint16")
            rows = []
            for part_ids, (_, part_rows, part_vals) in zip(ids, results, strict=True):
                if part_rows is None:  # all the part's values: its changes are where they differ
                    part_rows = part_ids
                m = record_changes(round_no, part_rows, part_vals, cur, rounds, buffer)
                rows.append(buffer[:m].copy())
            changed = sum(len(r) for r in rows)
            on_round(round_no, changed)
            if changed == 0:
                return round_no - 1
            if changed * DENSE > len(cur):
                message = (None, cur)
            else:
                every = np.concatenate(rows)
                message = (every, cur[every])

    def close(self) -> None:
        for part in self.parts:
            self.ray.kill(part)
        self.parts = []
        if self.started:
            self.ray.shutdown()
