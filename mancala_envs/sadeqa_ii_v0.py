"""Sadeqa II as a PettingZoo AEC environment: ``env()``, ``raw_env``, ``parallel_env()``.

Rules (docs/RULES.md §3): 2 × 6 holes, 3 seeds each (36), no stores. Relay sowing
counter-clockwise: a last seed landing in an occupied hole lifts that hole and sows on; the move
ends in an empty hole (SQ1), no hole is ever skipped (SQ2). Then the hole opposite the landing
hole is emptied into the mover's ``captured`` count, on either side of the board (SQ3). Each
player's first move is from his rightmost hole, local 5, unless that is empty or never ends
(SQ4). A relay that has not ended after 10,000 laps is illegal (SQ5). When the player to move has
no legal move the game ends and the last mover — the player who still has seeds — wins; if the
player to move has seeds but only never-ending moves it is a draw (SQ6). ``captured`` does not
decide the result. Truncated at ``max_plies`` (TR1).

Agents ``player_0``, ``player_1``. Action: ``Discrete(6)``, the mover's local hole 0..5 counted
left to right from his seat (RULES.md §1).

Observation ``Dict``:

* ``observation``: ``Box(0, 1, (16,), float32)`` — ``[own row (6), opponent row (6), own captured,
  opponent captured] / 36, own first_move_pending, opponent first_move_pending`` (the last two
  0/1), each row from its owner's seat (``Game.observation``).
* ``action_mask``: ``Box(0, 1, (6,), int8)`` — the legal holes for the agent to move; all zero for
  the other agent and once the game is over.

Rewards only at the end: +1 to the survivor (the winner of SQ6), -1 to the other, 0 both on a draw
or truncation. ``infos[agent]``: ``seat``, ``captured`` (own, opponent), ``ply``, ``winner`` (0/1,
-1 draw, -2 none yet) and ``illegal_action``, numbers from ``reset`` on
(:mod:`mancala_envs.envs.common`).

Arguments: those of :class:`~mancala_envs.envs.aec.MancalaEnv` (``max_plies``,
``first_player``, ``render_mode``, ``illegal_action``, ...); checks, errors and ``state()`` are
described in :mod:`mancala_envs.envs.aec`. Registered as
``pettingzoo.make("aec", "mancala/sadeqa_ii-v0")`` and ``pettingzoo.make("parallel",
"mancala/sadeqa_ii-v0")`` (``waiting_noop=True``: :mod:`mancala_envs.envs.parallel`).

The environment at a glance (PettingZoo's table):

====================  ========================================================================================
Import                ``from mancala_envs import sadeqa_ii_v0``
Actions               Discrete
Parallel API          Yes: ``sadeqa_ii_v0.parallel_env()``
Manual control        Yes: ``mancala play sadeqa_ii --p0 human``
Agents                ``agents = ["player_0", "player_1"]``
Number of agents      2
Action shape          ``Discrete(6)``
Action values         ``0..5``, the mover's local hole (RULES.md §1)
Observation shape     ``observation``: ``(16,)``; ``action_mask``: ``(6,)``
Observation values    ``observation``: [0, 1], ``float32``; ``action_mask``: 0 or 1, ``int8``
Action mask           ``observation["action_mask"]``; with ``obs_format="flat"``:
                      ``infos[agent]["action_mask"]``
Rewards               +1 winner, -1 loser, 0 both on a draw or truncation; only at the end
Registered ids        ``pettingzoo.make("aec", "mancala/sadeqa_ii-v0")``, ``pettingzoo.make("parallel",
                      "mancala/sadeqa_ii-v0")``
Gymnasium id          ``mancala_envs/SadeqaII-v0`` (one seat against an opponent:
                      :mod:`mancala_envs.envs.single`)
====================  ========================================================================================

Version history: v0 — first release.
"""

from mancala_envs.envs.parallel import game_module_api as _api
from mancala_envs.rulesets import SADEQA_II as _RULESET

raw_env, env, parallel_env = _api(_RULESET.name, __name__)

__all__ = ["env", "parallel_env", "raw_env"]
