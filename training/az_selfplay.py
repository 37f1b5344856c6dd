"""Self-play for :mod:`mancala_envs.training.train_alphazero`: games in lockstep, one batched Gumbel search
per move, and the replay buffer their positions go to.

:class:`SelfPlay` plays ``games`` games at once; every move of every game is one batched search
(:class:`mancala_envs.agents.alphazero.search.GumbelSearch`). Each position records the network's input
(the mover's raw-count view, or his lookahead rows), his legal mask and the search's improved
policy; when a game ends (or, with ``settle_decided``, its result is decided: in a game won on
captures, one player holds more than half the seeds), every one of its positions gets the result
for the player who moved there (+1 / 0 / -1 from player 0's result, credited by the mover's id) —
or, with a ``table`` (a :class:`~mancala_envs.tablebase.Tablebase`), the exact value for the
mover of every position the table covers (TABLEBASE.md: a game that never ends is a draw).
A new game starts from a random opening (``opening_share`` of the time) or the initial position.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs import Game
from mancala_envs.tablebase.probe import NOT_COVERED  # Tablebase.outcomes where it does not cover


class Replay:
    """A ring buffer of training positions: the mover's raw-count view, his legal mask, the policy
    target and the value target."""

    FIELDS = ("obs", "mask", "policy", "value")

    def __init__(self, game: Game, capacity: int, lookahead: int = 0):
        from mancala_envs.agents.alphazero.tree import input_width

        self.capacity, self.size, self.next = capacity, 0, 0
        self.obs = np.zeros((capacity, input_width(game, lookahead)), dtype=np.float32)
        self.mask = np.zeros((capacity, game.num_actions), dtype=bool)
        self.policy = np.zeros((capacity, game.num_actions), dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)

    def add(self, obs: np.ndarray, mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        rows = (self.next + np.arange(len(obs))) % self.capacity
        self.obs[rows], self.mask[rows], self.policy[rows], self.value[rows] = obs, mask, policy, value
        self.next = int((self.next + len(obs)) % self.capacity)
        self.size = min(self.capacity, self.size + len(obs))

    def sample(self, rng: np.random.Generator, k: int) -> tuple[np.ndarray, ...]:
        idx = rng.integers(0, self.size, k)
        return tuple(getattr(self, f)[idx] for f in self.FIELDS)

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        n = self.size
        np.savez(buf, next=self.next, **{f: getattr(self, f)[:n] for f in self.FIELDS})
        return buf.getvalue()

    def load(self, path: Path) -> None:
        try:
            with np.load(path, allow_pickle=False) as data:
                n = len(data["value"])
                for f in self.FIELDS:
                    getattr(self, f)[: min(n, self.capacity)] = data[f][: self.capacity]
                self.size, self.next = min(n, self.capacity), int(data["next"]) % self.capacity
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"{path}: not a replay buffer of this run ({type(e).__name__}: {e})") from None


class SelfPlay:
    """``games`` games in lockstep, one batched search per move (module docstring)."""

    def __init__(
        self,
        a: Any,
        game: Game,
        evaluate: Any,
        rng: np.random.Generator,
        starts: list[Any],
        table: Any = None,
    ):
        from mancala_envs.agents.alphazero.network import input_plies
        from mancala_envs.agents.alphazero.search import GumbelSearch
        from mancala_envs.agents.alphazero.tree import input_width

        self.a, self.game, self.evaluate, self.rng, self.starts = a, game, evaluate, rng, starts
        self.table = table
        self.lookahead = input_plies(a.lookahead, a.replies)
        self.search = GumbelSearch(
            game, a.games, a.sims, a.max_considered, a.c_visit, a.c_scale, self.lookahead, a.settle_decided
        )
        self.states = np.zeros((a.games, game.state_size), dtype=np.int32)
        horizon = game.max_plies + 1
        width = input_width(game, self.lookahead)
        self.pending_obs = np.zeros((a.games, horizon, width), dtype=np.float32)
        self.pending_mask = np.zeros((a.games, horizon, game.num_actions), dtype=bool)
        self.pending_policy = np.zeros((a.games, horizon, game.num_actions), dtype=np.float32)
        self.pending_mover = np.zeros((a.games, horizon), dtype=np.int8)
        self.pending_exact = np.full((a.games, horizon), NOT_COVERED, dtype=np.int8)  # the table's values
        self.length = np.zeros(a.games, dtype=np.int64)
        self.finished_games = 0
        for i in range(a.games):
            self.new_game(i)

    def new_game(self, i: int) -> None:
        use_opening = self.starts and self.rng.random() < self.a.opening_share
        start = (
            self.starts[int(self.rng.integers(len(self.starts)))]
            if use_opening
            else self.game.initial_state()
        )
        self.states[i] = start.array
        self.length[i] = 0

    def step(self, replay: Replay) -> int:
        """One move of every game; finished games go to ``replay``. Returns the positions searched."""
        from mancala_envs.agents.alphazero.search import known_results

        game, a = self.game, self.a
        gumbel = (
            a.gumbel_scale * self.rng.gumbel(size=(a.games, game.num_actions)) if a.gumbel_scale else None
        )
        result = self.search.run(self.states, self.evaluate, gumbel)
        rows, t = np.arange(a.games), self.length
        movers = self.states[:, game.layout.to_move]
        self.pending_obs[rows, t] = result.inputs  # the network inputs the search built for the roots
        self.pending_mask[rows, t] = self.states[:, game.layout.mask] != 0
        self.pending_policy[rows, t] = result.policy
        self.pending_mover[rows, t] = movers
        if self.table is not None:
            self.pending_exact[rows, t] = self.table.outcomes(self.states)
        self.length += 1
        game.apply_batch(self.states, result.action, out=self.states)
        known, value = known_results(self.states, game.rules, a.settle_decided)
        for i in np.flatnonzero(known):
            self.finish(i, float(value[i]), replay)
        return a.games

    def finish(self, i: int, value0: float, replay: Replay) -> None:
        """Game ``i`` is over with ``value0`` for player 0: its positions go to ``replay``."""
        k = int(self.length[i])
        movers = self.pending_mover[i, :k].astype(np.float32)
        values = value0 * (1.0 - 2.0 * movers)  # each position's result for its mover
        exact = self.pending_exact[i, :k]
        values = np.where(exact != NOT_COVERED, exact, values).astype(np.float32)
        replay.add(self.pending_obs[i, :k], self.pending_mask[i, :k], self.pending_policy[i, :k], values)
        self.finished_games += 1
        self.new_game(i)
