"""A person at the terminal: the agent shows the text board and asks for a hole.

Malformed input (not a number), a hole that does not exist and an illegal move are explained and
asked again; ``?`` lists the legal holes. Input and output streams are injectable (tests, GUIs).
"""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from mancala_envs import Game, State


def board_text(game: Game, state: State) -> str:
    """The text board of :func:`mancala_envs.render.ansi_board`, or a plain two-row fallback."""
    try:
        from mancala_envs.render import ansi_board
    except ImportError:  # the renderer is optional for this agent
        n, me = game.holes_per_row, state.to_move
        opp_row = state.board[(1 - me) * n : (2 - me) * n][::-1]
        own_row = state.board[me * n : (me + 1) * n]
        return "\n".join(
            [
                f"player {1 - me}: " + " ".join(f"{v:3d}" for v in opp_row),
                f"player {me}: " + " ".join(f"{v:3d}" for v in own_row),
                "   hole: " + " ".join(f"{i:3d}" for i in range(n)),
                f"captured: player 0 {state.captured[0]}, player 1 {state.captured[1]}",
            ]
        )
    return ansi_board(game, state)


class HumanAgent:
    """Asks ``input_stream`` for a hole (``output_stream`` shows the board and the prompts)."""

    def __init__(
        self, seed: int = 0, input_stream: TextIO | None = None, output_stream: TextIO | None = None
    ):
        self.name = "human"
        self.rng = np.random.default_rng(seed)  # unused: a person's choices need no generator
        self.input = input_stream
        self.output = output_stream

    def _say(self, text: str, end: str = "\n") -> None:
        out = self.output or sys.stdout
        out.write(text + end)
        out.flush()

    def act(self, game: Game, state: State) -> int:
        legal = game.legal_actions(state)
        if not legal:
            raise ValueError("no legal move: the game is over")
        n = game.num_actions
        self._say(board_text(game, state))
        while True:
            self._say(f"player {state.to_move}, your move: hole 0..{n - 1} (? for the legal holes): ", end="")
            line = (self.input or sys.stdin).readline()
            if not line:
                raise EOFError("the input ended before a move was chosen")
            text = line.strip()
            if text in ("?", "help"):
                self._say(f"legal holes: {', '.join(map(str, legal))}")
                continue
            try:
                hole = int(text)
            except ValueError:
                self._say(f"{text!r} is not a hole number; type one of {', '.join(map(str, legal))}")
                continue
            if not 0 <= hole < n:
                self._say(f"there is no hole {hole}: holes are numbered 0..{n - 1} from your left")
            elif hole not in legal:
                empty = state.board[state.to_move * n + hole] == 0
                why = "it is empty" if empty else "the rules forbid it here"
                self._say(f"hole {hole} cannot be played: {why}; legal holes: {', '.join(map(str, legal))}")
            else:
                return hole
