"""Every variant as a :class:`pgx.Env`: pure ``init``/``step``/``observe``, fixed shapes, ``jit``,
``vmap`` and ``pmap`` safe, no host callbacks (docs/jax.md).

A :class:`JaxState` carries pgx's public fields (``current_player`` is the player to move,
``observation`` his flat view, ``rewards`` +1/-1/0 by player id at the end) and the position:
board, captured seeds, ply, winner, SQ4's pending flags, the last action, and every move of the
player to move already resolved (:class:`~mancala_envs.jax.rules.Moves`): the legal mask needs
each move simulated, so ``step`` only selects the chosen one. ``to_state``/``from_state``
convert to and from the rules core's :class:`~mancala_envs.State` (checked by its own kernels).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pgx
from pgx._src.struct import dataclass, field

from mancala_envs.game import Game, get_game, variants
from mancala_envs.jax import relay, rules
from mancala_envs.jax.relay import NEVER_ENDS, relay_simulator
from mancala_envs.rulesets import SOW_RELAY, Ruleset
from mancala_envs.state import State

VERSION = "v0"
RUNNING, DONE, TRUNCATED = 0, 1, 2  # mancala_envs.core.layout's status codes


@dataclass
class JaxState(pgx.State):
    """A position of one variant (pgx's six public fields, then the game's own, private)."""

    current_player: jax.Array
    observation: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    legal_action_mask: jax.Array
    _step_count: jax.Array
    _board: jax.Array  # int32[2n]
    _captured: jax.Array  # int32[2]
    _ply: jax.Array  # int32
    _winner: jax.Array  # int32: 0, 1, -1 draw, -2 none
    _pending: jax.Array  # bool[2], SQ4
    _last_action: jax.Array  # int32, -1 none
    _illegal: jax.Array  # bool: ended by an illegal action (pgx's penalty)
    _moves: rules.Moves  # every move of the player to move, resolved
    _variant: str = field(pytree_node=False, default="")

    @property
    def env_id(self) -> Any:
        return self._variant

    def to_svg(self, **kwargs: Any) -> str:
        """The board as SVG (the rules core's picture; pgx's visualiser knows only its games).
        Needs the game: the variant's default parameters are rebuilt from its name."""
        return to_state(self, variant_game(self._variant))._repr_svg_()

    def save_svg(self, filename: str, **kwargs: Any) -> None:
        with open(filename, "w") as f:
            f.write(self.to_svg())


