"""A single-agent Gymnasium env: a learner plays one seat of a mancala game against a fixed opponent.

:class:`SingleAgentEnv` drives the rules core directly (no PettingZoo env underneath). Player 0
moves first in every game; ``seat`` says which player the learner is. Whenever the opponent is to
move (however many times in a row) it moves inside ``reset``/``step``, so every observation the
learner receives is one where it is to move, or the last one of the episode.

- **Observation** (``obs_format="dict"``, default): ``{"observation": game.observation(state,
  seat), "action_mask": legal mask (int8)}``, the same format as the AEC envs
  (``Dict(observation=Box(0, 1, (obs_size,), float32), action_mask=Box(0, 1, (n,), int8))``).
  ``obs_format="flat"``: the observation vector alone (``Box``), the format of
  :class:`~mancala_envs.vector.MancalaVecEnv`; the mask then comes from :meth:`action_masks` only.
  The mask is all zero in the last observation of an episode.
- **Action**: ``Discrete(n)``, the learner's local hole (RULES.md §1).
- **Reward**: +1 / -1 / 0 to the learner at a natural end (win / loss / draw, Sadeqa II: the
  survivor wins); ``terminated`` is True there. Reaching ``max_plies`` sets ``truncated``, reward 0.
- **info**: ``seat`` (the learner's), ``captured`` ((learner's, opponent's) ints, as the AEC
  envs' infos), ``ply``; at the end also ``winner`` (the winning seat 0 or 1, -1 for a draw, None
  when truncated) and ``illegal_action`` (bool).
- **Illegal actions**: an action that is not an integer or not in ``0..n-1`` raises
  :class:`~mancala_envs.IllegalMoveError`. An in-range illegal move, with
  ``illegal_action="terminate"`` (default, PettingZoo's TerminateIllegalWrapper semantics and the
  AEC envs' default), ends the episode: reward -1, ``terminated`` True, ``info["illegal_action"]``
  True, a ``UserWarning``. With ``illegal_action="raise"`` it raises ``IllegalMoveError`` and the
  game is unchanged.
  (Gymnasium's and SB3's ``check_env`` step with unmasked ``action_space.sample()`` actions, so
  the default must not raise.)
- **Opponent**: ``"random"`` (a uniformly random legal move drawn from the env's ``np_random``)
  or a callable ``f({"observation": obs as the opponent sees it, "action_mask": mask}) -> action``.
  An illegal opponent action raises ``IllegalMoveError``.
- ``seat="random"`` draws the learner's seat per episode from ``np_random`` (seeded by
  ``reset(seed=...)``); 0 or 1 fixes it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mancala_envs.game import Game, IllegalMoveError, State, get_game

Opponent = Callable[[dict[str, np.ndarray]], Any]
ILLEGAL_WARNING = "an illegal learner action ended its episode with reward -1 (use the action masks)"


def resolve_game(game: str | Game, params: dict[str, Any]) -> Game:
    """The :class:`Game` named ``game`` built with ``params``, or ``game`` itself (then no params)."""
    if isinstance(game, Game):
        if params:
            raise ValueError(f"game parameters {sorted(params)} apply to a game name, not to a Game object")
        result = game
    elif isinstance(game, str):
        result = get_game(game, **params)
    else:
        raise ValueError(f"game must be a game name or a mancala_envs.Game, got {game!r}")
    if result.max_plies < 2:
        raise ValueError(f"max_plies must be at least 2 for a game with an opponent, got {result.max_plies}")
    return result


def make_spaces(game: Game) -> tuple[spaces.Box, spaces.Dict, spaces.Discrete]:
    """The flat observation space, the dict observation space and the action space of ``game``."""
    flat = spaces.Box(0.0, 1.0, (game.observation_size,), np.float32)
    mask = spaces.Box(0, 1, (game.num_actions,), np.int8)
    return flat, spaces.Dict({"observation": flat, "action_mask": mask}), spaces.Discrete(game.num_actions)


class SingleAgentEnv(gym.Env):
    """A learner against a fixed opponent in one game (conventions in the module docstring).

    Args:
        game: a game name or a :class:`~mancala_envs.Game`; ``**game_params`` (``max_plies``,
            ``holes_per_row``) go to :func:`~mancala_envs.get_game` with a name.
        opponent: ``"random"`` or a callable ``f(observation_dict) -> action``.
        seat: ``"random"`` (per episode), 0 or 1.
        obs_format: ``"dict"`` or ``"flat"``.
        illegal_action: ``"terminate"`` or ``"raise"``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        game: str | Game,
        opponent: str | Opponent = "random",
        seat: str | int = "random",
        obs_format: str = "dict",
        illegal_action: str = "terminate",
        **game_params: Any,
    ):
        self.game = resolve_game(game, game_params)
        if not (opponent == "random" if isinstance(opponent, str) else callable(opponent)):
            raise ValueError(f"opponent must be 'random' or a callable f(observation_dict), got {opponent!r}")
        if not (
            seat == "random"
            or (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and seat in (0, 1))
        ):
            raise ValueError(f"seat must be 'random', 0 or 1, got {seat!r}")
        if obs_format not in ("dict", "flat"):
            raise ValueError(f"obs_format must be 'dict' or 'flat', got {obs_format!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.opponent = opponent
        self.seat_choice = seat
        self.obs_format = obs_format
        self.illegal_action = illegal_action
        flat, as_dict, self.action_space = make_spaces(self.game)
        self.observation_space = as_dict if obs_format == "dict" else flat
        self.seat: int | None = None
        self.state: State | None = None
        self._over = True

    # ------------------------------------------------------------------ helpers

    def _opponent_action(self, state: State) -> Any:
        if isinstance(self.opponent, str):
            legal = self.game.legal_actions(state)
            return legal[int(self.np_random.integers(len(legal)))]
        view = self.game.observation(state, state.to_move)
        return self.opponent({"observation": view, "action_mask": self.game.legal_mask(state).copy()})

    def _play_opponent(self, state: State) -> State:
        """Let the opponent move while it is to move."""
        while not state.is_over and state.to_move != self.seat:
            action = self._opponent_action(state)
            try:
                state = self.game.apply(state, action)
            except IllegalMoveError as err:
                raise IllegalMoveError(f"the opponent's move failed: {err}") from err
        return state

    def _observation(self, mask: np.ndarray) -> dict[str, np.ndarray] | np.ndarray:
        obs = self.game.observation(self.state, self.seat)
        return {"observation": obs, "action_mask": mask} if self.obs_format == "dict" else obs

    def _info(self) -> dict[str, Any]:
        captured = self.state.captured
        own, opp = int(captured[self.seat]), int(captured[1 - self.seat])
        return {"seat": self.seat, "captured": (own, opp), "ply": self.state.ply}

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game from the start; the learner's seat is drawn when ``seat="random"``."""
        super().reset(seed=seed)
        self.seat = int(self.np_random.integers(2)) if self.seat_choice == "random" else int(self.seat_choice)
        self.state = self._play_opponent(self.game.initial_state(0))
        if self.state.is_over:  # no game of the core ends before each player has moved
            raise RuntimeError(f"the game ended before the learner's first move: {self.state!r}")
        self._over = False
        return self._observation(self.game.legal_mask(self.state).copy()), self._info()

    def step(self, action: Any):
        """The learner's move, then the opponent's replies; returns Gymnasium's five values."""
        if self.state is None:
            raise RuntimeError("SingleAgentEnv.step called before reset()")
        if self._over:
            raise RuntimeError("the episode is over; call reset() before step()")
        action = self.game._action_int(action)  # non-integers raise IllegalMoveError
        n = self.game.num_actions
        if not 0 <= action < n:
            raise IllegalMoveError(f"action {action} is out of range: holes are 0..{n - 1}")
        if self.game.legal_mask(self.state)[action] or self.illegal_action == "raise":
            self.state = self._play_opponent(self.game.apply(self.state, action))
            illegal = False
        else:
            illegal = True
            warnings.warn(ILLEGAL_WARNING, UserWarning, stacklevel=2)
        info = self._info()
        terminated, truncated = illegal or self.state.done, self.state.truncated
        reward = 0.0
        if terminated or truncated:
            winner = 1 - self.seat if illegal else self.state.winner
            reward = 1.0 if winner == self.seat else (-1.0 if winner == 1 - self.seat else 0.0)
            info.update(winner=winner, illegal_action=illegal)
            self._over = True
        mask = np.zeros(n, np.int8) if self._over else self.game.legal_mask(self.state).copy()
        return self._observation(mask), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal mask (int8; all zero once the episode is over), for ``MaskablePPO``."""
        if self.state is None:
            raise RuntimeError("SingleAgentEnv.action_masks called before reset()")
        return (
            np.zeros(self.game.num_actions, np.int8)
            if self._over
            else self.game.legal_mask(self.state).copy()
        )
