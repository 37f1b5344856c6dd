"""A fast Stable-Baselines3 vector env: ``num_envs`` games stepped together in compiled code.

:class:`MancalaVecEnv` keeps every game in one packed ``int32`` array (the core's layout, shape
``(num_envs, game.state_size)``) and steps them all with one numba kernel per ``step_wait``: the
learner's moves, the random opponent's replies, episode ends, automatic resets and the
observation, mask, reward and done buffers. Every rule is the core's
(:func:`mancala_envs.kernels.apply_move`; the random opponent of the relay games uses the core's
mask-free :func:`mancala_envs.kernels.random_relay_move`, as :func:`mancala_envs.random_games`
does), so the games follow exactly the same rules as :class:`~mancala_envs.wrappers.SingleAgentEnv`.

**Threads.** ``num_threads=k`` splits the games into ``k`` fixed blocks (at least
``MIN_GAMES_PER_THREAD`` games each), stepped at the same time on ``k`` threads (the kernel
releases the GIL), each block with its own random generator; results depend on the seed and the
split, never on timing. The default is one thread. (A numba ``parallel=True``/``prange`` kernel
was measured about 6x *slower* on a busy 2-core machine, its threads spin-waiting for each other,
and it would need one random stream per thread anyway.)

Conventions (the same as :class:`~mancala_envs.wrappers.SingleAgentEnv` unless said otherwise):

- **Seats.** Player 0 moves first in every game; the learner's seat is drawn per episode (0 or 1,
  each with probability 1/2). When the learner holds seat 1 the opponent's first move is made
  during the reset, so every observation returned is one where the learner is to move.
- **Observations.** ``obs_format="flat"`` (default): a ``Box(0, 1, (obs_size,), float32)``, the
  core's ``game.observation(state, learner_seat)``; the legal masks come from
  :meth:`MancalaVecEnv.action_masks` (what sb3-contrib's ``MaskablePPO`` reads), so
  ``MaskablePPO("MlpPolicy", vec_env)`` trains directly. ``obs_format="dict"``: the
  ``Dict(observation, action_mask)`` of the AEC and single-agent envs (use ``MultiInputPolicy``).
- **Rewards.** +1 / -1 / 0 to the learner at a natural end (win / loss / draw); 0 on truncation at
  ``max_plies`` (reported as ``info["TimeLimit.truncated"]``, SB3's convention).
- **Auto-reset.** A finished game restarts at once; ``infos[i]`` of that step holds
  ``terminal_observation`` plus ``seat`` (of the finished episode), ``winner`` (0, 1, -1 draw, None
  truncated), ``captured`` ((learner's, opponent's) ints), ``ply`` and ``illegal_action``. Other
  steps' infos are empty (the ``seats`` and ``states`` properties, or ``get_attr("seat")``, give
  the rest).
- **Illegal learner actions.** An action outside ``0..n-1`` or not an integer raises
  :class:`~mancala_envs.IllegalMoveError`. An in-range illegal action, with
  ``illegal_action="terminate"`` (default), ends the episode with reward -1 and
  ``info["illegal_action"] = True`` and a ``UserWarning``; with ``"raise"`` it raises and no game
  is changed.
- **Opponent.** ``"random"``: a uniformly random legal move, chosen inside the kernel. Or a batched
  callable ``f(observations, masks) -> actions`` that receives the opponent's views (float32
  ``(k, obs_size)``) and int8 masks ``(k, n)`` of the ``k`` games where the opponent is to move and
  returns ``k`` actions; it is called once per round of opponent moves: once per step, plus once
  more when an opponent's reply ended a game that restarts with the opponent to move first. An
  illegal opponent action raises.
  After an opponent error the env must be reset.
- **Opponent objects** (an opponent pool, search baselines): any object with a method
  ``act(states, observations, masks, env_indices) -> actions``. It gets, besides the opponent's
  views and masks, the packed core states ``(k, state_size)`` of those games (so a baseline can
  search them with the core) and their game indices ``env_indices``. If it also has
  ``episodes_started(env_indices)``, that is called once for every new episode (all games at
  :meth:`~MancalaVecEnv.reset`, then each game that restarted), always before the opponent's
  first move of that episode and at the latest at the end of the step that started it; so a pool
  can draw a new opponent per episode. Assigning an opponent object announces every game as
  started.
- **Randomness.** Every random choice (seats, random opponent moves) is drawn inside the kernel
  from a ``numpy.random.Generator`` (one per block of games, spawned from
  ``numpy.random.SeedSequence(seed)``): the same seed, ``num_envs``, ``num_threads`` and learner
  actions give the same trajectories. :meth:`MancalaVecEnv.seed` reseeds at once.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import gymnasium as gym
import numpy as np
from numba import njit
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from mancala_envs import kernels as K
from mancala_envs.game import Game, IllegalMoveError
from mancala_envs.rulesets import R_HOLES, R_MAX_PLIES, R_SOWING, SOW_RELAY
from mancala_envs.wrappers import ILLEGAL_WARNING, make_spaces, resolve_game

# Per-game status after a kernel call.
READY, NEED_OPPONENT = 0, 1
# Kernel modes.
MODE_LEARNER, MODE_OPPONENT, MODE_RESET = 0, 1, 2
# Each thread gets at least this many games (fewer would not pay for the hand-over).
MIN_GAMES_PER_THREAD = 128
# Columns of the episode-end record.
END_TRUNCATED, END_WINNER, END_OWN, END_OPP, END_PLY, END_SEAT, END_ILLEGAL = range(7)


@njit(cache=True)
def _record_end(i, state, seat, reward, illegal, rules, total, rewards, dones, term_obs, ends):
    """Write the end of game ``i``'s episode: reward, done, terminal observation and record."""
    n = rules[R_HOLES]
    K.observe(state, seat, rules, total, term_obs[i])
    rewards[i] = reward
    dones[i] = True
    ends[i, END_TRUNCATED] = state[K.off_status(n)] == K.TRUNCATED
    ends[i, END_WINNER] = 1 - seat if illegal else state[K.off_winner(n)]
    ends[i, END_OWN] = state[K.off_captured(n) + seat]
    ends[i, END_OPP] = state[K.off_captured(n) + 1 - seat]
    ends[i, END_PLY] = state[K.off_ply(n)]
    ends[i, END_SEAT] = seat
    ends[i, END_ILLEGAL] = illegal


