"""An independent brute-force solver of TABLEBASE.md §2-§3 for the tablebase tests.

It knows nothing of the package's index, kernels or sweeps: it enumerates positions as
``(board tuple, player to move)``, plays every legal move with the public ``Game.apply`` on a
state rebuilt by ``Game.state_from`` (ply 0, so ``max_plies`` never interferes), and iterates the
§2 equations in plain Python floats from ``A = -inf``, ``B = +inf`` to the fixpoint.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Iterable, Iterator

import numpy as np

from mancala_envs.rulesets import RESULT_BY_CAPTURES

Key = tuple[tuple[int, ...], int]


def boards(holes: int, seeds: int) -> Iterator[tuple[int, ...]]:
    """Every board of ``holes`` holes with exactly ``seeds`` seeds (stars and bars)."""
    for bars in itertools.combinations(range(seeds + holes - 1), holes - 1):
        cuts = (-1, *bars, seeds + holes - 1)
        yield tuple(cuts[i + 1] - cuts[i] - 1 for i in range(holes))


def all_keys(game, max_seeds: int) -> Iterator[Key]:
    """Every position with at most ``max_seeds`` seeds on the board, both players to move."""
    for k in range(max_seeds + 1):
        for board in boards(2 * game.holes_per_row, k):
            yield board, 0
            yield board, 1


class Reference:
    """The reachable graph of some positions and their exact ``(A, B)``."""

    def __init__(self, game, roots: Iterable[Key]):
        self.game = game
        self.by_captures = game.ruleset.result == RESULT_BY_CAPTURES  # SE10/ED5 (SQ6: by survival)
        self.moves: dict[Key, list[tuple[int, int, Key | None]]] = {}  # (action, gain, child)
        self.final: dict[Key, float] = {}  # positions whose mover has no legal move
        self._expand(roots)
        self.a, self.b = self._solve()

    def state(self, key: Key, d: int | None = None):
        """A state of the position; ``d``: the mover's captured lead (default: the most even)."""
        return self.state_of(self.game, key, d)

    @staticmethod
    def state_of(game, key: Key, d: int | None = None):
        """:meth:`state` of any game."""
        board, p = key
        rest = game.total_seeds - sum(board)
        if d is None:
            d = rest % 2
        captured = [0, 0]
        captured[p] = (rest + d) // 2
        captured[1 - p] = (rest - d) // 2
        return game.state_from(board=list(board), captured=captured, to_move=p)

    def _expand(self, roots: Iterable[Key]) -> None:
        todo = list(roots)
        while todo:
            key = todo.pop()
            if key in self.moves or key in self.final:
                continue
            board, p = key
            s = self.state(key)
            legal = self.game.legal_mask(s)
            if not legal.any():
                n = self.game.holes_per_row
                own_row_empty = sum(board[p * n : (p + 1) * n]) == 0
                self.final[key] = -float(sum(board)) if self.by_captures else (-1.0 if own_row_empty else 0.0)
                continue
            moves = []
            for a in np.flatnonzero(legal):
                t = self.game.apply(s, int(a))
                if self.by_captures:
                    gain = int(t.captured[p] - t.captured[1 - p]) - int(s.captured[p] - s.captured[1 - p])
                else:
                    gain = 1 if t.done and t.winner == p else 0
                child = None if t.done else (tuple(int(x) for x in t.board), int(t.to_move))
                moves.append((int(a), gain, child))
                if child is not None:
                    todo.append(child)
            self.moves[key] = moves

    def _candidates(self, key: Key, a: dict, b: dict) -> list[tuple[int, float, float]]:
        """``(action, candidate for A, candidate for B)`` of each move (TABLEBASE.md §2)."""
        p = key[1]
        out = []
        for action, g, child in self.moves[key]:
            if child is None:
                out.append((action, float(g), float(g)))
            elif child[1] == p:  # the same player moves again
                out.append((action, g + a[child], g + b[child]))
            else:
                out.append((action, g - b[child], g - a[child]))
        return out

    def _solve(self) -> tuple[dict[Key, float], dict[Key, float]]:
        """Worklist iteration (first in, first out) from ``A = -inf, B = +inf``: a position is
        recomputed whenever one of its children changed. The operator is monotone (raising
        ``A`` / lowering ``B`` raises every ``A`` / lowers every ``B``), so this reaches the
        same least ``A`` and greatest ``B`` as round-by-round iteration."""
        a = dict(self.final)
        b = dict(self.final)
        parents: dict[Key, set[Key]] = {}
        for key, moves in self.moves.items():
            a[key], b[key] = -math.inf, math.inf
            for _, _, child in moves:
                if child is not None:
                    parents.setdefault(child, set()).add(key)
        todo = deque(self.moves)
        queued = set(todo)
        while todo:
            key = todo.popleft()
            queued.discard(key)
            cands = self._candidates(key, a, b)
            new_a = max(c[1] for c in cands)
            new_b = max(c[2] for c in cands)
            if new_a != a[key] or new_b != b[key]:
                a[key], b[key] = new_a, new_b
                for parent in parents.get(key, ()):
                    if parent not in queued:
                        queued.add(parent)
                        todo.append(parent)
        return a, b

    def outcome(self, key: Key, d: int) -> int:
        """``G(pos, d)`` (TABLEBASE.md §2; ``d`` ignored in Sadeqa II)."""
        d = d if self.by_captures else 0
        if d + self.a[key] > 0:
            return 1
        if d + self.b[key] < 0:
            return -1
        return 0

    def move_outcomes(self, key: Key, d: int) -> dict[int, int]:
        """The outcome of each legal move at ``(pos, d)`` (TABLEBASE.md §3)."""
        d = d if self.by_captures else 0
        p = key[1]
        out = {}
        for action, g, child in self.moves.get(key, []):
            if child is None:
                out[action] = int(np.sign(d + g)) if self.by_captures else (1 if g == 1 else 0)
            elif child[1] == p:
                out[action] = self.outcome(child, d + g)
            else:
                out[action] = -self.outcome(child, -(d + g))
        return out

    def best_mask(self, key: Key, d: int) -> np.ndarray:
        """int8 mask of the outcome-preserving moves."""
        mask = np.zeros(self.game.holes_per_row, dtype=np.int8)
        value = self.outcome(key, d)
        for action, o in self.move_outcomes(key, d).items():
            mask[action] = o == value
        return mask
