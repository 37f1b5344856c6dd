"""The arena: single games, seat-balanced matches, resumable round-robin tournaments, replays.

Seeding (everything follows from one integer ``seed``):

- A game played with :func:`play_game` derives two agent seeds from its ``seed`` with
  ``numpy.random.SeedSequence(seed).generate_state(2)`` (one per seat). An agent given as a spec
  string is built for that game with ``agents.make_agent(spec, seed=agent_seed)``; an agent given
  as an object is re-seeded where it can be: through its ``reseed(seed)`` method if it has one,
  else by replacing its ``rng`` attribute when that is a ``numpy.random.Generator``. Objects are
  reused from game to game, so pass spec strings for agents that keep other state between moves
  (a search tree, a transposition table): then every game is independent and resumable.
- Game ``k`` of :func:`play_match` has seed ``SeedSequence([seed, k]).generate_state(1)[0]``;
  game ``k`` of pair ``(i, j)`` in :func:`round_robin` has ``SeedSequence([seed, i, j, k])...``.
  So every game is identified by (pair, index, seed) and can be replayed or resumed exactly.

Seat 0 moves first in every game (``first_player=0``); "seats balanced" therefore also means
"first move balanced". A truncated game (``max_plies`` reached) has no winner and counts as a draw
in scores.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from mancala_envs import Game, IllegalMoveError, State, get_game

RECORD_FORMAT = 1
GAMES_FILE = "games.jsonl"
RESULTS_FILE = "results.csv"
CONFIG_FILE = "tournament.json"
RESULTS_COLUMNS = (
    "game_id",
    "pair",
    "index",
    "seed",
    "agent0",
    "agent1",
    "winner",
    "winner_agent",
    "plies",
    "captured0",
    "captured1",
    "truncated",
)


@dataclass
class GameRecord:
    """Everything needed to replay and score one game (one JSON line of ``games.jsonl``).

    ``agents`` are the names (spec strings) in seat order; ``winner`` is 0, 1, -1 (draw) or None
    (truncated). ``meta`` holds tournament bookkeeping (``game_id``, ``pair``, ``index``)."""

    game: str
    params: dict[str, int]
    seed: int
    agents: tuple[str, str]
    agent_seeds: tuple[int, int]
    first_player: int
    moves: list[int]
    winner: int | None
    plies: int
    captured: tuple[int, int]
    truncated: bool
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def winner_name(self) -> str | None:
        """The winning agent's name, None for a draw or a truncated game."""
        return self.agents[self.winner] if self.winner in (0, 1) else None

    def score_of(self, seat: int) -> float:
        """1, 0.5 or 0 for the agent in ``seat`` (draws and truncated games are half points)."""
        if self.winner in (0, 1):
            return 1.0 if self.winner == seat else 0.0
        return 0.5

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"], d["agent_seeds"], d["captured"] = (
            list(self.agents),
            list(self.agent_seeds),
            list(self.captured),
        )
        return {"format": RECORD_FORMAT, **d}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        """Rebuild a record from its JSON form; a missing field raises ``ValueError``."""
        try:
            return cls(
                game=str(d["game"]),
                params={str(k): int(v) for k, v in d["params"].items()},
                seed=int(d["seed"]),
                agents=(str(d["agents"][0]), str(d["agents"][1])),
                agent_seeds=(int(d["agent_seeds"][0]), int(d["agent_seeds"][1])),
                first_player=int(d["first_player"]),
                moves=[int(m) for m in d["moves"]],
                winner=None if d["winner"] is None else int(d["winner"]),
                plies=int(d["plies"]),
                captured=(int(d["captured"][0]), int(d["captured"][1])),
                truncated=bool(d["truncated"]),
                meta=dict(d.get("meta", {})),
            )
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            raise ValueError(f"not a game record: {e!r} in {str(d)[:200]}") from e


def _as_record(record: GameRecord | dict[str, Any]) -> GameRecord:
    return record if isinstance(record, GameRecord) else GameRecord.from_dict(record)


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def derive_seed(*entropy: int) -> int:
    """One 32-bit seed from a tuple of non-negative integers (``SeedSequence``)."""
    return int(np.random.SeedSequence(list(entropy)).generate_state(1)[0])


def _make_agent(spec: str, seed: int) -> Agent:
    from agents.registry import make_agent  # imported late: the registry imports heavy agents

    return make_agent(spec, seed=seed)


