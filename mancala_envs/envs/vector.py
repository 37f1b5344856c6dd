"""A fast Stable-Baselines3 vector env: ``num_envs`` games stepped together in compiled code
(needs the ``[sb3]`` extra; without it, importing this module raises
:class:`~mancala_envs.infra.extras.MissingExtraError`).

:class:`MancalaVecEnv` is the SB3 ``VecEnv`` face of the framework-free
:class:`~mancala_envs.envs.vector_driver.VectorDriver`, which keeps every game in one packed
``int32`` array (the core's layout, shape ``(num_envs, game.state_size)``) and steps them all with
one kernel call per ``step_wait`` (:mod:`mancala_envs.envs.vector_kernel`), so the games follow
exactly the rules of :class:`~mancala_envs.envs.single.SingleAgentEnv`. The Gymnasium face of
the same driver is :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv`.

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
- **Infos.** ``reset_infos[i]`` and every step's ``infos[i]`` hold the keys of
  :data:`~mancala_envs.envs.common.INFO_KEYS` as plain numbers: ``seat`` (the learner's),
  ``captured`` ((learner's, opponent's) ints), ``ply``, ``winner`` (-2 ``NO_WINNER`` while the
  game runs) and ``illegal_action`` (False).
  ``infos`` is a :class:`StepInfos`, a sequence that builds a game's dict the first time it is
  read, so a step costs no dict per game (issue 43: building them all cost 2–3× of the raw
  stepping rate); reading them all costs what building them did.
  ``infos="ends"``: the infos of running games are empty dicts (finished games' as below); the
  training scripts, which read only finished games, use it.
- **Auto-reset** in the same step (``metadata["autoreset_mode"]``: ``AutoresetMode.SAME_STEP``, as
  SB3's own vector envs): a finished game restarts at once; ``infos[i]`` of that step is the
  finished episode's (``seat``, ``captured``, ``ply``, ``winner`` 0/1, -1 a draw or -2 truncated,
  ``illegal_action``) plus ``terminal_observation`` and ``TimeLimit.truncated``.
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

The SB3 vector env at a glance:

====================  ========================================================================================
Import                ``from mancala_envs.envs.vector import MancalaVecEnv`` (the ``[sb3]`` extra), then
                      ``MancalaVecEnv("sadeqa_ii", 16, opponent="minimax:depth=2")``
API                   Stable-Baselines3's ``VecEnv``: ``num_envs`` learners, each against the fixed opponent,
                      stepped in one compiled call
Actions               ``Discrete(n)`` per game; ``step`` takes ``num_envs`` integer actions
Observation           ``obs_format="flat"`` (default): ``Box(0, 1, (obs_size,), float32)`` per game
                      (``counts=True``: ``Box(0, total_seeds)``); ``"dict"``: ``Dict(observation,
                      action_mask)`` (``MultiInputPolicy``)
Action mask           :meth:`MancalaVecEnv.action_masks` (what ``MaskablePPO`` reads), ``(num_envs, n)`` int8;
                      ``"dict"``: also ``obs["action_mask"]``
Rewards               +1 / -1 / 0 to each learner at a natural end, 0 on truncation
                      (``info["TimeLimit.truncated"]``), -1 for an illegal move
Autoreset             ``AutoresetMode.SAME_STEP``: ``infos[i]["terminal_observation"]``, SB3's convention
Seats                 drawn per episode (each 1/2); the opponent moves first where it is to move
Registered ids        none (SB3 has no registry); ``gymnasium.make_vec`` builds the Gymnasium face,
                      :class:`~mancala_envs.envs.gym_vector.MancalaVectorEnv`
====================  ========================================================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, overload

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from mancala_envs.infra.extras import require

require("stable_baselines3", "sb3", "MancalaVecEnv (the Stable-Baselines3 face of the vector env)")

from stable_baselines3.common.vec_env import VecEnv  # noqa: E402  (after the clear message above)
from stable_baselines3.common.vec_env.base_vec_env import (  # noqa: E402
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from mancala_envs.envs.vector_driver import MIN_GAMES_PER_THREAD, VectorDriver  # noqa: E402
from mancala_envs.game import Game  # noqa: E402

__all__ = ["MIN_GAMES_PER_THREAD", "MancalaVecEnv", "StepInfos"]


INFO_MODES = ("all", "ends")  # every step's infos, or only finished games'


class MancalaVecEnv(VecEnv):
    """``num_envs`` games of one mancala game against a fixed opponent, as an SB3 ``VecEnv``.

    Arguments:

    ==================  ===============  =====================================================================
    argument            default          meaning
    ==================  ===============  =====================================================================
    ``game``            —                a game name or a :class:`~mancala_envs.Game`
    ``num_envs``        —                the number of games stepped together
    ``opponent``        ``"random"``     ``"random"`` (moves drawn inside the kernel), an agent spec, an agent
                                         or a batched callable (module docstring)
    ``seed``            ``0``            seeds every random choice of the env (``None``: fresh entropy)
    ``obs_format``      ``"flat"``       ``"flat"`` (``Box``, masks from :meth:`action_masks`) or ``"dict"``
    ``illegal_action``  ``"terminate"``  ``"terminate"`` (the episode ends, reward -1, a warning) or
                                         ``"raise"``
    ``num_threads``     ``1``            split the games into this many blocks stepped on as many threads
    ``counts``          ``False``        observations hold raw seed counts instead of fractions of the total
    ``openings``        ``None``         start positions drawn per episode (``None``: the initial position)
    ``infos``           ``"all"``        ``"all"``: every game's infos every step; ``"ends"``: finished games'
                                         only (faster)
    ``**game_params``   —                ``max_plies`` (default 1000), ``holes_per_row`` (En Dodoi): to
                                         :func:`~mancala_envs.get_game` with a game name
    ==================  ===============  =====================================================================
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
        infos: str = "all",
        **game_params: Any,
    ):
        if obs_format not in ("flat", "dict"):
            raise ValueError(f"obs_format must be 'flat' or 'dict', got {obs_format!r}")
        if infos not in INFO_MODES:
            raise ValueError(f"infos must be one of {', '.join(INFO_MODES)}, got {infos!r}")
        self._obs_format, self.info_mode = obs_format, infos
        self._driver = d = VectorDriver(
            game,
            num_envs,
            opponent=opponent,
            seed=seed,
            illegal_action=illegal_action,
            num_threads=num_threads,
            counts=counts,
            openings=openings,
            name=type(self).__name__,
            env=type(self),
            **game_params,
        )
        super().__init__(d.num_envs, d.dict_space if obs_format == "dict" else d.flat_space, d.action_space)
        self.metadata["autoreset_mode"] = AutoresetMode.SAME_STEP

    # ------------------------------------------------------------------ settings

    @property
    def game(self) -> Game:
        return self._driver.game

    @property
    def obs_format(self) -> str:
        return self._obs_format

    @property
    def opponent(self) -> Any:
        """``"random"`` or the opponent agent; may be replaced between steps."""
        return self._driver.opponent

    @opponent.setter
    def opponent(self, value: Any) -> None:
        self._driver.opponent = value

    @property
    def illegal_action(self) -> str:
        """``"terminate"`` or ``"raise"``; may be changed between steps."""
        return self._driver.illegal_action

    @illegal_action.setter
    def illegal_action(self, value: str) -> None:
        self._driver.illegal_action = value

    @property
    def driver(self) -> VectorDriver:
        """The framework-free driver this env is a face of."""
        return self._driver

    @property
    def _blocks(self) -> list[slice]:
        """The blocks of games, one per thread (the driver's)."""
        return self._driver._blocks

    def _observations(self) -> VecEnvObs:
        obs = self._driver.observations()
        if self.obs_format == "dict":
            return {"observation": obs, "action_mask": self._driver.action_masks()}
        return obs

    # ------------------------------------------------------------------ VecEnv API

    def reset(self) -> VecEnvObs:
        """Restart every game (new starts and seats; the opponent moves first where it must)."""
        self._driver.reset()
        return self._started()

    def reset_to(self, states: Sequence[Any], seats: Sequence[int] | None = None) -> VecEnvObs:
        """Start game ``i`` from ``states[i]`` (a running State or its dict) with the learner in
        ``seats[i]`` (default: drawn); later episodes start as usual."""
        self._driver.reset_to(states, seats)
        return self._started()

    def _started(self) -> VecEnvObs:
        self.reset_infos = StepInfos(self._driver.infos())
        return self._observations()

    def step_async(self, actions: np.ndarray) -> None:
        self._driver.set_actions(actions)

    def step_wait(self) -> VecEnvStepReturn:
        done = self._driver.advance(stacklevel=3)  # the warning points at the caller of step()
        infos: StepInfos | list[dict[str, Any]]
        if self.info_mode == "all":  # each game's dict is built when it is read
            infos = StepInfos(self._driver.infos())
        else:  # "ends": a running game's infos stay empty
            infos = [{} for _ in range(self.num_envs)]
        if done.size:
            self._fill_end_infos(infos, done)
        return self._observations(), self._driver.rewards(), self._driver.dones(), infos

    def _fill_end_infos(self, infos: StepInfos | list[dict[str, Any]], done: np.ndarray) -> None:
        """The infos of the games ``done``: their finished episodes', with SB3's two keys."""
        ends = self._driver.end_infos(done)
        truncated = ends.pop("truncated").tolist()
        terminal: list[Any] = list(self._driver.terminal_observations(done))  # rows of one fresh copy
        if self.obs_format == "dict":
            empty = np.zeros(self.game.num_actions, dtype=np.int8)
            terminal = [{"observation": obs, "action_mask": empty.copy()} for obs in terminal]
        for i, info, obs, cut in zip(done.tolist(), _info_dicts(ends), terminal, truncated, strict=True):
            infos[i] = {"terminal_observation": obs, "TimeLimit.truncated": cut, **info}

    def action_masks(self) -> np.ndarray:
        """int8 legal masks of the learners, shape ``(num_envs, n)`` (for ``MaskablePPO``)."""
        return self._driver.action_masks()

    @property
    def seats(self) -> np.ndarray:
        """The learner's seat in each game's current episode."""
        return self._driver.seats

    @property
    def states(self) -> np.ndarray:
        """A copy of the packed states, shape ``(num_envs, game.state_size)``."""
        return self._driver.states

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Reseed now (``None``: fresh entropy): one generator per block of games, spawned from
        ``numpy.random.SeedSequence(seed)``, and an opponent built from a spec. Returns the seed
        once per game."""
        return self._driver.seed(seed)

    def close(self) -> None:
        """Stop the worker threads, if any; the env cannot step any more."""
        self._driver.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``"seat"`` per game; any other attribute is the (shared) attribute of this env."""
        idx = list(self._get_indices(indices))
        if attr_name == "seat":
            seats = self._driver.seats
            return [int(seats[i]) for i in idx]
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
        return list(self._driver.action_masks()[list(self._get_indices(indices))])

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return super()._get_indices(indices)


