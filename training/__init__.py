"""Training: MaskablePPO self-play against an opponent pool (:mod:`training.train_ppo`, ``mancala
train``), the pool (:mod:`training.opponents`) and the evaluation against the baselines
(:mod:`training.evaluate`, ``mancala evaluate``)."""