@njit(cache=True)
def _learner_move(state, action, rules, lazy, scratch, saved):
    """Apply the learner's legal ``action``. ``lazy`` (relay games, random opponent): as the core's
    :func:`~mancala_envs.kernels.play_random_game`, skip the opponent's legal mask, which
    :func:`_random_reply` never reads (it finds the opponent's move, or that he has none, itself)."""
    if not lazy:
        K.apply_move(state, action, rules)
        return
    n = rules[R_HOLES]
    mover = state[K.off_to_move(n)]
    K.try_relay_move(state, rules, mover, action, scratch, saved)
    K.end_turn(state, n, mover, action)
    if state[K.off_ply(n)] >= rules[R_MAX_PLIES]:
        K.settle(state, rules)  # TR1 (or the natural end it yields to)


@njit(cache=True)
def _random_reply(state, rules, rng, scratch, saved, candidates):
    """One uniformly random legal move of the player to move, with the core's random players: a
    draw from the legal mask (Songo) or :func:`~mancala_envs.kernels.random_relay_move` (relay
    games, no mask needed), then the same settling as :func:`~mancala_envs.kernels.apply_move`."""
    n = rules[R_HOLES]
    if rules[R_SOWING] != SOW_RELAY:
        K.apply_move(state, K.random_legal_action(state, n, rng), rules)
        return
    mover = state[K.off_to_move(n)]
    action = K.random_relay_move(state, rules, rng, scratch, saved, candidates)
    if action < 0:  # no legal move: SQ6 / ED4, as settle() would decide from an empty mask
        K.finish_game(state, rules, 1 - mover)
        state[K.off_mask(n) : K.off_mask(n) + n] = 0
    else:
        K.end_turn(state, n, mover, action)
        K.settle(state, rules)


@njit(cache=True)
def _first_bad_action(states, actions, selected, rules, allow_illegal):
    """(row, kind) of the first selected action out of range (kind 1) or illegal (kind 2, unless
    ``allow_illegal``); (-1, 0) when all are acceptable."""
    n = rules[R_HOLES]
    for i in range(states.shape[0]):
        if selected[i]:
            a = actions[i]
            if a < 0 or a >= n:
                return i, 1
            if not allow_illegal and not K.is_legal(states[i], a, rules):
                return i, 2
    return -1, 0


