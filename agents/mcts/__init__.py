"""UCT Monte-Carlo tree search: the agent (:mod:`.agent`) and its compiled kernels (:mod:`.kernels`)."""
