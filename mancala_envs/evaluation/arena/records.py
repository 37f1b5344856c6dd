"""Game records: everything needed to replay and score one game, one JSON line each.

A record names the game and its parameters, the start position (``start``: a ``State.to_dict()``,
or None for the initial position with ``first_player`` to move), the agents in seat order with
their seeds, the moves, and the result (winner, plies, captured, truncated). :func:`replay`
rebuilds every state through the core and checks the recorded result, so a record that was
edited (a move, the winner, the captured counts) is refused, naming what differs.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mancala_envs import Game, IllegalMoveError, State, get_game, outcome
from mancala_envs.infra.config_files import check_keys
from mancala_envs.infra.files import read_jsonl


class TornLineWarning(UserWarning):
    """A records file ended with an incomplete line (an interrupted write), which was skipped."""


RECORD_FORMAT = 2  # 1: no start position (always the initial position)
GAMES_FILE = "games.jsonl"


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return value


def _pair(value: Any, what: str, kind: type) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{what} must be a pair, got {value!r}")
    if kind is int:
        return tuple(_int(v, what) for v in value)
    if not all(isinstance(v, kind) for v in value):
        raise ValueError(f"{what} must be a pair of {kind.__name__}, got {value!r}")
    return tuple(value)


@dataclass
class GameRecord:
    """One game (a line of ``games.jsonl``). ``agents`` are the names (spec strings) in seat
    order; ``winner`` is 0, 1, -1 (draw) or None (truncated). ``meta`` holds match and tournament
    bookkeeping (``game_id``, ``pair``, ``index``, ``opening``, ``a_seat``)."""

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
    start: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def winner_name(self) -> str | None:
        """The winning agent's name, None for a draw or a truncated game."""
        return self.agents[self.winner] if self.winner in (0, 1) else None

    def seat_of(self, name: str) -> int:
        """The seat of the agent named ``name``; in a game of an agent against itself, the seat
        its match counted as ``a`` (``meta["a_seat"]``, 0 without it)."""
        return self.agents.index(name) if self.agents[0] != self.agents[1] else self.meta.get("a_seat", 0)

    def score_of(self, seat: int) -> float:
        """1, 0.5 or 0 for the agent in ``seat`` (draws and truncated games are half points)."""
        return (outcome(self.winner, seat) + 1) / 2

    def sequence_key(self) -> tuple:
        """What makes two games the same game: the start and the moves."""
        start = json.dumps(self.start, sort_keys=True) if self.start is not None else self.first_player
        return (start, tuple(self.moves))

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
    def from_dict(cls, d: Any) -> GameRecord:
        """Rebuild a record from its JSON form; anything missing, unknown or of the wrong type
        raises ``ValueError`` naming the field (a move ``2.7`` is refused, not read as 2)."""
        if not isinstance(d, dict):
            raise ValueError(f"not a game record: expected a JSON object, got {type(d).__name__}")
        fmt = d.get("format", 1)
        if isinstance(fmt, bool) or fmt not in (1, RECORD_FORMAT):
            raise ValueError(f"unknown game record format {d.get('format')!r}")
        unknown = sorted(str(k) for k in d if k not in RECORD_FIELDS)
        if unknown:
            raise ValueError(f"not a game record: unknown field {unknown[0]!r}")
        try:
            params = d["params"]
            if not isinstance(params, dict):
                raise ValueError(f"params must be an object, got {params!r}")
            moves = d["moves"]
            if not isinstance(moves, list):
                raise ValueError(f"moves must be a list, got {type(moves).__name__}")
            winner = d["winner"]
            if winner is not None and (_int(winner, "winner") not in (0, 1, -1)):
                raise ValueError(f"winner must be 0, 1, -1 or null, got {winner!r}")
            start = d.get("start")
            if start is not None and not isinstance(start, dict):
                raise ValueError(f"start must be a position object or null, got {start!r}")
            if not isinstance(d["truncated"], bool):
                raise ValueError(f"truncated must be true or false, got {d['truncated']!r}")
            if not isinstance(d["game"], str):
                raise ValueError(f"game must be a name, got {d['game']!r}")
            meta = d.get("meta", {})
            if not isinstance(meta, dict):
                raise ValueError(f"meta must be an object, got {meta!r}")
            if _int(d["first_player"], "first_player") not in (0, 1):
                raise ValueError(f"first_player must be 0 or 1, got {d['first_player']!r}")
            for what, value in (("plies", [d["plies"]]), ("captured", d["captured"]), ("moves", moves)):
                if isinstance(value, list) and any(isinstance(v, int) and v < 0 for v in value):
                    raise ValueError(f"{what} must not be negative, got {value!r}")
            return cls(
                game=d["game"],
                params={str(k): _int(v, f"params.{k}") for k, v in params.items()},
                seed=_int(d["seed"], "seed"),
                agents=_pair(d["agents"], "agents", str),
                agent_seeds=_pair(d["agent_seeds"], "agent_seeds", int),
                first_player=_int(d["first_player"], "first_player"),
                moves=[_int(m, f"move {k}") for k, m in enumerate(moves)],
                winner=winner,
                plies=_int(d["plies"], "plies"),
                captured=_pair(d["captured"], "captured", int),
                truncated=d["truncated"],
                start=start,
                meta=dict(meta),
            )
        except KeyError as e:
            raise ValueError(f"not a game record: no field {e.args[0]!r}") from None


