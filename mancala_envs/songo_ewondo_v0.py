"""Songo Ewondo as a PettingZoo AEC environment: ``env()``, ``raw_env``, ``parallel_env()``.

Rules (docs/RULES.md §2): 2 × 7 holes, 5 seeds each (70). One lap clockwise (SE1); a hole of 14 or
more seeds is sown into the opponent's row only (SE2). A sowing ending in an opponent hole that
now holds 2–4 captures it and, backwards, each preceding opponent hole with 2–4 (SE3); a sowing of
14, 21, 28… seeds captures the last hole only (SE4); a capture that would empty the opponent's
row is forfeited (SE5). The leftmost hole with 1–2 seeds is playable only as the last resort or
to capture (SE6). An empty opponent row must be fed, 7 seeds if possible (SE7). A lone seed in
the leftmost hole is taken by its owner (SE8). The game ends when the player to move has no legal
move; the board goes to the last mover (SE9). More captured seeds wins, 35–35 draws (SE10).
Truncated at ``max_plies`` (TR1).

Agents ``player_0``, ``player_1``. Action: ``Discrete(7)``, the mover's local hole 0..6 counted
left to right from his seat (RULES.md §1).

Observation ``Dict``:

* ``observation``: ``Box(0, 1, (16,), float32)`` — ``[own row (7), opponent row (7), own captured,
  opponent captured] / 70``, each row from its owner's seat (``Game.observation``).
* ``action_mask``: ``Box(0, 1, (7,), int8)`` — the legal holes for the agent to move; all zero for
  the other agent and once the game is over.

Rewards only at the end: +1 winner, -1 loser, 0 both on a draw or truncation.
``infos[agent]``: ``seat``, ``captured`` (own, opponent), ``ply``, ``winner`` (0/1, -1 draw, -2
none yet) and ``illegal_action``, numbers from ``reset`` on (:mod:`mancala_envs.envs.common`).

Arguments: those of :class:`~mancala_envs.envs.aec.MancalaEnv` (``max_plies``,
``first_player``, ``render_mode``, ``illegal_action``, ...); checks, errors and ``state()`` are
described in :mod:`mancala_envs.envs.aec`. Registered as
``pettingzoo.make("aec", "mancala/songo_ewondo-v0")`` and ``pettingzoo.make("parallel",
"mancala/songo_ewondo-v0")`` (``waiting_noop=True``: :mod:`mancala_envs.envs.parallel`).

The environment at a glance (PettingZoo's table):

====================  ========================================================================================
Import                ``from mancala_envs import songo_ewondo_v0``
Actions               Discrete
Parallel API          Yes: ``songo_ewondo_v0.parallel_env()``
Manual control        Yes: ``mancala play songo_ewondo --p0 human``
Agents                ``agents = ["player_0", "player_1"]``
Number of agents      2
Action shape          ``Discrete(7)``
Action values         ``0..6``, the mover's local hole (RULES.md §1)
Observation shape     ``observation``: ``(16,)``; ``action_mask``: ``(7,)``
Observation values    ``observation``: [0, 1], ``float32``; ``action_mask``: 0 or 1, ``int8``
Action mask           ``observation["action_mask"]``; with ``obs_format="flat"``:
                      ``infos[agent]["action_mask"]``
Rewards               +1 winner, -1 loser, 0 both on a draw or truncation; only at the end
Registered ids        ``pettingzoo.make("aec", "mancala/songo_ewondo-v0")``, ``pettingzoo.make("parallel",
                      "mancala/songo_ewondo-v0")``
Gymnasium id          ``mancala_envs/SongoEwondo-v0`` (one seat against an opponent:
                      :mod:`mancala_envs.envs.single`)
====================  ========================================================================================

Version history: v0 — first release.
"""

from mancala_envs.envs.parallel import game_module_api as _api
from mancala_envs.rulesets import SONGO_EWONDO as _RULESET

raw_env, env, parallel_env = _api(_RULESET.name, __name__)

__all__ = ["env", "parallel_env", "raw_env"]
