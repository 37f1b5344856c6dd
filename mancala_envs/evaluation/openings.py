"""Opening suites: the starts of sound matches between deterministic agents.

Two deterministic agents (an argmax policy, an ordered search) play the same game every time
from the same position, so games from the initial position measure one game, not a policy. A
match therefore starts from a suite of openings, each played twice with the seats swapped
(:func:`mancala_envs.evaluation.arena.play_match`).

- :func:`random_openings` — ``n`` distinct positions reached by uniformly random legal moves from
  the start, the number of plies drawn per opening from the game's default range
  (:data:`DEFAULT_PLIES`, or ``plies=``); deduplicated on the position (board, captured seeds,
  player to move, opening flags).
- :func:`save_openings` / :func:`load_openings` — a suite as JSONL: a header with the digest of
  the lines (:mod:`mancala_envs.infra.suite_files`), then one ``State.to_dict()`` a line (every
  key present, none unknown: :func:`read_state_dict`; no position twice).
- :func:`resolve_openings` — what ``--openings`` means on the command line: ``default`` (the
  game's default suite, seed 0), ``none`` (the bare initial position) or a JSONL file.

The default ranges are chosen for balance, measured by ``python -m mancala_envs.evaluation.balance GAME``
(``minimax:depth=4`` playing itself once from each of the 200 default openings; the score of the
player to move at the opening, 95% Wilson interval): Songo Ewondo 4–8 plies 0.495 [0.426, 0.564]
(2–6 plies gave 0.573); Sadeqa II 4–8 plies 0.530 [0.461, 0.598] (its first two plies are forced,
SQ4); En Dodoi 2–6 plies 0.637 [0.569, 0.701] — in En Dodoi the player to move keeps an edge from
every range tried (2–6, 3–7, 4–8, 2–8, 6–10: 0.63–0.68), the game's own tempo advantage. Paired
seats cancel any such edge in a match score.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mancala_envs import Game, State
from mancala_envs.infra.config_files import check_keys
from mancala_envs.infra.files import atomic_write
from mancala_envs.infra.suite_files import checked_body, stamped
from mancala_envs.rulesets import DEFAULT_OPENING_PLIES, GameTable

# game name -> its default plies (GameInfo.opening_plies), read live from the registry
DEFAULT_PLIES: GameTable[str, tuple[int, int]] = GameTable(lambda info: (info.name, info.opening_plies))
DEFAULT_SUITE_SEED = 0
FORMAT = "mancala_envs.openings"
NO_OPENINGS = ("none", "initial")


def opening_plies(game: Game, plies: int | tuple[int, int] | None) -> tuple[int, int]:
    """``plies`` as a range ``(lo, hi)``; ``None``: the game's default range (its metadata)."""
    if plies is None:  # a game's own range, the generic one for a ruleset that is not registered
        return DEFAULT_PLIES.get(game.name, DEFAULT_OPENING_PLIES)
    lo, hi = (plies, plies) if isinstance(plies, (int, np.integer)) else tuple(plies)
    if isinstance(lo, bool) or not 0 <= int(lo) <= int(hi):
        raise ValueError(f"plies must be a non-negative int or a range (lo, hi) with lo <= hi, got {plies!r}")
    return int(lo), int(hi)


def position_key(state: State) -> tuple:
    """What makes two openings the same position (the ply count aside)."""
    return (state.board.tobytes(), state.captured.tobytes(), state.to_move, state.first_move_pending)


