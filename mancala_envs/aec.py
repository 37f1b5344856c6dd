"""One generic PettingZoo AEC environment, :class:`MancalaEnv`, over the rules core.

A game is data: the class takes a game name (or a :class:`~mancala_envs.game.Game`) and every rule
is the core's (:mod:`mancala_envs.kernels`). The per-game modules (``songo_ewondo_v0``,
``sadeqa_ii_v0``, ``en_dodoi_v0``) only call :func:`make_env_functions`.

Spaces (the same objects on every call, one pair per agent)::

    action_space(agent)      = Discrete(n)               the mover's local hole, 0..n-1 (RULES.md §1)
    observation_space(agent) = Dict(
        observation = Box(0, 1, (game.observation_size,), float32),   exactly game.observation(state, i)
        action_mask = Box(0, 1, (n,), int8),   legal holes for the agent to move; all 0 for the
    )                                          other agent and once the game is over

Rewards come only at the end: +1 to the winner, -1 to the loser, 0 to both on a draw or a
truncation (``max_plies`` reached: ``truncations`` True for both). ``infos[agent]`` is
``{"captured": (own, opponent)}`` (ints) after every step and reset; at the end it also holds
``"winner"`` (an agent name, or None for a draw, a truncation or an illegal-move forfeit) and, for
the offender of an illegal move, ``"illegal_action"``.

The guarantees of PettingZoo's standard wrappers (``OrderEnforcingWrapper``,
``AssertOutOfBoundsWrapper``, ``TerminateIllegalWrapper``) are built in, without their per-step
cost, so ``env()`` returns the bare class:

* ``step``, ``observe``, ``state``, ``render`` before ``reset()`` raise ``RuntimeError``; reading
  ``agents``, ``rewards``, ``terminations``, ``truncations``, ``infos`` or ``agent_selection``
  before ``reset()`` raises ``AttributeError``; ``step`` once every agent is done warns and does
  nothing.
* An action that is not an integer (Python or NumPy integer, or a 0-d integer array) raises
  ``ValueError``; an integer outside ``0..n-1`` raises
  :class:`~mancala_envs.game.IllegalMoveError` (a ``ValueError``) in every mode.
* An in-range but illegal action: with ``illegal_action="terminate"`` (default) the game ends at
  once, a ``UserWarning`` is issued, the offender gets -1 and the other agent 0, both are
  terminated (not truncated); with ``illegal_action="raise"`` it raises ``IllegalMoveError`` and
  nothing changes.
* A done agent must step ``None`` (AEC ``_was_dead_step``); anything else raises ``ValueError``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from mancala_envs import kernels as K
from mancala_envs.game import Game, IllegalMoveError, State, get_game
from mancala_envs.render import AGENTS, ansi_board, rgb_board

_apply_move = K.apply_move
_observe = K.observe

FIRST_PLAYERS = ("player_0", "player_1", "random")
ILLEGAL_ACTION_MODES = ("terminate", "raise")
_NEEDS_RESET = frozenset(
    {"agents", "rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents",
     "_cumulative_rewards"}
)


class MancalaEnv(AECEnv):
    """PettingZoo AEC env of one mancala game (layout, rewards and checks in the module docstring).

    Args:
        game: ``"songo_ewondo"``, ``"sadeqa_ii"``, ``"en_dodoi"`` or a :class:`Game`.
        max_plies: truncation limit (TR1), default 1000; only with a game name.
        holes_per_row: En Dodoi width 6..10 (default 8); only with the name ``"en_dodoi"``.
        first_player: ``"player_0"`` (default), ``"player_1"`` or ``"random"`` (drawn from
            ``np_random`` at every reset).
        render_mode: None, ``"human"`` (prints the text board after reset and every step),
            ``"ansi"`` or ``"rgb_array"``.
        illegal_action: ``"terminate"`` (default) or ``"raise"``.
        name: ``metadata["name"]``; default ``"<game name>_v0"``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "mancala_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        game: str | Game,
        *,
        max_plies: int | None = None,
        holes_per_row: int | None = None,
        first_player: str = "player_0",
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        name: str | None = None,
    ):
        super().__init__()
        if isinstance(game, Game):
            if max_plies is not None or holes_per_row is not None:
                raise ValueError("with a Game, max_plies and holes_per_row are set on the Game itself")
        elif isinstance(game, str):
            params = {"max_plies": max_plies}
            if holes_per_row is not None:
                params["holes_per_row"] = holes_per_row
            game = get_game(game, **params)
        else:
            raise ValueError(f"game must be a game name or a Game, got {type(game).__name__}")
        if first_player not in FIRST_PLAYERS:
            raise ValueError(f"first_player must be one of {FIRST_PLAYERS}, got {first_player!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")

        self.game = game
        self.metadata = {**MancalaEnv.metadata, "name": name or f"{game.name}_v0"}
        self.render_mode = render_mode
        self.first_player = first_player
        self.illegal_action = illegal_action
        self.possible_agents = list(AGENTS)
        n = game.holes_per_row
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (game.observation_size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(n) for a in AGENTS}
        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None

        # Fixed data of the hot path.
        self._n = n
        self._rules = game.rules
        self._total = game.total_seeds
        self._obs_size = game.observation_size
        self._mask_at = K.off_mask(n)
        self._cap_at = K.off_captured(n)
        self._status_at = K.off_status(n)
        self._to_move_at = K.off_to_move(n)
        self._winner_at = K.off_winner(n)
        self._index = {a: i for i, a in enumerate(AGENTS)}
        self._other = {AGENTS[0]: AGENTS[1], AGENTS[1]: AGENTS[0]}
        self._starts = (game.initial_state(0).array, game.initial_state(1).array)
        self._human = render_mode == "human"
        self._s: np.ndarray | None = None  # the packed core state (writeable, private)
        self._live = False  # True from reset() until the game ends
        self._note: str | None = None  # how an illegal move ended the game (for rendering)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled arrays come back writeable; the kernels must see the game's read-only rules
        # vector (the signature they were compiled for), so take it from the rebuilt Game.
        self.__dict__.update(state)
        self._rules = self.game.rules

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: the per-episode attributes before reset().
        if name in _NEEDS_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset()")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ spaces and views

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def game_state(self) -> State:
        """The current position as an immutable core :class:`State` (a copy)."""
        self._require_reset("game_state")
        return self.game.state_from_array(self._s)

    def state(self) -> np.ndarray:
        """The canonical global state: a copy of the packed core ``int32`` vector of length
        ``game.state_size`` (layout in :mod:`mancala_envs.kernels`: board, captured, to_move, ply,
        status, winner, first_move_pending, last action, legal mask). ``game.state_from_array``
        turns it into a :class:`State`. After an illegal-move termination its status is *done*
        with no winner and an all-zero mask."""
        self._require_reset("state")
        return self._s.copy()

    def _require_reset(self, what: str) -> None:
        if self._s is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before {what}()")

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. ``seed`` reseeds ``np_random`` (used by ``first_player="random"``);
        ``options`` is accepted and ignored."""
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        if self.first_player == "random":
            first = int(self.np_random.integers(2))
        else:
            first = self._index[self.first_player]
        self._s = self._starts[first].copy()
        agents = self.possible_agents
        self.agents = agents[:]
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self._set_infos()
        self.agent_selection = agents[first]
        self._skip_agent_selection = None
        self._live = True
        self._note = None
        if self._human:
            self.render()

    def _set_infos(self) -> None:
        c0, c1 = self._s[self._cap_at : self._cap_at + 2].tolist()
        self.infos = {"player_0": {"captured": (c0, c1)}, "player_1": {"captured": (c1, c0)}}

    def step(self, action: int | None) -> None:
        """Play ``action`` (a local hole) for ``agent_selection``; see the module docstring."""
        if not self._live:
            return self._step_not_live(action)
        if type(action) is not int:
            action = self._as_int(action)
        s = self._s
        if not 0 <= action < self._n:
            raise IllegalMoveError(
                f"{self.metadata['name']}: action {action} is out of range, holes are 0..{self._n - 1}"
            )
        if not s[self._mask_at + action]:
            return self._illegal(action)
        _apply_move(s, action, self._rules)
        self.agent_selection = AGENTS[s[self._to_move_at]]  # read from the state, never assumed
        c0, c1 = s[self._cap_at : self._cap_at + 2].tolist()
        self.infos = {"player_0": {"captured": (c0, c1)}, "player_1": {"captured": (c1, c0)}}
        if s[self._status_at]:
            self._finish()
        if self._human:
            self.render()

    def _as_int(self, action: object) -> int:
        if isinstance(action, np.integer) or (
            isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
        ):
            return int(action)
        raise ValueError(
            f"{self.metadata['name']}: an action is an integer hole index 0..{self._n - 1}, got {action!r}"
        )

    def _step_not_live(self, action: object) -> None:
        if self._s is None:
            self._require_reset("step")
        if not self.agents:
            warnings.warn(
                f"{self.metadata['name']}: step() called after every agent is done; call reset()",
                stacklevel=3,
            )
            return
        self._was_dead_step(action)

    def _finish(self) -> None:
        """The core ended the game (done or truncated): rewards, flags and infos."""
        s = self._s
        self._live = False
        agents = self.agents
        if s[self._status_at] == K.TRUNCATED:
            self.truncations = {a: True for a in agents}
            winner = None
        else:
            self.terminations = {a: True for a in agents}
            w = int(s[self._winner_at])
            winner = AGENTS[w] if w in (0, 1) else None
            if winner is not None:
                self.rewards = {a: (1.0 if a == winner else -1.0) for a in agents}
        for info in self.infos.values():
            info["winner"] = winner
        self._accumulate_rewards()

    def _illegal(self, action: int) -> None:
        agent = self.agent_selection
        legal = np.flatnonzero(self._s[self._mask_at : self._mask_at + self._n]).tolist()
        message = (
            f"{self.metadata['name']}: action {action} is illegal for {agent}; legal actions: {legal}"
        )
        if self.illegal_action == "raise":
            raise IllegalMoveError(message)
        warnings.warn(f"{message}. The game ends: -1 to {agent}, 0 to the other agent.", stacklevel=3)
        s = self._s
        s[self._status_at] = K.DONE  # winner stays NO_WINNER: a forfeit, not a rules result
        s[self._mask_at : self._mask_at + self._n] = 0
        other = self._other[agent]
        self._live = False
        self._note = f"game over: {agent} forfeited by illegal action {action}"
        self.rewards = {agent: -1.0, other: 0.0}
        self._cumulative_rewards[agent] = 0.0
        self.terminations = {a: True for a in self.agents}
        for info in self.infos.values():
            info["winner"] = None
        self.infos[agent]["illegal_action"] = action
        self._accumulate_rewards()
        self.agent_selection = other
        if self._human:
            self.render()

    # ------------------------------------------------------------------ observations

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Fresh arrays: ``{"observation": float32 (observation_size,), "action_mask": int8 (n,)}``."""
        s = self._s
        if s is None:
            self._require_reset("observe")
        try:
            index = self._index[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}") from None
        obs = np.empty(self._obs_size, dtype=np.float32)
        _observe(s, index, self._rules, self._total, obs)
        if self._live and agent == self.agent_selection:  # the agent to move of a running game
            mask = s[self._mask_at : self._mask_at + self._n].astype(np.int8)
        else:
            mask = np.zeros(self._n, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the text board as the player to move sees it; ``rgb_array``: an ``(H, W, 3)``
        ``uint8`` image (``player_0`` at the bottom); ``human``: prints the text board."""
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode to env()", stacklevel=2)
            return None
        self._require_reset("render")
        state = self.game_state
        if self.render_mode == "rgb_array":
            return rgb_board(self.game, state, self.metadata["name"], self._note)
        text = ansi_board(self.game, state, self.metadata["name"], self._note)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release: rendering opens no window."""


EnvFn = Callable[..., MancalaEnv]


def make_env_functions(game_name: str, module_name: str) -> tuple[EnvFn, EnvFn]:
    """The ``env`` and ``raw_env`` functions of a per-game module. Both return a bare
    :class:`MancalaEnv` (the wrapper guarantees are built in); unknown keyword arguments raise
    ``ValueError`` naming the accepted ones."""
    short_name = module_name.rpartition(".")[2]
    accepted = {"max_plies", "first_player", "render_mode", "illegal_action"}
    if game_name == "en_dodoi":
        accepted.add("holes_per_row")

    def raw_env(**kwargs: Any) -> MancalaEnv:
        unknown = sorted(set(kwargs) - accepted)
        if unknown:
            raise ValueError(
                f"unknown argument(s) {', '.join(unknown)} for {short_name}; "
                f"accepted: {', '.join(sorted(accepted))}"
            )
        return MancalaEnv(game_name, name=short_name, **kwargs)

    def env(**kwargs: Any) -> MancalaEnv:
        return raw_env(**kwargs)

    docs = ((env, "The environment"), (raw_env, "The same environment (kept for PettingZoo convention)"))
    for fn, what in docs:
        fn.__module__ = module_name
        fn.__qualname__ = fn.__name__
        fn.__doc__ = f"{what}: a :class:`~mancala_envs.aec.MancalaEnv` of {game_name} (module docstring)."
    return env, raw_env
