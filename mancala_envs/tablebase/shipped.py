"""The solves shipped as package data (``mancala_envs.solutions``, the repository's
``results/solve/``): one folder per solve, its ``solution.json`` beside its proofs (TABLEBASE.md
§5) and ``first-moves/``. ``mancala solve --check VARIANT`` checks one, the ``perfect`` agent plays
the opening by their proofs (:mod:`~mancala_envs.tablebase.strategy`), and the web app shows the
proven values of a solved game's initial position and first moves (:func:`proven_opening`)."""

from __future__ import annotations

import copy
import functools
from importlib import resources
from pathlib import Path
from typing import Any

from mancala_envs.game import Game
from mancala_envs.infra.results import read_result
from mancala_envs.state import State
from mancala_envs.tablebase.proof import position_key

PACKAGE = "mancala_envs.solutions"
SOLUTION = "solution.json"
VALUE_WORDS = {1: "wins", 0: "draws", -1: "loses"}  # a value for the player to move, in words


def shipped_solves() -> list[str]:
    """The names of the shipped solves' folders (``sadeqa_ii``, ``sadeqa_ii-k20``, ...)."""
    root = resources.files(PACKAGE)
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / SOLUTION).is_file())


def shipped_folder(name: str) -> Path:
    """The folder of the shipped solve ``name`` (``ValueError`` naming the shipped ones otherwise)."""
    if name not in shipped_solves():
        raise ValueError(f"no shipped solve named {name!r}; shipped: {', '.join(shipped_solves()) or 'none'}")
    return Path(str(resources.files(PACKAGE) / name))


def solves_of(game: Game) -> list[Path]:
    """The folders of the shipped solves of ``game``'s variant (its ``solution.json`` names it and
    its parameters), in name order; a solve that proved nothing (no value) is left out."""
    return list(solved_variants().get(game.variant, ()))


@functools.cache
def solved_variants() -> dict[str, tuple[Path, ...]]:
    """Each solved variant's shipped solve folders (read once: package data does not change)."""
    found: dict[str, tuple[Path, ...]] = {}
    for name in shipped_solves():
        folder = shipped_folder(name)
        solution = read_result(folder / SOLUTION)
        if solution.get("value") is not None:
            found[solution["variant"]] = (*found.get(solution["variant"], ()), folder)
    return found


def proof_files(folder: Path) -> list[Path]:
    """The proofs a solve folder lists in its ``solution.json``: the root's, then those of the
    first moves (under ``first-moves/``), in the order listed."""
    solution = read_result(folder / SOLUTION)
    files = [folder / entry["file"] for entry in solution.get("proofs", [])]
    for move in (solution.get("first_moves") or {}).get("moves", []):
        files += [folder / "first-moves" / entry["file"] for entry in move.get("proofs", [])]
    return files


def proven_opening(game: Game) -> dict[str, Any] | None:
    """What the shipped solves prove about ``game``'s opening, for a reader (None when none is
    shipped): the initial position's value for its mover (``player``, ``value``, ``statement``), the
    tables the proofs rest on, and ``first_moves``: after the ``forced`` moves, each move of the
    first real choice with its proven value for the ``chooser`` (None where the search gave up).
    Several solves of one variant (tables of different sizes) agree; the smallest table's is read."""
    return copy.deepcopy(_opening(game.variant))


@functools.cache
def _opening(variant: str) -> dict[str, Any] | None:
    folders = solved_variants().get(variant)
    if not folders:
        return None
    solutions = [read_result(folder / SOLUTION) for folder in folders]
    solution = min(solutions, key=lambda s: s["table"]["max_seeds"])
    first = solution.get("first_moves") or {}
    return {
        "player": solution["player"],
        "value": solution["value"],
        "statement": solution["statement"],
        "tables": sorted(s["table"]["max_seeds"] for s in solutions),
        "proof_nodes": sum(p["nodes"] for p in solution["proofs"]),
        "forced": list(first.get("forced", [])),
        "chooser": first.get("player"),
        "first_moves": [
            {"moves": list(m["moves"]), "value": m["value_for_chooser"]} for m in first.get("moves", [])
        ],
    }


def proven_values(game: Game, state: State) -> dict[str, Any] | None:
    """The proven value of ``state`` for its mover, and of each of its moves, when ``state`` is a
    solved game's initial position, a position of its forced moves or its first real choice (the
    ply count aside); None otherwise. ``moves`` maps each legal action to its value for the mover
    (a forced position's one move keeps the position's value)."""
    opening = proven_opening(game)
    if opening is None or state.is_over:
        return None
    line = game.initial_state()
    forced = opening["forced"]
    for step in range(len(forced) + 1):
        if position_key(line) == position_key(state):
            break
        if step == len(forced):
            return None
        line = game.apply(line, forced[step])
    sign = 1 if state.to_move == opening["player"] else -1
    if step == len(forced):
        moves = {m["moves"][-1]: m["value"] for m in opening["first_moves"]}
    else:
        moves = {forced[step]: sign * opening["value"]}
    return {"value": sign * opening["value"], "moves": moves, "tables": opening["tables"]}
