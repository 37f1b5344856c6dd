"""One generic PettingZoo AEC environment, :class:`MancalaEnv`, over the rules core (just over
400 lines: one class, the AEC interface with its built-in wrapper guarantees).

A game is data: the class takes a game name (or a :class:`~mancala_envs.Game`) and every rule is
the core's (:func:`mancala_envs.core.engine.play`). The per-game modules (``songo_ewondo_v0``,
``sadeqa_ii_v0``, ``en_dodoi_v0``) subclass it as their ``raw_env``.

Spaces (the same objects on every call, one pair per agent)::

    action_space(agent)      = Discrete(n)               the mover's local hole, 0..n-1 (RULES.md §1)
    observation_space(agent) = Dict(                     obs_format="dict" (default)
        observation = Box(0, 1, (game.observation_size,), float32),   exactly game.observation(state, i)
        action_mask = Box(0, 1, (n,), int8),   legal holes for the agent to move; all 0 for the
    )                                          other agent and once the game is over
    observation_space(agent) = Box(0, 1, (game.observation_size,), float32)    obs_format="flat":
                               the observation alone; the mask is infos[agent]["action_mask"]

Rewards come only at the end: +1 to the winner, -1 to the loser, 0 to both on a draw or a
truncation (``max_plies`` reached: ``truncations`` True for both). ``infos[agent]`` holds the same
numeric keys after reset and every step (:data:`~mancala_envs.envs.common.INFO_KEYS`):
``{"seat": 0 for player_0 / 1 for player_1, "captured": (own, opponent), "ply": moves played,
"winner": 0 / 1 the winning agent's index, -1 a draw, -2 none (running, truncated or an
illegal-move forfeit), "illegal_action": True for the agent whose illegal action ended the
game}`` (``obs_format="flat"`` adds ``"action_mask"``). ``reset(options={"state": state})``
starts from a :class:`~mancala_envs.State` of the game (or its ``to_dict()`` form) instead of
the start. ``reset(seed=S)`` seeds ``np_random`` and both action spaces (apart), so a game played
with ``action_space(agent).sample(mask)`` after it is the same on every run.

The guarantees of PettingZoo's standard wrappers (``OrderEnforcingWrapper``,
``AssertOutOfBoundsWrapper``, ``TerminateIllegalWrapper``) are built in, without their per-step
cost, so ``env()`` returns the bare class:

* ``step``, ``observe``, ``state``, ``render`` before ``reset()`` raise ``RuntimeError``; reading
  ``agents``, ``rewards``, ``terminations``, ``truncations``, ``infos`` or ``agent_selection``
  before ``reset()`` raises ``AttributeError``; ``step`` once every agent is done warns and does
  nothing.
* An unknown keyword argument raises :class:`~mancala_envs.envs.common.UnknownArgumentError`
  (a ``TypeError`` and a ``ValueError``), in Python's words, listing the accepted ones.
* An action that is not an integer (Python or NumPy integer, or a 0-d integer array) raises
  ``ValueError``; an integer outside ``0..n-1`` raises
  :class:`~mancala_envs.IllegalMoveError` (a ``ValueError``) in every mode.
* An in-range but illegal action: with ``illegal_action="terminate"`` (default) the game ends at
  once, a ``UserWarning`` is issued, the offender gets -1 and the other agent 0, both are
  terminated (not truncated); with ``illegal_action="raise"`` it raises ``IllegalMoveError`` and
  nothing changes.
* A done agent must step ``None`` (AEC ``_was_dead_step``); anything else raises ``ValueError``.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from mancala_envs.core.batch import view_into
from mancala_envs.core.engine import new_work, play
from mancala_envs.core.layout import DONE, NO_WINNER, TRUNCATED
from mancala_envs.envs.common import AGENTS, info_dict, resolve_game, start_state
from mancala_envs.game import Game, outcome
from mancala_envs.render import ansi_board, rgb_board
from mancala_envs.rulesets import ruleset_parameters
from mancala_envs.state import IllegalMoveError, State

FIRST_PLAYERS = ("player_0", "player_1", "random")
ILLEGAL_ACTION_MODES = ("terminate", "raise")
OBS_FORMATS = ("dict", "flat")
_NEEDS_RESET = frozenset(
    {
        "agents",
        "rewards",
        "terminations",
        "truncations",
        "infos",
        "agent_selection",
        "num_agents",
        "_cumulative_rewards",
    }
)


class MancalaEnv(AECEnv):
    """PettingZoo AEC env of one mancala game (layout, rewards and checks in the module docstring).

    Arguments (all but ``game`` keyword-only; the per-game ``raw_env`` classes set ``game``):

    ==================  ===============  =====================================================================
    argument            default          meaning
    ==================  ===============  =====================================================================
    ``game``            ``None``         ``"songo_ewondo"``, ``"sadeqa_ii"``, ``"en_dodoi"`` (any registered
                                         game's name) or a :class:`~mancala_envs.Game`
    ``first_player``    ``"player_0"``   ``"player_0"``, ``"player_1"`` or ``"random"`` (drawn from
                                         ``np_random`` at every reset)
    ``render_mode``     ``None``         ``None``, ``"human"`` (prints the text board after reset and every
                                         step), ``"ansi"`` or ``"rgb_array"``
    ``illegal_action``  ``"terminate"``  ``"terminate"`` (the game ends: -1 to the offender, a warning) or
                                         ``"raise"``
    ``obs_format``      ``"dict"``       ``"dict"`` or ``"flat"`` (the mask goes to the infos)
    ``max_cycles``      ``None``         PettingZoo's name for a truncation limit in cycles (one move per
                                         agent): ``max_plies = 2 * max_cycles``; give one of the two
    ``name``            ``None``         ``metadata["name"]``; ``None``: ``"<game name>_v0"``
    ``**game_params``   —                the game's parameters, only with a game name: ``max_plies`` (TR1,
                                         default 1000) and those its ``GameInfo`` declares (En Dodoi's
                                         ``holes_per_row`` 6..10, default 8); ``None``: the game's own value
    ==================  ===============  =====================================================================
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "mancala_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    game_name: ClassVar[str | None] = None  # set by the per-game subclasses (their raw_env)

    def __init_subclass__(cls, game: str | None = None, **kwargs: Any) -> None:
        """``class raw_env(MancalaEnv, game="songo_ewondo")``: an env class for one game."""
        super().__init_subclass__(**kwargs)
        if game is not None:
            cls.game_name = game
            cls.metadata = {**MancalaEnv.metadata, "name": f"{game}_v0"}

    def __init__(
        self,
        game: str | Game | None = None,
        *,
        first_player: str = "player_0",
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        obs_format: str = "dict",
        max_cycles: int | None = None,
        name: str | None = None,
        **game_params: Any,
    ):
        super().__init__()
        game = self._resolve(game, max_cycles, game_params)
        for what, value, allowed in (
            ("first_player", first_player, FIRST_PLAYERS),
            ("illegal_action", illegal_action, ILLEGAL_ACTION_MODES),
            ("obs_format", obs_format, OBS_FORMATS),
        ):
            if value not in allowed:
                raise ValueError(f"{what} must be one of {allowed}, got {value!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")

        self.game = game
        self.metadata = {**type(self).metadata, "name": name or f"{game.name}_v0"}
        self.render_mode = render_mode
        self.first_player = first_player
        self.illegal_action = illegal_action
        self.obs_format = obs_format
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {a: self._observation_space() for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(game.holes_per_row) for a in AGENTS}
        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self._fix_hot_path(game)
        self._s: np.ndarray | None = None  # the packed core state (writeable, private)
        self._live = False  # True from reset() until the game ends
        self._note: str | None = None  # how an illegal move ended the game (for rendering)

    def _resolve(self, game: str | Game | None, max_cycles: int | None, game_params: dict[str, Any]) -> Game:
        """The env's :class:`Game`: ``game`` (None: the subclass's) with ``game_params`` and
        ``max_cycles`` (``max_plies = 2 * max_cycles``), validated by
        :func:`~mancala_envs.envs.common.resolve_game`."""
        if game is None:
            if self.game_name is None:
                raise ValueError("MancalaEnv needs a game: a game name or a mancala_envs.Game")
            game = self.game_name
        if max_cycles is not None:
            if game_params.get("max_plies") is not None:
                raise ValueError("give max_plies or max_cycles, not both")
            whole = isinstance(max_cycles, (int, np.integer)) and not isinstance(max_cycles, bool)
            if not whole or max_cycles < 1:
                raise ValueError(f"max_cycles must be a positive integer, got {max_cycles!r}")
            game_params = {**game_params, "max_plies": 2 * int(max_cycles)}
        return resolve_game(game, game_params, min_plies=1, env=type(self))

    def _observation_space(self) -> spaces.Space:
        """One agent's observation space (one object per agent, so that their samplers are seeded
        apart)."""
        box = spaces.Box(0.0, 1.0, (self.game.observation_size,), np.float32)
        if self.obs_format == "flat":
            return box
        mask_box = spaces.Box(0, 1, (self.game.holes_per_row,), np.int8)
        return spaces.Dict({"observation": box, "action_mask": mask_box})

    def _fix_hot_path(self, game: Game) -> None:
        """The fixed data of the hot path: the game's rules, layout positions and scratch."""
        lay = game.layout
        self._n = game.holes_per_row
        self._rules = game.rules
        self._scale = 1.0 / game.total_seeds
        self._obs_size = game.observation_size
        self._mask = lay.mask
        self._cap = lay.captured
        self._status_at = lay.status
        self._to_move_at = lay.to_move
        self._winner_at = lay.winner
        self._ply_at = lay.ply
        self._flat = self.obs_format == "flat"
        self._work = new_work(game.holes_per_row)
        self._index = {a: i for i, a in enumerate(AGENTS)}
        self._other = {AGENTS[0]: AGENTS[1], AGENTS[1]: AGENTS[0]}
        self._human = self.render_mode == "human"

    @staticmethod
    def accepted_arguments(game: str | None) -> list[str]:
        """The keyword arguments the env of the game named ``game`` takes, sorted."""
        own = {"first_player", "illegal_action", "max_cycles", "max_plies", "name", "obs_format"}
        return sorted({*own, "render_mode", *ruleset_parameters(game)})  # the game's, e.g. holes_per_row

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

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def game_state(self) -> State:
        """The current position as an immutable core :class:`State` (a copy; after an
        illegal-move forfeit, status done with no winner, as :meth:`state`)."""
        self._require_reset("game_state")
        return State(self.game, self._s.copy())

    def state(self) -> np.ndarray:
        """The canonical global state: a copy of the packed core ``int32`` vector of length
        ``game.state_size`` (layout in :mod:`mancala_envs.core.layout`); ``game.state_from_array``
        turns it into a :class:`State`. After an illegal-move termination its status is *done*
        with no winner and an all-zero mask (a forfeit, which ``state_from_array`` refuses)."""
        self._require_reset("state")
        return self._s.copy()

    def _require_reset(self, what: str) -> None:
        if self._s is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before {what}()")

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. ``seed`` reseeds ``np_random`` (used by ``first_player="random"``) and
        each agent's action space (apart, from ``SeedSequence(seed)``), so that ``reset(seed=S)``
        then ``action_space(agent).sample(mask)`` plays the same game every run;
        ``options={"state": state}`` starts from a running position of this game."""
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        if seed is not None:
            streams = np.random.SeedSequence(self.np_random_seed).spawn(len(self.action_spaces))
            for space, stream in zip(self.action_spaces.values(), streams, strict=True):
                space.seed(int(stream.generate_state(1)[0]))
        if self.first_player == "random":
            first = int(self.np_random.integers(2))
        else:
            first = self._index[self.first_player]
        start = start_state(self.game, options, first)
        self._s = start.array.copy()
        agents = self.possible_agents
        self.agents = agents[:]
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.agent_selection = agents[start.to_move]
        self._skip_agent_selection = None
        self._live = True
        self._set_infos()  # last: the flat format's masks depend on agent_selection and _live
        self._note = None
        if self._human:
            self.render()

    def _set_infos(self, offender: str | None = None) -> None:
        s = self._s
        c0, c1 = s[self._cap].tolist()
        ply, winner = int(s[self._ply_at]), int(s[self._winner_at])
        self.infos = {
            "player_0": info_dict(0, (c0, c1), ply, winner, offender == "player_0"),
            "player_1": info_dict(1, (c1, c0), ply, winner, offender == "player_1"),
        }
        if self._flat:
            for agent in AGENTS:
                self.infos[agent]["action_mask"] = self._mask_of(agent)

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
        if not s[self._mask][action]:
            return self._illegal(action)
        play(s, action, self._rules, self._work, True)
        self.agent_selection = AGENTS[s[self._to_move_at]]  # read from the state, never assumed
        if s[self._status_at]:
            self._live = False
        self._set_infos()
        if not self._live:
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
        agents = self.agents
        if s[self._status_at] == TRUNCATED:
            self.truncations = {a: True for a in agents}
        else:
            self.terminations = {a: True for a in agents}
            w = int(s[self._winner_at])
            self.rewards = {a: float(outcome(w, self._index[a])) for a in agents}
        self._accumulate_rewards()  # the infos' winner is the state's (NO_WINNER when truncated)

    def _illegal(self, action: int) -> None:
        agent = self.agent_selection
        legal = np.flatnonzero(self._s[self._mask]).tolist()
        message = f"{self.metadata['name']}: action {action} is illegal for {agent}; legal actions: {legal}"
        if self.illegal_action == "raise":
            raise IllegalMoveError(message)
        warnings.warn(f"{message}. The game ends: -1 to {agent}, 0 to the other agent.", stacklevel=3)
        s = self._s
        s[self._status_at] = DONE
        s[self._winner_at] = NO_WINNER  # a forfeit, not a rules result
        s[self._mask] = 0
        other = self._other[agent]
        self._live = False
        self._note = f"game over: {agent} forfeited by illegal action {action}"
        self.rewards = {agent: -1.0, other: 0.0}
        self._cumulative_rewards[agent] = 0.0
        self.terminations = {a: True for a in self.agents}
        self._set_infos(offender=agent)
        self._accumulate_rewards()
        self.agent_selection = other
        if self._human:
            self.render()

    # ------------------------------------------------------------------ observations

    def _mask_of(self, agent: str) -> np.ndarray:
        if self._live and agent == self.agent_selection:  # the agent to move of a running game
            return self._s[self._mask].astype(np.int8)
        return np.zeros(self._n, dtype=np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """Fresh arrays: ``{"observation": float32 (observation_size,), "action_mask": int8 (n,)}``
        (``obs_format="flat"``: the observation alone)."""
        s = self._s
        if s is None:
            self._require_reset("observe")
        try:
            index = self._index[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}") from None
        obs = np.empty(self._obs_size, dtype=np.float32)
        view_into(s, index, self._rules, self._scale, obs)
        if self._flat:
            return obs
        return {"observation": obs, "action_mask": self._mask_of(agent)}

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the text board (``player_0``'s row at the bottom); ``rgb_array``: an
        ``(H, W, 3)`` ``uint8`` image; ``human``: prints the text board."""
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