def _prepare(agent: Agent | str, seed: int) -> Agent:
    """A fresh agent for a spec string, or ``agent`` re-seeded where it supports it."""
    if isinstance(agent, str):
        return _make_agent(agent, seed)
    reseed = getattr(agent, "reseed", None)
    if callable(reseed):
        reseed(seed)
    elif isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)  # type: ignore[attr-defined]
    return agent


def _name(agent: Agent | str) -> str:
    return agent if isinstance(agent, str) else str(agent.name)


def play_game(
    game: Game,
    agent0: Agent | str,
    agent1: Agent | str,
    seed: int = 0,
    first_player: int = 0,
    on_move: Callable[[State, int | None], None] | None = None,
) -> GameRecord:
    """Play one game, ``agent0`` in seat 0 and ``agent1`` in seat 1, to its end or ``max_plies``.

    Agents are spec strings or agent objects, seeded from ``seed`` (module docstring).
    ``on_move(state, action)`` is called with the start (``action=None``) and after every move.
    An illegal move raises :class:`IllegalMoveError` naming the agent."""
    seed = _check_seed(seed)
    seeds = tuple(int(s) for s in np.random.SeedSequence(seed).generate_state(2))
    players = (_prepare(agent0, seeds[0]), _prepare(agent1, seeds[1]))
    state = game.initial_state(first_player)
    moves: list[int] = []
    if on_move is not None:
        on_move(state, None)
    while not state.is_over:
        mover = state.to_move
        action = players[mover].act(game, state)
        try:
            state = game.apply(state, action)
        except IllegalMoveError as e:
            raise IllegalMoveError(
                f"agent {players[mover].name!r} (seat {mover}) played {action!r}: {e}"
            ) from e
        moves.append(int(action))
        if on_move is not None:
            on_move(state, int(action))
    return GameRecord(
        game=game.name,
        params=dict(game.params),
        seed=seed,
        agents=(_name(players[0]), _name(players[1])),
        agent_seeds=(seeds[0], seeds[1]),
        first_player=int(first_player),
        moves=moves,
        winner=state.winner,
        plies=state.ply,
        captured=(int(state.captured[0]), int(state.captured[1])),
        truncated=state.truncated,
    )


def replay(record: GameRecord | dict[str, Any], game: Game | None = None) -> list[State]:
    """Every state of a recorded game, the start first. Raises :class:`IllegalMoveError` if a
    recorded move is illegal and ``ValueError`` if the replay ends differently from the record."""
    rec = _as_record(record)
    game = game if game is not None else get_game(rec.game, **rec.params)
    if game.name != rec.game or game.params != rec.params:
        raise ValueError(f"record is a {rec.game} game with {rec.params}, not {game!r}")
    states = [game.initial_state(rec.first_player)]
    for ply, action in enumerate(rec.moves):
        try:
            states.append(game.apply(states[-1], action))
        except IllegalMoveError as e:
            raise IllegalMoveError(f"recorded move {ply} ({action}) is illegal: {e}") from e
    end = states[-1]
    if not end.is_over or end.winner != rec.winner or end.ply != rec.plies or end.truncated != rec.truncated:
        raise ValueError(
            f"replay ends with winner={end.winner}, plies={end.ply}, over={end.is_over}; "
            f"the record says winner={rec.winner}, plies={rec.plies}"
        )
    return states


# ---------------------------------------------------------------------------- matches