@njit(cache=True, nogil=True)
def _run(
    mode,
    selected,
    rng,
    random_opponent,
    states,
    actions,
    seats,
    rules,
    start,
    total,
    obs,
    masks,
    rewards,
    dones,
    term_obs,
    ends,
    status,
):
    """The one kernel behind :class:`MancalaVecEnv`, over a block of games (all of them, or one
    thread's share). For every selected game, by ``mode``: LEARNER: the learner's action (an
    illegal one, checked beforehand by :func:`_first_bad_action`, ends the episode with -1),
    OPPONENT: the opponent's action, RESET: a new game and seat. Then the game runs on until the
    learner is to move: finished episodes are recorded and restarted (new seat), random opponent
    moves are played; a callable opponent's turn stops it (status NEED_OPPONENT). Returns the
    number of games waiting for the callable opponent."""
    n = rules[R_HOLES]
    lazy = random_opponent and rules[R_SOWING] == SOW_RELAY
    scratch = np.empty(2 * n, dtype=states.dtype)
    saved = np.empty(2 * n, dtype=states.dtype)
    candidates = np.empty(n, dtype=np.int64)
    waiting = 0
    for i in range(states.shape[0]):
        if not selected[i]:
            continue
        state = states[i]
        if mode != MODE_OPPONENT:
            rewards[i] = 0.0
            dones[i] = False
        if mode == MODE_RESET:
            state[:] = start
            seats[i] = rng.integers(0, 2)
        elif mode == MODE_OPPONENT:
            K.apply_move(state, actions[i], rules)
        elif K.is_legal(state, actions[i], rules):
            _learner_move(state, actions[i], rules, lazy, scratch, saved)
        else:  # illegal_action="terminate": the learner loses, a new game starts
            _record_end(i, state, seats[i], -1.0, True, rules, total, rewards, dones, term_obs, ends)
            state[:] = start
            seats[i] = rng.integers(0, 2)
        status[i] = READY
        while True:
            seat = seats[i]
            if state[K.off_status(n)] != K.RUNNING:
                winner = state[K.off_winner(n)]
                reward = 1.0 if winner == seat else (-1.0 if winner == 1 - seat else 0.0)
                _record_end(i, state, seat, reward, False, rules, total, rewards, dones, term_obs, ends)
                state[:] = start
                seats[i] = rng.integers(0, 2)
            elif state[K.off_to_move(n)] == seat:
                K.observe(state, seat, rules, total, obs[i])
                for a in range(n):
                    masks[i, a] = state[K.off_mask(n) + a]
                break
            elif random_opponent:
                _random_reply(state, rules, rng, scratch, saved, candidates)
            else:
                status[i] = NEED_OPPONENT
                waiting += 1
                break
    return waiting


BatchedOpponent = Callable[[np.ndarray, np.ndarray], Any]


def _is_opponent_object(value: object) -> bool:
    """An opponent object: it has a callable ``act(states, observations, masks, env_indices)``."""
    return not isinstance(value, str) and callable(getattr(value, "act", None))


