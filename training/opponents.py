"""The opponent pool of self-play training: baselines and frozen snapshots of the learner.

:class:`OpponentPool` is an agent (``agents/base.py``) that plays a different member in each game
of :class:`mancala_envs.envs.vector.MancalaVecEnv`: the env calls ``episodes_started(env_indices)``
when games begin a new episode and ``act_batch(game, states, env_indices)`` for the games where
the opponent is to move.

**Schedule** (see also ``training/configs.toml``):

- At the start of every episode of every game the pool draws that episode's opponent with its own
  seeded generator: baseline ``spec`` with probability proportional to its weight (``pool`` in the
  config; by default ``random@0.15 greedy@0.3 minimax:depth=1@0.15 minimax:depth=2@0.4``), or one of
  the frozen snapshots, which share the weight ``snapshot_weight`` equally (none yet: weight 0).
- The trainer freezes the learner into the pool after every evaluation whose mean score against
  the evaluation opponents is at least the best mean so far. At most ``max_snapshots`` are kept:
  a new one replaces the oldest (games in the middle of an episode against the replaced one
  finish against the new one).
- Snapshots sample from their policy (masked softmax) with the pool's generator, so they are
  varied opponents; baselines are the project's agents built with :func:`mancala_envs.agents.as_agent` —
  ``random`` and ``greedy`` in compiled batches, ``minimax:depth=2`` through the compiled
  alpha-beta, row by row.

The learner's reward never depends on who the opponent is: the env gives +1/-1/0 for the
learner's own result in whichever seat it has, which makes the signal zero-sum-correct.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from mancala_envs import Game
from mancala_envs.agents.base import Agent, NetworkAgent
from mancala_envs.agents.registry import as_agent


class SnapshotAgent(NetworkAgent):
    """A frozen copy of a ``MaskableActorCriticPolicy`` that samples its masked softmax."""

    def __init__(self, policy: Any, name: str, rng: np.random.Generator, counts: bool, sample: bool = True):
        self.policy = copy.deepcopy(policy).to("cpu")
        self.policy.set_training_mode(False)
        self.name, self.rng, self.sample, self.counts = name, rng, sample, counts

    def logits(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            dist = self.policy.get_distribution(
                torch.as_tensor(observations), action_masks=masks.astype(bool)
            )
            out = dist.distribution.logits.numpy().astype(np.float64)
        return np.where(masks.astype(bool), out, -np.inf)


def parse_pool(items: Sequence[str]) -> dict[str, float]:
    """``["random@0.1", "minimax:depth=2@0.4"]`` -> ``{"random": 0.1, "minimax:depth=2": 0.4}``."""
    weights: dict[str, float] = {}
    for item in items:
        spec, at, weight = str(item).rpartition("@")
        if not at or not spec:
            raise ValueError(f"pool entry {item!r}: write SPEC@WEIGHT, e.g. greedy@0.3")
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"pool entry {item!r}: weight {weight!r} is not a number") from None
        if not 0 <= w < float("inf"):
            raise ValueError(f"pool entry {item!r}: the weight must be a finite number >= 0")
        if spec in weights:
            raise ValueError(f"pool entry {spec!r} given twice")
        weights[spec] = w
    return weights


class OpponentPool(Agent):
    """Baselines and frozen snapshots, one drawn per episode of each game (module docstring).

    Args:
        game: the game played.
        num_envs: number of games of the vector env.
        baselines: agent spec -> weight.
        snapshot_weight: total weight shared by the snapshots (once there is one).
        max_snapshots: how many snapshots are kept.
        seed: seeds the draws, the baselines' generators and the snapshots' sampling.
        counts: the snapshots' networks read raw counts (the env's ``counts=True``).
    """

    name = "pool"

    def __init__(
        self,
        game: Game,
        num_envs: int,
        baselines: dict[str, float],
        snapshot_weight: float = 0.0,
        max_snapshots: int = 5,
        seed: int = 0,
        counts: bool = True,
    ):
        if not baselines and snapshot_weight <= 0:
            raise ValueError("the opponent pool needs a baseline or a positive snapshot_weight")
        if sum(baselines.values()) <= 0 and snapshot_weight <= 0:
            raise ValueError("the opponent pool's weights are all zero")
        if max_snapshots < 0:
            raise ValueError(f"max_snapshots must be >= 0, got {max_snapshots}")
        seeds = np.random.SeedSequence(seed).generate_state(len(baselines) + 2)
        super().__init__(int(seeds[0]))
        self.game, self.counts = game, counts
        self.snapshot_rng = np.random.default_rng(seeds[1])
        self.baselines = [as_agent(s, seed=int(x)) for s, x in zip(baselines, seeds[2:], strict=True)]
        self.baseline_weights = np.array(list(baselines.values()), dtype=np.float64)
        self.snapshot_weight = float(snapshot_weight)
        self.max_snapshots = int(max_snapshots)
        self.snapshots: list[SnapshotAgent] = []
        self._next_slot = 0
        self.assignment = np.full(num_envs, -1, dtype=np.int64)  # member of the current episode
        self.finished_with = np.full(num_envs, -1, dtype=np.int64)  # member of the previous one
        self.results: dict[str, list[int]] = {}  # name -> [wins, draws, losses] of the learner

    @property
    def members(self) -> list[Agent]:
        """Baselines first, then the snapshots (an index into this list is a member id)."""
        return [*self.baselines, *self.snapshots]

    @property
    def probabilities(self) -> np.ndarray:
        """The probability of each member being drawn for an episode."""
        w = self.baseline_weights
        if self.snapshots:
            w = np.concatenate([w, np.full(len(self.snapshots), self.snapshot_weight / len(self.snapshots))])
        return w / w.sum()

    def add_snapshot(self, policy: Any, name: str) -> None:
        """Freeze a copy of ``policy`` into the pool (replacing the oldest beyond ``max_snapshots``)."""
        if self.max_snapshots == 0:
            return
        member = SnapshotAgent(policy, name, self.snapshot_rng, self.counts)
        if len(self.snapshots) < self.max_snapshots:
            self.snapshots.append(member)
        else:
            self.snapshots[self._next_slot] = member
            self._next_slot = (self._next_slot + 1) % self.max_snapshots

    def snapshot_order(self) -> list[str]:
        """Snapshot names from the oldest to the newest (replays :meth:`add_snapshot` on resume)."""
        k = self._next_slot
        return [s.name for s in self.snapshots[k:] + self.snapshots[:k]]

    def episodes_started(self, env_indices: np.ndarray) -> None:
        """Draw the opponent of the new episode of each game in ``env_indices``."""
        idx = np.asarray(env_indices, dtype=np.int64)
        self.finished_with[idx] = self.assignment[idx]
        p = self.probabilities
        self.assignment[idx] = self.rng.choice(len(p), size=idx.size, p=p)

    def act(self, game: Game, state: Any) -> int:
        """Outside a vector env: a member drawn for this one move."""
        member = self.members[self.rng.choice(len(self.probabilities), p=self.probabilities)]
        return member.act(game, state)

    def act_batch(self, game: Game, states: np.ndarray, env_indices: np.ndarray | None = None) -> np.ndarray:
        """Each game's move by its episode's opponent (one batched call per member)."""
        if env_indices is None:
            raise ValueError("OpponentPool.act_batch needs env_indices (it plays one member per game)")
        who = self.assignment[np.asarray(env_indices)]
        if (who < 0).any():
            raise RuntimeError("OpponentPool.act_batch before episodes_started for some games")
        out = np.empty(len(who), dtype=np.int64)
        members = self.members
        for m in np.unique(who):
            rows = np.flatnonzero(who == m)
            out[rows] = members[m].act_batch(game, np.ascontiguousarray(states[rows]))
        return out

    def record_results(self, env_indices: np.ndarray, rewards: np.ndarray) -> None:
        """Count finished episodes (learner's reward +1/0/-1) against the member they were played
        with (call after the step that ended them, when the games have restarted)."""
        members = self.members
        for i, r in zip(np.asarray(env_indices).tolist(), np.asarray(rewards).tolist(), strict=True):
            m = self.finished_with[i]
            if 0 <= m < len(members):
                tally = self.results.setdefault(members[m].name, [0, 0, 0])
                tally[0 if r > 0 else (1 if r == 0 else 2)] += 1

    def pop_results(self) -> dict[str, list[int]]:
        """The counts since the last call (then cleared)."""
        out, self.results = self.results, {}
        return out
