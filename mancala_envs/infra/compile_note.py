"""A one-line note when the first call into a set of compiled kernels will compile them (40–120 s).

The kernels come in sets (:data:`KERNEL_SETS`: the rules engine, the vector env, each searching
agent, the tablebases), each compiled on its first use and then loaded from numba's on-disk cache.
Whoever is about to use a set calls :func:`announce_compilation` with its name: every env
constructor (through ``envs.common.resolve_game``) the rules, ``make_agent`` the agent's sets, the
CLI's commands theirs. Once per process and set, when no process of this checkout has compiled that
set for the current sources (a marker per set and source digest, written at a normal exit by a
process whose kernels of that set ran), it prints ``compiling kernels: SETS (first run only)…`` on
stderr for a person watching (a terminal or a Jupyter kernel) and otherwise logs it as an ``INFO``
message of the ``mancala_envs`` logger (``logging.basicConfig(level=logging.INFO)`` shows it), so
that test runs and piped output stay quiet. A warm set costs one file check per call.
"""

from __future__ import annotations

import atexit
import logging
import sys

from mancala_envs import _numba_cache
from mancala_envs._numba_cache import cache_is_warm

MESSAGE = "compiling kernels (first run only)…"
logger = logging.getLogger("mancala_envs")

# a set of kernels -> the modules that define them
KERNEL_SETS: dict[str, tuple[str, ...]] = {
    "rules": tuple(
        f"mancala_envs.core.{m}" for m in ("engine", "fast", "layout", "batch", "checks", "rollout")
    ),
    "vector": ("mancala_envs.envs.vector_kernel",),
    "greedy": ("mancala_envs.agents.greedy",),
    "minimax": ("mancala_envs.agents.minimax.alphabeta",),
    "mcts": ("mancala_envs.agents.mcts.kernels",),
    "az": ("mancala_envs.agents.alphazero.search", "mancala_envs.agents.alphazero.forced_end"),
    "tablebase": tuple(
        f"mancala_envs.tablebase.{m}" for m in ("index", "kernels", "lowmem", "probe", "sweeps")
    ),
}
# an agent's name -> the sets it plays with besides the rules
AGENT_KERNELS: dict[str, tuple[str, ...]] = {
    "greedy": ("greedy",),
    "minimax": ("minimax",),
    "mcts": ("mcts",),
    "az": ("az",),
    "perfect": ("minimax", "tablebase"),
}

_said: set[str] = set()  # the sets announced (or found cold) in this process
_marking = False  # whether the exit hook is registered


def message(kernel_sets: list[str]) -> str:
    """``compiling kernels: rules, az (first run only)…``"""
    return MESSAGE.replace("kernels", f"kernels: {', '.join(kernel_sets)}")


def agent_kernels(spec: str) -> tuple[str, ...]:
    """The kernel sets an agent spec plays with (``az:sims=50``: the rules and ``az``)."""
    return ("rules", *AGENT_KERNELS.get(spec.partition(":")[0], ()))


def _someone_watches() -> bool:
    """Is stderr a terminal, or is this a Jupyter/IPython kernel (whose stderr shows in the cell)?"""
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        tty = False
    return tty or "ipykernel" in sys.modules


def kernels_ran(kernel_set: str) -> bool:
    """Whether a kernel of ``kernel_set`` was compiled (or loaded from the cache) in this process."""
    for name in KERNEL_SETS.get(kernel_set, ()):
        module = sys.modules.get(name)
        for obj in vars(module).values() if module is not None else ():
            py_func = getattr(obj, "py_func", None)
            if getattr(py_func, "__module__", None) == name and getattr(obj, "signatures", None):
                return True
    return False


def mark_compiled() -> None:
    """At exit: mark each cold set whose kernels ran as compiled, so later processes stay quiet."""
    for kernel_set in sorted(_said):
        if kernels_ran(kernel_set):
            _numba_cache.mark_warm(kernel_set)


def announce_compilation(*kernel_sets: str) -> None:
    """Say :func:`message` once per process for the sets among ``kernel_sets`` that no process has
    compiled for the current sources (module docstring); they are marked at a normal exit."""
    global _marking
    cold = [s for s in dict.fromkeys(kernel_sets) if s not in _said and not cache_is_warm(s)]
    if not cold:
        return
    _said.update(cold)
    if not _marking:
        _marking = True
        atexit.register(mark_compiled)
    if _someone_watches():
        print(message(cold), file=sys.stderr, flush=True)
    else:
        logger.info("%s (40–120 s; numba's cache is cold for these sources)", message(cold))