@dataclass
class MatchResult:
    """Outcome of :func:`play_match` from ``a``'s point of view (truncated games count as draws)."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int
    truncated: int
    records: list[GameRecord] = field(repr=False, default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / games``."""
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan

    def confidence_interval(self, level: float = 0.95) -> tuple[float, float]:
        """Wilson score interval of :attr:`score` (draws as half wins: approximate with draws)."""
        return wilson_interval(self.score * self.games, self.games, level)


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``."""
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _check_even(n: object, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n <= 0 or n % 2:
        raise ValueError(
            f"{what} must be a positive even integer (each agent plays both seats equally), got {n!r}"
        )
    return int(n)


def _tally(a: str, b: str, records: Iterable[GameRecord]) -> MatchResult:
    res = MatchResult(a, b, 0, 0, 0, 0, [])
    for rec in records:
        seat = rec.agents.index(a) if rec.agents[0] != rec.agents[1] else rec.meta.get("a_seat", 0)
        s = rec.score_of(seat)
        res.wins += s == 1.0
        res.draws += s == 0.5
        res.losses += s == 0.0
        res.truncated += rec.truncated
        res.records.append(rec)
    return res


def play_match(
    game: Game, a: Agent | str, b: Agent | str, n_games: int, seed: int = 0, progress: bool = False
) -> MatchResult:
    """``n_games`` (even) games between ``a`` and ``b``: ``a`` sits in seat 0 in even-numbered
    games and in seat 1 in odd ones. Game ``k`` has seed ``derive_seed(seed, k)``."""
    n_games = _check_even(n_games, "n_games")
    seed = _check_seed(seed)
    records = []
    for k in _progress(range(n_games), progress, f"{_name(a)} vs {_name(b)}"):
        pair = (a, b) if k % 2 == 0 else (b, a)
        rec = play_game(game, *pair, seed=derive_seed(seed, k))
        rec.meta = {"index": k, "a_seat": k % 2}
        records.append(rec)
    return _tally(_name(a), _name(b), records)


def _progress(it: Iterable, enabled: bool, desc: str, total: int | None = None, initial: int = 0):
    if not enabled:
        return it
    from tqdm.auto import tqdm

    return tqdm(it, desc=desc, total=total, initial=initial, unit="game", dynamic_ncols=True)


# ---------------------------------------------------------------------------- files


def _read_jsonl(path: Path) -> tuple[list[dict[str, Any]], int, bool]:
    """Complete lines of ``path`` as dicts, the byte length they span, and whether an incomplete
    last line (no newline, or not valid JSON) was found. A bad line elsewhere raises ValueError."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # text after the last newline: empty when the file ends cleanly
    dropped = bool(tail.strip())
    records, good = [], 0
    for i, line in enumerate(lines):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as e:
            if i == len(lines) - 1 and not tail.strip():
                dropped = True  # a garbled final line is an interrupted write
                break
            raise ValueError(f"{path}: line {i + 1} is not valid JSON ({e}); the file is damaged") from e
        good += len(line) + 1
    return records, good, dropped


def load_records(path: str | os.PathLike) -> list[GameRecord]:
    """The game records of a ``games.jsonl`` file (a tournament directory also works). An
    incomplete last line (an interrupted write) is skipped with a warning."""
    path = Path(path)
    if path.is_dir():
        path = path / GAMES_FILE
    if not path.is_file():
        raise ValueError(f"no game records at {path}")
    records, _, dropped = _read_jsonl(path)
    if dropped:
        warnings.warn(f"{path}: skipped an incomplete last line (interrupted write)", stacklevel=2)
    return [GameRecord.from_dict(r) for r in records]


def _append(fh: io.TextIOBase, text: str) -> None:
    fh.write(text)
    fh.flush()
    os.fsync(fh.fileno())


def _csv_row(rec: GameRecord) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(
        [
            rec.meta["game_id"],
            "{}-{}".format(*rec.meta["pair"]),
            rec.meta["index"],
            rec.seed,
            *rec.agents,
            "" if rec.winner is None else rec.winner,
            rec.winner_name or "",
            rec.plies,
            *rec.captured,
            int(rec.truncated),
        ]
    )
    return buf.getvalue()


# ---------------------------------------------------------------------------- round robin


@dataclass
class Tournament:
    """A finished (or resumed-to-the-end) round robin: its configuration and every record."""

    config: dict[str, Any]
    records: list[GameRecord]
    out_dir: Path

    @property
    def agents(self) -> list[str]:
        return list(self.config["agents"])

    def match(self, a: str, b: str) -> MatchResult:
        """``a``'s results against ``b``."""
        return _tally(a, b, (r for r in self.records if set(r.agents) == {a, b}))


def schedule(n_agents: int, games_per_pair: int) -> list[tuple[int, int, int]]:
    """The order games are played in: rounds ``k`` outside, pairs ``(i, j)``, ``i < j``, inside,
    so that an interrupted tournament has a balanced sample of every pair."""
    pairs = [(i, j) for i in range(n_agents) for j in range(i + 1, n_agents)]
    return [(i, j, k) for k in range(games_per_pair) for i, j in pairs]


