"""Exact endgame tablebases (TABLEBASE.md): every position with at most ``K`` seeds on the board.

::

    from mancala_envs import get_game, tablebase
    tb = tablebase.build(get_game("sadeqa_ii"), max_seeds=8)   # builds, or loads the cached table
    tb.covers(state), tb.outcome(state), tb.bounds(state), tb.best_actions(state)

:func:`build` (:mod:`~.builder`) makes or extends a table, :func:`load` (:mod:`~.table`) opens
one; :mod:`~.index` numbers positions, :mod:`~mancala_envs.tablebase.kernels` and :mod:`~.sweeps`
compute the values, :mod:`~.probe` reads them, :mod:`~.store` keeps them on disk,
:mod:`~.optimality_suite` reads and writes optimality suites (one ships per game in
``shipped_suites/``; :mod:`mancala_envs.evaluation.suite_sampling` makes them); ``mancala tablebase
build|probe|suite`` is :mod:`mancala_envs.cli.tablebase`. :func:`solve` (:mod:`~.solve`) proves a
position's value by a forward search down to a table (:mod:`~.first_moves`: the value of each
move of its first real choice), and :func:`check_proof` (:mod:`~.proof`)
checks such a proof (TABLEBASE.md §5; ``mancala solve`` is :mod:`mancala_envs.cli.solve`).
:mod:`~.shipped` finds the solves shipped as package data (``mancala_envs.solutions``) and the
values they prove; :mod:`~.strategy` reads a checked proof as the strategy the ``perfect`` agent
follows.
"""

from mancala_envs.tablebase.builder import build
from mancala_envs.tablebase.proof import ProofError, Verdict, check_proof
from mancala_envs.tablebase.solve import Solution, solve
from mancala_envs.tablebase.store import default_dir, default_path, table_name
from mancala_envs.tablebase.table import NO_MOVE, Probe, Tablebase, load

__all__ = [
    "NO_MOVE",
    "Probe",
    "ProofError",
    "Solution",
    "Tablebase",
    "Verdict",
    "build",
    "check_proof",
    "default_dir",
    "default_path",
    "load",
    "solve",
    "table_name",
]