class MancalaVecEnv(VecEnv):
    """``num_envs`` games of one mancala game against a fixed opponent, as an SB3 ``VecEnv``.

    Args:
        game: a game name (``"songo_ewondo"``, ``"sadeqa_ii"``, ``"en_dodoi"``) or a
            :class:`~mancala_envs.Game`; ``**game_params`` (``max_plies``, ``holes_per_row``) go to
            :func:`~mancala_envs.get_game` with a name.
        num_envs: number of games stepped together.
        opponent: ``"random"``, a batched callable ``f(observations, masks) -> actions`` or an
            object with ``act(states, observations, masks, env_indices)`` (module docstring).
        seed: seeds the generator behind every random choice.
        obs_format: ``"flat"`` (Box, masks via :meth:`action_masks`) or ``"dict"``.
        illegal_action: ``"terminate"`` (episode ends, reward -1) or ``"raise"``.
        num_threads: split the games into this many blocks (at most one per
            ``MIN_GAMES_PER_THREAD`` games) stepped on as many threads.

    See the module docstring for the conventions.
    """

    render_mode = None

    def __init__(
        self,
        game: str | Game,
        num_envs: int,
        opponent: str | BatchedOpponent = "random",
        seed: int | None = 0,
        obs_format: str = "flat",
        illegal_action: str = "terminate",
        num_threads: int = 1,
        **game_params: Any,
    ):
        self._game = g = resolve_game(game, game_params)
        for what, value in (("num_envs", num_envs), ("num_threads", num_threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{what} must be a positive integer, got {value!r}")
        if obs_format not in ("flat", "dict"):
            raise ValueError(f"obs_format must be 'flat' or 'dict', got {obs_format!r}")
        self._obs_format = obs_format
        self.illegal_action = illegal_action
        num_envs = int(num_envs)
        self._start = g.initial_state(0).array.copy()
        self._states = np.tile(self._start, (num_envs, 1))
        self.opponent = opponent
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._obs = np.zeros((num_envs, g.observation_size), dtype=np.float32)
        self._masks = np.zeros((num_envs, g.num_actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float32)
        self._dones = np.zeros(num_envs, dtype=np.bool_)
        self._term_obs = np.zeros((num_envs, g.observation_size), dtype=np.float32)
        self._ends = np.zeros((num_envs, 7), dtype=np.int32)
        self._status = np.zeros(num_envs, dtype=np.int8)
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        self._to_move_col = K.off_to_move(g.holes_per_row)
        self._ply_col = K.off_ply(g.holes_per_row)
        self._mask_cols = slice(K.off_mask(g.holes_per_row), g.state_size)
        blocks = max(1, min(int(num_threads), num_envs // MIN_GAMES_PER_THREAD))
        bounds = [num_envs * b // blocks for b in range(blocks + 1)]
        self._blocks = [slice(lo, hi) for lo, hi in pairwise(bounds)]
        per_game = (self._states, self._actions, self._seats)
        outputs = (
            self._obs,
            self._masks,
            self._rewards,
            self._dones,
            self._term_obs,
            self._ends,
            self._status,
        )
        shared = (g.rules, self._start, g.total_seeds)
        self._block_args = [
            tuple(a[b] for a in per_game) + shared + tuple(a[b] for a in outputs) for b in self._blocks
        ]
        self._pool = ThreadPoolExecutor(blocks - 1) if blocks > 1 else None
        self.seed(seed)
        self._needs_reset = True
        flat_space, dict_space, action_space = make_spaces(g)
        super().__init__(num_envs, dict_space if obs_format == "dict" else flat_space, action_space)

    # ------------------------------------------------------------------ settings

    @property
    def game(self) -> Game:
        return self._game

    @property
    def obs_format(self) -> str:
        return self._obs_format

    @property
    def opponent(self) -> str | BatchedOpponent:
        """``"random"`` or the batched callable; may be replaced between steps."""
        return self._opponent

    @opponent.setter
    def opponent(self, value: str | BatchedOpponent) -> None:
        ok = value == "random" if isinstance(value, str) else callable(value) or _is_opponent_object(value)
        if not ok:
            raise ValueError(
                "opponent must be 'random', a callable f(observations, masks) or an object with "
                f"act(states, observations, masks, env_indices), got {value!r}"
            )
        self._opponent = value
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
        """Check the actions (nothing changes if one is refused), then run :func:`_run` on every
        block of games. Returns ``(bad_row, bad_kind, games_waiting_for_the_opponent)``."""
        if mode != MODE_RESET:
            allow = mode == MODE_LEARNER and self.illegal_action == "terminate"
            bad, kind = _first_bad_action(self._states, self._actions, selected, self.game.rules, allow)
            if bad >= 0:
                return bad, kind, 0
        random_opponent = isinstance(self._opponent, str)
        if len(self._blocks) == 1:
            return -1, 0, _run(mode, selected, self._rngs[0], random_opponent, *self._block_args[0])
        if self._pool is None:
            raise RuntimeError("MancalaVecEnv is closed")
        jobs = [
            self._pool.submit(_run, mode, selected[b], rng, random_opponent, *args)
            for b, rng, args in zip(self._blocks[1:], self._rngs[1:], self._block_args[1:], strict=True)
        ]
        first = _run(mode, selected[self._blocks[0]], self._rngs[0], random_opponent, *self._block_args[0])
        return -1, 0, first + sum(job.result() for job in jobs)

    def _play_opponent(self, waiting: int) -> None:
        """Ask the callable opponent for the games where it is to move, until the learner is to
        move everywhere (one call per round of opponent moves)."""
        while waiting:
            idx = np.flatnonzero(self._status == NEED_OPPONENT)
            rows = self._states[idx]
            views = self.game.observations(rows, rows[:, self._to_move_col])
            masks = self.game.legal_masks(rows)
            if _is_opponent_object(self.opponent):
                self._announce_episodes()
                chosen = np.asarray(self.opponent.act(rows, views, masks, idx))
            else:
                chosen = np.asarray(self.opponent(views, masks))
            if chosen.shape != (idx.size,) or chosen.dtype.kind not in "iu":
                self._needs_reset = True
                raise IllegalMoveError(f"the opponent must return {idx.size} integer actions, got {chosen!r}")
            self._actions[idx] = chosen
            plies = self._states[idx, self._ply_col]
            bad, kind, waiting = self._kernel(MODE_OPPONENT, self._status == NEED_OPPONENT)
            if bad >= 0:
                self._needs_reset = True
                raise IllegalMoveError(f"the opponent chose {self._why(bad, kind)}")
            # a reply that ended its game restarted it: the ply count went back (to 0)
            self._started[idx[self._states[idx, self._ply_col] <= plies]] = True

    def _announce_episodes(self) -> None:
        """Tell an opponent object with ``episodes_started`` which games began a new episode."""
        hook = getattr(self.opponent, "episodes_started", None)
        if callable(hook) and self._started.any():
            hook(np.flatnonzero(self._started))
        self._started[:] = False

    def _why(self, row: int, kind: int) -> str:
        a = int(self._actions[row])
        if kind == 1:
            return f"action {a} in game {row}: out of range, holes are 0..{self.game.num_actions - 1}"
        legal = np.flatnonzero(self._states[row, self._mask_cols]).tolist()
        return f"illegal action {a} in game {row}; legal actions: {legal}"

    def _observations(self, obs: np.ndarray) -> VecEnvObs:
        if self.obs_format == "dict":
            return {"observation": obs.copy(), "action_mask": self._masks.copy()}
        return obs.copy()

    # ------------------------------------------------------------------ VecEnv API

    def reset(self) -> VecEnvObs:
        """Restart every game (new seats; the opponent moves first where the learner has seat 1)."""
        self._started[:] = True
        self._play_opponent(self._kernel(MODE_RESET, self._all)[2])
        if _is_opponent_object(self.opponent):
            self._announce_episodes()
        self._needs_reset = False
        self.reset_infos = [{"seat": int(s)} for s in self._seats]
        return self._observations(self._obs)

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions)
        if actions.size != self.num_envs or actions.dtype.kind not in "iu":
            raise IllegalMoveError(f"actions must be {self.num_envs} integers, got {actions!r}")
        self._actions[:] = actions.reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._needs_reset:
            raise RuntimeError("MancalaVecEnv.step called before reset()")
        bad, kind, waiting = self._kernel(MODE_LEARNER, self._all)
        if bad >= 0:
            raise IllegalMoveError(f"the learner chose {self._why(bad, kind)}")
        self._started |= self._dones
        self._play_opponent(waiting)
        if _is_opponent_object(self.opponent):
            self._announce_episodes()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        done = np.flatnonzero(self._dones)
        if done.size:
            self._fill_end_infos(infos, done)
        return self._observations(self._obs), self._rewards.copy(), self._dones.copy(), infos

    def _fill_end_infos(self, infos: list[dict[str, Any]], done: np.ndarray) -> None:
        ends = self._ends[done]
        terminal = self._term_obs[done]
        truncated = ends[:, END_TRUNCATED].astype(bool).tolist()
        illegal = ends[:, END_ILLEGAL].astype(bool).tolist()
        if any(illegal):
            warnings.warn(ILLEGAL_WARNING, UserWarning, stacklevel=4)
        records = ends.tolist()
        for j, i in enumerate(done.tolist()):
            end = records[j]
            obs = terminal[j]
            if self.obs_format == "dict":
                obs = {"observation": obs, "action_mask": np.zeros(self.game.num_actions, dtype=np.int8)}
            infos[i] = {
                "terminal_observation": obs,
                "TimeLimit.truncated": truncated[j],
                "seat": end[END_SEAT],
                "winner": None if truncated[j] else end[END_WINNER],
                "captured": (end[END_OWN], end[END_OPP]),
                "ply": end[END_PLY],
                "illegal_action": illegal[j],
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
        """A copy of the packed states, shape ``(num_envs, game.state_size)``
        (``game.state_from_array(row)`` gives a :class:`~mancala_envs.State`)."""
        return self._states.copy()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Reseed now (``None``: fresh entropy): one generator per block of games, spawned from
        ``numpy.random.SeedSequence(seed)``. Returns the seed once per game."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        children = np.random.SeedSequence(seed).spawn(len(self._blocks))
        self._rngs = [np.random.default_rng(child) for child in children]
        return [seed] * len(self._states)

    def close(self) -> None:
        """Stop the worker threads, if any."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

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