def round_robin(
    game: Game,
    agents: Sequence[Agent | str],
    games_per_pair: int,
    seed: int,
    out_dir: str | os.PathLike,
    resume: bool = False,
    progress: bool = True,
    on_game: Callable[[GameRecord], None] | None = None,
) -> Tournament:
    """Every pair of ``agents`` plays ``games_per_pair`` (even) games, seats balanced.

    Each game is appended to ``out_dir/games.jsonl`` and ``out_dir/results.csv`` as soon as it
    ends (flushed and fsynced); ``out_dir/tournament.json`` holds the configuration. Game ``k`` of
    pair ``(i, j)`` seats agent ``i`` first when ``k`` is even. A non-empty ``out_dir`` is never
    overwritten: pass ``resume=True`` to continue the tournament it holds (an incomplete last
    line is dropped, finished games are kept, the rest are played). ``on_game(record)`` is called
    after each game is written.
    """
    # a spec's name is the one its agent reports (make_agent normalises spellings)
    names = [_make_agent(a, 0).name if isinstance(a, str) else _name(a) for a in agents]
    if len(names) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must be unique, got {names}")
    games_per_pair = _check_even(games_per_pair, "games_per_pair")
    seed = _check_seed(seed)
    out = Path(out_dir)
    config = {
        "format": RECORD_FORMAT,
        "game": game.name,
        "params": dict(game.params),
        "agents": names,
        "games_per_pair": games_per_pair,
        "seed": seed,
    }
    done = _open_tournament(out, config, resume)
    plan = schedule(len(names), games_per_pair)
    for gid, rec in enumerate(done):
        i, j, k = plan[gid] if gid < len(plan) else (-1, -1, -1)
        if (
            rec.meta.get("pair") != [i, j]
            or rec.meta.get("index") != k
            or rec.seed != derive_seed(seed, i, j, k)
        ):
            raise ValueError(
                f"{out / GAMES_FILE}: record {gid} does not belong to this tournament's schedule"
            )
    # results.csv is derived from games.jsonl: rewrite it so both agree after any interruption
    with open(out / RESULTS_FILE, "w", encoding="utf-8") as fh:
        _append(fh, ",".join(RESULTS_COLUMNS) + "\n" + "".join(_csv_row(r) for r in done))
    records = list(done)
    todo = plan[len(done) :]
    with (
        open(out / GAMES_FILE, "a", encoding="utf-8") as games_fh,
        open(out / RESULTS_FILE, "a", encoding="utf-8") as csv_fh,
    ):
        bar = _progress(todo, progress, f"{game.name} round robin", total=len(plan), initial=len(done))
        for gid, (i, j, k) in enumerate(bar, start=len(done)):
            seats = (agents[i], agents[j]) if k % 2 == 0 else (agents[j], agents[i])
            rec = play_game(game, *seats, seed=derive_seed(seed, i, j, k))
            rec.meta = {"game_id": gid, "pair": [i, j], "index": k}
            _append(games_fh, rec.to_json() + "\n")
            _append(csv_fh, _csv_row(rec))
            records.append(rec)
            if on_game is not None:
                on_game(rec)
    return Tournament(config, records, out)


def _open_tournament(out: Path, config: dict[str, Any], resume: bool) -> list[GameRecord]:
    """Check ``out`` against ``config``; return the finished records (empty for a new one)."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a directory")
    config_path, games_path = out / CONFIG_FILE, out / GAMES_FILE
    if out.is_dir() and any(out.iterdir()):
        if not resume:
            raise ValueError(
                f"{out} is not empty; refusing to overwrite it. Resume the tournament it holds "
                "(resume=True / --resume) or choose another directory"
            )
        if not config_path.is_file():
            raise ValueError(f"cannot resume: {out} holds no {CONFIG_FILE}")
        old = json.loads(config_path.read_text(encoding="utf-8"))
        diff = sorted(k for k in config if old.get(k) != config[k])
        if diff:
            details = "; ".join(f"{k}: {old.get(k)!r} there, {config[k]!r} now" for k in diff)
            raise ValueError(f"cannot resume {out}: a different tournament ({details})")
        if not games_path.exists():
            return []
        raw, good, dropped = _read_jsonl(games_path)
        if dropped:
            with open(games_path, "r+b") as fh:
                fh.truncate(good)
                os.fsync(fh.fileno())
            warnings.warn(f"{games_path}: dropped an incomplete last line (interrupted write)", stacklevel=3)
        return [GameRecord.from_dict(r) for r in raw]
    out.mkdir(parents=True, exist_ok=True)
    with open(config_path, "w", encoding="utf-8") as fh:
        _append(fh, json.dumps(config, indent=2) + "\n")
    return []
