"""Alpha-beta search: the agent (:mod:`.agent`) and its compiled kernels (:mod:`.alphabeta`)."""
