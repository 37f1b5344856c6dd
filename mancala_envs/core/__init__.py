"""The compiled rules core: every rule of RULES.md as a small numba function over numpy arrays.

Modules, from the bottom up (each imports only those above it):

- :mod:`~mancala_envs.core.layout` — the packed state layout and the board geometry (§1);
- :mod:`~mancala_envs.core.sowing` — SE1/SE2 and the relay sowing SQ1/SQ2/SQ5, ED1/ED3;
- :mod:`~mancala_envs.core.songo` — SE3–SE8; :mod:`~mancala_envs.core.relay` — SQ3/SQ4, ED2;
- :mod:`~mancala_envs.core.engine` — :func:`~engine.play`, the one move entry point, the legal
  mask, the end of the game (SE9/SQ6/ED4, TR1) and the result helper;
- :mod:`~mancala_envs.core.batch` — batches of states and the players' views;
- :mod:`~mancala_envs.core.rollout` — whole random games;
- :mod:`~mancala_envs.core.checks` — validation of packed states at the public boundary.

A game is a rules vector (:meth:`mancala_envs.rulesets.Ruleset.to_array`); no kernel looks at
a game's name.
"""