class StepInfos(Sequence[dict[str, Any]]):
    """The ``infos`` of a step (and ``reset_infos``): a sequence of one dict per game, each built
    the first time it is read, from the step's info arrays (then the same dict each time, so a
    wrapper's changes stay: SB3's ``VecMonitor`` and ``VecNormalize`` change them). A step pays
    for the arrays only, not for a dict per game; reading every dict costs what building them did.
    ``infos[i] = d`` replaces one; slices are lists; it compares equal to the list of its dicts."""

    __slots__ = ("_columns", "_dicts", "_values")

    def __init__(self, values: dict[str, np.ndarray]) -> None:
        self._values = values
        self._columns: list[list[Any]] | None = None  # the arrays as lists, made on the first read
        self._dicts: list[dict[str, Any] | None] = [None] * len(values["seat"])

    def __len__(self) -> int:
        return len(self._dicts)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        info = self._dicts[index]
        if info is None:
            info = self._dicts[index] = self._build(index % len(self._dicts))
        return info

    def __setitem__(self, index: int, info: dict[str, Any]) -> None:
        self._dicts[index] = info

    def _build(self, i: int) -> dict[str, Any]:
        """Game ``i``'s dict of :func:`~mancala_envs.envs.common.info_dict` (plain numbers)."""
        if self._columns is None:
            v = self._values
            captured = v["captured"]
            raw = (v["seat"], captured[:, 0], captured[:, 1], v["ply"], v["winner"], v["illegal_action"])
            self._columns = [c.tolist() for c in raw]
        seat, own, opp, ply, winner, illegal = (c[i] for c in self._columns)
        return {"seat": seat, "captured": (own, opp), "ply": ply, "winner": winner, "illegal_action": illegal}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return repr(list(self))


def _info_dicts(values: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Every row's info dict of the driver's info arrays ``values`` (the finished games')."""
    return list(StepInfos(values))
