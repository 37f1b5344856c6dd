"""A single-agent Gymnasium env: a learner plays one seat of a mancala game against a fixed opponent.

:class:`SingleAgentEnv` drives the rules core directly (no PettingZoo env underneath). Player 0
moves first from the start; ``seat`` says which player the learner is. Whenever the opponent is
to move (however many times in a row) it moves inside ``reset``/``step``, so every observation
the learner receives is one where it is to move, or the last one of the episode.

- **Observation** (``obs_format="dict"``, default): ``{"observation": game.observation(state,
  seat), "action_mask": legal mask (int8)}``, the same format as the AEC envs
  (``Dict(observation=Box(0, 1, (obs_size,), float32), action_mask=Box(0, 1, (n,), int8))``).
  ``obs_format="flat"``: the observation vector alone (``Box``), the format of
  :class:`~mancala_envs.envs.vector.MancalaVecEnv`; the mask is then ``info["action_mask"]`` and
  :meth:`SingleAgentEnv.action_masks`. The mask is all zero in the last observation of an episode.
- **Action**: ``Discrete(n)``, the learner's local hole (RULES.md §1).
- **Reward**: +1 / -1 / 0 to the learner at a natural end (win / loss / draw, Sadeqa II: the
  survivor wins); ``terminated`` is True there. Reaching ``max_plies`` sets ``truncated``, reward 0.
- **info** (the same numeric keys from ``reset`` on, as every env's:
  :data:`~mancala_envs.envs.common.INFO_KEYS`): ``seat`` (the learner's), ``captured``
  ((learner's, opponent's) ints, as the AEC envs' infos), ``ply``, ``winner`` (the winning seat 0
  or 1, -1 a draw, -2 none: running or truncated; the opponent's seat after the learner's illegal
  action) and ``illegal_action`` (bool).
- **Arguments**: an unknown keyword argument raises
  :class:`~mancala_envs.envs.common.UnknownArgumentError` (a ``TypeError`` and a ``ValueError``).
- **Illegal actions**: an action that is not an integer or not in ``0..n-1`` raises
  :class:`~mancala_envs.IllegalMoveError`. An in-range illegal move, with
  ``illegal_action="terminate"`` (default, PettingZoo's TerminateIllegalWrapper semantics and the
  AEC envs' default), ends the episode: reward -1, ``terminated`` True, ``info["illegal_action"]``
  True (no warning, so that Gymnasium's ``check_env`` runs clean; the info flag is the record).
  With ``illegal_action="raise"`` it raises ``IllegalMoveError`` and the
  game is unchanged. (Gymnasium's and SB3's ``check_env`` step with unmasked
  ``action_space.sample()`` actions, so the default must not raise.)
- **Opponent**: an agent spec string (``"random"``, ``"greedy"``, ``"minimax:depth=2"``, ...), an
  agent (``agents/base.py``: ``act(game, state)``) or, kept for compatibility, a callable
  ``f({"observation": obs as the opponent sees it, "action_mask": mask}) -> action``. An agent
  with ``reseed`` is reseeded from ``np_random`` at every ``reset(seed=...)``. An illegal
  opponent action raises ``IllegalMoveError``.
- ``seat="random"`` draws the learner's seat per episode from ``np_random``; 0 or 1 fixes it.
- ``reset(options={"state": state})`` starts the episode from a running
  :class:`~mancala_envs.State` of the game (or its ``to_dict()`` form). When the opponent's
  moves from there end the game before the learner has moved, ``reset`` raises
  :class:`NoLearnerMove` (a ``RuntimeError``); from the initial position it never does.
- **Rendering**: ``render_mode`` ``"ansi"`` (text board, the learner's row at the bottom),
  ``"human"`` (prints it) or ``"rgb_array"`` (an image, for ``gymnasium.wrappers.RecordVideo``).

The single-agent env at a glance:

====================  ========================================================================================
Import                ``import mancala_envs`` then ``gymnasium.make("mancala_envs/SongoEwondo-v0",
                      opponent="greedy")``, or ``SingleAgentEnv("songo_ewondo", opponent="greedy")``
API                   Gymnasium's ``Env``: one learner against a fixed opponent, which moves inside
                      ``reset``/``step``
Actions               ``Discrete(n)``, the learner's local hole ``0..n-1`` (sizes per game below)
Observation           ``obs_format="dict"`` (default): ``Dict(observation=Box(0, 1, (obs_size,), float32),
                      action_mask=Box(0, 1, (n,), int8))``; ``"flat"``: the ``Box`` alone
Action mask           ``obs["action_mask"]``; ``"flat"``: ``info["action_mask"]``; always
                      :meth:`SingleAgentEnv.action_masks` (sb3-contrib's ``MaskablePPO``)
Rewards               +1 / -1 / 0 to the learner at a natural end; 0 on truncation; -1 for an illegal move
                      (``illegal_action="terminate"``)
Seat                  ``seat="random"`` (default): drawn per episode; 0 or 1 fixes it
Render modes          ``"human"``, ``"ansi"``, ``"rgb_array"`` (``gymnasium.wrappers.RecordVideo``)
Registered ids        ``mancala_envs/SongoEwondo-v0``, ``mancala_envs/SadeqaII-v0``,
                      ``mancala_envs/EnDodoi-v0`` (``gymnasium.make_vec`` builds
                      :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv`)
====================  ========================================================================================

The spaces of each game:

============  ===============================  ===============  ==========================================
game          Gymnasium id                     action space     observation shape
============  ===============================  ===============  ==========================================
Songo Ewondo  ``mancala_envs/SongoEwondo-v0``  ``Discrete(7)``  ``(16,)``: rows 7 + 7, captured 2, / 70
Sadeqa II     ``mancala_envs/SadeqaII-v0``     ``Discrete(6)``  ``(16,)``: rows 6 + 6, captured 2, / 36;
                                                                the two ``first_move_pending`` flags
En Dodoi      ``mancala_envs/EnDodoi-v0``      ``Discrete(8)``  ``(18,)``: rows 8 + 8, captured 2, / 64;
                                                                ``holes_per_row=n``: ``Discrete(n)``,
                                                                ``(2n + 2,)``
============  ===============================  ===============  ==========================================
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from mancala_envs.core.layout import NO_WINNER
from mancala_envs.envs.common import info_dict, make_spaces, opponent_agent, resolve_game, start_state
from mancala_envs.game import Game, outcome
from mancala_envs.render import ansi_board, rgb_board
from mancala_envs.state import IllegalMoveError, State

ILLEGAL_WARNING = "an illegal learner action ended its episode with reward -1 (use the action masks)"


class NoLearnerMove(RuntimeError):
    """``reset`` from a position where the opponent's moves end the game before the learner's first
    move: there is no episode to play (``state``: the finished game)."""

    def __init__(self, state: State) -> None:
        super().__init__(f"the game ended before the learner's first move: {state!r}")
        self.state = state


class SingleAgentEnv(gym.Env):
    """A learner against a fixed opponent in one game (conventions in the module docstring).

    Arguments:

    ==================  ===============  =====================================================================
    argument            default          meaning
    ==================  ===============  =====================================================================
    ``game``            —                a game name or a :class:`~mancala_envs.Game` (``gymnasium.make``
                                         passes the id's game)
    ``opponent``        ``"random"``     an agent spec (``"greedy"``, ``"minimax:depth=2"``, ...), an agent or
                                         a callable ``f(observation_dict) -> action``
    ``seat``            ``"random"``     the learner's seat: ``"random"`` (drawn per episode from
                                         ``np_random``), 0 or 1
    ``obs_format``      ``"dict"``       ``"dict"`` or ``"flat"`` (the mask goes to the info)
    ``illegal_action``  ``"terminate"``  ``"terminate"`` (the episode ends, reward -1,
                                         ``info["illegal_action"]``) or ``"raise"``
    ``render_mode``     ``None``         ``None``, ``"human"``, ``"ansi"`` or ``"rgb_array"``
    ``**game_params``   —                ``max_plies`` (default 1000), ``holes_per_row`` (En Dodoi, 6..10,
                                         default 8): to :func:`~mancala_envs.get_game` with a game name
    ==================  ===============  =====================================================================
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str | Game,
        opponent: Any = "random",
        seat: str | int = "random",
        obs_format: str = "dict",
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        **game_params: Any,
    ):
        self.metadata = dict(type(self).metadata)  # per env: Gymnasium's vector wrappers write into it
        self.game = resolve_game(game, game_params, env=type(self))
        if not (
            seat == "random"
            or (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and seat in (0, 1))
        ):
            raise ValueError(f"seat must be 'random', 0 or 1, got {seat!r}")
        if obs_format not in ("dict", "flat"):
            raise ValueError(f"obs_format must be 'dict' or 'flat', got {obs_format!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.opponent = opponent_agent(opponent, seed=0)
        self.seat_choice = seat
        self.obs_format = obs_format
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        flat, as_dict, self.action_space = make_spaces(self.game)
        self.observation_space = as_dict if obs_format == "dict" else flat
        self.seat: int | None = None
        self.state: State | None = None
        self._over = True
        self._illegal = False

    # ------------------------------------------------------------------ helpers

    def _play_opponent(self, state: State) -> State:
        """Let the opponent move while it is to move."""
        while not state.is_over and state.to_move != self.seat:
            action = self.opponent.act(self.game, state)
            try:
                state = self.game.apply(state, action)
            except IllegalMoveError as err:
                raise IllegalMoveError(f"the opponent's move failed: {err}") from err
        return state

    def _mask(self) -> np.ndarray:
        if self._over:
            return np.zeros(self.game.num_actions, np.int8)
        return self.game.legal_mask(self.state).copy()

    def _observation(self) -> dict[str, np.ndarray] | np.ndarray:
        obs = self.game.observation(self.state, self.seat)
        return {"observation": obs, "action_mask": self._mask()} if self.obs_format == "dict" else obs

    def _info(self, winner: int = NO_WINNER, illegal: bool = False) -> dict[str, Any]:
        captured = self.state.captured
        own, opp = int(captured[self.seat]), int(captured[1 - self.seat])
        info = info_dict(self.seat, (own, opp), int(self.state.ply), winner, illegal)
        if self.obs_format == "flat":
            info["action_mask"] = self._mask()
        return info

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game (or ``options["state"]``); the learner's seat is drawn when ``seat="random"``."""
        super().reset(seed=seed)
        if seed is not None and callable(getattr(self.opponent, "reseed", None)):
            self.opponent.reseed(int(self.np_random.integers(2**63)))
        self.seat = int(self.np_random.integers(2)) if self.seat_choice == "random" else int(self.seat_choice)
        self.state = self._play_opponent(start_state(self.game, options, 0))
        if self.state.is_over:  # from the start, no game of the core ends before each side has moved
            raise NoLearnerMove(self.state)
        self._over = self._illegal = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any):
        """The learner's move, then the opponent's replies; returns Gymnasium's five values."""
        if self.state is None:
            raise RuntimeError("SingleAgentEnv.step called before reset()")
        if self._over:
            raise RuntimeError("the episode is over; call reset() before step()")
        action = self.game.action_index(action)  # non-integers and out of range raise IllegalMoveError
        illegal = not self.game.legal_mask(self.state)[action] and self.illegal_action == "terminate"
        if not illegal:
            self.state = self._play_opponent(self.game.apply(self.state, action))
        terminated, truncated = illegal or self.state.done, self.state.truncated
        reward, winner = 0.0, NO_WINNER
        if terminated or truncated:
            state_winner = self.state.winner
            winner = 1 - self.seat if illegal else NO_WINNER if state_winner is None else state_winner
            reward = float(outcome(winner, self.seat))
            self._over, self._illegal = True, illegal
        info = self._info(winner, illegal)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal mask (int8; all zero once the episode is over), for ``MaskablePPO``."""
        if self.state is None:
            raise RuntimeError("SingleAgentEnv.action_masks called before reset()")
        return self._mask()

    def render(self) -> str | np.ndarray | None:
        """The board, the learner's row at the bottom (module docstring)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode to the env")
            return None
        if self.state is None:
            raise RuntimeError("SingleAgentEnv.render called before reset()")
        note = "game over: the learner forfeited by an illegal action" if self._illegal else None
        if self.render_mode == "rgb_array":
            return rgb_board(self.game, self.state, note=note, bottom=self.seat)
        text = ansi_board(self.game, self.state, note=note, bottom=self.seat)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None
