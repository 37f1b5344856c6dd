"""Alpha-beta search: the agent (:mod:`~mancala_envs.agents.minimax.agent`) and its compiled kernels
(:mod:`.alphabeta`)."""
