"""A fast Stable-Baselines3 vector env: ``num_envs`` games stepped together in compiled code.

:class:`MancalaVecEnv` keeps every game in one packed ``int32`` array (the core's layout, shape
``(num_envs, game.state_size)``) and steps them all with one parallel numba kernel per
``step_wait``: the learner's moves, the opponent's replies, episode ends, automatic resets and the
observation/mask buffers. The rules are the core's (:func:`mancala_envs.kernels.apply_move`); the
games follow exactly the same rules as :class:`~mancala_envs.wrappers.SingleAgentEnv`.

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
  truncated), ``captured`` (by player index), ``ply`` and ``illegal_action``. Other steps' infos are
  empty (the per-game ``seats`` and ``states`` properties, or ``get_attr("seat")``, give the rest).
- **Illegal learner actions.** An action outside ``0..n-1`` or not an integer raises
  :class:`~mancala_envs.IllegalMoveError`. An in-range illegal action, with
  ``illegal_action="terminate"`` (default), ends the episode with reward -1 and
  ``info["illegal_action"] = True``; with ``"raise"`` it raises and no game is changed.
- **Opponent.** ``"random"``: a uniformly random legal move, chosen inside the kernel. Or a batched
  callable ``f(observations, masks) -> actions`` that receives the opponent's views (float32
  ``(k, obs_size)``) and int8 masks ``(k, n)`` of the ``k`` games where the opponent is to move and
  returns ``k`` actions; it is called once per round of opponent moves (normally once per step,
  twice when a game restarts with the opponent to move). An illegal opponent action raises.
- **Randomness.** Every random choice (seats, random opponent moves) comes from one
  ``numpy.random.Generator`` seeded with ``seed``: before each kernel call it fills a small buffer
  of uniforms per game, which that game's thread consumes in order, so results do not depend on
  the number of threads. Same seed and same actions give the same trajectories.
  :meth:`MancalaVecEnv.seed` reseeds it at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from numba import njit, prange
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from mancala_envs import kernels as K
from mancala_envs.game import Game, IllegalMoveError
from mancala_envs.rulesets import R_HOLES
from mancala_envs.wrappers import make_spaces, resolve_game

# Per-game status after a kernel call.
READY, NEED_OPPONENT, EXHAUSTED = 0, 1, 2
# Kernel modes.
MODE_LEARNER, MODE_OPPONENT, MODE_CONTINUE, MODE_RESET = 0, 1, 2, 3
# Columns of the episode-end record.
END_TRUNCATED, END_WINNER, END_CAP0, END_CAP1, END_PLY, END_SEAT, END_ILLEGAL = range(7)
# Uniforms drawn per game before each kernel call: one step needs at most 3 (opponent reply, seat
# of the next episode, opponent's first move); a game that needs more pauses and gets a refill.
RANDOM_BUDGET = 4


@njit(cache=True)
def _kth_legal(state, n, u):
    """The ``floor(u * k)``-th legal action of the player to move (``k`` legal actions, u in [0, 1))."""
    mask = state[K.off_mask(n) : K.off_mask(n) + n]
    k = mask.sum()
    r = min(int(u * k), k - 1)
    for a in range(n):
        if mask[a]:
            if r == 0:
                return a
            r -= 1
    return -1


@njit(cache=True)
def _record_end(i, state, seat, reward, illegal, rules, total, rewards, dones, term_obs, ends):
    """Write the end of game ``i``'s episode: reward, done, terminal observation and record."""
    n = rules[R_HOLES]
    K.observe(state, seat, rules, total, term_obs[i])
    rewards[i] = reward
    dones[i] = True
    ends[i, END_TRUNCATED] = state[K.off_status(n)] == K.TRUNCATED
    ends[i, END_WINNER] = 1 - seat if illegal else state[K.off_winner(n)]
    ends[i, END_CAP0] = state[K.off_captured(n)]
    ends[i, END_CAP1] = state[K.off_captured(n) + 1]
    ends[i, END_PLY] = state[K.off_ply(n)]
    ends[i, END_SEAT] = seat
    ends[i, END_ILLEGAL] = illegal


