"""The compiled vector env as a Gymnasium ``VectorEnv`` (for CleanRL-style training loops):
``gymnasium.make_vec("mancala_envs/SongoEwondo-v0", num_envs=512, opponent="greedy")``.

It is the Gymnasium face of the framework-free :class:`~mancala_envs.envs.vector_driver.VectorDriver`
(no Stable-Baselines3 needed; the SB3 face of the same driver is
:class:`~mancala_envs.envs.vector.MancalaVecEnv`, whose games it plays move for move) and
follows Gymnasium's conventions: ``reset(seed=...)`` returns ``(obs, infos)``, ``step`` returns
``(obs, rewards, terminations, truncations, infos)`` with arrays of ``num_envs``.

- **Observations.** ``obs_format="flat"`` (default): ``Box(num_envs, obs_size)``, the legal masks
  in ``infos["action_mask"]`` (int8, ``(num_envs, n)``) and :meth:`action_masks`.
  ``obs_format="dict"``: ``Dict(observation=Box(num_envs, obs_size), action_mask=Box(num_envs, n,
  int8))``, the single-agent env's default format batched (masks also in :meth:`action_masks`).
- **Autoreset in the same step** (``metadata["autoreset_mode"] == AutoresetMode.SAME_STEP``): a
  finished game restarts at once; its last observation is ``infos["final_obs"][i]`` (with an
  all-zero mask in the dict format), its end info ``infos["final_info"]`` (``seat``, ``captured``,
  ``ply``, ``winner``, ``illegal_action``, each with its ``_key`` mask).
- **Infos** from ``reset`` and every step: the keys of
  :data:`~mancala_envs.envs.common.INFO_KEYS` as arrays, each with its ``_key`` mask: ``seat``,
  ``ply``, ``winner`` (``int64``; ``NO_WINNER`` -2 while a game runs), ``captured`` (``int64``,
  ``(num_envs, 2)``: learner's, opponent's) and ``illegal_action`` (bool). A game that restarted
  in the step shows its new episode's values there (the finished one's are in ``final_info``).

Other arguments as ``MancalaVecEnv`` (``opponent``, ``counts``, ``openings``, ``illegal_action``,
``num_threads``, game parameters).

The Gymnasium vector env at a glance:

====================  ========================================================================================
Import                ``import mancala_envs`` then ``gymnasium.make_vec("mancala_envs/SongoEwondo-v0",
                      num_envs=512, opponent="greedy")``, or ``MancalaVectorEnv("songo_ewondo", 512,
                      opponent="greedy")``
API                   Gymnasium's ``VectorEnv`` (no Stable-Baselines3 needed): ``num_envs`` learners, each
                      against the fixed opponent, stepped in one compiled call
Actions               ``MultiDiscrete([n] * num_envs)``: one local hole per game (``single_action_space``:
                      ``Discrete(n)``)
Observation           ``obs_format="flat"`` (default): ``Box(0, 1, (num_envs, obs_size), float32)``;
                      ``"dict"``: ``Dict(observation, action_mask)`` batched
Action mask           ``infos["action_mask"]`` (``"flat"``), ``obs["action_mask"]`` (``"dict"``), always
                      :meth:`MancalaVectorEnv.action_masks`: int8, ``(num_envs, n)``
Rewards               +1 / -1 / 0 to each learner at a natural end, 0 on truncation, -1 for an illegal move
Autoreset             ``AutoresetMode.SAME_STEP``: ``infos["final_obs"]``, ``infos["final_info"]``
Seats                 drawn per episode (each 1/2); the opponent moves first where it is to move
Registered ids        the single-agent ids: ``mancala_envs/SongoEwondo-v0``, ``SadeqaII-v0``, ``EnDodoi-v0``
====================  ========================================================================================
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mancala_envs.envs.vector_driver import VectorDriver
from mancala_envs.game import Game


class MancalaVectorEnv(VectorEnv):
    """``num_envs`` games against a fixed opponent, stepped in one compiled call (module docstring).

    Arguments:

    ==================  ===============  =====================================================================
    argument            default          meaning
    ==================  ===============  =====================================================================
    ``game``            —                a game name or a :class:`~mancala_envs.Game` (``gymnasium.make_vec``
                                         passes the id's game)
    ``num_envs``        ``1``            the number of games stepped together
    ``opponent``        ``"random"``     ``"random"`` (moves drawn inside the kernel), an agent spec, an agent
                                         or a batched callable ``f(observations, masks) -> actions``
    ``seed``            ``None``         seeds every random choice of the env (``None``: fresh entropy);
                                         ``reset(seed=...)`` reseeds
    ``counts``          ``False``        observations hold raw seed counts instead of fractions of the total
    ``openings``        ``None``         start positions (``State`` or ``to_dict()`` forms), one drawn per
                                         episode; ``None``: the initial position
    ``illegal_action``  ``"terminate"``  ``"terminate"`` (the episode ends, reward -1, a warning) or
                                         ``"raise"``
    ``num_threads``     ``1``            split the games into this many blocks stepped on as many threads
    ``obs_format``      ``"flat"``       ``"flat"`` or ``"dict"``
    ``**game_params``   —                ``max_plies`` (default 1000), ``holes_per_row`` (En Dodoi): to
                                         :func:`~mancala_envs.get_game` with a game name
    ==================  ===============  =====================================================================
    """

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: str | Game,
        num_envs: int = 1,
        opponent: Any = "random",
        seed: int | None = None,
        counts: bool = False,
        openings: Any = None,
        illegal_action: str = "terminate",
        num_threads: int = 1,
        obs_format: str = "flat",
        **game_params: Any,
    ):
        if obs_format not in ("flat", "dict"):
            raise ValueError(f"obs_format must be 'flat' or 'dict', got {obs_format!r}")
        self.obs_format = obs_format
        self._driver = d = VectorDriver(
            game,
            num_envs,
            opponent=opponent,
            seed=seed,
            counts=counts,
            openings=openings,
            illegal_action=illegal_action,
            num_threads=num_threads,
            name=type(self).__name__,
            env=type(self),
            **game_params,
        )
        self.num_envs = d.num_envs
        self.single_observation_space = d.dict_space if obs_format == "dict" else d.flat_space
        self.single_action_space = d.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.single_action_space.n))
        self.metadata = dict(type(self).metadata)
        self.render_mode = None
        self.closed = False

    @property
    def game(self) -> Game:
        return self._driver.game

    @property
    def driver(self) -> VectorDriver:
        """The framework-free driver this env is a face of."""
        return self._driver

    def _observations(self) -> np.ndarray | dict[str, np.ndarray]:
        obs = self._driver.observations()
        if self.obs_format == "dict":
            return {"observation": obs, "action_mask": self._driver.action_masks()}
        return obs

    def _infos(self) -> dict[str, Any]:
        """The running games' infos (module docstring), each key with its ``_key`` mask."""
        values = self._driver.infos()
        if self.obs_format == "flat":
            values = {"action_mask": self._driver.action_masks(), **values}
        infos: dict[str, Any] = {}
        for key, value in values.items():
            infos[key] = value
            infos[f"_{key}"] = np.ones(self.num_envs, dtype=np.bool_)
        return infos

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray | dict[str, np.ndarray], dict[str, Any]]:
        """New games for every env (``seed`` reseeds first; ``options={"states": [...]}``: start
        env ``i`` from ``states[i]``, optionally with ``"seats": [...]`` for the learners, as
        ``MancalaVecEnv.reset_to``; the opponent replies first where it is to move)."""
        if isinstance(seed, list):
            raise ValueError("MancalaVectorEnv takes one seed for all its games (an int), not a list")
        if seed is not None:
            self._driver.seed(seed)
        unknown = sorted(set(options or ()) - {"states", "seats"})
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; accepted: 'states', 'seats'")
        if options and options.get("states") is not None:
            self._driver.reset_to(options["states"], options.get("seats"))
        elif options and options.get("seats") is not None:
            raise ValueError("reset option 'seats' needs 'states'")
        else:
            self._driver.reset()
        return self._observations(), self._infos()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray | dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        d = self._driver
        d.set_actions(actions)
        done_rows = d.advance(stacklevel=2)  # the warning points at the caller of step()
        rewards, dones = d.rewards(), d.dones()
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        infos = self._infos()
        if done_rows.size:
            final = d.end_infos()
            truncated = dones & final.pop("truncated")
            final.update({f"_{k}": dones.copy() for k in list(final)})
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i, row in zip(done_rows, d.terminal_observations(done_rows), strict=True):
                final_obs[i] = row
            if self.obs_format == "dict":  # the last observation has no legal move
                empty = np.zeros(self.game.num_actions, dtype=np.int8)
                for i in done_rows:
                    final_obs[i] = {"observation": final_obs[i], "action_mask": empty.copy()}
            infos.update(
                final_obs=final_obs, _final_obs=dones.copy(), final_info=final, _final_info=dones.copy()
            )
        terminated = dones & ~truncated
        return self._observations(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """int8 legal masks of the learners, ``(num_envs, n)``."""
        return self._driver.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        driver = self.__dict__.get("_driver")  # absent when __init__ refused its arguments
        if driver is not None:
            driver.close()
