"""The AlphaZero-style agent:
``make_agent("az[:path=MODEL.json][,sims=N][,time=S][,temperature=T][,discount=D][,finish=PLIES]``
``[,forward=numba|torch]")``.

A network trained by ``training/train_alphazero.py`` (files of :mod:`mancala_envs.agents.alphazero.network`;
with no path,
the shipped model of the game being played, ``models/az_<game>.json``; a width-independent
model plays every ``holes_per_row`` its file's ``widths`` lists) guides a Gumbel MuZero
search (:mod:`mancala_envs.agents.alphazero.search`) of ``sims`` simulations per move (default
:data:`DEFAULT_SIMS`). ``sims=0`` plays the network alone: the most likely legal move, or, with
``temperature`` T > 0, a draw from ``softmax(logits / T)``. With a search, ``temperature`` scales
the root's Gumbel noise: 0 (the default) is a deterministic search, 1 the sampling of training.
Every draw comes from the agent's own generator: the same seed gives the same moves.

**Time budget** (``time`` S seconds a move): each search gets as many simulations as fit in S at
the cost per simulation measured on the agent's previous searches, at most ``sims`` when given;
the first one, with no measure yet, runs :data:`CALIBRATION_SIMS` and then gives what is left of
S to a larger search, so that every move uses its budget; no simulation starts after S (a search
slower than measured stops there). The forced-end search is not counted.
The number of simulations then depends on the machine, so the moves do too.

**Finishing won games** (games won on captures, Songo Ewondo and En Dodoi; with a search only).
Once a player holds more than half the seeds he wins *if the game ends*, and a game that never ends
is a draw, so the leader must still end it. ``discount`` D (default :data:`DEFAULT_DISCOUNT`) makes
the search value such a decided position at ``1 - D * (share of the seeds still on the board)``
for its winner (:func:`mancala_envs.agents.alphazero.search.exact_value`), so among winning moves it prefers
those
that bring the end nearer; and ``finish`` P (default :data:`DEFAULT_FINISH`) plays the first move of
the shortest forced end of the game when one exists within P plies
(:mod:`mancala_envs.agents.alphazero.forced_end`, at
most :data:`FINISH_BUDGET` engine moves searched a move). ``discount=0,finish=0`` is the plain
search. The discount acts on the decided positions the search settles (``search.settle_decided``,
the default); a model that does not settle them sends them to its network, undiscounted.

**Forward pass** (``forward``): ``numba`` (the default) runs the network compiled
(:mod:`mancala_envs.agents.alphazero.numba_forward`, the weights exported once), inside the compiled
search when the search has no deadline (:func:`mancala_envs.agents.alphazero.search.run_simulations`),
so a simulation never returns to Python; ``torch`` runs it in torch, one call per simulation (the
default until 2026-12-07, see CHANGELOG: strength files written before it call that agent ``az``).
The outputs agree with torch's within float tolerance (not bit for bit), so the moves are the same
except where two moves' search results tie within that tolerance.
"""

from __future__ import annotations

import time as _time
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents.alphazero.forced_end import check_finish, shortest_forced_end
from mancala_envs.agents.alphazero.search import GumbelSearch, network_inputs
from mancala_envs.agents.base import (
    CHECKED_KEPT,
    NetworkAgent,
    require_running,
    spec_name,
    spec_number,
    time_budget,
)
from mancala_envs.agents.model_files import shipped_model
from mancala_envs.game import Game
from mancala_envs.infra.lru import LRU
from mancala_envs.state import State

DEFAULT_SIMS = 100
MAX_SIMS = 100_000
CALIBRATION_SIMS = 16  # with a time budget: the first search's simulations, which measure their cost
DEFAULT_DISCOUNT = 0.1
DEFAULT_FINISH = 40
FINISH_BUDGET = 100_000  # engine moves the forced-end search may make per move
FORWARDS = ("numba", "torch")  # the network's forward pass: compiled (the default), or torch's


def settle_decided(search_params: dict[str, Any]) -> bool:
    """The model's ``search.settle_decided`` (True when absent: models from before the key)."""
    value = search_params.get("settle_decided", True)
    if not isinstance(value, bool):
        raise ValueError(f"the az model's search.settle_decided must be true or false, got {value!r}")
    return value


