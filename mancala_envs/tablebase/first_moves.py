"""The value of every move at a position's first real choice (the forced moves before it
followed), for the player choosing: the end of the game, the table's exact outcome, or a proof
search of its own (:func:`~mancala_envs.tablebase.solve.solve`). ``mancala solve`` reports them
after the root's value (:mod:`mancala_envs.cli.solve`)."""

from __future__ import annotations

from collections.abc import Container, Iterator
from dataclasses import dataclass
from typing import Any

from mancala_envs.game import Game, outcome
from mancala_envs.state import State
from mancala_envs.tablebase.solve import Solution, solve


@dataclass
class FirstMove:
    """One move of the first choice: ``moves`` the forced moves then this one; ``value`` for the
    player choosing (None when the search's budget ran out); ``leaf`` ``"end"`` or ``"table"``
    when no search was needed, else ``solution``, the search's (its values for the player to move
    after the move)."""

    moves: list[int]
    value: int | None
    leaf: str | None = None
    solution: Solution | None = None


def first_choice(game: Game, state: State) -> tuple[list[int], State]:
    """The forced moves from ``state`` (one legal move each) and the position of the first choice."""
    forced = []
    while not state.is_over and len(legal := game.legal_actions(state)) == 1:
        forced.append(legal[0])
        state = game.apply(state, forced[-1])
    return forced, state


def chooser_sign(choice: State, after: State) -> int:
    """1 when the player choosing at ``choice`` moves again at ``after``, else -1: a value for the
    player to move at ``after`` times this is the chooser's."""
    return 1 if after.to_move == choice.to_move else -1


def first_moves(
    game: Game, table, choice: State, forced: list[int], skip: Container[int] = (), **limits: Any
) -> Iterator[FirstMove]:
    """Each legal move of ``choice`` (reached by the moves ``forced``) with its value for the
    player choosing, one at a time, but those in ``skip`` (``limits``: those of :func:`solve`)."""
    for action in game.legal_actions(choice):
        if action in skip:
            continue
        after = game.apply(choice, action)
        line = [*forced, action]
        sign = chooser_sign(choice, after)  # values are for the player to move
        if after.is_over:
            yield FirstMove(line, outcome(after.winner, choice.to_move), leaf="end")
        elif table.covers(after):
            yield FirstMove(line, sign * table.outcome(after), leaf="table")
        else:
            sub = solve(game, table, after, **limits)
            yield FirstMove(line, None if sub.value is None else sign * sub.value, solution=sub)