class JaxEnv(pgx.Env):
    """One variant as a pgx environment: ``JaxEnv("en_dodoi", holes_per_row=8)`` (the arguments of
    :func:`mancala_envs.get_game`, or a :class:`~mancala_envs.Game`). Player 0 moves first."""

    def __init__(self, game: str | Game = "songo_ewondo", **params: Any):
        super().__init__()
        if isinstance(game, Game):
            if params:
                raise TypeError(f"JaxEnv takes a Game or a name with its parameters, not both: {params}")
            self.game = game
        else:
            self.game = get_game(game, **params)
        self.ruleset: Ruleset = self.game.ruleset
        self._observation_size = self.game.observation_size
        self._settle_compiled = jax.jit(self._settle)  # from_state's (init and step trace _settle)

    def __repr__(self) -> str:
        return f"JaxEnv({self.game!r})"

    # pgx's properties
    @property
    def id(self) -> Any:
        return self.game.variant

    @property
    def version(self) -> str:
        return VERSION

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self._observation_size,)

    # pgx's hooks
    def _init(self, key: jax.Array) -> JaxState:
        del key  # the start is fixed (RULES.md §1: player 0 moves first)
        r = self.ruleset
        n = r.holes_per_row
        return self._settle(
            board=jnp.full(2 * n, r.seeds_per_hole, jnp.int32),
            captured=jnp.zeros(2, jnp.int32),
            mover=jnp.int32(0),
            ply=jnp.int32(0),
            pending=jnp.full(2, r.opening_hole >= 0),
            last_action=jnp.int32(-1),
            step_count=jnp.int32(0),
        )

    def _step(self, state: JaxState, action: jax.Array, key: jax.Array | None) -> JaxState:
        """The move (already resolved in ``state._moves``), the end of the turn, then the next
        player's moves and the end of the game (SE9/SQ6/ED4, TR1)."""
        del key
        mover = state.current_player
        action = jnp.int32(action)
        legal = state._moves.legal[action]
        board = state._moves.boards[action]
        captured = state._captured.at[mover].add(state._moves.gains[action])
        after = self._settle(
            board=board,
            captured=captured,
            mover=1 - mover,
            ply=state._ply + 1,
            pending=state._pending.at[mover].set(False),
            last_action=action,
            step_count=state._step_count,
        )
        # pgx ends the game on an illegal action with its penalty; the position stays as it was
        forfeit = state.replace(_illegal=jnp.bool_(True), _winner=1 - mover)  # type: ignore[attr-defined]
        return jax.tree.map(lambda a, b: jnp.where(legal, a, b), after, forfeit)

    def _observe(self, state: JaxState, player_id: jax.Array) -> jax.Array:
        """The rules core's flat view (``Game.observation``): ``player_id``'s row first, then the
        opponent's, both captured counts (own first), seeds divided by the total; + SQ4's flags."""
        r = self.ruleset
        n = r.holes_per_row
        scale = 1.0 / r.total_seeds
        board = jnp.roll(state._board, -player_id * n)
        captured = jnp.stack([state._captured[player_id], state._captured[1 - player_id]])
        parts = [board * scale, captured * scale]
        if r.opening_hole >= 0:
            parts.append(jnp.stack([state._pending[player_id], state._pending[1 - player_id]]))
        return jnp.concatenate(parts).astype(jnp.float32)

    # the rules
    def moves(self, board: jax.Array, mover: jax.Array, pending: jax.Array):
        """Every move of ``mover`` resolved: :class:`~mancala_envs.jax.rules.Moves`."""
        r = self.ruleset
        n = r.holes_per_row
        actions = jnp.arange(n, dtype=jnp.int32)
        if r.sowing != SOW_RELAY:
            boards, gains = jax.vmap(lambda a: rules.play_songo(r, board, mover, a))(actions)
            return rules.Moves(boards, gains, rules.songo_legal(r, board, mover, boards, gains))
        starts = mover * n + actions
        active = rules.own_row(r, board, mover) > 0
        simulate = relay_simulator(r.direction, r.max_relay_laps, relay.PLAN)
        ends, landing = simulate(jnp.broadcast_to(board, (n, 2 * n)), starts, active)
        boards, gains = jax.vmap(lambda b, h: rules.relay_capture(r, b, mover, h))(ends, landing)
        legal = rules.relay_legal(r, board, mover, pending, landing != NEVER_ENDS)
        return rules.Moves(boards, gains, legal)

    def _settle(self, board, captured, mover, ply, pending, last_action, step_count) -> JaxState:
        """A position with ``mover`` to move: his moves; no legal move ends the game (SE9/SQ6/ED4),
        else ``max_plies`` truncates it (TR1)."""
        r = self.ruleset
        moves = self.moves(board, mover, pending)
        over = ~jnp.any(moves.legal)
        end_board, end_captured, winner = rules.finish(r, board, captured, 1 - mover)
        truncated = ~over & (ply >= r.max_plies)
        winner = jnp.where(over, winner, rules.NO_WINNER)
        rewards = jnp.where(over, outcome_of(winner), jnp.zeros(2, jnp.float32))
        return JaxState(
            current_player=jnp.int32(mover),
            observation=jnp.zeros(self._observation_size, jnp.float32),
            rewards=rewards,
            terminated=over,
            truncated=truncated,
            legal_action_mask=moves.legal | over | truncated,  # pgx: all "legal" once over
            _step_count=step_count,
            _board=jnp.where(over, end_board, board),
            _captured=jnp.where(over, end_captured, captured),
            _ply=jnp.int32(ply),
            _winner=jnp.int32(winner),
            _pending=pending,
            _last_action=jnp.int32(last_action),
            _illegal=jnp.bool_(False),
            _moves=moves,
            _variant=self.game.variant,
        )

    # conversions
    def to_state(self, state: JaxState) -> State:
        return to_state(state, self.game)

    def from_state(self, state: State) -> JaxState:
        """The pgx state of a rules-core :class:`~mancala_envs.State` of this game."""
        if not isinstance(state, State) or state.game != self.game:
            raise ValueError(f"from_state takes a State of {self.game!r}, got {state!r}")
        pending = state.first_move_pending or (False, False)
        jstate = self._settle_compiled(
            board=jnp.asarray(state.board, jnp.int32),
            captured=jnp.asarray(state.captured, jnp.int32),
            mover=jnp.int32(state.to_move),
            ply=jnp.int32(state.ply),
            pending=jnp.asarray(pending, bool),
            last_action=jnp.int32(-1 if state.last_action is None else state.last_action),
            step_count=jnp.int32(0),
        )
        return jstate.replace(observation=self.observe(jstate))  # type: ignore[attr-defined]