@njit(cache=True)
def _advance(i, states, seats, rules, start, total, u, k, random_opponent, obs, masks, rewards, dones,
             term_obs, ends):
    """Run game ``i`` until the learner is to move: record a finished episode and restart it (new
    seat), play random opponent moves. Returns READY, NEED_OPPONENT (callable opponent) or
    EXHAUSTED (``u`` used up; the game is left where it is and resumes on the next call)."""
    n = rules[R_HOLES]
    state = states[i]
    while True:
        if state[K.off_status(n)] != K.RUNNING:
            if k >= u.shape[0]:
                return EXHAUSTED
            seat = seats[i]
            winner = state[K.off_winner(n)]
            reward = 1.0 if winner == seat else (-1.0 if winner == 1 - seat else 0.0)
            _record_end(i, state, seat, reward, False, rules, total, rewards, dones, term_obs, ends)
            state[:] = start
            seats[i] = int(u[k] * 2.0)
            k += 1
        elif state[K.off_to_move(n)] == seats[i]:
            K.observe(state, seats[i], rules, total, obs[i])
            for a in range(n):
                masks[i, a] = state[K.off_mask(n) + a]
            return READY
        elif not random_opponent:
            return NEED_OPPONENT
        else:
            if k >= u.shape[0]:
                return EXHAUSTED
            K.apply_move(state, _kth_legal(state, n, u[k]), rules)
            k += 1


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


@njit(cache=True, parallel=True)
def _run(mode, states, actions, selected, seats, rules, start, total, uniforms, random_opponent,
         terminate_illegal, obs, masks, rewards, dones, term_obs, ends, status):
    """The one kernel behind :class:`MancalaVecEnv`. For every selected game, by ``mode``:
    LEARNER: apply the learner's action (or end the episode on an illegal one), OPPONENT: apply
    the opponent's action, CONTINUE: nothing, RESET: restart with a new seat; then
    :func:`_advance`. Returns ``(bad_row, bad_kind, games_not_ready)``; nothing is changed when
    ``bad_row >= 0``."""
    n = rules[R_HOLES]
    if mode == MODE_LEARNER or mode == MODE_OPPONENT:
        allow = mode == MODE_LEARNER and terminate_illegal
        bad, kind = _first_bad_action(states, actions, selected, rules, allow)
        if bad >= 0:
            return bad, kind, 0
    pending = 0
    for i in prange(states.shape[0]):
        if selected[i]:
            state = states[i]
            u = uniforms[i]
            k = 0
            if mode == MODE_LEARNER or mode == MODE_RESET:
                rewards[i] = 0.0
                dones[i] = False
            if mode == MODE_LEARNER:
                if K.is_legal(state, actions[i], rules):
                    K.apply_move(state, actions[i], rules)
                else:
                    _record_end(i, state, seats[i], -1.0, True, rules, total, rewards, dones, term_obs, ends)
                    state[:] = start
                    seats[i] = int(u[0] * 2.0)
                    k = 1
            elif mode == MODE_OPPONENT:
                K.apply_move(state, actions[i], rules)
            elif mode == MODE_RESET:
                state[:] = start
                seats[i] = int(u[0] * 2.0)
                k = 1
            s = _advance(i, states, seats, rules, start, total, u, k, random_opponent, obs, masks, rewards,
                         dones, term_obs, ends)
            status[i] = s
            if s != READY:
                pending += 1
    return -1, 0, pending


BatchedOpponent = Callable[[np.ndarray, np.ndarray], Any]


