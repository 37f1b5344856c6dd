"""Trained policies as agents: MaskablePPO (:mod:`.policy`, its input layers :mod:`.features`) and
RLlib (:mod:`.rllib`)."""
