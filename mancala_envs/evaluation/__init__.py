"""Measuring agents: the arena (:mod:`.arena`), opening suites (:mod:`.openings`) and their balance
(:mod:`~mancala_envs.evaluation.balance`), ratings (:mod:`.ratings`), the optimality metric
(:mod:`~mancala_envs.evaluation.optimality`), the making of optimality suites
(:mod:`~mancala_envs.evaluation.suite_sampling`), game statistics (:mod:`.statistics`), the evaluation
against the baselines (:mod:`~mancala_envs.evaluation.evaluate`, ``mancala evaluate``) and
offline-RL datasets of agent pairs (:mod:`~mancala_envs.evaluation.dataset`, ``mancala dataset``).
Their command lines are in :mod:`mancala_envs.cli`."""
