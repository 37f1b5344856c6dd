"""A checked proof read as a strategy (TABLEBASE.md §5): the one move its served side plays at
each of its nodes, keyed by position (:func:`~mancala_envs.tablebase.proof.position_key`: board,
captured seeds, player to move, Sadeqa II's opening flags; the ply count aside).

Why following it keeps the claim: the checker has verified that at every node of the served side
the listed move leads to a node, a finished game or a table position that meet the claim, and at
every other node that *every* legal reply does. So from any node, the served side's listed moves
and any replies stay on the proof's nodes until the game ends or reaches the table, meeting the
claim there; a ``>=1`` / ``<=-1`` proof's references form no cycle, so that happens within its
nodes' count of plies. The table's own converting move (the ``perfect`` agent's) then ends a won
game. A proof is used only with a table that agrees with the one it rests on: at least its
``max_seeds``, and the same fingerprint of layers ``0..max_seeds`` (:func:`unusable` says why not).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from mancala_envs.game import Game
from mancala_envs.state import State
from mancala_envs.tablebase import shipped
from mancala_envs.tablebase.proof import (
    ProofError,
    check_proof,
    position_key,
    proof_game,
    read_header,
    read_nodes,
    served,
    strict,
)


@dataclass(frozen=True)
class Strategy:
    """The served side's move at each node of one checked proof."""

    path: Path
    claim: str
    side: int  # the player the claim serves: the one who plays the listed moves
    moves: dict[tuple, int] = field(repr=False)

    @property
    def wins(self) -> bool:
        """A ``>=1`` / ``<=-1`` proof: ``side`` forces a won end (else he never loses)."""
        return strict(self.claim)

    def move(self, state: State) -> int | None:
        """The proof's move at ``state``, or None when ``state`` is not one of its served nodes."""
        if state.to_move != self.side:
            return None
        return self.moves.get(position_key(state))


def unusable(path: str | os.PathLike, game: Game, table) -> str | None:
    """Why the proof at ``path`` cannot be followed in ``game`` with ``table`` (from its header
    alone: another variant, a table too small or another table), or None."""
    try:
        head = read_header(path)
        proven, need = proof_game(path, head)
    except ProofError as e:
        return str(e)
    if proven.variant != game.variant:
        return f"{path} proves a position of {proven.variant}, not of {game.variant}"
    if table.max_seeds < need:
        return (
            f"{path} rests on a table of max_seeds {need}; the table at {table.path} has max_seeds "
            f"{table.max_seeds}"
        )
    want = head["table"].get("fingerprint")
    if want is not None and table.fingerprint(need) != want:
        return (
            f"{path} rests on a table whose layers 0..{need} have the fingerprint {want[:16]}...; those "
            f"of the table at {table.path} differ (another table)"
        )
    return None


def read_strategy(path: str | os.PathLike, table) -> Strategy:
    """The strategy of the proof at ``path``, checked first with ``table``
    (:func:`~mancala_envs.tablebase.proof.check_proof`; ``ProofError`` when it does not hold)."""
    verdict = check_proof(path, table)
    side = served(verdict.claim, verdict.root.to_move)
    moves = {}
    for node in read_nodes(path):
        state = verdict.game.state_from_dict(node["state"])
        if state.to_move == side:
            moves[position_key(state)] = int(node["moves"][0][0])
    return Strategy(Path(path), verdict.claim, side, moves)


def proofs_at(source: str | os.PathLike) -> list[Path]:
    """The proof files of ``source``: a proof file itself, or a solve's folder (the proofs its
    ``solution.json`` lists); ``ValueError`` when it is neither."""
    source = Path(source)
    if source.is_file():
        return [source]
    if (source / shipped.SOLUTION).is_file():
        return shipped.proof_files(source)
    raise ValueError(f"{source} is no proof file and no solve folder (with a {shipped.SOLUTION})")


def strategies_for(
    game: Game, table, source: str | os.PathLike | None = None
) -> tuple[list[Strategy], list[str]]:
    """The strategies of the proofs of ``source`` (default: the shipped solves of ``game``'s
    variant, :func:`~mancala_envs.tablebase.shipped.solves_of`) that ``table`` can follow, wins
    first, and why each other solve is left out (all its proofs with it). A proof named in
    ``source`` that cannot be followed is a ``ValueError``; a shipped one is only left out."""
    if source is None:
        groups = [shipped.proof_files(folder) for folder in shipped.solves_of(game)]
    else:
        groups = [proofs_at(source)]
    found, skipped = [], []
    for paths in groups:  # a solve's proofs rest on one table: one reason for all of them
        why = next(filter(None, (unusable(path, game, table) for path in paths)), None)
        if why is None:
            found += [read_strategy(path, table) for path in paths]
        elif source is not None:
            raise ValueError(f"perfect: cannot follow the proof: {why}")
        else:
            skipped.append(why)
    found.sort(key=lambda s: not s.wins)  # stable: the root's proof first among equals
    return found, skipped
