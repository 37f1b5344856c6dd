"""En Dodoi as a PettingZoo AEC environment: ``env()``, ``raw_env``, ``parallel_env()``.

Rules (docs/RULES.md §4): 2 × ``n`` holes (``holes_per_row`` 6..10, default 8), 4 seeds each
(``8n``), no stores. Relay sowing counter-clockwise, no hole skipped (ED1). A move ending in the
mover's own row opposite a non-empty hole captures that hole's seeds and the landing seed (ED2).
A relay that has not ended after 10,000 laps is illegal (ED3). When the player to move has no
legal move the game ends and the board goes to the last mover (ED4). More captured seeds wins,
equal draws (ED5). Truncated at ``max_plies`` (TR1).

Agents ``player_0``, ``player_1``. Action: ``Discrete(n)``, the mover's local hole 0..n-1 counted
left to right from his seat (RULES.md §1).

Observation ``Dict``:

* ``observation``: ``Box(0, 1, (2n + 2,), float32)`` — ``[own row (n), opponent row (n), own
  captured, opponent captured] / (8n)``, each row from its owner's seat (``Game.observation``).
* ``action_mask``: ``Box(0, 1, (n,), int8)`` — the legal holes for the agent to move; all zero for
  the other agent and once the game is over.

Rewards only at the end: +1 winner, -1 loser, 0 both on a draw or truncation.
``infos[agent]``: ``seat``, ``captured`` (own, opponent), ``ply``, ``winner`` (0/1, -1 draw, -2
none yet) and ``illegal_action``, numbers from ``reset`` on (:mod:`mancala_envs.envs.common`).

Arguments: ``holes_per_row`` (6..10, default 8) and those of
:class:`~mancala_envs.envs.aec.MancalaEnv` (``max_plies``, ``first_player``, ``render_mode``,
``illegal_action``, ...); checks, errors and ``state()`` are described in
:mod:`mancala_envs.envs.aec`. Registered as
``pettingzoo.make("aec", "mancala/en_dodoi-v0", holes_per_row=10)`` and
``pettingzoo.make("parallel", "mancala/en_dodoi-v0")`` (``waiting_noop=True``:
:mod:`mancala_envs.envs.parallel`).

The environment at a glance (PettingZoo's table):

====================  ========================================================================================
Import                ``from mancala_envs import en_dodoi_v0``
Actions               Discrete
Parallel API          Yes: ``en_dodoi_v0.parallel_env()``
Manual control        Yes: ``mancala play en_dodoi --p0 human``
Agents                ``agents = ["player_0", "player_1"]``
Number of agents      2
Action shape          ``Discrete(8)``; ``Discrete(n)`` with ``holes_per_row=n`` (6..10)
Action values         ``0..n-1``, the mover's local hole (RULES.md §1)
Observation shape     ``observation``: ``(18,)``; ``action_mask``: ``(8,)``; ``(2n + 2,)`` and ``(n,)`` with
                      ``holes_per_row=n``
Observation values    ``observation``: [0, 1], ``float32``; ``action_mask``: 0 or 1, ``int8``
Action mask           ``observation["action_mask"]``; with ``obs_format="flat"``:
                      ``infos[agent]["action_mask"]``
Rewards               +1 winner, -1 loser, 0 both on a draw or truncation; only at the end
Registered ids        ``pettingzoo.make("aec", "mancala/en_dodoi-v0")``, ``pettingzoo.make("parallel",
                      "mancala/en_dodoi-v0")``
Gymnasium id          ``mancala_envs/EnDodoi-v0`` (one seat against an opponent:
                      :mod:`mancala_envs.envs.single`)
====================  ========================================================================================

Version history: v0 — first release.
"""

from mancala_envs.envs.parallel import game_module_api as _api
from mancala_envs.rulesets import EN_DODOI as _RULESET

raw_env, env, parallel_env = _api(_RULESET.name, __name__)

__all__ = ["env", "parallel_env", "raw_env"]
