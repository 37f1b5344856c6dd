"""A fast Stable-Baselines3 vector env: ``num_envs`` games stepped together in compiled code.
(Over 400 lines because it is one class, the whole SB3 ``VecEnv`` interface; its kernel is
:mod:`~mancala_envs.envs.vector_kernel`.)

:class:`MancalaVecEnv` keeps every game in one packed ``int32`` array (the core's layout, shape
``(num_envs, game.state_size)``) and steps them all with one kernel call per ``step_wait``
(:mod:`mancala_envs.envs.vector_kernel`), so the games follow exactly the rules of
:class:`~mancala_envs.envs.single.SingleAgentEnv`.

Conventions (those of ``SingleAgentEnv`` unless said otherwise):

- **Seats.** The learner's seat is drawn per episode (0 or 1, each with probability 1/2). When
  the opponent is to move first, it moves during the reset, so every observation returned is one
  where the learner is to move.
- **Starts.** Episodes start from the initial position (player 0 first) or, with ``openings``
  (a sequence of running :class:`~mancala_envs.State` s or their ``to_dict()`` forms, e.g. an
  ``mancala_envs.evaluation.openings`` suite), from one of them drawn uniformly per episode. :meth:`reset_to`
  starts every game from given positions once.
- **Observations.** ``obs_format="flat"`` (default): a ``Box(0, 1, (obs_size,), float32)``, the
  core's ``game.observation(state, learner_seat)`` (``counts=True``: ``game.counts``, raw seed
  counts as ``float32``, ``Box(0, total_seeds)``); the legal masks come from
  :meth:`MancalaVecEnv.action_masks` (what sb3-contrib's ``MaskablePPO`` reads), so
  ``MaskablePPO("MlpPolicy", vec_env)`` trains directly. ``obs_format="dict"``:
  ``Dict(observation, action_mask)`` (``MultiInputPolicy``).
- **Rewards.** +1 / -1 / 0 to the learner at a natural end (win / loss / draw); 0 on truncation at
  ``max_plies`` (reported as ``info["TimeLimit.truncated"]``, SB3's convention).
- **Auto-reset.** A finished game restarts at once; ``infos[i]`` of that step holds
  ``terminal_observation`` plus ``seat`` (of the finished episode), ``winner`` (0, 1, -1 draw, None
  truncated), ``captured`` ((learner's, opponent's) ints), ``ply`` and ``illegal_action``. Other
  steps' infos are empty (the ``seats`` and ``states`` properties, or ``get_attr("seat")``, give
  the rest).
- **Actions.** ``step`` takes exactly ``num_envs`` integer actions (shape ``(num_envs,)``).
  An action outside ``0..n-1`` or not an integer raises :class:`~mancala_envs.IllegalMoveError`.
  An in-range illegal action, with ``illegal_action="terminate"`` (default), ends the episode with
  reward -1 and ``info["illegal_action"] = True`` and a ``UserWarning``; with ``"raise"`` it
  raises and no game is changed.
- **Opponent.** ``"random"``: a uniformly random legal move chosen inside the kernel. Any other
  agent spec (``"greedy"``, ``"minimax:depth=2"``, ...), an agent (``agents/base.py``) or, kept for
  compatibility, a batched callable ``f(observations, masks) -> actions``: it is asked, through
  ``act_batch(game, states)``, for the games where it is to move, once per round of opponent
  moves. An agent that also has ``episodes_started(env_indices)`` (the training pool) is told
  when games start an episode (always before its first move there) and gets ``env_indices`` in
  ``act_batch``. An illegal opponent action raises; the env must then be reset.
- **Randomness.** Every random choice of the env (seats, starts, random opponent moves) is drawn
  inside the kernel from a ``numpy.random.Generator`` per block of games, spawned from
  ``numpy.random.SeedSequence(seed)``; an opponent built from a spec is seeded from the same
  seed. The same seed, ``num_envs``, ``num_threads`` and learner actions give the same games.
- **Threads.** ``num_threads=k`` splits the games into ``k`` fixed blocks (at least
  ``MIN_GAMES_PER_THREAD`` games each) stepped at once on ``k`` threads (the kernel releases the
  GIL), each with its own generator; results depend on the seed and the split, never on timing.
- **Copies.** ``copy.deepcopy`` and pickling give an independent env in the same state.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from mancala_envs.core.layout import work_length
from mancala_envs.envs import vector_kernel as VK
from mancala_envs.envs.common import as_state, make_spaces, opponent_agent, resolve_game
from mancala_envs.envs.single import ILLEGAL_WARNING
from mancala_envs.game import Game, check_seed
from mancala_envs.state import IllegalMoveError

MIN_GAMES_PER_THREAD = 128  # each thread gets at least this many games
_OUTPUTS = ("_obs", "_masks", "_rewards", "_dones", "_term_obs", "_ends", "_status")


class MancalaVecEnv(VecEnv):
    """``num_envs`` games of one mancala game against a fixed opponent, as an SB3 ``VecEnv``.

    Args:
        game: a game name or a :class:`~mancala_envs.Game`; ``**game_params`` (``max_plies``,
            ``holes_per_row``) go to :func:`~mancala_envs.get_game` with a name.
        num_envs: number of games stepped together.
        opponent: ``"random"``, an agent spec, an agent or a batched callable (module docstring).
        seed: seeds every random choice of the env.
        obs_format: ``"flat"`` (Box, masks via :meth:`action_masks`) or ``"dict"``.
        counts: observations hold raw seed counts instead of fractions of the total.
        openings: start positions drawn per episode (default: the initial position).
        illegal_action: ``"terminate"`` (episode ends, reward -1) or ``"raise"``.
        num_threads: split the games into this many blocks stepped on as many threads.
    """

    render_mode = None

    def __init__(
        self,
        game: str | Game,
        num_envs: int,
        opponent: Any = "random",
        seed: int | None = 0,
        obs_format: str = "flat",
        illegal_action: str = "terminate",
        num_threads: int = 1,
        counts: bool = False,
        openings: Sequence[Any] | None = None,
        **game_params: Any,
    ):
        self._game = g = resolve_game(game, game_params, env=type(self))
        for what, value in (("num_envs", num_envs), ("num_threads", num_threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{what} must be a positive integer, got {value!r}")
        if obs_format not in ("flat", "dict"):
            raise ValueError(f"obs_format must be 'flat' or 'dict', got {obs_format!r}")
        if not isinstance(counts, bool):
            raise ValueError(f"counts must be True or False, got {counts!r}")
        self._obs_format, self._counts = obs_format, counts
        self._scale = 1.0 if counts else 1.0 / g.total_seeds
        self.illegal_action = illegal_action
        num_envs = int(num_envs)
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
        flat, as_dict, action_space = make_spaces(g)
        if counts:
            flat = spaces.Box(0.0, float(g.total_seeds), (g.observation_size,), np.float32)
            as_dict = spaces.Dict({"observation": flat, "action_mask": as_dict["action_mask"]})
        super().__init__(num_envs, as_dict if obs_format == "dict" else flat, action_space)

    def _start_rows(self, openings: Sequence[Any] | None) -> np.ndarray:
        if openings is None:
            return self._game.initial_state(0).array[None].copy()
        rows = [as_state(self._game, s).array for s in openings]
        if not rows:
            raise ValueError("openings is empty: give at least one start position (or None)")
        return np.stack(rows)

    def _bind(self) -> None:
        """The kernel's per-block arguments: views into the env's arrays (rebuilt after a copy)."""
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
    def obs_format(self) -> str:
        return self._obs_format

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
            raise RuntimeError("MancalaVecEnv is closed")
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

    def _observations(self, obs: np.ndarray) -> VecEnvObs:
        if self.obs_format == "dict":
            return {"observation": obs.copy(), "action_mask": self._masks.copy()}
        return obs.copy()

    # ------------------------------------------------------------------ VecEnv API

    def reset(self) -> VecEnvObs:
        """Restart every game (new starts and seats; the opponent moves first where it must)."""
        return self._start_episodes(VK.MODE_RESET)

    def _start_episodes(self, mode: int) -> VecEnvObs:
        """Every game starts an episode (``mode``: new starts, or the positions set by reset_to):
        the opponent moves first where it must; returns the learners' observations."""
        self._started[:] = True
        self._play_opponent(self._kernel(mode, self._all)[2])
        self._announce_episodes()
        self._needs_reset = False
        self.reset_infos = [{"seat": int(s)} for s in self._seats]
        return self._observations(self._obs)

    def reset_to(self, states: Sequence[Any], seats: Sequence[int] | None = None) -> VecEnvObs:
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
        return self._start_episodes(VK.MODE_RESUME)

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise IllegalMoveError(
                f"actions must be {self.num_envs} integers of shape ({self.num_envs},), got shape "
                f"{actions.shape} and dtype {actions.dtype}"
            )
        self._actions[:] = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._needs_reset:
            raise RuntimeError("MancalaVecEnv.step called before reset()")
        bad, kind, waiting = self._kernel(VK.MODE_LEARNER, self._all)
        if bad >= 0:
            raise IllegalMoveError(f"the learner chose {self._why(bad, kind)}")
        self._started |= self._dones
        self._play_opponent(waiting)
        self._announce_episodes()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        done = np.flatnonzero(self._dones)
        if done.size:
            self._fill_end_infos(infos, done)
        return self._observations(self._obs), self._rewards.copy(), self._dones.copy(), infos

    def _fill_end_infos(self, infos: list[dict[str, Any]], done: np.ndarray) -> None:
        ends = self._ends[done].tolist()  # one row of VK.END_* columns per ended game
        if any(row[VK.END_ILLEGAL] for row in ends):
            warnings.warn(ILLEGAL_WARNING, UserWarning, stacklevel=4)
        terminal: list[Any] = list(self._term_obs[done])  # rows of one fresh copy
        if self.obs_format == "dict":
            empty = np.zeros(self._game.num_actions, dtype=np.int8)
            terminal = [{"observation": obs, "action_mask": empty.copy()} for obs in terminal]
        for i, obs, (truncated, winner, own, opp, ply, seat, illegal) in zip(
            done.tolist(), terminal, ends, strict=True
        ):
            infos[i] = {
                "terminal_observation": obs,
                "TimeLimit.truncated": bool(truncated),
                "seat": seat,
                "winner": None if truncated else winner,
                "captured": (own, opp),
                "ply": ply,
                "illegal_action": bool(illegal),
            }

    def action_masks(self) -> np.ndarray:
        """int8 legal masks of the learners, shape ``(num_envs, n)`` (for ``MaskablePPO``)."""
        return self._masks.copy()

    @property
    def seats(self) -> np.ndarray:
        """The learner's seat in each game's current episode."""
        return self._seats.copy()

    @property
    def states(self) -> np.ndarray:
        """A copy of the packed states, shape ``(num_envs, game.state_size)``."""
        return self._states.copy()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
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
        """Stop the worker threads, if any; the env cannot step any more."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self._closed = True

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``"seat"`` per game; any other attribute is the (shared) attribute of this env."""
        idx = list(self._get_indices(indices))
        if attr_name == "seat":
            return [int(self._seats[i]) for i in idx]
        if not hasattr(self, attr_name):
            raise AttributeError(f"MancalaVecEnv has no attribute {attr_name!r}")
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set a shared attribute (``opponent``, ``illegal_action``, or one of your own; ``game``
        and ``obs_format`` are read-only). The games share one configuration: ``indices`` must be
        all of them."""
        if sorted(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError("MancalaVecEnv's games share their attributes: set_attr applies to all games")
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs
    ) -> list[Any]:
        """Only ``"action_masks"`` (one mask per game), as ``MaskablePPO`` calls it."""
        if method_name != "action_masks":
            raise AttributeError(f"MancalaVecEnv.env_method knows 'action_masks' only, not {method_name!r}")
        return list(self._masks[list(self._get_indices(indices))])

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return super()._get_indices(indices)