def random_openings(
    game: Game, n: int, plies: int | tuple[int, int] | None = None, seed: int = DEFAULT_SUITE_SEED
) -> list[State]:
    """``n`` distinct running positions, each reached from the initial position (player 0 first)
    by a number of uniformly random legal moves drawn uniformly from ``plies`` (an int or an
    inclusive range; default :data:`DEFAULT_PLIES`). Every choice comes from
    ``numpy.random.default_rng(seed)``. ``ValueError`` when ``n`` distinct positions cannot be
    found (too few plies for the game)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lo, hi = opening_plies(game, plies)
    rng = np.random.default_rng(seed)
    found: dict[tuple, State] = {}
    tries = ended = 0
    while len(found) < n:
        tries += 1
        if tries > 100 * n + 1000:
            advice = (
                f"most walks ended the game (max_plies {game.max_plies}): "
                "use fewer plies or a larger max_plies"
                if 2 * ended > tries - 1
                else "use more plies"
            )
            raise ValueError(
                f"only {len(found)} distinct {game.name} positions found after {tries - 1} random walks of "
                f"{lo}-{hi} plies, {n} wanted: {advice}"
            )
        state = game.initial_state()
        for _ in range(int(rng.integers(lo, hi + 1))):
            legal = np.flatnonzero(game.legal_mask(state))
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
            if state.is_over:
                break
        if state.is_over:
            ended += 1
        else:
            found.setdefault(position_key(state), state)
    return list(found.values())


def openings_text(states: Sequence[State]) -> str:
    """The lines of a suite, one ``State.to_dict()`` a line (without the file's header)."""
    return "".join(json.dumps(s.to_dict(), separators=(",", ":")) + "\n" for s in states)


def save_openings(path: str | os.PathLike, states: Sequence[State]) -> None:
    """Write a suite as JSONL (a header with the digest of the lines, then one ``State.to_dict()``
    a line: :mod:`mancala_envs.infra.suite_files`), through a temporary file."""
    atomic_write(Path(path), stamped(FORMAT, openings_text(states)))


def read_state_dict(d: object, game: Game) -> State:
    """The state of a ``State.to_dict()`` read from a file: every key that ``to_dict`` writes
    present and no other (a missing ``ply`` is refused, not read as 0), then
    ``game.state_from_dict``; ``ValueError`` naming the key otherwise."""
    check_keys(d, game.initial_state().to_dict(), (), "the state")
    return game.state_from_dict(d)  # type: ignore[arg-type]


def load_openings(path: str | os.PathLike, game: Game) -> list[State]:
    """The suite in ``path`` for ``game``; ``ValueError`` naming the file (and the line) for lines
    that differ from the digest the header records, a bad entry (:func:`read_state_dict`: no key
    missing or unknown) or an opening listed twice (the same position). A file without a header
    loads with an :class:`~mancala_envs.infra.config_files.UncheckedFileWarning`."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no openings file at {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is damaged: not UTF-8 text ({e})") from None
    body, first = checked_body(path, text, FORMAT)
    states, seen = [], {}
    for number, line in enumerate(body.splitlines(), start=first):
        if not line.strip():
            continue
        try:
            state = read_state_dict(json.loads(line), game)
        except (ValueError, TypeError, RecursionError) as e:
            raise ValueError(f"{path}, line {number}: not a {game.name} opening ({e})") from None
        if state.is_over:
            raise ValueError(f"{path}, line {number}: the position is already over")
        again = seen.setdefault(position_key(state), number)
        if again != number:
            raise ValueError(
                f"{path}, line {number}: the opening of line {again} again (each is listed once)"
            )
        states.append(state)
    if not states:
        raise ValueError(f"{path} holds no openings")
    return states


def resolve_openings(
    game: Game, spec: str | os.PathLike | Sequence[State] | None, n_pairs: int
) -> list[State] | None:
    """The openings of a match of ``n_pairs`` pairs: ``None`` / ``"none"`` -> None (the initial
    position), ``"default"`` -> the game's default suite of ``n_pairs`` openings, a path -> the
    suite in that file, a sequence of states -> itself. Matches cycle through a suite shorter than
    their pairs (the report then counts the repeated games)."""
    if spec is None or (isinstance(spec, str) and spec.lower() in NO_OPENINGS):
        return None
    if isinstance(spec, str) and spec.lower() == "default":
        return random_openings(game, n_pairs)
    if isinstance(spec, (str, os.PathLike)):
        return load_openings(spec, game)
    states = list(spec)
    if not states or not all(isinstance(s, State) for s in states):
        raise ValueError("openings must be 'default', 'none', a JSONL file or a non-empty list of States")
    return [game._check_state(s) for s in states]
