"""A person at the terminal: the agent shows the text board (his row at the bottom, the last
move's hole marked, and the seeds the opponent's last move captured) and asks for a hole.

Malformed input (not a number), a hole that does not exist and an illegal move are explained and
asked again; ``?`` lists the legal holes; ``q`` quits (:class:`QuitGame`). Input and output
streams are injectable (tests, GUIs).
"""

from __future__ import annotations

import sys
from typing import TextIO

from mancala_envs.agents.base import Agent, require_running
from mancala_envs.game import Game
from mancala_envs.render import ansi_board
from mancala_envs.state import State


class QuitGame(Exception):
    """The person typed ``q``: the game is abandoned."""


class HumanAgent(Agent):
    """Asks ``input_stream`` for a hole (``output_stream`` shows the board and the prompts)."""

    def __init__(
        self, seed: int = 0, input_stream: TextIO | None = None, output_stream: TextIO | None = None
    ):
        super().__init__(seed)  # the generator is unused: a person's choices need no randomness
        self.name = "human"
        self.input = input_stream
        self.output = output_stream
        self._after: tuple[Game, State] | None = None  # the position this agent's last move made

    def _before(self, game: Game, state: State) -> State | None:
        """The state before the last move of ``state``: the one this agent's own move made, or the
        start of the game at ply 1, when the last move leads from it to ``state``; else ``None``."""
        action = state.last_action
        if action is None:
            return None
        candidates = [self._after[1]] if self._after is not None and self._after[0] is game else []
        if state.ply == 1:
            candidates.append(game.initial_state())
        for before in candidates:  # apply raises on an illegal move (the mask has none once over)
            follows = before.ply + 1 == state.ply and game.legal_mask(before)[action]
            if follows and game.apply(before, action) == state:
                return before
        return None

    def _say(self, text: str, end: str = "\n") -> None:
        out = self.output or sys.stdout
        out.write(text + end)
        out.flush()

    def act(self, game: Game, state: State) -> int:
        legal = [int(a) for a in require_running(game, state).nonzero()[0]]
        n = game.num_actions
        self._say(ansi_board(game, state, bottom=state.to_move, previous=self._before(game, state)))
        while True:
            self._say(
                f"player {state.to_move}, your move: hole 0..{n - 1} (? for the legal holes, q to quit): ",
                end="",
            )
            line = (self.input or sys.stdin).readline()
            if not line:
                raise EOFError("the input ended before a move was chosen")
            text = line.strip()
            if text.lower() in ("q", "quit", "exit"):
                raise QuitGame(f"player {state.to_move} quit at ply {state.ply}")
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
                self._after = (game, game.apply(state, hole))
                return hole