def check_discount(value: Any) -> float:
    """``discount`` as a float in [0, 1) (``ValueError`` naming it otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1:
        raise ValueError(f"az discount must be a number in [0, 1), got {value!r}")
    return float(value)


def shipped_az_model(game: Game) -> Path:
    """``models/az_<variant>.json``; ``ValueError`` when it is not there."""
    return shipped_model(game, "az", "az model")


class AZAgent(NetworkAgent):
    """A network and a Gumbel search (module docstring). ``last_seconds``: time of the last move."""

    counts = True

    def __init__(
        self,
        path: str | Path | None = None,
        sims: int | None = None,
        temperature: float = 0.0,
        seed: int = 0,
        network: Any = None,
        config: dict[str, Any] | None = None,
        discount: float = DEFAULT_DISCOUNT,
        finish: int = DEFAULT_FINISH,
        time: float | None = None,
        forward: str = FORWARDS[0],
    ):
        self.time = time_budget(time, "az")
        if forward not in FORWARDS:
            raise ValueError(f"az forward must be one of {', '.join(FORWARDS)}, got {forward!r}")
        self.forward = forward
        given = sims
        if sims is None:
            sims = DEFAULT_SIMS if self.time is None else MAX_SIMS
        if isinstance(sims, bool) or not isinstance(sims, int | np.integer) or not 0 <= sims <= MAX_SIMS:
            raise ValueError(f"az sims must be an integer in 0..{MAX_SIMS}, got {sims!r}")
        if self.time is not None and sims == 0:
            raise ValueError("az time needs a search: it cannot be combined with sims=0")
        number = isinstance(temperature, int | float) and not isinstance(temperature, bool)
        if not number or not 0 <= temperature < float("inf"):
            raise ValueError(f"az temperature must be a finite number >= 0, got {temperature!r}")
        self.discount = check_discount(discount)
        self.finish = check_finish(finish)
        if path is not None and network is not None:
            raise ValueError("give an az model path or a network, not both")
        super().__init__(seed)
        self.sims, self.temperature = int(sims), float(temperature)
        self.sample = self.sims == 0 and self.temperature > 0
        self.name = spec_name(
            "az",
            {
                "path": path,
                "sims": None
                if given is None or (self.time is None and self.sims == DEFAULT_SIMS)
                else self.sims,
                "time": None if self.time is None else spec_number(self.time),
                "temperature": None if self.temperature == 0 else spec_number(self.temperature),
                "discount": None if self.discount == DEFAULT_DISCOUNT else spec_number(self.discount),
                "finish": None if self.finish == DEFAULT_FINISH else self.finish,
                "forward": None if forward == FORWARDS[0] else forward,
            },
        )
        self._models: dict[tuple, tuple[Any, dict[str, Any]]] = {}
        self._fixed: tuple[Any, dict[str, Any]] | None = None
        if network is not None:
            self._fixed = (network, dict(config or {}))
        elif path is not None:
            from mancala_envs.agents.alphazero.network import load_network

            self._fixed = load_network(path)
        self._searches: dict[tuple, Any] = {}
        self._compiled: dict[int, Any] = {}  # forward=numba: id(network) -> its NumbaEvaluator
        self._checked: LRU[bool] = LRU(CHECKED_KEPT)  # (config, game) pairs validate_az_config accepted
        self._seconds_per_sim: dict[tuple, float] = {}  # with a time budget: measured, per game and batch
        self.last_seconds = 0.0
        self.last_sims = 0  # simulations of the last search

    def model(self, game: Game) -> tuple[Any, dict[str, Any]]:
        """``(network, config)`` for ``game``; ``ValueError`` when the model is for another game
        or its config is bad (:func:`~mancala_envs.agents.alphazero.network.validate_az_config`;
        a network given without a config is not checked)."""
        if self._fixed is not None:
            net, config = self._fixed
        else:
            key = (game.name, game.holes_per_row)
            if key not in self._models:
                from mancala_envs.agents.alphazero.network import load_network

                self._models[key] = load_network(shipped_az_model(game))
            net, config = self._models[key]
        checked = (id(config), game.name, tuple(sorted(game.params.items())))
        if config and checked not in self._checked:
            from mancala_envs.agents.alphazero.network import validate_az_config

            validate_az_config(config, game)
            self._checked.put(checked, True)
        return net, config

    def evaluator(self, game: Game):
        """The network's evaluator: torch's, or with ``forward=numba`` the compiled forward pass
        (:mod:`mancala_envs.agents.alphazero.numba_forward`, its weights exported once)."""
        net = self.model(game)[0]
        if self.forward == "numba":
            if id(net) not in self._compiled:
                from mancala_envs.agents.alphazero.conv_net import ConvNet
                from mancala_envs.agents.alphazero.network import AZNet
                from mancala_envs.agents.alphazero.numba_conv import conv_evaluator
                from mancala_envs.agents.alphazero.numba_forward import numba_evaluator

                if not isinstance(net, AZNet | ConvNet):
                    raise ValueError(
                        f"az forward=numba compiles the trainer's networks (AZNet, ConvNet), not a "
                        f"{type(net).__name__}: pass forward='torch' to run it in torch"
                    )
                compiled = conv_evaluator if isinstance(net, ConvNet) else numba_evaluator
                self._compiled[id(net)] = compiled(net)
            return self._compiled[id(net)]
        from mancala_envs.agents.alphazero.network import torch_evaluator

        return torch_evaluator(net)

    def lookahead(self, game: Game) -> int:
        """The plies of the lookahead rows the model reads (0: raw counts), from its config or,
        for a network given without one, from the network itself."""
        from mancala_envs.agents.alphazero.network import AZNet, input_plies, lookahead_plies

        net, config = self.model(game)
        from_network = input_plies(*(getattr(net, k, 0) for k in ("lookahead", "replies", "third")))
        from_config = lookahead_plies(config)
        if config.get("network") and isinstance(net, AZNet) and from_config != from_network:
            raise ValueError(f"the az config's network reads {from_config} plies, the network {from_network}")
        return from_config or from_network

    def inputs(self, game: Game, states: np.ndarray) -> np.ndarray:
        """The mover's raw-count views, or his lookahead rows for a model that reads them."""
        return network_inputs(game, states, self.lookahead(game))

    def logits(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Masked network logits (:class:`NetworkAgent` divides them by ``temperature`` when it
        samples)."""
        out, _ = self.evaluator(game)(np.ascontiguousarray(observations, dtype=np.float32))
        return np.where(masks.astype(bool), out.astype(np.float64), -np.inf)

    def search(self, game: Game, states: np.ndarray):
        """A :class:`~mancala_envs.agents.alphazero.search.SearchResult` for a batch of running packed
        states. With a ``time`` budget the search uses it: after a first search (the calibration,
        when the cost of a simulation is not measured yet), what is left of the budget goes to a
        larger search when one at least twice as large fits; the largest search's result counts."""
        budget = (game.name, game.holes_per_row, len(states))
        start = _time.perf_counter()
        deadline = None if self.time is None else start + self.time
        sims = self.budget_sims(budget)
        result = self._search(game, states, sims, deadline)
        while self.time is not None and self.last_sims == sims:  # not cut short by the deadline
            left = self.time - (_time.perf_counter() - start)
            sims = self.budget_sims(budget, left)
            if left <= 0 or sims < 2 * self.last_sims:
                break
            result = self._search(game, states, sims, deadline)
        return result

    def _search(self, game: Game, states: np.ndarray, sims: int, deadline: float | None = None):
        """One search of ``sims`` simulations, none started after ``deadline`` (its cost per
        simulation measured with a budget)."""
        _, config = self.model(game)
        params = config.get("search", {})
        key = (game.name, game.holes_per_row, len(states), sims)
        if key not in self._searches:
            self._searches[key] = GumbelSearch(
                game,
                len(states),
                sims,
                max_considered=int(params.get("max_considered", 16)),
                c_visit=float(params.get("c_visit", 50.0)),
                c_scale=float(params.get("c_scale", 0.1)),
                lookahead=self.lookahead(game),
                settle_decided=settle_decided(params),
                decided_discount=self.discount,
            )
        gumbel = None
        if self.temperature > 0:
            gumbel = self.temperature * self.rng.gumbel(size=(len(states), game.num_actions))
        start = _time.perf_counter()
        search = self._searches[key]
        result = search.run(states, self.evaluator(game), gumbel, deadline)
        if self.time is not None:  # the cost of a simulation, averaged over the recent searches
            cost = (_time.perf_counter() - start) / search.last_sims
            old = self._seconds_per_sim.get(key[:3], cost)
            self._seconds_per_sim[key[:3]] = 0.5 * old + 0.5 * cost
        self.last_sims = search.last_sims
        return result

    def budget_sims(self, key: tuple, seconds: float | None = None) -> int:
        """The simulations of the next search: ``sims``, or with a ``time`` budget as many as the
        measured cost of a simulation (of this game and batch size) fits in ``seconds`` (default
        the whole budget), at most ``sims``; with no measure yet, :data:`CALIBRATION_SIMS`. Rounded
        down to a grid of ratio 2^(1/4), so that few search trees are built."""
        if self.time is None:
            return self.sims
        cost = self._seconds_per_sim.get(key)
        if cost is None:
            return min(CALIBRATION_SIMS, self.sims)
        fit = max(2.0, (self.time if seconds is None else seconds) / cost)
        return int(min(self.sims, 2 ** (np.floor(4 * np.log2(fit)) / 4)))

    def finishing_moves(self, game: Game, states: np.ndarray) -> np.ndarray:
        """Per packed state: the first move of the shortest forced end within ``finish`` plies when
        the game is decided for its mover (:mod:`mancala_envs.agents.alphazero.forced_end`), else -1."""
        out = np.full(len(states), -1, dtype=np.int64)
        if self.finish > 0:
            for i, row in enumerate(states):
                out[i] = shortest_forced_end(row, game.rules, self.finish, FINISH_BUDGET)[0]
        return out

    def act(self, game: Game, state: State) -> int:
        start = _time.perf_counter()
        mask = require_running(game, state)
        self.model(game)  # a missing or mismatched model fails on every move, forced ones too
        if self.sims == 0:
            action = super().act(game, state)
        elif mask.sum() == 1:
            action = int(np.flatnonzero(mask)[0])
        else:
            action = int(self.finishing_moves(game, state.array[None])[0])
            if action < 0:
                action = int(self.search(game, state.array[None]).action[0])
        self.last_seconds = _time.perf_counter() - start
        return action

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """One action per running packed state (one batched search for all rows)."""
        if self.sims == 0:
            return super().act_batch(game, states)
        game.check_states(states)
        if not states[:, game.layout.mask].any(axis=1).all():
            raise ValueError("act_batch needs running states: some rows have no legal move")
        if not len(states):
            return np.zeros(0, dtype=np.int64)
        finish = self.finishing_moves(game, states)
        return np.where(finish >= 0, finish, self.search(game, states).action.astype(np.int64))
