"""Measuring agents: the arena (:mod:`.arena`), opening suites (:mod:`.openings`) and their balance
(:mod:`.balance`), ratings (:mod:`.ratings`), the optimality metric (:mod:`.optimality`),
the making of optimality suites (:mod:`.suite_sampling`), game statistics (:mod:`.statistics`),
the evaluation against the baselines (:mod:`.evaluate`, ``mancala evaluate``) and offline-RL
datasets of agent pairs (:mod:`.dataset`, ``mancala dataset``)."""