def outcome_of(winner: jax.Array) -> jax.Array:
    """Rewards by player id: +1 to the winner, -1 to the loser, 0 for a draw (``outcome``)."""
    players = jnp.arange(2)
    return jnp.where(winner == players, 1.0, jnp.where(winner == 1 - players, -1.0, 0.0)).astype(jnp.float32)


def to_state(state: JaxState, game: Game) -> State:
    """The rules core's :class:`~mancala_envs.State` of one (unbatched) pgx state of ``game``;
    every field is checked by the core (``Game.state_from_array``). ``ValueError`` for a batch,
    another variant, or a game that pgx ended on an illegal action (no rules position)."""
    if not isinstance(state, JaxState) or state._variant != game.variant:
        raise ValueError(f"to_state takes a JaxState of {game.variant}, got {type(state).__name__}")
    if np.ndim(state.current_player) != 0:
        raise ValueError("to_state takes one state; index a batch first (jax.tree.map(lambda x: x[i], s))")
    if bool(state._illegal):
        raise ValueError("this game ended on an illegal action (pgx's penalty): it has no rules position")
    arr = to_packed(state, game)
    return game.state_from_array(arr)


def variant_game(variant: str) -> Game:
    """The game (default ``max_plies``) whose variant name is ``variant`` (``en_dodoi_8``)."""
    for game in variants():
        if game.variant == variant:
            return game
    raise ValueError(f"no variant is named {variant!r}: {', '.join(g.variant for g in variants())}")


@lru_cache(maxsize=64)
def env_for(game: Game) -> JaxEnv:
    """One shared :class:`JaxEnv` per game, so that its compiled functions are reused."""
    return JaxEnv(game)


def make(game: str = "songo_ewondo", **params: Any) -> JaxEnv:
    """``make("en_dodoi", holes_per_row=8)``: the pgx env of a variant (pgx's ``make`` style)."""
    return JaxEnv(game, **params)


def to_packed(state: JaxState, game: Game) -> np.ndarray:
    """The rules core's packed vectors (``int32[..., L]``, :mod:`mancala_envs.core.layout`) of a
    pgx state or a batch of them, unchecked: what ``Game.state_from_array`` and the numba batch
    kernels read. Positions ended on an illegal action keep the board they had."""
    lay = game.layout
    batch = np.shape(state.current_player)
    arr = np.zeros((*batch, lay.length), np.int32)
    status = np.where(
        np.asarray(state.terminated), DONE, np.where(np.asarray(state.truncated), TRUNCATED, RUNNING)
    )
    arr[..., lay.board] = np.asarray(state._board)
    arr[..., lay.captured] = np.asarray(state._captured)
    arr[..., lay.to_move] = np.asarray(state.current_player)
    arr[..., lay.ply] = np.asarray(state._ply)
    arr[..., lay.status] = status
    arr[..., lay.winner] = np.asarray(state._winner)
    if game.ruleset.opening_hole >= 0:
        arr[..., lay.pending] = np.asarray(state._pending, np.int32)
    arr[..., lay.last_action] = np.asarray(state._last_action)
    arr[..., lay.mask] = np.asarray(state._moves.legal, np.int32) * (status == RUNNING)[..., None]
    return arr
