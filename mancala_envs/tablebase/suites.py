"""Optimality suites: positions with their exact outcome and optimal moves, so that an agent's
play can be scored without a table (:mod:`mancala_envs.evaluation.optimality`).

A suite is a JSONL file, one position a line::

    {"state": State.to_dict(), "outcome": +1/0/-1, "best": [0/1 per hole],
     "move_outcomes": [outcome per hole, -2 where illegal], "bounds": [A, B], "max_seeds": K}

:func:`make_suite` draws them from games between varied agents (random, greedy, minimax at two
depths, MCTS, the shipped policy where it loads): it keeps the positions the table covers where
at least one legal move is *not* outcome-preserving (the others say nothing about an agent:
so never a lost position, where every move keeps the loss), deduplicates them, and balances
won and drawn positions as far as the games offer draws. The package ships one suite per game
(``suites/<table name>.jsonl``, En Dodoi at 8 holes), read by :func:`load_suite`.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from mancala_envs.game import Game, get_game
from mancala_envs.state import State
from mancala_envs.tablebase.store import table_name
from mancala_envs.tablebase.table import NO_MOVE, Tablebase

SUITE_AGENTS = ("random", "greedy", "minimax:depth=2", "minimax:depth=4", "mcts:sims=100", "policy")
PER_GAME = 6  # positions kept from one game at most (spread over many games)


@dataclass(frozen=True)
class SuiteEntry:
    """One suite position (module docstring); ``best`` and ``move_outcomes`` are int8 ``(n,)``."""

    state: State
    outcome: int
    best: np.ndarray
    move_outcomes: np.ndarray
    bounds: tuple[float, float]
    max_seeds: int

    def to_dict(self) -> dict:
        return {
            "state": self.state.to_dict(),
            "outcome": self.outcome,
            "best": self.best.tolist(),
            "move_outcomes": self.move_outcomes.tolist(),
            "bounds": [_json_bound(x) for x in self.bounds],
            "max_seeds": self.max_seeds,
        }


def _json_bound(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def entry_of(tb: Tablebase, state: State) -> SuiteEntry:
    """The suite entry of a covered state."""
    p = tb.probe(state)
    return SuiteEntry(
        state, p.outcome, tb.best_actions(state), p.move_outcomes.copy(), p.bounds, tb.max_seeds
    )


def informative(entry: SuiteEntry) -> bool:
    """At least one legal move is not outcome-preserving."""
    legal = entry.move_outcomes != NO_MOVE
    return bool(np.any(legal & (entry.best == 0)))


def _position_key(state: State) -> tuple:
    return (*state.board.tolist(), *state.captured.tolist(), state.to_move)


def _suite_agents(game: Game, specs: Sequence[str], seed: int) -> list:
    from mancala_envs.agents.registry import make_agent

    agents = []
    for i, spec in enumerate(specs):
        try:
            agent = make_agent(spec, seed=seed + i)
            if spec == "policy":
                agent.act(game, game.initial_state())  # the shipped policy may not exist for this game
        except (ValueError, ImportError, OSError):
            continue
        agents.append(agent)
    return agents


def make_suite(
    tb: Tablebase,
    positions: int,
    seed: int = 0,
    max_games: int | None = None,
    progress: bool = False,
    agents: Sequence[str] = SUITE_AGENTS,
    min_positions: int | None = None,
) -> list[SuiteEntry]:
    """``positions`` informative, distinct positions, half won and half drawn where the games
    offer that many draws (module docstring), from games between agents drawn by
    ``numpy.random.default_rng(seed)``. Stops once balanced, or after ``max_games`` (default
    ``positions``) games; ``ValueError`` if those yield fewer than ``min_positions`` (default
    ``positions``). ``agents``: the
    specs that play (default :data:`SUITE_AGENTS`; one that cannot play the game is left out)."""
    from mancala_envs.evaluation.arena import play_game

    if isinstance(positions, bool) or not isinstance(positions, int) or positions < 3:
        raise ValueError(f"positions must be an integer >= 3, got {positions!r}")
    game = tb.game
    rng = np.random.default_rng(seed)
    players = _suite_agents(game, agents, seed)
    target = -(-positions // 2)
    pools: dict[int, list[SuiteEntry]] = {1: [], 0: [], -1: []}  # -1 stays empty (docstring)
    seen: set[tuple] = set()
    max_games = positions if max_games is None else max_games
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=positions, desc=f"suite {table_name(game)}", unit="pos")
    for g in range(max_games):
        if len(pools[1]) >= target and len(pools[0]) >= target:
            break
        a, b = (players[int(i)] for i in rng.integers(len(players), size=2))
        found: list[SuiteEntry] = []

        def on_move(state: State, action: int | None, found: list = found) -> None:
            if tb.covers(state) and _position_key(state) not in seen:
                entry = entry_of(tb, state)
                if informative(entry):
                    found.append(entry)

        play_game(game, a, b, seed=int(rng.integers(1 << 31)), first_player=g % 2, on_move=on_move)
        for i in rng.permutation(len(found))[:PER_GAME]:
            entry = found[int(i)]
            key = _position_key(entry.state)
            if key in seen:
                continue
            seen.add(key)
            pools[entry.outcome].append(entry)
            if bar is not None:
                bar.set_postfix_str(
                    f"{len(pools[1])} won, {len(pools[0])} drawn, {g + 1} games", refresh=False
                )
                bar.update(int(len(pools[entry.outcome]) <= target))
    if bar is not None:
        bar.close()
    chosen = _balance(pools, positions, rng)
    if len(chosen) < (positions if min_positions is None else min_positions):
        raise ValueError(
            f"only {len(chosen)} informative positions of {table_name(game)} (max_seeds={tb.max_seeds}) "
            f"found in {max_games} games; ask for fewer or allow more games"
        )
    return chosen


def _balance(pools: dict[int, list[SuiteEntry]], positions: int, rng: np.random.Generator) -> list:
    """As even a split of the outcomes as the pools allow; the shortfall of a scarce outcome is
    filled from the others, in turn."""
    left = {k: [p[int(i)] for i in rng.permutation(len(p))] for k, p in pools.items()}
    chosen: list[SuiteEntry] = []
    while len(chosen) < positions and any(left.values()):
        for k in (1, 0, -1):
            if left[k] and len(chosen) < positions:
                chosen.append(left[k].pop())
    return chosen


def write_suite(entries: Iterable[SuiteEntry], out: str | os.PathLike | io.TextIOBase) -> None:
    """Write a suite as JSONL (atomically when ``out`` is a path)."""
    text = "".join(json.dumps(e.to_dict(), separators=(",", ":")) + "\n" for e in entries)
    if isinstance(out, str | os.PathLike):
        from mancala_envs.infra.files import atomic_write

        atomic_write(Path(out), text)
    else:
        out.write(text)


def read_suite(path: str | os.PathLike, game: Game | None = None) -> list[SuiteEntry]:
    """A suite file; with ``game``, ``ValueError`` unless every position is of that game."""
    entries = []
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                s = d["state"]
                g = get_game(s["game"], **{k: v for k, v in s["params"].items() if k != "max_plies"})
                if game is not None and table_name(g) != table_name(game):
                    raise ValueError(f"a {table_name(g)} position, {table_name(game)} expected")
                g = game if game is not None else g
                state = g.state_from_dict(s)
                bounds = tuple(float(x) for x in d["bounds"])
                entry = SuiteEntry(
                    state,
                    int(d["outcome"]),
                    np.array(d["best"], dtype=np.int8),
                    np.array(d["move_outcomes"], dtype=np.int8),
                    (bounds[0], bounds[1]),
                    int(d["max_seeds"]),
                )
            except (KeyError, TypeError, ValueError, json.JSONDecodeError) as e:
                raise ValueError(f"{path}, line {number}: not a suite position ({e})") from None
            if entry.best.shape != (g.holes_per_row,) or entry.move_outcomes.shape != (g.holes_per_row,):
                raise ValueError(f"{path}, line {number}: masks of the wrong length")
            entries.append(entry)
    return entries


def shipped_suite_path(game: Game) -> Path:
    """The package's suite file of ``game`` (``ValueError`` if none ships for it)."""
    file = resources.files("mancala_envs.tablebase") / "suites" / f"{table_name(game)}.jsonl"
    if not file.is_file():
        raise ValueError(
            f"no optimality suite ships for {table_name(game)}; make one with 'mancala tablebase suite'"
        )
    return Path(str(file))


def load_suite(game: Game, path: str | os.PathLike | None = None) -> list[SuiteEntry]:
    """The suite at ``path``, default the shipped suite of ``game``."""
    return read_suite(shipped_suite_path(game) if path is None else path, game)