class MancalaVecEnv(VecEnv):
    """``num_envs`` games of one mancala game against a fixed opponent, as an SB3 ``VecEnv``.

    Args:
        game: a game name (``"songo_ewondo"``, ``"sadeqa_ii"``, ``"en_dodoi"``) or a
            :class:`~mancala_envs.Game`; ``**game_params`` (``max_plies``, ``holes_per_row``) go to
            :func:`~mancala_envs.get_game` with a name.
        num_envs: number of games stepped together.
        opponent: ``"random"`` or a batched callable ``f(observations, masks) -> actions``.
        seed: seeds the generator behind every random choice.
        obs_format: ``"flat"`` (Box, masks via :meth:`action_masks`) or ``"dict"``.
        illegal_action: ``"terminate"`` (episode ends, reward -1) or ``"raise"``.

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
        **game_params: Any,
    ):
        self.game = resolve_game(game, game_params)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if not (opponent == "random" if isinstance(opponent, str) else callable(opponent)):
            raise ValueError(f"opponent must be 'random' or a callable f(observations, masks), got {opponent!r}")
        if obs_format not in ("flat", "dict"):
            raise ValueError(f"obs_format must be 'flat' or 'dict', got {obs_format!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.opponent = opponent
        self.obs_format = obs_format
        self.illegal_action = illegal_action
        g = self.game
        num_envs = int(num_envs)
        self._start = g.initial_state(0).array.copy()
        self._states = np.tile(self._start, (num_envs, 1))
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._obs = np.zeros((num_envs, g.observation_size), dtype=np.float32)
        self._masks = np.zeros((num_envs, g.num_actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float32)
        self._dones = np.zeros(num_envs, dtype=np.bool_)
        self._term_obs = np.zeros((num_envs, g.observation_size), dtype=np.float32)
        self._ends = np.zeros((num_envs, 7), dtype=np.int32)
        self._status = np.zeros(num_envs, dtype=np.int64)
        self._uniforms = np.zeros((num_envs, RANDOM_BUDGET), dtype=np.float64)
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        self._zero_mask = np.zeros(g.num_actions, dtype=np.int8)
        self._random_opponent = isinstance(opponent, str)
        self._to_move_col = K.off_to_move(g.holes_per_row)
        self._mask_cols = slice(K.off_mask(g.holes_per_row), g.state_size)
        self._rng = np.random.default_rng(seed)
        self._needs_reset = True
        flat_space, dict_space, action_space = make_spaces(g)
        super().__init__(num_envs, dict_space if obs_format == "dict" else flat_space, action_space)

    # ------------------------------------------------------------------ kernel driving

    def _kernel(self, mode: int, selected: np.ndarray) -> tuple[int, int, int]:
        self._rng.random(out=self._uniforms)
        return _run(
            mode, self._states, self._actions, selected, self._seats, self.game.rules, self._start,
            self.game.total_seeds, self._uniforms, self._random_opponent, self.illegal_action == "terminate",
            self._obs, self._masks, self._rewards, self._dones, self._term_obs, self._ends, self._status,
        )

    def _settle(self, pending: int) -> None:
        """Refill exhausted games and play the callable opponent until every learner is to move."""
        while pending:
            waiting = np.flatnonzero(self._status == EXHAUSTED)
            if waiting.size:
                pending = self._kernel(MODE_CONTINUE, self._status == EXHAUSTED)[2]
                continue
            idx = np.flatnonzero(self._status == NEED_OPPONENT)
            rows = self._states[idx]
            views = self.game.observations(rows, rows[:, self._to_move_col])
            masks = self.game.legal_masks(rows)
            chosen = np.asarray(self.opponent(views, masks))
            if chosen.shape != (idx.size,) or chosen.dtype.kind not in "iu":
                raise IllegalMoveError(
                    f"the opponent must return {idx.size} integer actions, got {chosen!r}"
                )
            self._actions[idx] = chosen
            selected = np.zeros(self.num_envs, dtype=np.bool_)
            selected[idx] = True
            bad, kind, pending = self._kernel(MODE_OPPONENT, selected)
            if bad >= 0:
                raise IllegalMoveError(f"the opponent chose {self._why(bad, kind)}")

    def _why(self, row: int, kind: int) -> str:
        a = int(self._actions[row])
        if kind == 1:
            return f"action {a} in game {row}: out of range, holes are 0..{self.game.num_actions - 1}"
        legal = np.flatnonzero(self._states[row, self._mask_cols]).tolist()
        return f"illegal action {a} in game {row}; legal actions: {legal}"

    def _observations(self, obs: np.ndarray, masks: np.ndarray | None = None) -> VecEnvObs:
        if self.obs_format == "dict":
            return {"observation": obs.copy(), "action_mask": (self._masks if masks is None else masks).copy()}
        return obs.copy()

    # ------------------------------------------------------------------ VecEnv API

    def reset(self) -> VecEnvObs:
        """Restart every game (new seats; the opponent moves first where the learner has seat 1)."""
        self._settle(self._kernel(MODE_RESET, self._all)[2])
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
        bad, kind, pending = self._kernel(MODE_LEARNER, self._all)
        if bad >= 0:
            raise IllegalMoveError(f"the learner chose {self._why(bad, kind)}")
        self._settle(pending)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(self._dones).tolist():
            end = self._ends[i].tolist()
            winner = None if end[END_TRUNCATED] else end[END_WINNER]
            infos[i] = {
                "terminal_observation": self._observations(self._term_obs[i], self._zero_mask),
                "TimeLimit.truncated": bool(end[END_TRUNCATED]),
                "seat": end[END_SEAT],
                "winner": winner,
                "captured": np.array(end[END_CAP0 : END_CAP1 + 1]),
                "ply": end[END_PLY],
                "illegal_action": bool(end[END_ILLEGAL]),
            }
        return self._observations(self._obs), self._rewards.copy(), self._dones.copy(), infos

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
        """Reseed the generator now (``None``: fresh entropy); returns the seed once per game."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._rng = np.random.default_rng(seed)
        return [seed] * self.num_envs

    def close(self) -> None:
        """Nothing to release (no subprocesses)."""

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
        """Set a shared attribute: the games share one configuration, so ``indices`` must be all."""
        if sorted(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError("MancalaVecEnv's games share their attributes: set_attr applies to all games")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list[Any]:
        """Only ``"action_masks"`` (one mask per game), as ``MaskablePPO`` calls it."""
        if method_name != "action_masks":
            raise AttributeError(f"MancalaVecEnv.env_method supports 'action_masks' only, not {method_name!r}")
        return list(self._masks[list(self._get_indices(indices))])

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return super()._get_indices(indices)