RECORD_FIELDS = frozenset({"format", *GameRecord.__dataclass_fields__})


def as_record(record: GameRecord | dict[str, Any]) -> GameRecord:
    return record if isinstance(record, GameRecord) else GameRecord.from_dict(record)


def start_state(record: GameRecord, game: Game) -> State:
    """The position a recorded game started from (a ``start`` with every key ``State.to_dict``
    writes, none unknown)."""
    if record.start is None:
        return game.initial_state(record.first_player)
    check_keys(record.start, game.initial_state().to_dict(), (), "start")  # none missing: no default
    return game.state_from_dict(record.start)


def replay(record: GameRecord | dict[str, Any], game: Game | None = None) -> list[State]:
    """Every state of a recorded game, the start first. Raises :class:`IllegalMoveError` if a
    recorded move is illegal and ``ValueError`` if the replay ends otherwise than the record says
    (winner, plies, captured, truncation)."""
    rec = as_record(record)
    if game is None:
        try:
            game = get_game(rec.game, **rec.params)
        except (TypeError, ValueError) as e:
            raise ValueError(f"record names a game that does not exist: {e}") from None
    if game.name != rec.game or game.params != rec.params:
        raise ValueError(f"record is a {rec.game} game with {rec.params}, not {game!r}")
    states = [start_state(rec, game)]
    for ply, action in enumerate(rec.moves):
        try:
            states.append(game.apply(states[-1], action))
        except IllegalMoveError as e:
            raise IllegalMoveError(f"recorded move {ply} ({action}) is illegal: {e}") from e
    end = states[-1]
    got = {
        "over": end.is_over,
        "winner": end.winner,
        "plies": end.ply,
        "truncated": end.truncated,
        "captured": tuple(int(c) for c in end.captured),
    }
    want = {
        "over": True,
        "winner": rec.winner,
        "plies": rec.plies,
        "truncated": rec.truncated,
        "captured": tuple(rec.captured),
    }
    wrong = [k for k in got if got[k] != want[k]]
    if wrong:
        details = ", ".join(f"{k}={got[k]!r} (record: {want[k]!r})" for k in wrong)
        raise ValueError(f"the replay does not end as the record says: {details}")
    return states


def load_records(path: str | os.PathLike, verify: bool = True) -> list[GameRecord]:
    """The game records of a ``games.jsonl`` file (a tournament directory also works). An
    incomplete last line (an interrupted write) is skipped with a warning; any other bad line
    raises ``ValueError`` naming the line. Every record is replayed (:func:`replay`), so one whose
    moves, winner, plies or captured seeds were edited is refused, naming its line; ``verify=False``
    only parses (for a caller that replays each record itself)."""
    path = Path(path)
    if path.is_dir():
        path = path / GAMES_FILE
    if not path.is_file():
        raise ValueError(f"no game records at {path}")
    raw, _, dropped = read_jsonl(path)
    if dropped:
        warnings.warn(
            f"{path}: skipped an incomplete last line (interrupted write)", TornLineWarning, stacklevel=2
        )
    return parse_records(path, raw, verify)


def parse_records(path: Path, raw: list[Any], verify: bool) -> list[GameRecord]:
    """Records from parsed JSON lines; errors name ``path`` and the line."""
    records = []
    for line, item in enumerate(raw, start=1):
        try:
            rec = GameRecord.from_dict(item)
            if verify:
                replay(rec)
        except ValueError as e:
            raise ValueError(f"{path}, line {line}: {e}") from None
        records.append(rec)
    return records
