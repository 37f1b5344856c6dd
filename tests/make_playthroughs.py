"""Golden text playthroughs (after OpenSpiel's): for each variant, the seeded random game of
``tests/golden.py`` written out ply by ply — the board as ``render.ansi_board`` draws it, the legal
moves, the move played — and its result and returns at the end, one file a variant in
``tests/playthroughs/``.

``python tests/make_playthroughs.py`` rewrites them; ``tests/rules/test_playthroughs.py`` regenerates
them and fails on any difference, so that a change of the rules (or of the text board) shows as a
diff a person can read. Rewrite them only after a deliberate change, and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from golden import CONFIGS, SEED
from strategies import random_walk
from variants import variant_id

from mancala_envs import Game, State, get_game
from mancala_envs.render import ansi_board, result_text

FOLDER = Path(__file__).resolve().parent / "playthroughs"
AGENTS = ("player_0", "player_1")


def board(game: Game, state: State, previous: State | None) -> list[str]:
    """The text board, its lines' trailing spaces stripped."""
    return [line.rstrip() for line in ansi_board(game, state, previous=previous).splitlines()]


def returns(state: State) -> str:
    """The AEC env's final rewards: +1 to the winner, -1 to the loser, 0 to both otherwise."""
    won = state.winner if state.done and state.winner in (0, 1) else None
    values = [0 if won is None else (1 if seat == won else -1) for seat in (0, 1)]
    return ", ".join(f"{AGENTS[seat]} {v:+d}" for seat, v in enumerate(values))


def playthrough(name: str, params: dict, seed: int, first_player: int) -> str:
    """The text of one seeded random game (moves drawn as in :func:`golden.play`)."""
    game = get_game(name, **params)
    state = game.initial_state(first_player)
    lines = [
        f"# {variant_id(name, params)}: a seeded random game, written by `python tests/make_playthroughs.py`",
        f"game: {name}",
        f"params: {params}",
        f"seed: {seed}",
        f"first player: {AGENTS[first_player]}",
    ]
    previous = None
    for nxt in random_walk(game, np.random.default_rng(seed), state):
        legal = " ".join(str(a) for a in game.legal_actions(state))
        lines += ["", f"== ply {state.ply}", *board(game, state, previous), f"legal: {legal}"]
        lines.append(f"action: {nxt.last_action}")
        previous, state = state, nxt
    lines += ["", "== end", *board(game, state, previous)]
    lines += [f"result: {result_text(game, state)}", f"returns: {returns(state)}"]
    return "\n".join(lines) + "\n"


def generate() -> dict[str, str]:
    """File name -> text, for every variant (the seeds and first players of ``golden.generate``)."""
    return {
        f"{variant_id(name, params)}.txt": playthrough(name, params, SEED + i, i % 2)
        for i, (name, params) in enumerate(CONFIGS)
    }


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    for file_name, text in generate().items():
        (FOLDER / file_name).write_text(text, encoding="utf-8")
        print(f"wrote {FOLDER / file_name}")


if __name__ == "__main__":
    main()
