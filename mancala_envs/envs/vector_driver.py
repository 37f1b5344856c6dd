"""The framework-free driver behind the vector envs: ``num_envs`` games against a fixed opponent,
stepped together by the compiled kernel (:mod:`~mancala_envs.envs.vector_kernel`).

:class:`VectorDriver` owns the state arrays, the opponent, the generators, the automatic resets
and the observation, mask, reward and done buffers; it imports no RL framework. Two thin faces
turn it into an env: :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv` (Gymnasium's
``VectorEnv``, what ``gymnasium.make_vec`` builds) and :class:`~mancala_envs.envs.vector.MancalaVecEnv`
(Stable-Baselines3's ``VecEnv``, the ``[sb3]`` extra). Their docstrings give the conventions
(seats, starts, rewards, auto-reset, opponents, randomness, threads).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import numpy as np
from gymnasium import spaces

from mancala_envs.core.layout import work_length
from mancala_envs.envs import vector_kernel as VK
from mancala_envs.envs.common import NO_WINNER, as_state, make_spaces, opponent_agent, resolve_game
from mancala_envs.envs.single import ILLEGAL_WARNING
from mancala_envs.game import Game, check_seed
from mancala_envs.infra.compile_note import announce_compilation
from mancala_envs.state import IllegalMoveError

MIN_GAMES_PER_THREAD = 128  # each thread gets at least this many games
_OUTPUTS = ("_obs", "_masks", "_rewards", "_dones", "_term_obs", "_ends", "_status")


class VectorDriver:
    """``num_envs`` games of one mancala game against a fixed opponent, in packed arrays.

    Args:
        game: a game name or a :class:`~mancala_envs.Game`; ``**game_params`` go to
            :func:`~mancala_envs.get_game` with a name.
        num_envs: number of games stepped together.
        opponent: ``"random"``, an agent spec, an agent or a batched callable.
        seed: seeds every random choice (``None``: fresh entropy).
        illegal_action: ``"terminate"`` (episode ends, reward -1) or ``"raise"``.
        num_threads: split the games into this many blocks stepped on as many threads.
        counts: observations hold raw seed counts instead of fractions of the total.
        openings: start positions drawn per episode (default: the initial position).
        name: the env's name in error messages; ``env``: the env class whose arguments an unknown
            keyword's error lists.
    """

    def __init__(
        self,
        game: str | Game,
        num_envs: int,
        opponent: Any = "random",
        seed: int | None = 0,
        illegal_action: str = "terminate",
        num_threads: int = 1,
        counts: bool = False,
        openings: Sequence[Any] | None = None,
        *,
        name: str = "VectorDriver",
        env: type | None = None,
        **game_params: Any,
    ):
        self.name = name
        announce_compilation("rules", "vector")  # one note for both sets when both are cold
        self._game = g = resolve_game(game, game_params, env=env or type(self))
        for what, value in (("num_envs", num_envs), ("num_threads", num_threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{what} must be a positive integer, got {value!r}")
        if not isinstance(counts, bool):
            raise ValueError(f"counts must be True or False, got {counts!r}")
        self._counts = counts
        self._scale = 1.0 if counts else 1.0 / g.total_seeds
        self.illegal_action = illegal_action
        self.num_envs = num_envs = int(num_envs)
        self._starts = self._start_rows(openings)
        self._states = np.tile(g.initial_state(0).array, (num_envs, 1))
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._obs = np.zeros((num_envs, g.observation_size), dtype=np.float32)
        self._masks = np.zeros((num_envs, g.num_actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float32)
        self._dones = np.zeros(num_envs, dtype=np.bool_)
        self._term_obs = np.zeros((num_envs, g.observation_size), dtype=np.float32)
        self._ends = np.zeros((num_envs, VK.END_COLUMNS), dtype=np.int32)
        self._status = np.zeros(num_envs, dtype=np.int8)
        self._works = np.zeros((num_envs, work_length(g.holes_per_row)), dtype=np.int32)  # engine scratch
        self._simulated = np.zeros(num_envs, dtype=np.bool_)  # see vector_kernel's docstring
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        blocks = max(1, min(int(num_threads), num_envs // MIN_GAMES_PER_THREAD))
        bounds = [num_envs * b // blocks for b in range(blocks + 1)]
        self._blocks = [slice(lo, hi) for lo, hi in pairwise(bounds)]
        self._bind()
        self._seed = check_seed(seed, allow_none=True)
        self.opponent = opponent
        self.seed(seed)
        self._needs_reset = True
        flat, as_dict, self.action_space = make_spaces(g)
        if counts:
            flat = spaces.Box(0.0, float(g.total_seeds), (g.observation_size,), np.float32)
            as_dict = spaces.Dict({"observation": flat, "action_mask": as_dict["action_mask"]})
        self.flat_space, self.dict_space = flat, as_dict

    def _start_rows(self, openings: Sequence[Any] | None) -> np.ndarray:
        if openings is None:
            return self._game.initial_state(0).array[None].copy()
        rows = [as_state(self._game, s).array for s in openings]
        if not rows:
            raise ValueError("openings is empty: give at least one start position (or None)")
        return np.stack(rows)

    def _bind(self) -> None:
        """The kernel's per-block arguments: views into the driver's arrays (rebuilt after a copy)."""
        per_game = (self._states, self._actions, self._seats, self._works, self._simulated)
        self._block_args = [
            (
                tuple(a[b] for a in per_game),
                self._starts,
                self._game.rules,
                self._scale,
                tuple(getattr(self, name)[b] for name in _OUTPUTS),
            )
            for b in self._blocks
        ]
        self._pool = ThreadPoolExecutor(len(self._blocks) - 1) if len(self._blocks) > 1 else None
        self._closed = False

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_block_args")
        state.pop("_pool")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._game = Game(self._game.ruleset)  # its rules vector read-only again, as compiled for
        self._bind()

    # ------------------------------------------------------------------ settings

    @property
    def game(self) -> Game:
        return self._game

    @property
    def opponent(self) -> Any:
        """``"random"`` or the opponent agent; may be replaced between steps."""
        return self._opponent

    @opponent.setter
    def opponent(self, value: Any) -> None:
        seed = int(np.random.SeedSequence([0 if self._seed is None else self._seed, 7]).generate_state(1)[0])
        random = isinstance(value, str) and value == "random"
        self._opponent = value if random else opponent_agent(value, seed, batched_callable=True)
        if not random and not callable(getattr(self._opponent, "act_batch", None)):
            raise ValueError(
                f"opponent {value!r} has no act_batch: the vector env plays its opponent in batches "
                "(subclass mancala_envs.agents.base.Agent, whose act_batch loops act)"
            )
        self._from_spec = isinstance(value, str) and value != "random"
        self._episodes_hook = getattr(self._opponent, "episodes_started", None)
        self._started = np.ones(len(self._states), dtype=np.bool_)  # every game is announced anew

    @property
    def illegal_action(self) -> str:
        """``"terminate"`` or ``"raise"``; may be changed between steps."""
        return self._illegal_action

    @illegal_action.setter
    def illegal_action(self, value: str) -> None:
        if value not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {value!r}")
        self._illegal_action = value

    # ------------------------------------------------------------------ kernel driving

    def _kernel(self, mode: int, selected: np.ndarray) -> tuple[int, int, int]:
        """Check the actions (nothing changes if one is refused), then run the kernel on every
        block of games. Returns ``(bad_row, bad_kind, games_waiting_for_the_opponent)``."""
        if mode in (VK.MODE_LEARNER, VK.MODE_OPPONENT):
            allow = mode == VK.MODE_LEARNER and self.illegal_action == "terminate"
            bad, kind = VK.first_bad_action(self._states, self._actions, selected, self._game.rules, allow)
            if bad >= 0:
                return bad, kind, 0
        random_opponent = isinstance(self._opponent, str)
        if self._closed:
            raise RuntimeError(f"{self.name} is closed")
        if self._pool is None:
            return -1, 0, VK.run_block(mode, selected, self._rngs[0], random_opponent, *self._block_args[0])
        jobs = [
            self._pool.submit(VK.run_block, mode, selected[b], rng, random_opponent, *args)
            for b, rng, args in zip(self._blocks[1:], self._rngs[1:], self._block_args[1:], strict=True)
        ]
        first = VK.run_block(
            mode, selected[self._blocks[0]], self._rngs[0], random_opponent, *self._block_args[0]
        )
        return -1, 0, first + sum(job.result() for job in jobs)

    def _play_opponent(self, waiting: int) -> None:
        """Ask the opponent agent for the games where it is to move, until the learner is to move
        everywhere (one call per round of opponent moves)."""
        layout = self._game.layout
        while waiting:
            idx = np.flatnonzero(self._status == VK.NEED_OPPONENT)
            rows = self._states[idx]
            if self._episodes_hook is not None:
                self._announce_episodes()
                chosen = self._opponent.act_batch(self._game, rows, env_indices=idx)
            else:
                chosen = self._opponent.act_batch(self._game, rows)
            chosen = np.asarray(chosen)
            if chosen.shape != (idx.size,) or chosen.dtype.kind not in "iu":
                self._needs_reset = True
                raise IllegalMoveError(f"the opponent must return {idx.size} integer actions, got {chosen!r}")
            self._actions[idx] = chosen
            plies = self._states[idx, layout.ply]
            bad, kind, waiting = self._kernel(VK.MODE_OPPONENT, self._status == VK.NEED_OPPONENT)
            if bad >= 0:
                self._needs_reset = True
                raise IllegalMoveError(f"the opponent chose {self._why(bad, kind)}")
            # a reply that ended its game restarted it: the ply count went back
            self._started[idx[self._states[idx, layout.ply] <= plies]] = True

    def _announce_episodes(self) -> None:
        if self._episodes_hook is not None and self._started.any():
            self._episodes_hook(np.flatnonzero(self._started))
        self._started[:] = False

    def _why(self, row: int, kind: int) -> str:
        a = int(self._actions[row])
        if kind == 1:
            return f"action {a} in game {row}: out of range, holes are 0..{self._game.num_actions - 1}"
        legal = np.flatnonzero(self._states[row, self._game.layout.mask]).tolist()
        return f"illegal action {a} in game {row}; legal actions: {legal}"

    # ------------------------------------------------------------------ episodes and steps

    def reset(self) -> None:
        """Restart every game (new starts and seats; the opponent moves first where it must)."""
        self._start_episodes(VK.MODE_RESET)

    def _start_episodes(self, mode: int) -> None:
        """Every game starts an episode (``mode``: new starts, or the positions set by reset_to):
        the opponent moves first where it must."""
        self._started[:] = True
        self._play_opponent(self._kernel(mode, self._all)[2])
        self._announce_episodes()
        self._needs_reset = False

    def reset_to(self, states: Sequence[Any], seats: Sequence[int] | None = None) -> None:
        """Start game ``i`` from ``states[i]`` (a running State or its dict) with the learner in
        ``seats[i]`` (default: drawn); later episodes start as usual."""
        if len(states) != self.num_envs:
            raise ValueError(f"reset_to needs {self.num_envs} states, got {len(states)}")
        rows = np.stack([as_state(self._game, s).array for s in states])
        if seats is not None:
            seats = np.asarray(seats)
            if (
                seats.shape != (self.num_envs,)
                or seats.dtype.kind not in "iu"
                or not np.isin(seats, (0, 1)).all()
            ):
                raise ValueError(f"seats must be {self.num_envs} values 0/1, got {seats!r}")
        self._states[:] = rows
        self._seats[:] = self._rngs[0].integers(0, 2, self.num_envs) if seats is None else seats
        self._start_episodes(VK.MODE_RESUME)

    def set_actions(self, actions: Any) -> None:
        """Take the learners' next actions: exactly ``num_envs`` integers, shape ``(num_envs,)``."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise IllegalMoveError(
                f"actions must be {self.num_envs} integers of shape ({self.num_envs},), got shape "
                f"{actions.shape} and dtype {actions.dtype}"
            )
        self._actions[:] = actions

    def advance(self, stacklevel: int = 2) -> np.ndarray:
        """Play the actions of :meth:`set_actions`, the opponent's replies and the restarts of
        finished games; returns the indices of the games that ended. An ended illegal action
        warns (``stacklevel`` as :func:`warnings.warn`'s, counted from the caller)."""
        if self._needs_reset:
            raise RuntimeError(f"{self.name}.step called before reset()")
        bad, kind, waiting = self._kernel(VK.MODE_LEARNER, self._all)
        if bad >= 0:
            raise IllegalMoveError(f"the learner chose {self._why(bad, kind)}")
        self._started |= self._dones
        self._play_opponent(waiting)
        self._announce_episodes()
        done = np.flatnonzero(self._dones)
        if done.size and self._ends[done, VK.END_ILLEGAL].any():
            warnings.warn(ILLEGAL_WARNING, UserWarning, stacklevel=stacklevel + 1)
        return done

    # ------------------------------------------------------------------ outputs

    def observations(self) -> np.ndarray:
        """A copy of the learners' observations, ``(num_envs, obs_size)`` ``float32``."""
        return self._obs.copy()

    def action_masks(self) -> np.ndarray:
        """int8 legal masks of the learners, shape ``(num_envs, n)``."""
        return self._masks.copy()

    def rewards(self) -> np.ndarray:
        """A copy of the last step's rewards (``float32``)."""
        return self._rewards.copy()

    def dones(self) -> np.ndarray:
        """A copy of the last step's done flags (games that ended and restarted)."""
        return self._dones.copy()

    def terminal_observations(self, done: np.ndarray) -> np.ndarray:
        """The last observations of the games ``done`` (a fresh array, one row each)."""
        return self._term_obs[done]

    def infos(self) -> dict[str, np.ndarray]:
        """The info values of every game's running episode, one array per key of
        :data:`~mancala_envs.envs.common.INFO_KEYS`: ``seat``, ``captured`` (``(num_envs, 2)``:
        learner's, opponent's), ``ply`` (``int64``), ``winner`` (``NO_WINNER``), ``illegal_action``
        (``False``). Fresh arrays; both faces read their infos here."""
        rows, seats = np.arange(self.num_envs), self._seats
        cap = self._game.layout.captured.start
        own, opp = self._states[rows, cap + seats], self._states[rows, cap + 1 - seats]
        return {
            "seat": seats.copy(),
            "captured": np.stack([own, opp], axis=1).astype(np.int64),
            "ply": self._states[:, self._game.layout.ply].astype(np.int64),
            "winner": np.full(self.num_envs, NO_WINNER, dtype=np.int64),
            "illegal_action": np.zeros(self.num_envs, dtype=np.bool_),
        }

    def end_infos(self, rows: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The info values of the episodes that ended in the last step, as :meth:`infos` (the
        finished episode's ``seat``; ``winner`` 0/1, ``DRAW``, or ``NO_WINNER`` when truncated),
        plus ``truncated`` (bool): for the games ``rows`` (default: every game, valid in the rows
        of :meth:`dones`)."""
        ends = self._ends if rows is None else self._ends[rows]
        truncated = ends[:, VK.END_TRUNCATED].astype(np.bool_)
        return {
            "seat": ends[:, VK.END_SEAT].astype(np.int64),
            "captured": ends[:, [VK.END_OWN, VK.END_OPP]].astype(np.int64),
            "ply": ends[:, VK.END_PLY].astype(np.int64),
            "winner": np.where(truncated, NO_WINNER, ends[:, VK.END_WINNER]).astype(np.int64),
            "illegal_action": ends[:, VK.END_ILLEGAL].astype(np.bool_),
            "truncated": truncated,
        }

    @property
    def ends(self) -> np.ndarray:
        """The episode-end records (``VK.END_*`` columns; read-only use), valid in the rows of
        the games that ended in the last step."""
        return self._ends

    @property
    def seats(self) -> np.ndarray:
        """The learner's seat in each game's current episode."""
        return self._seats.copy()

    @property
    def states(self) -> np.ndarray:
        """A copy of the packed states, shape ``(num_envs, game.state_size)``."""
        return self._states.copy()

    def seed(self, seed: int | None = None) -> list[int]:
        """Reseed now (``None``: fresh entropy): one generator per block of games, spawned from
        ``numpy.random.SeedSequence(seed)``, and an opponent built from a spec. Returns the seed
        once per game."""
        seed = check_seed(seed, allow_none=True)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        children = np.random.SeedSequence(seed).spawn(len(self._blocks) + 1)
        self._rngs = [np.random.default_rng(child) for child in children[:-1]]
        if self._from_spec and callable(getattr(self._opponent, "reseed", None)):
            self._opponent.reseed(int(children[-1].generate_state(1)[0]))
        return [seed] * len(self._states)

    def close(self) -> None:
        """Stop the worker threads, if any; the games cannot step any more."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self._closed = True
