"""UCT Monte-Carlo tree search: the agent (:mod:`~mancala_envs.agents.mcts.agent`) and its compiled
kernels (:mod:`~mancala_envs.agents.mcts.kernels`)."""
